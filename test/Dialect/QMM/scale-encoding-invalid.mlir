// RUN: fp8-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown scale kind 'per_col', expected per_tensor, per_row, block or mx}}
func.func private @f() attributes { e = #qmm.scale<per_col> }

// -----

// expected-error @+1 {{expected a block shape such as 1x128}}
func.func private @f() attributes { e = #qmm.scale<block> }

// -----

// expected-error @+1 {{block scale encoding needs a 2-D block shape (rows x K), got 3 dimension(s)}}
func.func private @f() attributes { e = #qmm.scale<block 1x2x128> }

// -----

// expected-error @+1 {{block scale encoding needs a 2-D block shape (rows x K), got 1 dimension(s)}}
func.func private @f() attributes { e = #qmm.scale<block 128> }

// -----

// expected-error @+1 {{block dimensions must be positive, got 0x128}}
func.func private @f() attributes { e = #qmm.scale<block 0x128> }

// -----

// expected-error @+1 {{f8E8M0FNU scales require the 'mx' encoding, got 'block'}}
func.func private @f() attributes { e = #qmm.scale<block 1x32, f8E8M0FNU> }

// -----

// expected-error @+1 {{f8E8M0FNU scales require the 'mx' encoding, got 'per_tensor'}}
func.func private @f() attributes { e = #qmm.scale<per_tensor, f8E8M0FNU> }

// -----

// expected-error @+1 {{'mx' encoding requires f8E8M0FNU scales, got 'f32'}}
func.func private @f() attributes { e = #qmm.scale<mx, f32> }

// -----

// expected-error @+1 {{scale element type must be f32 or f8E8M0FNU, got 'f16'}}
func.func private @f() attributes { e = #qmm.scale<per_row, f16> }

// -----

// expected-error @+1 {{scale element type must be f32 or f8E8M0FNU, got 'i8'}}
func.func private @f() attributes { e = #qmm.scale<block 1x128, i8> }

// -----

// expected-error @+1 {{majorness given twice}}
func.func private @f() attributes { e = #qmm.scale<per_row, mn_major, k_major> }

// -----

// expected-error @+1 {{scale element type given twice}}
func.func private @f() attributes { e = #qmm.scale<per_row, f32, f32> }

// -----

// per_tensor and per_row have no block shape: the dims are not parsed and
// the parser expects '>'.
// expected-error @+1 {{expected '>'}}
func.func private @f() attributes { e = #qmm.scale<per_row 1x128> }

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f() attributes { e = #qmm.scale<mx 1x16> }

// -----

// expected-error @+2 {{expected static shape}}
// expected-error @+1 {{expected a block shape such as 1x128}}
func.func private @f() attributes { e = #qmm.scale<block ?x128> }

// -----

// expected-error @+1 {{expected a block shape such as 1x128}}
func.func private @f() attributes { e = #qmm.scale<block -1x128> }
