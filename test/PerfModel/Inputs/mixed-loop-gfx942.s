// One iteration with every instruction class the model counts; the counts
// per wave and trip are worked out in instruction-counts.test.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl mixed
.p2align 8
.type mixed,@function
mixed:
  s_mov_b32 s4, 0
.Lloop:
  global_load_dwordx4 v[40:43], v[60:61], off
  global_load_dwordx4 v[44:47], v[62:63], off
  ds_read_b128 v[20:23], v50
  ds_read2_b64 v[24:27], v51 offset1:1
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[20:21], v[24:25], v[0:3]
  v_mfma_f32_16x16x32_fp8_fp8 v[4:7], v[22:23], v[26:27], v[4:7]
  v_add_u32_e32 v50, 64, v50
  v_exp_f32_e32 v52, v53
  v_add_f32_e32 v54, v0, v4
  v_add_f32_e64 v55, -v1, |v5|
  s_waitcnt vmcnt(0)
  ds_write_b64 v51, v[40:41]
  global_store_dword v[60:61], v54, off
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 16
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel mixed
  .amdhsa_next_free_vgpr 64
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 64
  .amdhsa_group_segment_fixed_size 16384
.end_amdhsa_kernel
