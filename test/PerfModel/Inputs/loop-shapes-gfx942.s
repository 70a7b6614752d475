// Kernels whose main loop is not a plain MFMA loop (loop-selection.test):
// a nest, a loop without MFMAs, straight-line MFMAs, no kernel descriptor.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl nest
.p2align 8
.type nest,@function
nest:
  s_mov_b32 s4, 0
.Louter:
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  v_mfma_f32_32x32x16_fp8_fp8 v[16:31], v[64:65], v[66:67], v[16:31]
  s_mov_b32 s5, 0
.Linner:
  v_mfma_f32_32x32x16_fp8_fp8 v[32:47], v[64:65], v[66:67], v[32:47]
  s_add_u32 s5, s5, 1
  s_cmp_lg_u32 s5, 100
  s_cbranch_scc1 .Linner
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 4
  s_cbranch_scc1 .Louter
  s_endpgm

.globl copy
.p2align 8
.type copy,@function
copy:
  s_mov_b32 s4, 0
.Lcopy:
  global_load_dwordx4 v[0:3], v[4:5], off
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v[6:7], v[0:3], off
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 1000
  s_cbranch_scc1 .Lcopy
  s_endpgm

.globl chain
.p2align 8
.type chain,@function
chain:
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel nest
  .amdhsa_next_free_vgpr 68
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 68
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel copy
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel chain
  .amdhsa_next_free_vgpr 128
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 128
.end_amdhsa_kernel
