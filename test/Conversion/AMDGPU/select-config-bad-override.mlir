// RUN: fp8-opt %s -verify-diagnostics --qmm-select-config="chip=gfx942 override=\"#qmm.scale<per_row>\""

// expected-error @below {{qmm-select-config: override '#qmm.scale<per_row>' is not a #qmm.config<...>}}
module {
}
