#!/usr/bin/python3
"""Differential testing: the emulator (the AMD pipeline's kernels) against
the cpu device (the reference lowering) on random valid problems.

Each case is run by fp8-run on both devices with the same generated data:
* `program` cases: a program from `qmm-gen-program --valid-only` (any
  element type pair, scale kind and majorness, B layout, epilogue, FP8
  output, forced #qmm.config), run from its file with `--save`;
* `grouped` cases: fp8-run's own grouped (MoE) generator, `--groups G
  [--masked]`, which has no `--save`;
* `scale-range` cases: inputs written here (`--load`) whose scales'
  product leaves f32's range while every scaled product stays inside it
  (tiny codes with scales near 2^66, or codes near the format's largest
  with scales near 2^-76), any scale kind, FP8 type, shape and chip: the
  kernels must not multiply the scales first.

A case passes when both devices pass fp8-run's exact tier (and the aux
tier), and, for `program` cases, when their outputs agree elementwise
within twice the exact tier's per-element bound, recomputed here in numpy
from the saved inputs (decoded with test/Utils/formats.py, not with the
compiler's or fp8-run's code): one output ulp plus the f32 accumulation
bound (K + 2) 2^-24 sum|a b| per device; for FP8 outputs half a unit of
the format at each device's scale, plus saturation where a device's scale
clips the reference. NaN and Inf must sit at the same places. The inputs
both devices saw must be byte-identical. The quantization tier is not
judged: it measures rounding noise, calibrated on large matrices.

  differential.py --build-dir BUILD [--seed S] [--count N] [--chip C]
                  [--kinds program,grouped,scale-range] [--max-extent E]
                  [--jobs J]
                  [--keep DIR] [--inject-error]

Prints one FAILED line per failing case with the commands that reproduce
it, then `differential: N run, F failed, B bit-identical`.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "Utils"))
from formats import FORMATS, table, unpack_rows  # noqa: E402

# Mantissa bits and smallest normal exponent of the high-precision outputs.
HIGH_PRECISION = {"f32": (23, -126), "bf16": (7, -126), "f16": (10, -14)}
RUN_TIMEOUT_S = 300


def ulp(values, out_type):
    """One unit in the last place of `out_type` at |values|."""
    mantissa, min_exp = HIGH_PRECISION[out_type]
    magnitude = np.abs(values)
    exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
    exponent = np.maximum(exponent, min_exp)
    return np.ldexp(1.0, (exponent - mantissa).astype(np.int64))


def format_ulp(values, fmt):
    """One unit of the FP8/FP6/FP4 format `fmt` at |values|."""
    e_bits, m_bits, bias, _ = FORMATS[fmt]
    magnitude = np.abs(values)
    exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
    exponent = np.maximum(exponent, 1 - bias)
    return np.ldexp(1.0, (exponent - m_bits).astype(np.int64))


def parse_scale(text):
    """(kind, block rows, block K, mn_major) of a #qmm.scale<...>."""
    body = re.match(r"#qmm\.scale<(.*)>", text).group(1)
    parts = [p.strip() for p in body.split(",")]
    mn_major = "mn_major" in parts
    kind = parts[0]
    if kind == "per_tensor":
        return ("tensor", None, None, mn_major)
    if kind == "per_row":
        return ("row", 1, None, mn_major)
    if kind == "mx":
        return ("mx", 1, 32, mn_major)
    rows, k = (int(v) for v in kind.split()[1].split("x"))
    return ("block", rows, k, mn_major)


def scale_values(raw, kind):
    if kind == "mx":
        values = np.ldexp(1.0, raw.astype(np.int64) - 127)
        return np.where(raw == 255, np.nan, values)
    return raw.astype(np.float64)


def expand_scales(raw, encoding, rows, k):
    """The scale of every logical (row, k) element."""
    kind, block_rows, block_k, mn_major = encoding
    values = scale_values(raw, kind)
    if mn_major:
        values = values.T
    if kind == "tensor":
        return np.full((rows, k), values[0, 0])
    block_rows = block_rows or rows
    block_k = block_k or k
    full = np.repeat(np.repeat(values, block_rows, axis=0), block_k, axis=1)
    return full[:rows, :k]


