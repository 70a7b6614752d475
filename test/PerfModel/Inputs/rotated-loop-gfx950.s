// LLVM's layouts of a rotated, double-buffered K loop (the shape of the
// calibration set's k3): a loop-exit trampoline above the header, a
// prefetch skipped on the last trip (a counter against its bound), two
// LDS buffers read on alternate trips (a toggle), the second one reached
// through an out-of-line block after the latch, and the s_waitcnt vmcnt(0)
// plus s_barrier that double buffering is about at the end of the body.
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl rotated
.p2align 8
.type rotated,@function
rotated:
  s_mov_b32 s8, 0
  s_mov_b32 s7, 0
  s_branch .Lheader
.Ltrampoline:
  s_branch .Lexit
.Lheader:
  s_mov_b32 s18, s7
  s_xor_b32 s7, s7, 1
  s_cmp_lt_i32 s8, s6
  s_cselect_b64 s[4:5], -1, 0
  s_cmp_ge_i32 s8, s6
  s_cbranch_scc1 .Lnoprefetch
  global_load_dwordx4 v[40:43], v[44:45], off
  global_load_dwordx4 v[46:49], v[44:45], off offset:16
.Lnoprefetch:
  s_cmp_lg_u32 s18, 0
  s_cbranch_scc0 .Loutofline
  ds_read_b128 v[24:27], v65
  ds_read_b128 v[28:31], v66
  s_waitcnt lgkmcnt(0)
  s_cbranch_execnz .Lmath
.Lbuffer0:
  ds_read_b128 v[24:27], v55
  ds_read_b128 v[28:31], v58
  ds_read_b128 v[16:19], v59
  ds_read_b128 v[20:23], v60
  s_waitcnt lgkmcnt(0)
.Lmath:
  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[24:31], v[16:23], v[0:3]
  s_andn2_b64 vcc, exec, s[4:5]
  v_mfma_f32_16x16x128_f8f6f4 v[4:7], v[24:31], v[16:23], v[4:7]
  s_cbranch_vccnz .Ltrampoline
  s_waitcnt vmcnt(0)
  s_barrier
  s_addk_i32 s8, 0x80
  s_cbranch_execnz .Lheader
  s_branch .Lexit
.Loutofline:
  s_branch .Lbuffer0
.Lexit:
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel rotated
  .amdhsa_next_free_vgpr 72
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 72
.end_amdhsa_kernel
