// A loop with two latches, as the compiler emits for block scales: the
// first jumps back when the block goes on; the block-end update after it
// runs only on the trips that end a block.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl blocks
.p2align 8
.type blocks,@function
blocks:
  s_mov_b32 s4, 0
.Lloop:
  v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[20:21], v[22:23], v[0:3]
  v_mfma_f32_16x16x32_fp8_fp8 v[4:7], v[20:21], v[22:23], v[4:7]
  v_add_u32_e32 v30, 1, v30
  v_add_u32_e32 v31, 1, v31
  s_add_u32 s4, s4, 1
  s_and_b32 s5, s4, 3
  s_cmp_lg_u32 s5, 0
  s_cbranch_scc1 .Lloop
  v_pk_fma_f32 v[8:9], v[0:1], v[24:25], v[8:9]
  v_pk_fma_f32 v[10:11], v[2:3], v[24:25], v[10:11]
  v_pk_fma_f32 v[12:13], v[4:5], v[24:25], v[12:13]
  v_pk_fma_f32 v[14:15], v[6:7], v[24:25], v[14:15]
  // EXTRA
  s_cmp_lg_u32 s4, 64
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel blocks
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 32
.end_amdhsa_kernel