def dequantize(directory, name, fmt, encoding, layout, rows, k):
    codes = np.load(os.path.join(directory, name + ".npy"))
    raw_scales = np.load(os.path.join(directory, name + "_scale.npy"))
    codes = unpack_rows(codes, fmt, k if layout == "nk" else rows)
    if layout == "kn":
        codes = codes.T
    assert codes.shape == (rows, k), (name, codes.shape, rows, k)
    with np.errstate(invalid="ignore"):
        return table(fmt)[codes] * expand_scales(raw_scales, encoding, rows, k)


def gelu(x, kind):
    if kind == "gelu_tanh":
        inner = np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))
    else:
        inner = np.vectorize(math.erf)(x / math.sqrt(2.0))
    return 0.5 * x * (1.0 + inner)


def same_non_finite(x, y):
    """NaN where the other is NaN; infinities equal."""
    x_nan, y_nan = np.isnan(x), np.isnan(y)
    if (x_nan != y_nan).any():
        return False
    inf = np.isinf(x) | np.isinf(y)
    return bool((x[inf] == y[inf]).all())


def compare_outputs(report, emu_dir, cpu_dir):
    """Problems found comparing the two devices' saved files (empty: they
    agree), and whether the outputs are bit-identical."""
    problems = []
    files = sorted(os.listdir(emu_dir))
    if files != sorted(os.listdir(cpu_dir)):
        return [f"saved files differ: {files} vs {sorted(os.listdir(cpu_dir))}"], False
    outputs = {"d.npy", "d_scale.npy", "aux.npy"}
    for name in files:
        if name in outputs:
            continue
        with open(os.path.join(emu_dir, name), "rb") as f, \
                open(os.path.join(cpu_dir, name), "rb") as g:
            if f.read() != g.read():
                problems.append(f"input {name} differs between the runs")
    if problems:
        return problems, False

    m, n, k = report["m"], report["n"], report["k"]
    a = dequantize(emu_dir, "a", report["a_type"], parse_scale(report["a_scale"]),
                   "nk", m, k)
    b = dequantize(emu_dir, "b", report["b_type"], parse_scale(report["b_scale"]),
                   report["b_layout"], n, k)
    with np.errstate(invalid="ignore", over="ignore"):
        product = a @ b.T
        magnitude = np.abs(a) @ np.abs(b).T
    if report["accumulate"]:
        c = np.load(os.path.join(emu_dir, "c.npy")).astype(np.float64)
        product, magnitude = product + c, magnitude + np.abs(c)
    if "bias" in report:
        bias = np.load(os.path.join(emu_dir, "bias.npy")).astype(np.float64)
        product, magnitude = product + bias, magnitude + np.abs(bias)
    unit = (k + 2) * 2.0 ** -24
    pre, pre_bound = product, unit * magnitude
    reference, bound = pre, pre_bound
    if "activation" in report:
        # Validation.h: GELU's largest slope (1.13) on the error, plus its
        # evaluation in f32 (2^-20 of the pre-activation).
        reference = gelu(pre, report["activation"])
        bound = 1.13 * pre_bound + np.ldexp(np.abs(pre), -20)

    def load(directory, name):
        return np.load(os.path.join(directory, name)).astype(np.float64)

    identical = True
    checks = [("d.npy", report["out_type"], reference, bound)]
    if "aux_type" in report:
        checks.append(("aux.npy", report["aux_type"], pre, pre_bound))
    for name, out_type, ref, ref_bound in checks:
        emu, cpu = load(emu_dir, name), load(cpu_dir, name)
        identical &= np.array_equal(emu, cpu, equal_nan=True)
        if out_type in HIGH_PRECISION:
            if not same_non_finite(emu, cpu):
                problems.append(f"{name}: NaN/Inf at different places")
                continue
            finite = np.isfinite(emu) & np.isfinite(cpu) & np.isfinite(ref)
            scale = np.maximum(np.maximum(np.abs(emu), np.abs(cpu)), np.abs(ref))
            allowed = 2.0 * (ulp(scale, out_type) + ref_bound)
        else:
            # FP8 output: compare dequantized values; each device within
            # half a unit at its scale, the bound, the f32 reciprocal, and
            # saturation where its scale clips the reference.
            fmt = out_type
            encoding = parse_scale(report["out_scale"])
            fmax = np.nanmax(table(fmt))
            values = []
            for directory in (emu_dir, cpu_dir):
                codes = np.load(os.path.join(directory, "d.npy"))
                raw = np.load(os.path.join(directory, "d_scale.npy"))
                scales = expand_scales(raw, encoding, m, n)
                with np.errstate(invalid="ignore"):
                    decoded = table(fmt)[codes]
                values.append((decoded * scales, decoded, scales))
            (emu, emu_codes, emu_scales), (cpu, cpu_codes, cpu_scales) = values
            if not same_non_finite(emu, cpu):
                problems.append(f"{name}: NaN at different places")
                continue
            finite = np.isfinite(emu) & np.isfinite(cpu) & np.isfinite(ref)
            allowed = 2.0 * ref_bound + 2.0 ** -20 * np.abs(ref)
            for decoded, scales in ((emu_codes, emu_scales), (cpu_codes, cpu_scales)):
                with np.errstate(invalid="ignore"):
                    allowed = allowed + 0.5 * format_ulp(decoded, fmt) * scales
                    allowed = allowed + np.maximum(0.0, np.abs(ref) - fmax * scales)
        error = np.abs(emu - cpu)
        bad = finite & ~(error <= allowed)
        if bad.any():
            i = np.unravel_index(np.argmax(np.where(bad, error - allowed, -np.inf)),
                                 bad.shape)
            problems.append(
                f"{name}: {int(bad.sum())} of {bad.size} elements disagree beyond "
                f"the bound; worst at {tuple(int(x) for x in i)}: emu {emu[i]!r} "
                f"cpu {cpu[i]!r} reference {ref[i]!r} allowed {allowed[i]:.3e}")
    return problems, bool(identical)


