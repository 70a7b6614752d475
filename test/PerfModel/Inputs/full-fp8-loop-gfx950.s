// FP8 MFMAs only, the f8f6f4 opcode (32 cycles for 16x16x128).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl fp8_loop
.p2align 8
.type fp8_loop,@function
fp8_loop:
  s_mov_b32 s4, 0
.Lloop:
  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[16:23], v[24:31], v[0:3]
  v_mfma_f32_16x16x128_f8f6f4 v[4:7], v[16:23], v[24:31], v[4:7]
  v_mfma_f32_16x16x128_f8f6f4 v[8:11], v[16:23], v[24:31], v[8:11]
  v_mfma_f32_16x16x128_f8f6f4 v[12:15], v[16:23], v[24:31], v[12:15]
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 100
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel fp8_loop
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 32
.end_amdhsa_kernel
