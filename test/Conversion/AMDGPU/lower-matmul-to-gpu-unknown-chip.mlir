// RUN: fp8-opt %s -verify-diagnostics --qmm-lower-matmul-to-gpu=chip=gfx90a

// expected-error @below {{qmm-lower-matmul-to-gpu: unknown chip 'gfx90a' (expected gfx942 or gfx950)}}
module {
}
