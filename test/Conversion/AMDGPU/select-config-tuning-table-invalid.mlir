// RUN: fp8-opt %s -split-input-file -verify-diagnostics --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table-illegal.json"
// Tables that cannot be read are errors of the whole run, not of an op:
// RUN: not fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/no-such-table.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table-malformed.json" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table-not-a-table.json" 2>&1 | FileCheck %s --check-prefix=NOT-A-TABLE
// RUN: not fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table-bad-bucket.json" 2>&1 | FileCheck %s --check-prefix=BAD-BUCKET
// RUN: not fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table-bad-field.json" 2>&1 | FileCheck %s --check-prefix=BAD-FIELD
// RUN: not fp8-opt %s --qmm-select-config="chip=gfx942 tuning-table=%S/Inputs/tuning-table-bad-measured.json" 2>&1 | FileCheck %s --check-prefix=BAD-FIELD
// BAD-FIELD: error: qmm-select-config: tuning table '{{.*}}': entry 0: "modeled_us" and "measured_us" must be numbers and "device" a string
// MISSING: error: qmm-select-config: tuning table '{{.*}}no-such-table.json': No such file or directory
// MALFORMED: error: qmm-select-config: tuning table '{{.*}}tuning-table-malformed.json': {{.*}}
// NOT-A-TABLE: error: qmm-select-config: tuning table '{{.*}}': not a qmm tuning table
// BAD-BUCKET: error: qmm-select-config: tuning table '{{.*}}': entry 0: "m" must be a positive power of two (a bucket)

// An entry is checked like a user's config: gfx942 has no f8f6f4 MFMAs.
func.func @illegal_entry(%a: tensor<64x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                         %b: tensor<64x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                         %d: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error-re @+1 {{(config from tuning table '{{.*}}tuning-table-illegal.json') config: gfx942 has no f8f6f4 MFMA 16x16x128}}
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

// An entry that is not a config attribute.
func.func @not_a_config(%a: tensor<64x128xf8E4M3FNUZ>, %as: tensor<1x1xf32>,
                        %b: tensor<64x128xf8E4M3FNUZ>, %bs: tensor<1x1xf32>,
                        %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{qmm-select-config: the tuning table's entry 'tile = [64, 64, 128]' is not a #qmm.config<...>: expected attribute value}}
  %0 = qmm.matmul a(%a, %as : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %bs : tensor<64x128xf8E4M3FNUZ>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  outs(%d : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
