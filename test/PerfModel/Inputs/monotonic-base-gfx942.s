// The base of monotonic.test: four MFMAs and the loop counter; the RUN
// lines insert more work at the EXTRA marker.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl base
.p2align 8
.type base,@function
base:
  s_mov_b32 s4, 0
.Lloop:
  v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[64:65], v[66:67], v[0:15]
  v_mfma_f32_32x32x16_fp8_fp8 v[16:31], v[64:65], v[66:67], v[16:31]
  // EXTRA
  v_mfma_f32_32x32x16_fp8_fp8 v[32:47], v[64:65], v[66:67], v[32:47]
  v_mfma_f32_32x32x16_fp8_fp8 v[48:63], v[64:65], v[66:67], v[48:63]
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 100
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel base
  .amdhsa_next_free_vgpr 96
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 96
.end_amdhsa_kernel
