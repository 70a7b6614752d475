// Each chunk is processed on its own; an error in one does not hide the
// others.
// RUN: not fp8-opt %s -split-input-file 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// CHECK-LABEL: func.func private @first
// CHECK-SAME: #qmm.scale<per_row>
func.func private @first() attributes { e = #qmm.scale<per_row> }

// -----

// ERR: error: f8E8M0FNU scales require the 'mx' encoding, got 'per_row'
func.func private @broken() attributes { e = #qmm.scale<per_row, f8E8M0FNU> }

// -----

// CHECK-LABEL: func.func private @third
// CHECK-SAME: #qmm.scale<mx>
func.func private @third() attributes { e = #qmm.scale<mx> }
