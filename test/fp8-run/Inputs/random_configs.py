"""Runs fp8-run on the emulator over seeded random problems: chip, operand
types (OCP, FNUZ, mixed), shape (K not always a multiple of 16), scale kinds,
B layout, output type, and half the time a random user configuration (every
MFMA form of the chip, 1-2 waves per dimension, tiles of 1-2 MFMA repeats,
tile K from the MFMA's K to 128, 1 or 2 LDS stages). Prints each failing
command and the number of failures.

With `mx`: MX problems instead: any pair of MX element formats (FP8, FP6,
FP4), K a multiple of 32, E8M0 scales, and half the time a user
configuration (gfx950: the scaled forms; gfx942: the fp8 forms with a K
tile inside the 32-wide scale block). These are judged on the exact tier
(the kernel against the f64 product of its dequantized inputs): the
quantization tier measures FP4/FP6 rounding noise, whose budget holds for
large matrices, not for a 1 x 28 output.

With `fp8out`: FP8 outputs quantized in the epilogue with per-token scales
of any width C (1 to 24, and 32 to 128) or MX scales, half the time under a
random user configuration. A configuration must either run and PASS or,
when it splits an output block between waves (decided here from the
config's numbers, independently of the compiler), be rejected with the
diagnostic saying so (exit 2).

  random_configs.py FP8_RUN SEED COUNT [mx|fp8out]
"""
import math
import random
import subprocess
import sys


def problem(rng):
    chip = rng.choice(["gfx942", "gfx950"])
    if chip == "gfx942":
        types = ["f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3FN", "f8E5M2"]
        forms = [("fp8", 16, 32), ("fp8", 32, 16)]
    else:
        types = ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"]
        forms = [("f8f6f4", 16, 128), ("f8f6f4", 32, 64), ("fp8", 16, 32)]
    a = rng.choice(types)
    fnuz = a.endswith("FNUZ")
    b = rng.choice([t for t in types if t.endswith("FNUZ") == fnuz])
    m, n = rng.randint(1, 150), rng.randint(1, 150)
    k = 16 * rng.randint(1, 20) + (rng.randint(1, 15) if rng.random() < 0.3 else 0)
    a_scale, b_scale = rng.choice(
        [("tensor", "tensor"), ("row", "row"), ("1x128", "128x128"),
         ("row", "tensor"), ("tensor", "row")])
    args = ["--device", "emu", "--chip", chip, "--a-type", a, "--b-type", b,
            "--gemm", f"{m}x{n}x{k}", "--a-scale", a_scale, "--b-scale", b_scale,
            "--out-type", rng.choice(["f32", "bf16", "f16"]),
            "--b-layout", rng.choice(["nk", "kn"]),
            "--seed", str(rng.randint(0, 1000))]
    if rng.random() < 0.5:
        if chip == "gfx950" and fnuz:
            kind, size, mk = rng.choice([("bf16", 16, 32), ("bf16", 32, 16)])
        else:
            kind, size, mk = rng.choice(forms)
        wm, wn = rng.choice([1, 2]), rng.choice([1, 2])
        tm = size * wm * rng.choice([1, 2])
        tn = size * wn * rng.choice([1, 2])
        tk = mk * rng.choice([1, 2, 4]) if mk < 64 else mk
        tk = min(tk, 128)
        stages = rng.choice([1, 2])
        args += ["--config",
                 f"#qmm.config<tile = [{tm}, {tn}, {tk}], waves = [{wm}, {wn}], "
                 f"mfma = {kind} [{size}, {size}, {mk}], stages = {stages}>"]
    return args


