// RUN: fp8-opt %s -split-input-file --qmm-kernel-size-arguments | FileCheck %s

// A kernel with two dynamically shaped operands and one static one: each
// dynamic memref becomes its base (memref<0xT>) and its dynamic extents are
// appended as index arguments, in operand order, before the workgroup
// attributions. The entry rebuilds each view with row-major strides: [256,
// 1] for [?, 256]; for [4, ?] the outer stride is the dynamic extent.
// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%[[A:.*]]: memref<?x256xf8E4M3FN>, %[[S:.*]]: memref<4x?xf32>, %[[B:.*]]: memref<64x256xf8E4M3FN>)
// CHECK:         %[[C:.*]] = arith.constant 1 : index
// CHECK:         %[[ABASE:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [0], strides: [1] : memref<?x256xf8E4M3FN> to memref<0xf8E4M3FN>
// CHECK:         %[[AC0:.*]] = arith.constant 0 : index
// CHECK:         %[[AM:.*]] = memref.dim %[[A]], %[[AC0]]
// CHECK:         %[[SBASE:.*]] = memref.reinterpret_cast %[[S]] to offset: [0], sizes: [0], strides: [1] : memref<4x?xf32> to memref<0xf32>
// CHECK:         %[[SC1:.*]] = arith.constant 1 : index
// CHECK:         %[[SM:.*]] = memref.dim %[[S]], %[[SC1]]
// CHECK:         gpu.launch_func @kernels::@k blocks in (%[[C]], %[[C]], %[[C]]) threads in (%[[C]], %[[C]], %[[C]]) args(%[[ABASE]] : memref<0xf8E4M3FN>, %[[B]] : memref<64x256xf8E4M3FN>, %[[SBASE]] : memref<0xf32>, %[[AM]] : index, %[[SM]] : index)
// CHECK:       gpu.func @k(%[[KA:.*]]: memref<0xf8E4M3FN>, %[[KB:.*]]: memref<64x256xf8E4M3FN>, %[[KS:.*]]: memref<0xf32>, %[[KM:.*]]: index, %[[KN:.*]]: index) workgroup(%[[LDS:.*]] : memref<16xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:         %[[AV:.*]] = memref.reinterpret_cast %[[KA]] to offset: [0], sizes: [%[[KM]], 256], strides: [256, 1] : memref<0xf8E4M3FN> to memref<?x256xf8E4M3FN>
// CHECK:         %[[SV:.*]] = memref.reinterpret_cast %[[KS]] to offset: [0], sizes: [4, %[[KN]]], strides: [%[[KN]], 1] : memref<0xf32> to memref<4x?xf32>
// CHECK:         %[[ROWS:.*]] = memref.dim %[[AV]], %{{.*}} : memref<?x256xf8E4M3FN>
// CHECK:         memref.load %[[SV]][%{{.*}}, %{{.*}}] : memref<4x?xf32>
// CHECK:         memref.load %[[KB]]
// CHECK:         memref.store %{{.*}}, %[[LDS]]
module attributes {gpu.container_module} {
  func.func @host(%a: memref<?x256xf8E4M3FN>, %s: memref<4x?xf32>,
                  %b: memref<64x256xf8E4M3FN>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<?x256xf8E4M3FN>, %b : memref<64x256xf8E4M3FN>, %s : memref<4x?xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<?x256xf8E4M3FN>, %b: memref<64x256xf8E4M3FN>, %s: memref<4x?xf32>)
        workgroup(%lds : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %rows = memref.dim %a, %c0 : memref<?x256xf8E4M3FN>
      %x = memref.load %s[%c0, %rows] : memref<4x?xf32>
      %y = memref.load %b[%c0, %c0] : memref<64x256xf8E4M3FN>
      memref.store %x, %lds[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Static kernels are left as they are.
// CHECK-LABEL: func.func @static_host
// CHECK:         gpu.launch_func @static_kernels::@k {{.*}} args(%{{.*}} : memref<8x256xf8E4M3FN>)
// CHECK:       gpu.func @k(%{{.*}}: memref<8x256xf8E4M3FN>) kernel
// CHECK-NOT:     memref.reinterpret_cast
module attributes {gpu.container_module} {
  func.func @static_host(%a: memref<8x256xf8E4M3FN>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @static_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8x256xf8E4M3FN>)
    return
  }
  gpu.module @static_kernels {
    gpu.func @k(%a: memref<8x256xf8E4M3FN>) kernel {
      gpu.return
    }
  }
}

// -----

// Operands placed at run time (a batched program's slices): a static-shape
// scale view with a dynamic offset and an A view with a dynamic offset,
// extent and outer stride. Each becomes its base plus, in this order, its
// dynamic offset, extents and strides, which the launch takes from
// memref.extract_strided_metadata of the operand; a static strided layout
// (B) stays in the type. The kernel rebuilds each view from them.
// CHECK-LABEL: func.func @placed_host
// CHECK-SAME:    (%[[A:.*]]: memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>>, %[[S:.*]]: memref<32x1xf32, strided<[1, 1], offset: ?>>, %[[B:.*]]: memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>)
// CHECK:         %[[ABASE:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [0], strides: [1] : memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>> to memref<0xf8E4M3FN>
// CHECK:         %{{.*}}, %[[AOFF:.*]], %[[ASIZES:.*]]:2, %[[ASTRIDES:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK:         %[[SBASE:.*]] = memref.reinterpret_cast %[[S]] to offset: [0], sizes: [0], strides: [1]
// CHECK:         %{{.*}}, %[[SOFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[S]]
// CHECK:         gpu.launch_func @placed_kernels::@k {{.*}} args(%[[ABASE]] : memref<0xf8E4M3FN>, %[[SBASE]] : memref<0xf32>, %[[B]] : memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>, %[[AOFF]] : index, %[[ASIZES]]#0 : index, %[[ASTRIDES]]#0 : index, %[[SOFF]] : index)
// CHECK:       gpu.func @k(%[[KA:.*]]: memref<0xf8E4M3FN>, %[[KS:.*]]: memref<0xf32>, %[[KB:.*]]: memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>, %[[KAOFF:.*]]: index, %[[KM:.*]]: index, %[[KSTRIDE:.*]]: index, %[[KSOFF:.*]]: index) kernel
// CHECK:         memref.reinterpret_cast %[[KA]] to offset: [%[[KAOFF]]], sizes: [%[[KM]], 64], strides: [%[[KSTRIDE]], 1] : memref<0xf8E4M3FN> to memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>>
// CHECK:         memref.reinterpret_cast %[[KS]] to offset: [%[[KSOFF]]], sizes: [32, 1], strides: [1, 1] : memref<0xf32> to memref<32x1xf32, strided<[1, 1], offset: ?>>
module attributes {gpu.container_module} {
  func.func @placed_host(%a: memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>>,
                         %s: memref<32x1xf32, strided<[1, 1], offset: ?>>,
                         %b: memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @placed_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>>,
             %s : memref<32x1xf32, strided<[1, 1], offset: ?>>,
             %b : memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>)
    return
  }
  gpu.module @placed_kernels {
    gpu.func @k(%a: memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>>,
                %s: memref<32x1xf32, strided<[1, 1], offset: ?>>,
                %b: memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %s[%c0, %c0] : memref<32x1xf32, strided<[1, 1], offset: ?>>
      %y = memref.load %a[%c0, %c0] : memref<?x64xf8E4M3FN, strided<[?, 1], offset: ?>>
      %z = memref.load %b[%c0, %c0] : memref<16x64xf8E4M3FN, strided<[64, 1], offset: 1024>>
      gpu.return
    }
  }
}