def inject_error(path):
    """Corrupts the largest element of an output (the checker's own test):
    scaled by 1 + 2^-5 for floats, one exponent bit flipped for FP8 codes."""
    values = np.load(path)
    flat = values.reshape(-1)
    if values.dtype == np.uint8:
        i = int(np.argmax(flat & 0x7F))
        flat[i] ^= 0x20
    else:
        i = int(np.nanargmax(np.abs(flat)))
        flat[i] = flat[i] * np.float32(1 + 2.0 ** -5) if flat[i] != 0 else np.float32(1)
    np.save(path, values)


def run_fp8(command):
    try:
        run = subprocess.run(command, capture_output=True, text=True,
                             timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {RUN_TIMEOUT_S} s"
    return run, None


def exact_tiers_pass(run):
    """Whether fp8-run's exact (and aux) tiers passed, from --json or text."""
    try:
        report = json.loads(run.stdout)
    except ValueError:
        lines = [line for line in run.stdout.splitlines()
                 if "exact tier" in line]
        return bool(lines) and all(line.rstrip().endswith("PASS")
                                   for line in lines), None
    ok = report["exact"]["pass"] and report.get("aux_exact", {"pass": True})["pass"]
    return ok, report


def make_case(rng, index, args):
    chip = args.chip or rng.choice(["gfx942", "gfx950"])
    kind = rng.choice(args.kinds)
    dist = rng.choices(["normal", "uniform", "outliers", "near-max"],
                       weights=[6, 2, 1, 1])[0]
    case = {"index": index, "kind": kind, "chip": chip,
            "data": ["--seed", str(rng.randint(0, 1 << 30)), "--dist", dist]}
    if kind == "program":
        case["program_seed"] = rng.randint(0, 1 << 40)
    elif kind == "scale-range":
        case["range_seed"] = rng.randint(0, 1 << 40)
    else:
        case["flags"] = grouped_flags(rng, chip, args.max_extent)
    return case


def grouped_flags(rng, chip, max_extent):
    """A grouped GEMM fp8-run generates: contiguous (M a multiple of 128)
    or masked, any supported scale pairing, epilogue."""
    masked = rng.random() < 0.5
    groups = rng.randint(1, 5)
    ocp = chip == "gfx950" if rng.random() < 0.8 else chip == "gfx942"
    family = ["f8E4M3FN", "f8E5M2"] if ocp else ["f8E4M3FNUZ", "f8E5M2FNUZ"]
    if ocp and rng.random() < 0.3:
        types = [rng.choice(family + ["f6E2M3FN", "f6E3M2FN", "f4E2M1FN"])
                 for _ in range(2)]
        scales = ("mx32", "mx32")
        k = 32 * rng.randint(1, 6)
    else:
        types = [rng.choice(family) for _ in range(2)]
        scales = rng.choice([("tensor", "tensor"), ("row", "row"),
                             ("1x128", "128x128"), ("row", "tensor")])
        k = 16 * rng.randint(1, 16)
    m = rng.randint(1, max(1, max_extent)) if masked else 128 * rng.randint(1, 2)
    n = rng.randint(1, max(1, max_extent))
    flags = ["--groups", str(groups), "--gemm", f"{m}x{n}x{k}",
             "--a-type", types[0], "--b-type", types[1],
             "--a-scale", scales[0], "--b-scale", scales[1],
             "--out-type", rng.choice(["f32", "bf16", "f16"])]
    if masked:
        flags.append("--masked")
    if rng.random() < 0.3:
        flags.append("--accumulate")
    if rng.random() < 0.3:
        flags += ["--bias", rng.choice(["f32", "bf16"])]
    if rng.random() < 0.3:
        flags += ["--gelu", rng.choice(["tanh", "erf"])]
        if rng.random() < 0.5:
            flags += ["--aux", rng.choice(["f32", "bf16", "f16"])]
    return flags


SCALE_RANGE_KINDS = {"tensor": ("tensor", "tensor"), "row": ("row", "row"),
                     "block": ("1x128", "128x128"), "mx32": ("mx32", "mx32")}


def write_scale_range_inputs(seed, directory, max_extent):
    """Writes a `--load` directory whose scales' product is beyond f32 in
    one direction while D is a normal f32; returns fp8-run's flags."""
    rng = np.random.default_rng(seed)
    fmt = str(rng.choice(["f8E4M3FN", "f8E5M2"]))
    kind = str(rng.choice(list(SCALE_RANGE_KINDS)))
    m, n = (int(x) for x in rng.integers(1, max(2, max_extent) + 1, 2))
    k = 32 * int(rng.integers(1, 9))
    values = table(fmt)
    magnitudes = np.abs(values)
    codes_all = np.arange(len(values))
    out_type = str(rng.choice(["f32", "bf16"]))
    if rng.random() < 0.5:
        # Overflow: codes of magnitude at most 2^-6, total exponent chosen
        # so that the largest possible |D| stays below 2^126.
        band = codes_all[(magnitudes > 0) & (magnitudes <= 2.0 ** -6)]
        largest = float(np.max(magnitudes[band]))
        total = int(np.floor(126 - np.log2(k * largest * largest)))
        total = int(rng.integers(129, max(130, total + 1)))
    else:
        # Underflow: codes of at least 2^6, sa * sb below 2^-149. D may be
        # subnormal (and cancel): bf16 judges it by its ulp, where f32's
        # SQNR criterion cannot.
        band = codes_all[(magnitudes >= 64) & np.isfinite(values)]
        total = int(rng.integers(-158, -149))
        out_type = "bf16"
    ea = total // 2
    eb = total - ea

    def codes(rows):
        return rng.choice(band, size=(rows, k)).astype(np.uint8)

    def scales(operand, rows, exponent):
        block = SCALE_RANGE_KINDS[kind][0 if operand == "a" else 1]
        if block == "mx32":
            return np.full((rows, k // 32), 127 + exponent, dtype=np.uint8)
        shape = {"tensor": (1, 1), "row": (rows, 1),
                 "1x128": (rows, -(-k // 128)),
                 "128x128": (-(-rows // 128), -(-k // 128))}[block]
        return np.full(shape, 2.0 ** exponent, dtype=np.float32)

    os.makedirs(directory)
    for operand, rows, exponent in (("a", m, ea), ("b", n, eb)):
        np.save(os.path.join(directory, operand + ".npy"), codes(rows))
        np.save(os.path.join(directory, operand + "_scale.npy"),
                scales(operand, rows, exponent))
    a_scale, b_scale = SCALE_RANGE_KINDS[kind]
    return ["--gemm", f"{m}x{n}x{k}", "--a-type", fmt, "--b-type", fmt,
            "--a-scale", a_scale, "--b-scale", b_scale,
            "--out-type", out_type, "--load", directory]


def run_case(case, args, workdir):
    """Runs one case on both devices; returns (problems, bit-identical,
    reproduction text)."""
    bin_dir = os.path.join(args.build_dir, "bin")
    fp8_run = os.path.join(bin_dir, "fp8-run")
    case_dir = os.path.join(workdir, f"case{case['index']}")
    os.makedirs(case_dir)
    chip = case["chip"]
    if case["kind"] == "program":
        generate = [os.path.join(bin_dir, "qmm-gen-program"), "--seed",
                    str(case["program_seed"]), "--valid-only", "--chip", chip,
                    "--max-extent", str(args.max_extent)]
        program = os.path.join(case_dir, "program.mlir")
        with open(program, "w") as f:
            subprocess.run(generate, stdout=f, check=True)
        base = [fp8_run, program, "--chip", chip] + case["data"] + ["--json"]
        reproduce = (" ".join(generate) + " > program.mlir; fp8-run program.mlir "
                     + " ".join(["--chip", chip] + case["data"]) + " --device emu|cpu")
    elif case["kind"] == "scale-range":
        inputs = os.path.join(case_dir, "inputs")
        flags = write_scale_range_inputs(case["range_seed"], inputs,
                                         args.max_extent)
        base = [fp8_run, "--chip", chip] + flags + ["--json"]
        reproduce = ("differential.py --kinds scale-range: inputs of seed "
                     f"{case['range_seed']}; fp8-run "
                     + " ".join(base[1:]) + " --device emu|cpu")
    else:
        base = [fp8_run, "--chip", chip] + case["flags"] + case["data"]
        reproduce = "fp8-run " + " ".join(base[1:]) + " --device emu|cpu"

    problems, reports = [], {}
    for device in ("emu", "cpu"):
        command = base + ["--device", device]
        if case["kind"] in ("program", "scale-range"):
            command += ["--save", os.path.join(case_dir, device)]
        run, error = run_fp8(command)
        if error:
            problems.append(f"{device}: {error}")
            continue
        ok, report = exact_tiers_pass(run)
        reports[device] = report
        if run.returncode not in (0, 1) or not ok:
            tail = (run.stdout + run.stderr).strip().splitlines()[-3:]
            problems.append(f"{device}: exit {run.returncode}, exact tier "
                            f"{'PASS' if ok else 'FAIL'}: " + " | ".join(tail))
    identical = False
    if not problems and case["kind"] in ("program", "scale-range"):
        if args.inject_error:
            inject_error(os.path.join(case_dir, "emu", "d.npy"))
        try:
            found, identical = compare_outputs(reports["emu"],
                                               os.path.join(case_dir, "emu"),
                                               os.path.join(case_dir, "cpu"))
            problems += found
        except Exception as error:  # a file the comparison cannot read
            problems.append(f"comparison failed: {error!r}")
    if problems and args.keep:
        kept = os.path.join(args.keep, f"case{case['index']}")
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(case_dir, kept)
    shutil.rmtree(case_dir, ignore_errors=True)
    return problems, identical, reproduce


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--chip", choices=["gfx942", "gfx950"])
    parser.add_argument("--kinds", default="program,grouped")
    parser.add_argument("--max-extent", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--keep", help="copy failing cases' files here")
    parser.add_argument("--inject-error", action="store_true",
                        help="corrupt one element of each emu output before "
                             "comparing (every program case must then fail)")
    args = parser.parse_args()
    args.kinds = args.kinds.split(",")

    rng = random.Random(args.seed)
    cases = [make_case(rng, i, args) for i in range(args.count)]
    failures = identical = 0
    with tempfile.TemporaryDirectory(prefix="qmm-differential-") as workdir, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = pool.map(lambda case: run_case(case, args, workdir), cases)
        for case, (problems, same, reproduce) in zip(cases, results):
            identical += same
            if problems:
                failures += 1
                print(f"FAILED case {case['index']} ({case['kind']}, {case['chip']}): "
                      f"{reproduce}")
                for problem in problems:
                    print("  " + problem)
    print(f"differential: {args.count} run, {failures} failed, "
          f"{identical} bit-identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
