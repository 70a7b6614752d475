// RUN: fp8-opt %s -verify-diagnostics --qmm-select-config=chip=gfx1200

// expected-error @below {{qmm-select-config: unknown chip 'gfx1200' (expected gfx942 or gfx950)}}
module {
}
