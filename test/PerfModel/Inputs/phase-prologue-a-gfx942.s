	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 6
	.text
	.globl	qmm_gemm_kernel
	.p2align	8
	.type	qmm_gemm_kernel,@function
qmm_gemm_kernel:
	s_load_dwordx8 s[4:11], s[0:1], 0x0
	v_lshrrev_b32_e32 v8, 4, v0
	v_lshrrev_b32_e32 v4, 1, v0
	v_lshlrev_b32_e32 v5, 3, v8
	s_lshl_b32 s17, s3, 7
	v_bfe_u32 v2, v0, 5, 3
	v_sub_co_u32_e32 v4, vcc, v4, v5
	v_lshrrev_b32_e32 v1, 6, v0
	s_nop 0
	v_subb_co_u32_e64 v5, s[12:13], 0, 0, vcc
	v_xor_b32_e32 v4, v4, v2
	v_or_b32_e32 v2, s17, v8
	v_lshlrev_b32_e32 v9, 2, v0
	v_mov_b32_e32 v3, 0
	v_readfirstlane_b32 s14, v1
	v_lshlrev_b64 v[4:5], 3, v[4:5]
	v_and_b32_e32 v10, 4, v9
	v_lshlrev_b32_e32 v2, 13, v2
	v_or_b32_e32 v40, v4, v10
	v_mov_b32_e32 v41, v5
	s_lshl_b32 s20, s14, 8
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[44:45], s[4:5], 0, v[2:3]
	s_mov_b64 s[12:13], 0x40000
	s_lshl_b32 s16, s2, 7
	v_lshl_add_u64 v[6:7], v[44:45], 0, v[40:41]
	s_mov_b32 m0, s20
	v_lshl_add_u64 v[52:53], v[44:45], 0, s[12:13]
	s_mov_b64 s[14:15], 0x80000
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[52:53], 0, v[40:41]
	s_add_i32 m0, s20, 0x800
	v_lshl_add_u64 v[54:55], v[44:45], 0, s[14:15]
	s_mov_b64 s[18:19], 0xc0000
	v_or_b32_e32 v2, s16, v8
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[54:55], 0, v[40:41]
	s_add_i32 m0, s20, 0x1000
	v_lshl_add_u64 v[56:57], v[44:45], 0, s[18:19]
	v_lshlrev_b32_e32 v2, 13, v2
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[56:57], 0, v[40:41]
	s_add_i32 m0, s20, 0x1800
	v_lshl_add_u64 v[58:59], s[6:7], 0, v[2:3]
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[58:59], 0, v[40:41]
	s_add_i32 m0, s20, 0x4000
	v_lshl_add_u64 v[60:61], v[58:59], 0, s[12:13]
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[60:61], 0, v[40:41]
	s_add_i32 m0, s20, 0x4800
	v_lshl_add_u64 v[62:63], v[58:59], 0, s[14:15]
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[62:63], 0, v[40:41]
	s_add_i32 m0, s20, 0x5000
	v_lshl_add_u64 v[64:65], v[58:59], 0, s[18:19]
	global_load_lds_dword v[6:7], off
	v_lshl_add_u64 v[6:7], v[64:65], 0, v[40:41]
	s_add_i32 m0, s20, 0x5800
	v_lshrrev_b32_e32 v2, 2, v0
	global_load_lds_dword v[6:7], off
	v_and_b32_e32 v34, 0x60, v2
	v_and_b32_e32 v36, 31, v0
	v_or_b32_e32 v7, v34, v36
	v_and_b32_e32 v2, 8, v2
	v_lshlrev_b32_e32 v48, 6, v7
	v_lshlrev_b32_e32 v7, 6, v0
	v_and_b32_e32 v6, 56, v9
	v_and_b32_e32 v38, 0x17c0, v7
	v_or_b32_e32 v7, 16, v2
	v_xor_b32_e32 v66, v6, v2
	v_xor_b32_e32 v50, v7, v6
	v_or_b32_e32 v7, 32, v2
	v_or_b32_e32 v2, 48, v2
	v_lshlrev_b32_e32 v8, 13, v8
	s_load_dwordx2 s[0:1], s[0:1], 0x20
	v_xor_b32_e32 v42, v2, v6
	v_lshl_or_b32 v2, s3, 20, v8
	v_xor_b32_e32 v46, v7, v6
	v_lshl_add_u64 v[6:7], v[2:3], 0, v[4:5]
	v_lshl_or_b32 v2, s2, 20, v8
	v_lshl_add_u64 v[2:3], v[2:3], 0, v[4:5]
	v_or_b32_e32 v6, v6, v10
	v_or_b32_e32 v2, v2, v10
	v_lshl_add_u64 v[68:69], s[4:5], 0, v[6:7]
	v_lshl_add_u64 v[70:71], s[6:7], 0, v[2:3]
	s_mov_b64 s[2:3], 0
	s_mov_b64 s[4:5], 0x2000
	v_mov_b32_e32 v18, 0
	v_mov_b32_e32 v19, 0
	v_mov_b32_e32 v20, 0
	v_mov_b32_e32 v21, 0
	v_mov_b32_e32 v22, 0
	v_mov_b32_e32 v23, 0
	v_mov_b32_e32 v24, 0
	v_mov_b32_e32 v25, 0
	v_mov_b32_e32 v26, 0
	v_mov_b32_e32 v27, 0
	v_mov_b32_e32 v28, 0
	v_mov_b32_e32 v29, 0
	v_mov_b32_e32 v30, 0
	v_mov_b32_e32 v31, 0
	v_mov_b32_e32 v32, 0
	v_mov_b32_e32 v33, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v17, 0
	s_mov_b64 s[6:7], 0x40040
	s_mov_b64 s[12:13], 0x80040
	s_mov_b64 s[14:15], 0xc0040
	s_waitcnt vmcnt(0) lgkmcnt(0)
	s_barrier
