// RUN: fp8-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The operand-layout attribute on its own.
// CHECK-LABEL: func.func private @layouts
// CHECK-SAME: kn = #qmm<layout kn>
// CHECK-SAME: nk = #qmm<layout nk>
func.func private @layouts() attributes {
  nk = #qmm<layout nk>,
  kn = #qmm<layout kn>
}

// -----

// expected-error @+2 {{expected ::mlir::qmm::OperandLayout to be one of: nk, kn}}
// expected-error @+1 {{failed to parse QMM_OperandLayoutAttr parameter 'value'}}
func.func private @bad() attributes { l = #qmm<layout mk> }
