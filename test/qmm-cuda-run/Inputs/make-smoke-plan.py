"""make-smoke-plan.py DIR [--wrong]: writes a launch plan for qmm-cuda-run
with hand-written PTX (no compiler involved), for checking the runner on an
sm_90 GPU and its plan reader anywhere.

Kernel scale_f32: y[i] = x[i] * s[0] (f32), staged through dynamic shared
memory above 48 KiB (so the runner must opt the kernel in). Kernel to_bf16:
z[i] = bf16(y[i]) for the first 1000 of 1024 elements; the rest stays
poison, which the checks do not read. --wrong shifts the bounds of y so
that its exact check fails (exit 1).

Only the standard library: it runs on a GPU machine without numpy.
"""
import math
import os
import random
import struct
import sys

N = 1024
NZ = 1000
SCALE = 1.5

PTX = """//
// qmm-cuda-run smoke test: written by hand.
//
.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 smem[];

.visible .entry scale_f32(
\t.param .u64 scale_f32_param_0,
\t.param .u64 .ptr .global .align 4 scale_f32_param_1,
\t.param .u64 scale_f32_param_2,
\t.param .u32 scale_f32_param_3
)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<8>;
\t.reg .f32 %f<5>;
\t.reg .b64 %rd<12>;

\tld.param.u64 %rd1, [scale_f32_param_0];
\tld.param.u64 %rd2, [scale_f32_param_1];
\tld.param.u64 %rd3, [scale_f32_param_2];
\tld.param.u32 %r1, [scale_f32_param_3];
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmov.u32 %r4, %tid.x;
\tmad.lo.s32 %r5, %r2, %r3, %r4;
\tsetp.ge.u32 %p1, %r5, %r1;
\t@%p1 bra DONE;
\tcvta.to.global.u64 %rd4, %rd1;
\tcvta.to.global.u64 %rd5, %rd2;
\tcvta.to.global.u64 %rd6, %rd3;
\tmul.wide.u32 %rd7, %r5, 4;
\tadd.s64 %rd8, %rd5, %rd7;
\tld.global.f32 %f1, [%rd8];
\tld.global.f32 %f2, [%rd6];
\tmul.rn.f32 %f3, %f1, %f2;
\t// Through shared memory at offset 61440 + 4 * tid: past 48 KiB.
\tmov.u64 %rd9, smem;
\tmul.wide.u32 %rd10, %r4, 4;
\tadd.s64 %rd11, %rd9, %rd10;
\tst.shared.f32 [%rd11+61440], %f3;
\tld.shared.f32 %f4, [%rd11+61440];
\tadd.s64 %rd8, %rd4, %rd7;
\tst.global.f32 [%rd8], %f4;
DONE:
\tret;
}

.visible .entry to_bf16(
\t.param .u64 to_bf16_param_0,
\t.param .u64 to_bf16_param_1,
\t.param .u32 to_bf16_param_2
)
{
\t.reg .pred %p<2>;
\t.reg .b16 %rs<2>;
\t.reg .b32 %r<6>;
\t.reg .f32 %f<2>;
\t.reg .b64 %rd<9>;

\tld.param.u64 %rd1, [to_bf16_param_0];
\tld.param.u64 %rd2, [to_bf16_param_1];
\tld.param.u32 %r1, [to_bf16_param_2];
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmov.u32 %r4, %tid.x;
\tmad.lo.s32 %r5, %r2, %r3, %r4;
\tsetp.ge.u32 %p1, %r5, %r1;
\t@%p1 bra DONE;
\tcvta.to.global.u64 %rd3, %rd1;
\tcvta.to.global.u64 %rd4, %rd2;
\tmul.wide.u32 %rd5, %r5, 4;
\tadd.s64 %rd6, %rd4, %rd5;
\tld.global.f32 %f1, [%rd6];
\tcvt.rn.bf16.f32 %rs1, %f1;
\tmul.wide.u32 %rd7, %r5, 2;
\tadd.s64 %rd8, %rd3, %rd7;
\tst.global.b16 [%rd8], %rs1;
DONE:
\tret;
}
"""


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def bf16_neighbours(value):
    """The bf16 values at or just around an f32 value: (down, up)."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    low = struct.unpack("<f", struct.pack("<I", bits & 0xFFFF0000))[0]
    if low == value:
        return low, low
    high = struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF0000) + 0x10000))[0]
    return (low, high) if low < high else (high, low)


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as out:
        out.write(data)


def main():
    args = sys.argv[1:]
    wrong = "--wrong" in args
    args = [a for a in args if a != "--wrong"]
    if len(args) != 1:
        sys.exit(__doc__)
    directory = args[0]
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(1)
    x = [f32(rng.uniform(-4, 4)) for _ in range(N)]
    y = [f32(v * SCALE) for v in x]

    write(directory, "smoke.ptx", PTX.encode())
    write(directory, "x.bin", struct.pack("<%df" % N, *x))
    write(directory, "s.bin", struct.pack("<f", SCALE))
    shift = 1.0 if wrong else 0.0
    write(directory, "y_bounds.bin",
          b"".join(struct.pack("<2d", v + shift, v + shift) for v in y))
    write(directory, "y_ref.bin", struct.pack("<%dd" % N, *(v * SCALE for v in x)))
    write(directory, "z_ref.bin", struct.pack("<%dd" % NZ, *y[:NZ]))
    write(directory, "z_bounds.bin",
          b"".join(struct.pack("<2d", *bf16_neighbours(v)) for v in y[:NZ]))
    plan = f"""qmm-launch-plan 1
# Hand-written smoke plan: see make-smoke-plan.py.
chip sm_90a
program smoke{" (wrong bounds)" if wrong else ""}
flops {N}

module 0 smoke.ptx
kernel 0 0 scale_f32
kernel 1 0 to_bf16
buffer 0 {4 * N} file x.bin
buffer 1 4 file s.bin
buffer 2 {4 * N} poison
buffer 3 {2 * N} poison
buffer 4 {4 * N} scale
buffer 5 {N} fp8e4m3
buffer 6 {N} fp8e5m2
buffer 7 {2 * N} bf16
buffer 8 64 zero
launch 0 {N // 256} 1 1 256 1 1 65536 4 b2 b0 b1 u32:{N}
launch 1 {N // 128} 1 1 128 1 1 0 3 b3 b2 u32:{NZ}
check 2 f32 {N} exact bounds 0 y_bounds.bin y = x * s, exactly
check 2 f32 {N} quality sqnr 100 y_ref.bin y vs x * s in f64
check 3 bf16 {NZ} exact bounds 0 z_bounds.bin z = bf16(y), either neighbour
check 3 bf16 {NZ} quality calc_diff 1e-4 z_ref.bin z vs y
"""
    write(directory, "plan.txt", plan.encode())


if __name__ == "__main__":
    main()
