// Two waves of one workgroup per SIMD (8 waves, block 512) with one K loop:
// a load phase (prefetching global loads, LDS reads and their waits) and an
// MFMA cluster, each closed by a barrier. In the ping-pong build (PINGPONG defined) the upper half of
// the waves (work-items 256-511: bit 8 of the id) passes one extra barrier
// before the loop, so the two waves of a SIMD run out of phase: one in its
// MFMA cluster while the other loads. Without it both meet at every barrier
// and reach the matrix pipe together.
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl pingpong
.p2align 8
.type pingpong,@function
pingpong:
  s_mov_b32 s8, 0
  v_and_b32_e32 v2, 0x100, v0
  v_cmp_ne_u32_e32 vcc, 0, v2
  s_and_saveexec_b64 s[0:1], vcc
  s_cbranch_execz .Ljoin
  // BARRIER
.Ljoin:
  s_or_b64 exec, exec, s[0:1]
.Lloop:
  global_load_dwordx4 v[40:43], v[44:45], off
  global_load_dwordx4 v[46:49], v[44:45], off offset:1024
  ds_read_b128 v[50:53], v60
  ds_read_b128 v[54:57], v60 offset:1024
  ds_read_b128 v[50:53], v60 offset:2048
  ds_read_b128 v[54:57], v60 offset:3072
  ds_read_b128 v[50:53], v60 offset:4096
  ds_read_b128 v[54:57], v60 offset:5120
  ds_read_b128 v[50:53], v60 offset:6144
  ds_read_b128 v[54:57], v60 offset:7168
  s_waitcnt lgkmcnt(0)
  s_waitcnt vmcnt(2)
  s_barrier
  s_setprio 1
  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[24:31], v[16:23], v[0:3]
  v_mfma_f32_16x16x128_f8f6f4 v[4:7], v[24:31], v[16:23], v[4:7]
  v_mfma_f32_16x16x128_f8f6f4 v[8:11], v[24:31], v[16:23], v[8:11]
  v_mfma_f32_16x16x128_f8f6f4 v[12:15], v[24:31], v[16:23], v[12:15]
  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[24:31], v[16:23], v[0:3]
  v_mfma_f32_16x16x128_f8f6f4 v[4:7], v[24:31], v[16:23], v[4:7]
  v_mfma_f32_16x16x128_f8f6f4 v[8:11], v[24:31], v[16:23], v[8:11]
  v_mfma_f32_16x16x128_f8f6f4 v[12:15], v[24:31], v[16:23], v[12:15]
  s_setprio 0
  s_barrier
  s_add_i32 s8, s8, 1
  s_cmp_lt_i32 s8, s6
  s_cbranch_scc1 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel pingpong
  .amdhsa_next_free_vgpr 128
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 128
.end_amdhsa_kernel
