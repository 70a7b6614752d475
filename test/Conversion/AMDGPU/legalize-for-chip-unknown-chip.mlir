// RUN: fp8-opt %s -verify-diagnostics --qmm-legalize-for-chip=chip=gfx90a

// expected-error @below {{qmm-legalize-for-chip: unknown chip 'gfx90a' (expected gfx942 or gfx950)}}
module {
}
