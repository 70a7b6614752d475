// Kernels for the emulator's execution model and its safety checks.
module attributes {gpu.container_module} {
gpu.module @kernels {

// 64 lanes read a 32-element buffer: lane 32 is out of bounds.
gpu.func @oob_global(%a: memref<32xf32>, %out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %v = memref.load %a[%lane] : memref<32xf32>
  memref.store %v, %out[%lane] : memref<64xf32>
  gpu.return
}

// The same through a fat raw buffer: out-of-range reads give 0.
gpu.func @fat_buffer(%a: memref<32xf32>, %out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %fat = amdgpu.fat_raw_buffer_cast %a : memref<32xf32> to memref<32xf32, #amdgpu.address_space<fat_raw_buffer>>
  %v = memref.load %fat[%lane] : memref<32xf32, #amdgpu.address_space<fat_raw_buffer>>
  memref.store %v, %out[%lane] : memref<64xf32>
  gpu.return
}

// 64 lanes write a 16-element LDS buffer.
gpu.func @oob_lds(%out: memref<64xf32>) workgroup(%lds : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %one = arith.constant 1.0 : f32
  memref.store %one, %lds[%lane] : memref<16xf32, #gpu.address_space<workgroup>>
  gpu.return
}

// 68000 bytes of LDS: over gfx942's 64 KiB, within gfx950's 160 KiB.
gpu.func @big_lds(%out: memref<64xf32>) workgroup(%lds : memref<17000xf32, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %one = arith.constant 1.0 : f32
  memref.store %one, %lds[%lane] : memref<17000xf32, #gpu.address_space<workgroup>>
  %v = memref.load %lds[%lane] : memref<17000xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%lane] : memref<64xf32>
  gpu.return
}

// Only wave 0 reaches the barrier.
gpu.func @barrier_not_reached(%out: memref<128xf32>) kernel {
  %wave = gpu.subgroup_id : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %wave, %c0 : index
  scf.if %first {
    gpu.barrier
  }
  gpu.return
}

// Each thread writes LDS[tid] and reads its neighbour wave's slot: without a
// barrier between, wave 1 reads what wave 0 wrote in the same interval.
gpu.func @lds_race(%out: memref<128xf32>) workgroup(%lds : memref<128xf32, #gpu.address_space<workgroup>>) kernel {
  %tid = gpu.thread_id x
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %v = arith.index_cast %tid : index to i32
  %f = arith.sitofp %v : i32 to f32
  memref.store %f, %lds[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
  %shifted = arith.addi %tid, %c64 : index
  %other = arith.remui %shifted, %c128 : index
  %r = memref.load %lds[%other] : memref<128xf32, #gpu.address_space<workgroup>>
  memref.store %r, %out[%tid] : memref<128xf32>
  gpu.return
}

// The same with the barrier: no race, out[t] = (t + 64) % 128.
gpu.func @lds_exchange(%out: memref<128xf32>) workgroup(%lds : memref<128xf32, #gpu.address_space<workgroup>>) kernel {
  %tid = gpu.thread_id x
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %v = arith.index_cast %tid : index to i32
  %f = arith.sitofp %v : i32 to f32
  memref.store %f, %lds[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
  amdgpu.lds_barrier
  %shifted = arith.addi %tid, %c64 : index
  %other = arith.remui %shifted, %c128 : index
  %r = memref.load %lds[%other] : memref<128xf32, #gpu.address_space<workgroup>>
  memref.store %r, %out[%tid] : memref<128xf32>
  gpu.return
}

// Divergence: out[l] = l < 10 ? 100 + l : sum_{i < l % 7} 1 (a loop whose
// trip count differs per lane).
gpu.func @divergent(%out: memref<64xi32>) kernel {
  %lane = gpu.lane_id
  %c10 = arith.constant 10 : index
  %c7 = arith.constant 7 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %small = arith.cmpi ult, %lane, %c10 : index
  %r = scf.if %small -> i32 {
    %l = arith.index_cast %lane : index to i32
    %c100 = arith.constant 100 : i32
    %v = arith.addi %l, %c100 : i32
    scf.yield %v : i32
  } else {
    %n = arith.remui %lane, %c7 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> i32 {
      %next = arith.addi %acc, %one : i32
      scf.yield %next : i32
    }
    scf.yield %s : i32
  }
  memref.store %r, %out[%lane] : memref<64xi32>
  gpu.return
}

// A grid of workgroups of 70 threads (a full wave and 6 lanes of a second):
// out[b * 70 + t] = 1000 * b + t + offset, with a scalar argument.
gpu.func @grid_ids(%out: memref<210xi32>, %offset: i32) kernel {
  %tid = gpu.thread_id x
  %bid = gpu.block_id x
  %bdim = gpu.block_dim x
  %base = arith.muli %bid, %bdim : index
  %index = arith.addi %base, %tid : index
  %c1000 = arith.constant 1000 : index
  %hi = arith.muli %bid, %c1000 : index
  %sum = arith.addi %hi, %tid : index
  %v = arith.index_cast %sum : index to i32
  %w = arith.addi %v, %offset : i32
  memref.store %w, %out[%index] : memref<210xi32>
  gpu.return
}

// gather_to_lds: lane l copies a[l] to LDS slot l, then reads slot 63 - l.
gpu.func @gather(%a: memref<64xf32>, %out: memref<64xf32>) workgroup(%lds : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  amdgpu.gather_to_lds %a[%lane], %lds[%c0] : f32, memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  amdgpu.lds_barrier
  %mirror = arith.subi %c63, %lane : index
  %v = memref.load %lds[%mirror] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%lane] : memref<64xf32>
  gpu.return
}

// LDS bank conflicts. Lane l writes one dword at dword address l * stride.
gpu.func @lds_stride(%out: memref<64xf32>, %stride: i32) workgroup(%lds : memref<4096xf32, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %s = arith.index_cast %stride : i32 to index
  %addr = arith.muli %lane, %s : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %lds[%addr] : memref<4096xf32, #gpu.address_space<workgroup>>
  gpu.return
}

// 16-byte reads: lane l reads dwords 4l .. 4l+3 (conflict-free) or, with a
// 128-byte row stride, dwords 32l .. 32l+3.
gpu.func @lds_b128(%out: memref<64xf32>, %stride: i32) workgroup(%lds : memref<4096xf32, #gpu.address_space<workgroup>>) kernel {
  %lane = gpu.lane_id
  %s = arith.index_cast %stride : i32 to index
  %addr = arith.muli %lane, %s : index
  %v = vector.load %lds[%addr] : memref<4096xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  %x = vector.extract %v[0] : f32 from vector<4xf32>
  memref.store %x, %out[%lane] : memref<64xf32>
  gpu.return
}

// An op the emulator does not know.
gpu.func @unsupported(%out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %x = arith.constant 2.0 : f32
  %y = math.cbrt %x : f32
  memref.store %y, %out[%lane] : memref<64xf32>
  gpu.return
}

// vector.transfer_read past the end of a row, padded with -1; then
// transfer_write of the lane's 4 values into out[4l .. 4l+3].
gpu.func @transfer(%a: memref<64xf32>, %out: memref<256xf32>) kernel {
  %lane = gpu.lane_id
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %a[%lane], %pad {in_bounds = [false]} : memref<64xf32>, vector<4xf32>
  %c4 = arith.constant 4 : index
  %at = arith.muli %lane, %c4 : index
  vector.transfer_write %v, %out[%at] {in_bounds = [true]} : vector<4xf32>, memref<256xf32>
  gpu.return
}

// gpu.shuffle in its four modes: out[64 j + l] for xor 5, idx 7, up 1,
// down 4 within 32 lanes, of the value 3 l (out-of-range sources keep the
// lane's own value); out[256 + 64 j + l] is the valid flag.
gpu.func @shuffles(%out: memref<512xi32>) kernel {
  %lane = gpu.lane_id
  %l = arith.index_cast %lane : index to i32
  %c3 = arith.constant 3 : i32
  %v = arith.muli %l, %c3 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %x, %xv = gpu.shuffle xor %v, %c5, %c64 : i32
  %i, %iv = gpu.shuffle idx %v, %c7, %c64 : i32
  %u, %uv = gpu.shuffle up %v, %c1, %c64 : i32
  %d, %dv = gpu.shuffle down %v, %c4, %c32 : i32
  %o64 = arith.constant 64 : index
  %o128 = arith.constant 128 : index
  %o192 = arith.constant 192 : index
  %o256 = arith.constant 256 : index
  %at1 = arith.addi %lane, %o64 : index
  %at2 = arith.addi %lane, %o128 : index
  %at3 = arith.addi %lane, %o192 : index
  memref.store %x, %out[%lane] : memref<512xi32>
  memref.store %i, %out[%at1] : memref<512xi32>
  memref.store %u, %out[%at2] : memref<512xi32>
  memref.store %d, %out[%at3] : memref<512xi32>
  %valids = arith.constant 0 : index
  %xi = arith.extui %xv : i1 to i32
  %ii = arith.extui %iv : i1 to i32
  %ui = arith.extui %uv : i1 to i32
  %di = arith.extui %dv : i1 to i32
  %v0 = arith.addi %lane, %o256 : index
  %v1 = arith.addi %v0, %o64 : index
  %v2 = arith.addi %v0, %o128 : index
  %v3 = arith.addi %v0, %o192 : index
  memref.store %xi, %out[%v0] : memref<512xi32>
  memref.store %ii, %out[%v1] : memref<512xi32>
  memref.store %ui, %out[%v2] : memref<512xi32>
  memref.store %di, %out[%v3] : memref<512xi32>
  gpu.return
}

// Bit counts of the lane's pattern l * 37 (an i32):
// out[l] = ctlz + 100 cttz + 10000 ctpop.
gpu.func @bit_counts(%out: memref<64xi32>) kernel {
  %lane = gpu.lane_id
  %l = arith.index_cast %lane : index to i32
  %c37 = arith.constant 37 : i32
  %x = arith.muli %l, %c37 : i32
  %lz = math.ctlz %x : i32
  %tz = math.cttz %x : i32
  %pop = math.ctpop %x : i32
  %c100 = arith.constant 100 : i32
  %c10000 = arith.constant 10000 : i32
  %t = arith.muli %tz, %c100 : i32
  %p = arith.muli %pop, %c10000 : i32
  %s = arith.addi %lz, %t : i32
  %r = arith.addi %s, %p : i32
  memref.store %r, %out[%lane] : memref<64xi32>
  gpu.return
}

// A shuffle from a lane that is not executing: the hardware would read a
// stale register; the emulator reports it.
gpu.func @shuffle_inactive(%out: memref<64xf32>) kernel {
  %lane = gpu.lane_id
  %c32 = arith.constant 32 : index
  %low = arith.cmpi ult, %lane, %c32 : index
  scf.if %low {
    %one = arith.constant 1.0 : f32
    %o = arith.constant 32 : i32
    %w = arith.constant 64 : i32
    %r, %valid = gpu.shuffle xor %one, %o, %w : f32
    memref.store %r, %out[%lane] : memref<64xf32>
  }
  gpu.return
}
}
}