def mx_problem(rng):
    chip = rng.choice(["gfx942", "gfx950"])
    formats = ["f8E4M3FN", "f8E5M2", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"]
    a, b = rng.choice(formats), rng.choice(formats)
    m, n = rng.randint(1, 150), rng.randint(1, 150)
    k = 32 * rng.randint(1, 12)
    packed_b = not b.startswith("f8")
    args = ["--device", "emu", "--chip", chip, "--a-type", a, "--b-type", b,
            "--gemm", f"{m}x{n}x{k}", "--a-scale", "mx32", "--b-scale", "mx32",
            "--rounding", rng.choice(["pow2_floor", "pow2_ceil"]),
            "--out-type", rng.choice(["f32", "bf16", "f16"]),
            "--b-layout", "nk" if packed_b else rng.choice(["nk", "kn"]),
            "--seed", str(rng.randint(0, 1000))]
    if rng.random() < 0.5:
        if chip == "gfx950":
            kind, size, mk = rng.choice([("scaled_f8f6f4", 16, 128),
                                         ("scaled_f8f6f4", 32, 64)])
            tk = mk * rng.choice([1, 2])
        else:
            kind, size, mk = rng.choice([("fp8", 16, 32), ("fp8", 32, 16)])
            tk = 32
        wm, wn = rng.choice([1, 2]), rng.choice([1, 2])
        tm = size * wm * rng.choice([1, 2])
        tn = size * wn * rng.choice([1, 2])
        stages = rng.choice([1, 2])
        args += ["--config",
                 f"#qmm.config<tile = [{tm}, {tn}, {tk}], waves = [{wm}, {wn}], "
                 f"mfma = {kind} [{size}, {size}, {mk}], stages = {stages}>"]
    return args


SPLIT_BLOCK = "must lie within one wave's sub-tile"


def fp8_output_problem(rng):
    """Returns (args, expectation): "pass", "reject" (a forced config that
    splits a block) or "either" (the selector's choice where it may find no
    config: it must then say why)."""
    chip = rng.choice(["gfx942", "gfx950"])
    ocp = chip == "gfx950" if rng.random() < 0.8 else chip == "gfx942"
    family = ["f8E4M3FN", "f8E5M2"] if ocp else ["f8E4M3FNUZ", "f8E5M2FNUZ"]
    m, n = rng.randint(1, 150), rng.randint(1, 300)
    k = 16 * rng.randint(1, 16)
    mx = ocp and n % 32 == 0 and rng.random() < 0.2
    width = 32 if mx else rng.choice(list(range(1, 25)) + [32, 48, 64, 96, 128])
    args = ["--device", "emu", "--chip", chip, "--a-type", family[0],
            "--b-type", family[0], "--gemm", f"{m}x{n}x{k}",
            "--a-scale", rng.choice(["tensor", "row", "1x128"]),
            "--b-scale", rng.choice(["tensor", "row", "128x128"]),
            "--out-type", rng.choice(family),
            "--out-scale", "mx32" if mx else f"1x{width}",
            "--seed", str(rng.randint(0, 1000))]
    if rng.random() < 0.3:
        args += ["--bias", "f32", "--gelu", rng.choice(["tanh", "erf"])]
    # The selector widens the tile to lcm(C, MFMA N) when N needs several
    # 128-wide tiles; it cannot when that exceeds 256 columns.
    expect = "either" if n > 128 and math.lcm(width, 16) > 256 else "pass"
    if rng.random() < 0.5:
        size, mk = (16, 32) if chip == "gfx942" else (16, 128)
        kind = "fp8" if chip == "gfx942" else "f8f6f4"
        if not ocp and chip == "gfx950":
            kind, mk = "bf16", 32
        wm, wn = rng.choice([1, 2, 4]), rng.choice([1, 2])
        tm = size * wm * rng.choice([1, 2])
        tn = size * wn * rng.choice([1, 2, 4])
        tk = mk if mk >= 64 else mk * rng.choice([1, 2])
        args += ["--config",
                 f"#qmm.config<tile = [{tm}, {tn}, {tk}], waves = [{wm}, {wn}], "
                 f"mfma = {kind} [{size}, {size}, {mk}], stages = 1>"]
        # Blocks stay inside a wave: sub-tiles a whole number of blocks
        # wide, or one wave holding every column.
        keeps = (tn // wn) % width == 0 or (wn == 1 and n <= tn)
        expect = "pass" if keeps else "reject"
    return args, expect


def main():
    fp8_run, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    mode = sys.argv[4] if len(sys.argv) > 4 else ""
    make = {"mx": mx_problem, "fp8out": fp8_output_problem}.get(mode, problem)
    rng = random.Random(seed)
    failures = rejections = 0
    for _ in range(count):
        args = make(rng)
        expect = "pass"
        if make is fp8_output_problem:
            args, expect = args
        run = subprocess.run([fp8_run] + args, capture_output=True, text=True)
        exact = [line for line in run.stdout.splitlines()
                 if line.strip().startswith("exact tier")]
        if make is mx_problem:
            passed = len(exact) == 1 and exact[0].rstrip().endswith("PASS")
        else:
            passed = run.returncode == 0 and "RESULT: PASS" in run.stdout
            rejected = run.returncode == 2 and SPLIT_BLOCK in run.stderr
            if expect == "reject":
                passed = rejected
            elif expect == "either":
                passed = passed or rejected
            rejections += rejected
        if not passed:
            failures += 1
            print("FAILED:", " ".join(args))
            print((run.stdout + run.stderr)[-600:])
    if make is fp8_output_problem:
        print(f"rejected as splitting an output block: {rejections}")
    print(f"random configurations: {count} run, {failures} failed")


if __name__ == "__main__":
    main()
