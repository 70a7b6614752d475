"""Formats benchmarks/perf_table.sh's results: one row per case, as a
Markdown table (aligned, so it reads in a terminal too).

Input: a manifest of tab-separated lines
  id chip device MxNxK a-type b-type a-scale b-scale groups model.json
where model.json is `fp8-run --model-only --json` (each kernel's entry
names the #qmm.config it was built with).
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

# Others' measurements on real hardware (TFLOP/s unless stated), keyed by
# (case id, device); taken from shared/perf.md ("Published results"), whose
# sources are rocm-blogs (measuring-max-achievable-flops part 2), the
# HipKittens analysis data and AITER's tuned-GEMM tables.
PUBLISHED = {
    ("fp8-8192", "mi300x"): "~1273 (rocm-blogs, max achievable)",
    ("fp8-8192", "mi355x"): "3327 (HipKittens; hipBLASLt 3233)",
    ("fp8-row-4096", "mi355x"): "2741 (HipKittens, per-tensor)",
    ("bw-4096x7168x16384", "mi355x"): "1845 (AITER)",
    ("bw-16384x7168x2048", "mi300x"): "958 (AITER)",
    ("bw-16384x7168x2048", "mi355x"): "1648 (AITER)",
    ("mxfp4-8192", "mi355x"): "5090 (AITER)",
    ("decode-1", "mi355x"): "6 TB/s eff. (AITER MXFP4, M<=32)",
}

TYPES = {
    "f8E4M3FNUZ": "e4m3fnuz",
    "f8E4M3FN": "e4m3",
    "f8E5M2FNUZ": "e5m2fnuz",
    "f8E5M2": "e5m2",
    "f6E2M3FN": "e2m3",
    "f6E3M2FN": "e3m2",
    "f4E2M1FN": "fp4",
}


def compact_config(text):
    """#qmm.config<tile = [128, 128, 64], waves = [2, 2], mfma = fp8 [32, 32, 16],
    stages = 1, split = 4> -> 128x128x64 w2x2 fp8-32x32x16 s1 k4 (the raw
    text if the syntax is not the expected one)."""
    m = re.fullmatch(
        r"#qmm\.config<tile = \[([\d, ]+)\], waves = \[([\d, ]+)\], "
        r"mfma = (\w+) \[([\d, ]+)\], stages = (\d+)(?:, split = (\d+))?"
        r"(, lds_copy = direct)?>",
        text.strip())
    if not m:
        return text.strip()
    x = lambda s: "x".join(v.strip() for v in s.split(","))
    split = f" k{m[6]}" if m[6] else ""
    direct = " direct" if m[7] else ""
    return f"{x(m[1])} w{x(m[2])} {m[3]}-{x(m[4])} s{m[5]}{split}{direct}"


def git_revision(root):
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest")
    parser.add_argument("--calibration-summary", default="",
                        help="the calibration's summary line (perf_table.sh "
                             "fills it in; empty: no calibration set)")
    args = parser.parse_args()
    rows, clocks, peaks = [], {}, {}
    with open(args.manifest) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    for (cid, chip, device, gemm, at, bt, ascale, bscale, groups,
         json_path) in lines:
        with open(json_path) as f:
            report = json.load(f)
        kernels = report.get("model") or []
        if not report.get("modeled") or not kernels:
            sys.exit(f"perf_table: no model for {cid} on {chip}: {json_path}")
        configs = sorted({compact_config(k["config"]) for k in kernels
                          if k.get("config")})
        # A program may hold several kernels: time adds up; the per-kernel
        # columns describe the longest one.
        seconds = sum(k["seconds"] for k in kernels)
        main_k = max(kernels, key=lambda k: k["seconds"])
        m, n, k = (int(v) for v in gemm.split("x"))
        tflops = 2.0 * m * n * k / seconds / 1e12
        peak = main_k["peak_tflops"]
        clock = main_k["parameters"]["clock"]
        clocks.setdefault(f"{device} ({chip})", set()).add(clock)
        fmt = TYPES.get(at, at) if at == bt else f"{TYPES.get(at, at)}/{TYPES.get(bt, bt)}"
        peaks.setdefault(f"{device} {fmt}", peak)

        loop = main_k.get("main_loop") or {}
        busy = loop.get("mfma_busy")
        modeled = f"{tflops:.0f}" if tflops >= 10 else f"{tflops:.2f}"
        if cid.startswith("decode"):
            # The GEMM's own bytes (A, B, a bf16 D), not split-K's workspace.
            bits = lambda t: 4 if t.startswith("f4") else 6 if t.startswith("f6") else 8
            gemm_bytes = (m * k * bits(at) + n * k * bits(bt)) / 8 + 2 * m * n
            bw = gemm_bytes / seconds / 1e12
            modeled += f" ({bw:.2f} TB/s eff.)"
        shape = gemm if groups == "0" else f"{gemm} ({groups} groups)"
        rows.append([
            shape,
            f"{TYPES.get(at, at)}/{TYPES.get(bt, bt)}",
            f"{ascale}/{bscale}",
            f"{chip}/{device}",
            "; ".join(configs) + (f" ({len(kernels)} kernels)" if len(kernels) > 1 else ""),
            str(main_k['registers']),
            str(main_k["occupancy"]),
            f"{100 * busy:.0f}%" if busy is not None else "-",
            main_k["bound"],
            modeled,
            f"{100 * tflops / peak:.1f}%" if tflops / peak >= 0.01 else f"{100 * tflops / peak:.2f}%",
            PUBLISHED.get((cid, device), "-"),
        ])

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"Modeled GEMM performance, {datetime.date.today().isoformat()} "
          f"(commit {git_revision(root)}).")
    print("All AMD figures are MODELED by this compiler's performance model from the code it "
          "emits (compile + model only, no execution), not measured; read them as +-15%.")
    print("Clock assumed (sustained, model parameter `clock`): " + "; ".join(
        f"{d} {', '.join(f'{c:.2f}' for c in sorted(cs))} GHz" for d, cs in clocks.items()) + ".")
    print("% of peak is of the chip's dense peak at its peak clock for the operand type: " +
          "; ".join(f"{k} {v:.0f}" for k, v in peaks.items()) + " TFLOP/s.")
    print("Config = qmm-select-config's choice: tile MxNxK, waves MxN, MFMA family-shape, "
          "LDS stages, kP = split-K into P ranges (one kernel), direct = tiles loaded straight into LDS (lds_copy = direct). regs = registers per lane allocated "
          "(VGPRs+AGPRs); occ = waves/SIMD; MFMA busy = main loop (\"-\": LLVM unrolled the K loop "
          "whole, modeled as one pass). Decode \"eff.\" = the GEMM's own bytes (A, B, bf16 D) per "
          "modeled second, launch included.")
    print("MoE row: contiguous grouped GEMM, 8 groups x 4096 rows, blockwise 1x128/128x128 "
          "scales; FLOPs over all 32768 rows.")
    print("\"published (theirs)\" = others' measurements of their kernels on real hardware "
          "(source per row; TFLOP/s unless stated), not ours and not modeled; \"-\" = none known. "
          "A measured figure is not comparable with a modeled one as it stands:")
    summary = args.calibration_summary
    if summary:
        print("calibration (benchmarks/calibration.sh, this build: the model on kernels measured "
              "on an MI355X): " + summary.replace(";", "; ") + ".")
    else:
        print("calibration: ../shared/calibration not found, so no ratio of modeled to measured "
              "speed qualifies the published figures here (see docs/performance-model.md).")
    print()
    header = ["shape MxNxK", "A/B", "scales A/B", "chip/device", "config", "regs",
              "occ", "MFMA busy", "bound", "modeled TFLOP/s", "% peak", "published (theirs)"]
    table = [header] + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    right = {5, 6, 7, 9, 10}
    line = lambda r: "| " + " | ".join(
        c.rjust(w) if i in right else c.ljust(w)
        for i, (c, w) in enumerate(zip(r, widths))) + " |"
    print(line(header))
    print("|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2))
                         for i, w in enumerate(widths)) + "|")
    for r in rows:
        print(line(r))


if __name__ == "__main__":
    main()
