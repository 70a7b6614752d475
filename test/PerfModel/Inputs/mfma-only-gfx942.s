// A loop of nothing but MFMAs: four independent 32x32x16 fp8 MFMAs (32
// cycles each on gfx942) and the loop counter (scalar, co-issued).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl mfma_only
.p2align 8
.type mfma_only,@function
mfma_only:
  s_mov_b32 s4, 0
.Lloop:
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  v_mfma_f32_32x32x16_fp8_fp8 v[16:31], v[64:65], v[66:67], v[16:31]
  v_mfma_f32_32x32x16_fp8_fp8 v[32:47], v[64:65], v[66:67], v[32:47]
  v_mfma_f32_32x32x16_fp8_fp8 v[48:63], v[64:65], v[66:67], v[48:63]
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 100
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel mfma_only
  .amdhsa_next_free_vgpr 68
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 68
.end_amdhsa_kernel
