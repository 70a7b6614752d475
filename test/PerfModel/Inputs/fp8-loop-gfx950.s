// Four FP8 MFMAs and the loop counter; the test substitutes MFMA and the
// operands: the f8f6f4 opcode (32 cycles for 16x16x128) or the gfx942
// one (16 cycles for 16x16x32).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl fp8_loop
.p2align 8
.type fp8_loop,@function
fp8_loop:
  s_mov_b32 s4, 0
.Lloop:
  MFMA v[0:3], OPERANDS, v[0:3]
  MFMA v[4:7], OPERANDS, v[4:7]
  MFMA v[8:11], OPERANDS, v[8:11]
  MFMA v[12:15], OPERANDS, v[12:15]
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
