// Four waves (block 64x4) of a 32x32 tile, one 16x16x128 MFMA each per
// trip, each wave loading 4 KB of A/B rows per trip where the workgroup
// needs 8 KB (waves share rows: the k1 pattern of the calibration set), and
// reading a 16x128-byte fragment from LDS at addresses made from the
// work-item id: `rows` puts row r = lane % 16 at r * 128 (a 128-byte row
// stride: 4-way bank conflicts on gfx950's 64 banks), `swizzled` XORs
// (r & 7) into its 16-byte column (none).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.macro KERNEL name, swizzle
.globl \name
.p2align 8
.type \name,@function
\name:
  s_mov_b32 s8, 0
  v_and_b32_e32 v1, 15, v0
  v_lshlrev_b32_e32 v2, 7, v1
  .if \swizzle
  v_and_b32_e32 v3, 7, v1
  v_lshlrev_b32_e32 v3, 4, v3
  v_xor_b32_e32 v2, v2, v3
  .endif
.L\name:
  global_load_dwordx4 v[40:43], v[44:45], off
  global_load_dwordx4 v[40:43], v[44:45], off offset:1024
  global_load_dwordx4 v[40:43], v[44:45], off offset:2048
  global_load_dwordx4 v[40:43], v[44:45], off offset:3072
  s_waitcnt vmcnt(0)
  ds_read_b128 v[24:27], v2
  ds_read_b128 v[28:31], v2 offset:2048
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_16x16x128_f8f6f4 v[4:7], v[24:31], v[24:31], v[4:7]
  s_add_i32 s8, s8, 1
  s_cmp_lt_i32 s8, s6
  s_cbranch_scc1 .L\name
  s_endpgm
.endm
KERNEL rows, 0
KERNEL swizzled, 1
.rodata
.p2align 6
.amdhsa_kernel rows
  .amdhsa_next_free_vgpr 48
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 48
.end_amdhsa_kernel
.amdhsa_kernel swizzled
  .amdhsa_next_free_vgpr 48
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 48
.end_amdhsa_kernel
