// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx cluster-rows=2" | FileCheck %s
// RUN: fp8-opt %s --qmm-to-nvvm-pipeline="chip=sm_90a format=ptx" | FileCheck %s --check-prefix=NOCLUSTER

// A 256 x 256 per-tensor GEMM: 2 tile rows, so with cluster-rows=2 the
// wgmma kernel runs in clusters of 2 blocks sharing B's tiles (by default,
// no clusters). The PTX that reaches the driver: the rank in the cluster,
// the barriers' initialization fenced for the cluster, cluster-wide
// barriers at the start and the end, B's half copied with multicast to
// both blocks, and releases that map the barrier's address into each
// block (mapa) and arrive there.
// (Executed on an H100: benchmarks/nvidia_plans.sh validate.)

// CHECK:       gpu.binary @two_rows_wgmma
// CHECK-SAME:  %cluster_ctaid.x
// CHECK-SAME:  mbarrier.init.shared.b64
// CHECK-SAME:  fence.mbarrier_init.release.cluster
// CHECK-SAME:  barrier.cluster.arrive
// CHECK-SAME:  barrier.cluster.wait
// The consumers (first in the PTX): the release of a stage in both blocks.
// CHECK-SAME:  setmaxnreg.inc.sync.aligned.u32
// CHECK-SAME:  mapa.shared::cluster.u64
// CHECK-SAME:  mapa.shared::cluster.u64
// CHECK-SAME:  mbarrier.arrive.shared::cluster.b64
// CHECK-SAME:  mbarrier.arrive.shared::cluster.b64
// The producer: the wait, A's tile, B's half multicast.
// CHECK-SAME:  setmaxnreg.dec.sync.aligned.u32
// CHECK-SAME:  mbarrier.try_wait.parity.shared.b64
// CHECK-SAME:  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CHECK-SAME:  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [
// The closing cluster barrier.
// CHECK-SAME:  barrier.cluster.arrive
// CHECK-SAME:  barrier.cluster.wait

// NOCLUSTER:      gpu.binary @two_rows_wgmma
// NOCLUSTER-NOT:  cluster_ctaid
// NOCLUSTER-NOT:  barrier.cluster
// NOCLUSTER-SAME: mbarrier.arrive.shared.b64
// NOCLUSTER-NOT:  mapa
// NOCLUSTER-NOT:  multicast::cluster
// NOCLUSTER-NOT:  barrier.cluster

func.func @two_rows(%a: tensor<256x384xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x384xf8E4M3FN>, %sb: tensor<1x1xf32>, %c: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = qmm.matmul a(%a, %sa : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> b(%b, %sb : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) #qmm.scale<per_tensor> outs(%c : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
