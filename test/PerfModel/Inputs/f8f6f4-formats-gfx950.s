// The four operand-format cases of gfx950's f8f6f4 MFMAs (cbsz: A's
// format, blgp: B's; 0 fp8, 4 fp4).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl formats
.p2align 8
.type formats,@function
formats:
  s_mov_b32 s4, 0
.Lloop:
  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[16:23], v[24:31], v[0:3]
  v_mfma_f32_16x16x128_f8f6f4 v[4:7], v[16:19], v[24:27], v[4:7] cbsz:4 blgp:4
  v_mfma_f32_16x16x128_f8f6f4 v[8:11], v[16:19], v[24:31], v[8:11] cbsz:4
  v_mfma_scale_f32_16x16x128_f8f6f4 v[12:15], v[16:19], v[24:27], v[12:15], v32, v33 op_sel_hi:[0,0,0] cbsz:4 blgp:4
  v_mfma_f32_32x32x64_f8f6f4 v[40:55], v[16:23], v[24:31], v[40:55]
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 100
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel formats
  .amdhsa_next_free_vgpr 56
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 56
.end_amdhsa_kernel
