// RUN: fp8-opt %s --qmm-attach-target=chip=sm_90a | FileCheck %s
// RUN: not fp8-opt %s --qmm-attach-target=chip=sm_80 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// qmm-attach-target records an NVIDIA chip as #nvvm.target, with the PTX
// version the kernels declare (the target description's, PTX ISA 8.3).
// CHECK: module attributes {qmm.target = #nvvm.target<chip = "sm_90a", features = "+ptx83">}
// UNKNOWN: qmm-attach-target: unknown chip 'sm_80' (expected gfx942, gfx950 or sm_90a)
func.func @any() {
  return
}