.LBB0_1:
	v_readfirstlane_b32 s18, v1
	s_lshl_b32 s18, s18, 8
	s_and_b32 s19, s4, 0x2000
	v_lshl_add_u64 v[72:73], v[68:69], 0, s[2:3]
	s_add_i32 s18, s18, s19
	v_lshl_add_u64 v[74:75], v[72:73], 0, 64
	s_mov_b32 m0, s18
	s_nop 0
	global_load_lds_dword v[74:75], off
	v_lshl_add_u64 v[74:75], v[72:73], 0, s[6:7]
	s_add_i32 m0, s18, 0x800
	s_nop 0
	global_load_lds_dword v[74:75], off
	v_lshl_add_u64 v[74:75], v[72:73], 0, s[12:13]
	s_add_i32 m0, s18, 0x1000
	v_lshl_add_u64 v[72:73], v[72:73], 0, s[14:15]
	global_load_lds_dword v[74:75], off
	s_add_i32 m0, s18, 0x1800
	s_nop 0
	global_load_lds_dword v[72:73], off
	v_lshl_add_u64 v[72:73], v[70:71], 0, s[2:3]
	v_lshl_add_u64 v[74:75], v[72:73], 0, 64
	s_add_i32 m0, s18, 0x4000
	s_nop 0
	global_load_lds_dword v[74:75], off
	v_lshl_add_u64 v[74:75], v[72:73], 0, s[6:7]
	s_add_i32 m0, s18, 0x4800
	s_nop 0
	global_load_lds_dword v[74:75], off
	v_lshl_add_u64 v[74:75], v[72:73], 0, s[12:13]
	s_add_i32 m0, s18, 0x5000
	v_lshl_add_u64 v[72:73], v[72:73], 0, s[14:15]
	global_load_lds_dword v[74:75], off
	s_add_i32 m0, s18, 0x5800
	s_nop 0
	global_load_lds_dword v[72:73], off
	s_add_i32 s18, s4, 0xffffe000
	s_and_b32 s18, s18, 0x2000
	v_or_b32_e32 v35, s18, v38
	v_or_b32_e32 v37, v35, v66
	ds_read_b64 v[72:73], v37 offset:16384
	v_or_b32_e32 v37, s18, v48
	v_or_b32_e32 v39, v37, v66
	ds_read_b64 v[74:75], v39
	v_or_b32_e32 v39, s18, v38
	v_add_u32_e32 v43, v39, v66
	v_or_b32_e32 v47, v37, v50
	ds_read_b64 v[76:77], v43 offset:18432
	ds_read_b64 v[78:79], v47
	v_or_b32_e32 v43, v35, v50
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[72:73], v[74:75], v[18:33]
	ds_read_b64 v[72:73], v43 offset:16384
	v_add_u32_e32 v43, v39, v50
	v_or_b32_e32 v47, v37, v46
	v_or_b32_e32 v49, v35, v46
	v_or_b32_e32 v37, v37, v42
	v_or_b32_e32 v35, v35, v42
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[76:77], v[74:75], v[2:17]
	ds_read_b64 v[74:75], v43 offset:18432
	ds_read_b64 v[76:77], v47
	ds_read_b64 v[80:81], v49 offset:16384
	v_add_u32_e32 v43, v39, v46
	v_add_u32_e32 v39, v39, v42
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[72:73], v[78:79], v[18:33]
	ds_read_b64 v[72:73], v43 offset:18432
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[74:75], v[78:79], v[2:17]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[80:81], v[76:77], v[18:33]
	ds_read_b64 v[74:75], v37
	ds_read_b64 v[78:79], v35 offset:16384
	ds_read_b64 v[80:81], v39 offset:18432
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[72:73], v[76:77], v[2:17]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[78:79], v[74:75], v[18:33]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[80:81], v[74:75], v[2:17]
	s_add_u32 s2, s2, 64
	s_addc_u32 s3, s3, 0
	s_add_u32 s4, s4, 0x2000
	s_addc_u32 s5, s5, 0
	s_cmp_lg_u64 s[2:3], 0x1fc0
	s_waitcnt vmcnt(0)
	s_barrier
	s_cbranch_scc1 .LBB0_1
	v_readfirstlane_b32 s4, v1
	s_mov_b64 s[2:3], 0x1fc0
	v_lshl_add_u64 v[40:41], v[40:41], 0, s[2:3]
	s_lshl_b32 s2, s4, 8
	v_lshl_add_u64 v[44:45], v[44:45], 0, v[40:41]
	s_mov_b32 m0, s2
	s_nop 0
	global_load_lds_dword v[44:45], off
	v_lshl_add_u64 v[44:45], v[52:53], 0, v[40:41]
	s_add_i32 m0, s2, 0x800
	s_nop 0
	global_load_lds_dword v[44:45], off
	v_lshl_add_u64 v[44:45], v[54:55], 0, v[40:41]
	s_add_i32 m0, s2, 0x1000
	s_nop 0
	global_load_lds_dword v[44:45], off
	v_lshl_add_u64 v[44:45], v[56:57], 0, v[40:41]
	s_add_i32 m0, s2, 0x1800
	s_nop 0
	global_load_lds_dword v[44:45], off
	v_lshl_add_u64 v[44:45], v[58:59], 0, v[40:41]
	s_add_i32 m0, s2, 0x4000
	s_nop 0
	global_load_lds_dword v[44:45], off
	v_lshl_add_u64 v[44:45], v[60:61], 0, v[40:41]
	s_add_i32 m0, s2, 0x4800
	s_nop 0
	global_load_lds_dword v[44:45], off
	v_lshl_add_u64 v[44:45], v[62:63], 0, v[40:41]
	s_add_i32 m0, s2, 0x5000
	v_lshl_add_u64 v[40:41], v[64:65], 0, v[40:41]
	global_load_lds_dword v[44:45], off
	s_add_i32 m0, s2, 0x5800
	s_nop 0
	global_load_lds_dword v[40:41], off
	v_add_u32_e32 v1, v38, v66
	ds_read2st64_b64 v[52:55], v1 offset0:48 offset1:52
	v_add_u32_e32 v1, v48, v66
	ds_read_b64 v[40:41], v1 offset:8192
	v_add_u32_e32 v35, v48, v50
	v_add_u32_e32 v1, v48, v42
	v_add_u32_e32 v37, v48, v46
	ds_read_b64 v[44:45], v35 offset:8192
	ds_read_b64 v[56:57], v37 offset:8192
	ds_read_b64 v[58:59], v1 offset:8192
	v_add_u32_e32 v1, v38, v50
	ds_read2st64_b64 v[48:51], v1 offset0:48 offset1:52
	s_waitcnt lgkmcnt(4)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[52:53], v[40:41], v[18:33]
	v_add_u32_e32 v1, v38, v46
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[54:55], v[40:41], v[2:17]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[48:49], v[44:45], v[18:33]
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[50:51], v[44:45], v[2:17]
	ds_read2st64_b64 v[44:47], v1 offset0:48 offset1:52
	v_add_u32_e32 v1, v38, v42
	ds_read2st64_b64 v[38:41], v1 offset0:48 offset1:52
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[44:45], v[56:57], v[18:33]
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[46:47], v[56:57], v[2:17]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x16_fp8_fp8 v[18:33], v[38:39], v[58:59], v[18:33]
	v_mfma_f32_32x32x16_fp8_fp8 v[2:17], v[40:41], v[58:59], v[2:17]
	s_waitcnt vmcnt(0)
	s_barrier
	s_load_dword s2, s[10:11], 0x0
	s_load_dword s12, s[8:9], 0x0
	v_and_b32_e32 v37, 64, v0
	v_lshrrev_b32_e32 v0, 2, v0
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v1, s2
	v_mul_f32_e32 v35, s12, v1
	v_cmp_eq_f32_e64 s[6:7], s2, 0
	v_readfirstlane_b32 s3, v35
	s_bitset0_b32 s3, 31
	s_add_i32 s3, s3, 0xff800000
	s_cmp_lt_u32 s3, 0x7f000000
	v_cmp_eq_f32_e64 s[8:9], s12, 0
	s_cselect_b64 s[4:5], -1, 0
	s_or_b64 s[6:7], s[8:9], s[6:7]
	v_mov_b32_e32 v38, s12
	s_or_b64 vcc, s[6:7], s[4:5]
	v_cndmask_b32_e32 v38, v38, v35, vcc
	v_cndmask_b32_e64 v40, v1, 1.0, vcc
	v_pk_mul_f32 v[20:21], v[20:21], v[38:39] op_sel_hi:[1,0]
	v_or3_b32 v1, v36, s17, v34
	v_pk_fma_f32 v[20:21], v[20:21], v[40:41], 0 op_sel_hi:[1,0,0]
	s_movk_i32 s4, 0x7fff
	v_bfe_u32 v34, v20, 16, 1
	v_add3_u32 v34, v34, v20, s4
	v_or_b32_e32 v35, 0x400000, v20
	v_cmp_u_f32_e32 vcc, v20, v20
	v_pk_mul_f32 v[18:19], v[18:19], v[38:39] op_sel_hi:[1,0]
	s_mov_b32 s5, 0x7060302
	v_cndmask_b32_e32 v20, v34, v35, vcc
	v_bfe_u32 v34, v21, 16, 1
	v_add3_u32 v34, v34, v21, s4
	v_or_b32_e32 v35, 0x400000, v21
	v_cmp_u_f32_e32 vcc, v21, v21
	v_pk_fma_f32 v[18:19], v[18:19], v[40:41], 0 op_sel_hi:[1,0,0]
	v_pk_mul_f32 v[24:25], v[24:25], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v21, v34, v35, vcc
	v_perm_b32 v21, v21, v20, s5
	v_bfe_u32 v20, v18, 16, 1
	v_add3_u32 v20, v20, v18, s4
	v_or_b32_e32 v34, 0x400000, v18
	v_cmp_u_f32_e32 vcc, v18, v18
	v_pk_fma_f32 v[24:25], v[24:25], v[40:41], 0 op_sel_hi:[1,0,0]
	s_mov_b32 s3, 0
	v_cndmask_b32_e32 v18, v20, v34, vcc
	v_bfe_u32 v20, v19, 16, 1
	v_add3_u32 v20, v20, v19, s4
	v_or_b32_e32 v34, 0x400000, v19
	v_cmp_u_f32_e32 vcc, v19, v19
	s_lshl_b32 s2, s16, 1
	v_pk_mul_f32 v[22:23], v[22:23], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v19, v20, v34, vcc
	v_perm_b32 v20, v19, v18, s5
	v_lshlrev_b32_e32 v18, 14, v1
	v_mov_b32_e32 v19, 0
	v_lshl_add_u64 v[34:35], s[0:1], 0, v[18:19]
	v_and_b32_e32 v18, 8, v0
	v_lshl_add_u64 v[0:1], v[34:35], 0, v[18:19]
	v_lshlrev_b32_e32 v18, 1, v37
	v_lshl_add_u64 v[0:1], v[0:1], 0, v[18:19]
	v_bfe_u32 v18, v24, 16, 1
	v_add3_u32 v18, v18, v24, s4
	v_or_b32_e32 v19, 0x400000, v24
	v_cmp_u_f32_e32 vcc, v24, v24
	v_lshl_add_u64 v[0:1], v[0:1], 0, s[2:3]
	global_store_dwordx2 v[0:1], v[20:21], off
	v_cndmask_b32_e32 v18, v18, v19, vcc
	v_bfe_u32 v19, v25, 16, 1
	v_add3_u32 v19, v19, v25, s4
	v_or_b32_e32 v20, 0x400000, v25
	v_cmp_u_f32_e32 vcc, v25, v25
	v_pk_fma_f32 v[22:23], v[22:23], v[40:41], 0 op_sel_hi:[1,0,0]
	v_pk_mul_f32 v[28:29], v[28:29], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v19, v19, v20, vcc
	v_perm_b32 v19, v19, v18, s5
	v_bfe_u32 v18, v22, 16, 1
	v_add3_u32 v18, v18, v22, s4
	v_or_b32_e32 v20, 0x400000, v22
	v_cmp_u_f32_e32 vcc, v22, v22
	v_or_b32_e32 v21, 0x400000, v23
	v_pk_fma_f32 v[28:29], v[28:29], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v18, v18, v20, vcc
	v_bfe_u32 v20, v23, 16, 1
	v_add3_u32 v20, v20, v23, s4
	v_cmp_u_f32_e32 vcc, v23, v23
	v_pk_mul_f32 v[26:27], v[26:27], v[38:39] op_sel_hi:[1,0]
	v_pk_mul_f32 v[32:33], v[32:33], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v20, v20, v21, vcc
	v_perm_b32 v18, v20, v18, s5
	global_store_dwordx2 v[0:1], v[18:19], off offset:16
	v_bfe_u32 v18, v28, 16, 1
	v_add3_u32 v18, v18, v28, s4
	v_or_b32_e32 v19, 0x400000, v28
	v_cmp_u_f32_e32 vcc, v28, v28
	v_or_b32_e32 v20, 0x400000, v29
	v_pk_fma_f32 v[26:27], v[26:27], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v18, v18, v19, vcc
	v_bfe_u32 v19, v29, 16, 1
	v_add3_u32 v19, v19, v29, s4
	v_cmp_u_f32_e32 vcc, v29, v29
	v_or_b32_e32 v21, 0x400000, v27
	v_pk_fma_f32 v[32:33], v[32:33], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v19, v19, v20, vcc
	v_perm_b32 v19, v19, v18, s5
	v_bfe_u32 v18, v26, 16, 1
	v_add3_u32 v18, v18, v26, s4
	v_or_b32_e32 v20, 0x400000, v26
	v_cmp_u_f32_e32 vcc, v26, v26
	v_pk_mul_f32 v[30:31], v[30:31], v[38:39] op_sel_hi:[1,0]
	v_pk_mul_f32 v[4:5], v[4:5], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v18, v18, v20, vcc
	v_bfe_u32 v20, v27, 16, 1
	v_add3_u32 v20, v20, v27, s4
	v_cmp_u_f32_e32 vcc, v27, v27
	v_pk_fma_f32 v[30:31], v[30:31], v[40:41], 0 op_sel_hi:[1,0,0]
	v_pk_fma_f32 v[4:5], v[4:5], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v20, v20, v21, vcc
	v_perm_b32 v18, v20, v18, s5
	global_store_dwordx2 v[0:1], v[18:19], off offset:32
	v_bfe_u32 v18, v32, 16, 1
	v_add3_u32 v18, v18, v32, s4
	v_or_b32_e32 v19, 0x400000, v32
	v_cmp_u_f32_e32 vcc, v32, v32
	v_or_b32_e32 v20, 0x400000, v33
	v_or_b32_e32 v21, 0x400000, v31
	v_cndmask_b32_e32 v18, v18, v19, vcc
	v_bfe_u32 v19, v33, 16, 1
	v_add3_u32 v19, v19, v33, s4
	v_cmp_u_f32_e32 vcc, v33, v33
	v_pk_mul_f32 v[2:3], v[2:3], v[38:39] op_sel_hi:[1,0]
	v_pk_mul_f32 v[8:9], v[8:9], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v19, v19, v20, vcc
	v_perm_b32 v19, v19, v18, s5
	v_bfe_u32 v18, v30, 16, 1
	v_add3_u32 v18, v18, v30, s4
	v_or_b32_e32 v20, 0x400000, v30
	v_cmp_u_f32_e32 vcc, v30, v30
	v_pk_fma_f32 v[2:3], v[2:3], v[40:41], 0 op_sel_hi:[1,0,0]
	v_pk_fma_f32 v[8:9], v[8:9], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v18, v18, v20, vcc
	v_bfe_u32 v20, v31, 16, 1
	v_add3_u32 v20, v20, v31, s4
	v_cmp_u_f32_e32 vcc, v31, v31
	v_pk_mul_f32 v[6:7], v[6:7], v[38:39] op_sel_hi:[1,0]
	v_pk_mul_f32 v[12:13], v[12:13], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v20, v20, v21, vcc
	v_perm_b32 v18, v20, v18, s5
	global_store_dwordx2 v[0:1], v[18:19], off offset:48
	v_bfe_u32 v18, v4, 16, 1
	v_add3_u32 v18, v18, v4, s4
	v_or_b32_e32 v19, 0x400000, v4
	v_cmp_u_f32_e32 vcc, v4, v4
	v_pk_fma_f32 v[6:7], v[6:7], v[40:41], 0 op_sel_hi:[1,0,0]
	v_pk_fma_f32 v[12:13], v[12:13], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v4, v18, v19, vcc
	v_bfe_u32 v18, v5, 16, 1
	v_add3_u32 v18, v18, v5, s4
	v_or_b32_e32 v19, 0x400000, v5
	v_cmp_u_f32_e32 vcc, v5, v5
	v_pk_mul_f32 v[10:11], v[10:11], v[38:39] op_sel_hi:[1,0]
	v_pk_mul_f32 v[16:17], v[16:17], v[38:39] op_sel_hi:[1,0]
	v_cndmask_b32_e32 v5, v18, v19, vcc
	v_perm_b32 v5, v5, v4, s5
	v_bfe_u32 v4, v2, 16, 1
	v_add3_u32 v4, v4, v2, s4
	v_or_b32_e32 v18, 0x400000, v2
	v_cmp_u_f32_e32 vcc, v2, v2
	v_pk_fma_f32 v[10:11], v[10:11], v[40:41], 0 op_sel_hi:[1,0,0]
	v_pk_fma_f32 v[16:17], v[16:17], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v2, v4, v18, vcc
	v_bfe_u32 v4, v3, 16, 1
	v_add3_u32 v4, v4, v3, s4
	v_or_b32_e32 v18, 0x400000, v3
	v_cmp_u_f32_e32 vcc, v3, v3
	v_pk_mul_f32 v[14:15], v[14:15], v[38:39] op_sel_hi:[1,0]
	s_nop 0
	v_cndmask_b32_e32 v3, v4, v18, vcc
	v_perm_b32 v4, v3, v2, s5
	v_bfe_u32 v2, v8, 16, 1
	v_add3_u32 v2, v2, v8, s4
	v_or_b32_e32 v3, 0x400000, v8
	v_cmp_u_f32_e32 vcc, v8, v8
	global_store_dwordx2 v[0:1], v[4:5], off offset:64
	v_or_b32_e32 v4, 0x400000, v9
	v_cndmask_b32_e32 v2, v2, v3, vcc
	v_bfe_u32 v3, v9, 16, 1
	v_add3_u32 v3, v3, v9, s4
	v_cmp_u_f32_e32 vcc, v9, v9
	v_or_b32_e32 v5, 0x400000, v7
	v_pk_fma_f32 v[14:15], v[14:15], v[40:41], 0 op_sel_hi:[1,0,0]
	v_cndmask_b32_e32 v3, v3, v4, vcc
	v_perm_b32 v3, v3, v2, s5
	v_bfe_u32 v2, v6, 16, 1
	v_add3_u32 v2, v2, v6, s4
	v_or_b32_e32 v4, 0x400000, v6
	v_cmp_u_f32_e32 vcc, v6, v6
	s_nop 1
	v_cndmask_b32_e32 v2, v2, v4, vcc
	v_bfe_u32 v4, v7, 16, 1
	v_add3_u32 v4, v4, v7, s4
	v_cmp_u_f32_e32 vcc, v7, v7
	s_nop 1
	v_cndmask_b32_e32 v4, v4, v5, vcc
	v_perm_b32 v2, v4, v2, s5
	global_store_dwordx2 v[0:1], v[2:3], off offset:80
	v_bfe_u32 v2, v12, 16, 1
	v_add3_u32 v2, v2, v12, s4
	v_or_b32_e32 v3, 0x400000, v12
	v_cmp_u_f32_e32 vcc, v12, v12
	v_or_b32_e32 v4, 0x400000, v13
	v_or_b32_e32 v5, 0x400000, v11
	v_cndmask_b32_e32 v2, v2, v3, vcc
	v_bfe_u32 v3, v13, 16, 1
	v_add3_u32 v3, v3, v13, s4
	v_cmp_u_f32_e32 vcc, v13, v13
	s_nop 1
	v_cndmask_b32_e32 v3, v3, v4, vcc
	v_perm_b32 v3, v3, v2, s5
	v_bfe_u32 v2, v10, 16, 1
	v_add3_u32 v2, v2, v10, s4
	v_or_b32_e32 v4, 0x400000, v10
	v_cmp_u_f32_e32 vcc, v10, v10
	s_nop 1
	v_cndmask_b32_e32 v2, v2, v4, vcc
	v_bfe_u32 v4, v11, 16, 1
	v_add3_u32 v4, v4, v11, s4
	v_cmp_u_f32_e32 vcc, v11, v11
	s_nop 1
	v_cndmask_b32_e32 v4, v4, v5, vcc
	v_perm_b32 v2, v4, v2, s5
	global_store_dwordx2 v[0:1], v[2:3], off offset:96
	v_bfe_u32 v2, v16, 16, 1
	v_add3_u32 v2, v2, v16, s4
	v_or_b32_e32 v3, 0x400000, v16
	v_cmp_u_f32_e32 vcc, v16, v16
	v_or_b32_e32 v4, 0x400000, v17
	v_or_b32_e32 v5, 0x400000, v15
	v_cndmask_b32_e32 v2, v2, v3, vcc
	v_bfe_u32 v3, v17, 16, 1
	v_add3_u32 v3, v3, v17, s4
	v_cmp_u_f32_e32 vcc, v17, v17
	s_nop 1
	v_cndmask_b32_e32 v3, v3, v4, vcc
	v_perm_b32 v3, v3, v2, s5
	v_bfe_u32 v2, v14, 16, 1
	v_add3_u32 v2, v2, v14, s4
	v_or_b32_e32 v4, 0x400000, v14
	v_cmp_u_f32_e32 vcc, v14, v14
	s_nop 1
	v_cndmask_b32_e32 v2, v2, v4, vcc
	v_bfe_u32 v4, v15, 16, 1
	v_add3_u32 v4, v4, v15, s4
	v_cmp_u_f32_e32 vcc, v15, v15
	s_nop 1
	v_cndmask_b32_e32 v4, v4, v5, vcc
	v_perm_b32 v2, v4, v2, s5
	global_store_dwordx2 v[0:1], v[2:3], off offset:112
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel qmm_gemm_kernel
		.amdhsa_group_segment_fixed_size 32768
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 40
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 97
		.amdhsa_next_free_sgpr 96
		.amdhsa_accum_offset 84
		.amdhsa_reserve_vcc 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	qmm_gemm_kernel, .Lfunc_end0-qmm_gemm_kernel
	.set qmm_gemm_kernel.num_vgpr, 82
	.set qmm_gemm_kernel.num_agpr, 0
	.set qmm_gemm_kernel.numbered_sgpr, 21
	.set qmm_gemm_kernel.num_named_barrier, 0
	.set qmm_gemm_kernel.private_seg_size, 0
	.set qmm_gemm_kernel.uses_vcc, 1
	.set qmm_gemm_kernel.uses_flat_scratch, 0
	.set qmm_gemm_kernel.has_dyn_sized_stack, 0
	.set qmm_gemm_kernel.has_recursion, 0
	.set qmm_gemm_kernel.has_indirect_call, 0
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  generic
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  generic
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  generic
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  generic
        .offset:         24
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  generic
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 32768
    .kernarg_segment_align: 8
    .kernarg_segment_size: 40
    .max_flat_workgroup_size: 512
    .name:           qmm_gemm_kernel
    .private_segment_fixed_size: 0
    .reqd_workgroup_size:
      - 512
      - 1
      - 1
    .sgpr_count:     27
    .sgpr_spill_count: 0
    .symbol:         qmm_gemm_kernel.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     82
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
