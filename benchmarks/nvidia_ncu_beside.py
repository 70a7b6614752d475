#!/usr/bin/env python3
"""qmm's dense blockwise kernel beside DeepGEMM's, instruction by
instruction, with Nsight Compute's per-SASS counters.

    # on the GPU machine, through nvidia_peers.sh (DeepGEMM built, its
    # environment set); PLANS holds one fp8-run plan per MxNxK, named so:
    QMM_PEERS_SCRIPT=benchmarks/nvidia_ncu_beside.py \\
        bash benchmarks/nvidia_peers.sh PLANS .peers --out $OUT
    # here, on what came back:
    python3 benchmarks/nvidia_ncu_beside.py --analyze DIR --shape MxNxK

Collecting: one launch of each kernel (after two warm-up launches) under
`ncu --set full --clock-control none`; its details page and its source
page (SASS, executed instructions and warp-state samples per instruction)
as CSV: `qmm_<shape>_*.csv` and `dg_<shape>_*.csv`. DeepGEMM runs through
its own test generator with its own tile choice (1x128 x 128x128 scales).

Analyzing: per kernel the instructions executed and the warp-state
samples by opcode inside its K loop, and the K loop split into windows
at the wgmma waits (`WARPGROUP.DEPBAR`): from a wave's issue to its wait,
the wait itself, and from the wait to the next issue (the promotion and
the loop's own work). Samples are taken a warp at a time among the
resident warps, so a kernel's samples per warp and K tile are scaled by
its resident warps (idle warps that wait at a barrier count too).
"""
import argparse
import collections
import csv
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvidia_peers as peers_benchmark  # noqa: E402  (its runner build)


def read_source_page(path):
    rows = list(csv.reader(open(path)))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    header = rows[start]
    return [dict(zip(header, r)) for r in rows[start + 1:]
            if len(r) == len(header)]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def opcode(source):
    text = re.sub(r"^@!?U?P\w+\s+", "", source.strip())
    return text.split()[0].split(".")[0] if text else "?"


def samples(row):
    return number(row["Warp Stall Sampling (All Samples)"])


def executed(row):
    return number(row["Instructions Executed"])


def k_loop(rows):
    """The hot K loop: the instructions executed as often as its most
    executed wgmma wait, from its first to its last such instruction
    (the loop version every K tile but a few runs)."""
    waits = [i for i, r in enumerate(rows) if "DEPBAR" in r["Source"]]
    count = max(executed(rows[i]) for i in waits)
    hot = [i for i, r in enumerate(rows) if executed(r) == count]
    return hot[0], hot[-1] + 1, count


def windows(rows, first, last):
    """The loop between `first` and `last` cut at its wgmma waits and
    issues, in loop order: `issue i` (wave i's wgmma issued, up to its
    wait), `wait i` (the wait) and `turn i` (from the wait to the next
    wave's first wgmma; the last wave's wraps around the loop)."""
    out = collections.OrderedDict()
    lead, wave, name = 0.0, -1, None
    for i in range(first, last):
        source = rows[i]["Source"]
        if ("QGMMA" in source or "HGMMA" in source) and not (
                name or "").startswith("issue"):
            wave += 1
            name = "issue %d" % wave
        elif "DEPBAR" in source:
            name = "wait %d" % wave
        elif (name or "").startswith("wait"):
            name = "turn %d" % wave
        if name is None:
            lead += samples(rows[i])
        else:
            out[name] = out.get(name, 0.0) + samples(rows[i])
    if name is not None:
        out[name] = out.get(name, 0.0) + lead
    return out


def read_details(details_path):
    """The details page's metrics: {name: value} and {name: unit}."""
    rows = list(csv.reader(open(details_path)))
    header = rows[0]
    values, units = {}, {}
    for r in rows[1:]:
        d = dict(zip(header, r))
        values[d.get("Metric Name")] = number(d.get("Metric Value", "0"))
        units[d.get("Metric Name")] = d.get("Metric Unit", "")
    return values, units


def analyze(directory, shape):
    """Prints both kernels' summaries; False when neither was found."""
    found = False
    for tag in ("qmm", "dg"):
        source = os.path.join(directory, f"{tag}_{shape}_source.csv")
        details = os.path.join(directory, f"{tag}_{shape}_details.csv")
        if not os.path.exists(source):
            print(f"{tag}: no {source}")
            continue
        found = True
        rows = read_source_page(source)
        metrics, units = read_details(details)
        total = sum(samples(r) for r in rows)
        first, last, trips = k_loop(rows)
        loop = rows[first:last]
        print(f"== {tag} {shape}: {metrics.get('Duration', 0):.2f} "
              f"{units.get('Duration', '')}, "
              f"{sum(executed(r) for r in rows) / 1e6:.2f} M warp "
              f"instructions, achieved occupancy "
              f"{metrics.get('Achieved Occupancy', 0):.2f}%")
        by_samples, by_count = collections.Counter(), collections.Counter()
        for r in loop:
            name = "DEPBAR" if "DEPBAR" in r["Source"] else opcode(r["Source"])
            by_samples[name] += samples(r)
            by_count[name] += executed(r)
        loop_samples = sum(by_samples.values())
        print(f"   K loop: {last - first} SASS instructions run "
              f"{trips:.0f} times, {loop_samples / total * 100:.1f}% of "
              f"the samples")
        for name, value in by_samples.most_common(14):
            print(f"     {name:10s} {value / loop_samples * 100:5.1f}% of "
                  f"the loop's samples, {by_count[name] / 1e6:6.2f} M")
        # Samples per 1000 trips of the loop, per resident warp share.
        occupancy = metrics.get("Achieved Occupancy", 0) / 100 * 64
        scale = occupancy / 8 if occupancy else 1.0
        print(f"   windows (samples per 1000 trips x resident warps / 8):")
        for name, value in windows(rows, first, last).items():
            print(f"     {name:14s} {value / trips * 1000 * scale:6.2f}")
    return found


def collect(plans, out, peers):
    ncu = shutil.which("ncu") or "/opt/nvidia/nsight-compute/2025.3.1/ncu"
    runner = os.environ.get("QMM_CUDA_RUN") or peers_benchmark.build_runner()
    common = [ncu, "--clock-control", "none", "--set", "full",
              "--import-source", "no", "--launch-skip", "2",
              "--launch-count", "1", "-f"]
    for shape in sorted(os.listdir(plans)):
        if not re.fullmatch(r"\d+x\d+x\d+", shape):
            continue
        m, n, k = map(int, shape.split("x"))
        jobs = [("dg", ["-k", "regex:sm90_fp8_gemm_1d2d", sys.executable,
                        os.path.abspath(__file__), "--deepgemm",
                        str(m), str(n), str(k), "--peers", peers]),
                ("qmm", ["-k", "regex:matmul", runner, "--no-validate",
                         "--iters", "3", "--rounds", "1", "--timing",
                         "back-to-back", os.path.join(plans, shape)])]
        for tag, command in jobs:
            report = f"/tmp/{tag}_{shape}"
            with open(os.path.join(out, f"{tag}_{shape}.log"), "w") as log:
                subprocess.run(common + ["-o", report] + command,
                               stdout=log, stderr=subprocess.STDOUT,
                               timeout=300)
            if not os.path.exists(report + ".ncu-rep"):
                continue
            for page, extra in (("details", []),
                                ("source", ["--print-source", "sass"])):
                with open(os.path.join(out, f"{tag}_{shape}_{page}.csv"),
                          "w") as f:
                    subprocess.run([ncu, "-i", report + ".ncu-rep", "--page",
                                    page, "--csv"] + extra, stdout=f,
                                   stderr=subprocess.STDOUT, timeout=300)


def run_deepgemm(m, n, k, peers):
    sys.path.insert(0, os.path.join(peers, "DeepGEMM"))
    sys.path.insert(0, os.path.join(peers, "DeepGEMM", "tests"))
    import torch
    import deep_gemm
    from generators import (generate_normal, KernelType, MajorTypeAB,
                            QuantConfig)
    torch.manual_seed(0)
    a, b, c, d, _ = generate_normal(
        m, n, k, MajorTypeAB.KMajor, MajorTypeAB.KMajor, False,
        torch.bfloat16, KernelType.Kernel1D2D, use_ue8m0=False,
        quant_config=QuantConfig())
    for _ in range(4):
        deep_gemm.fp8_fp4_gemm_nt(a, b, d, c=c, disable_ue8m0_cast=True)
    torch.cuda.synchronize()


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("plans", nargs="?", help="plans (on the GPU machine)")
    parser.add_argument("--peers", default=".peers")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--analyze", metavar="DIR")
    parser.add_argument("--shape", help="MxNxK to analyze")
    parser.add_argument("--deepgemm", nargs=3, type=int,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.deepgemm:
        run_deepgemm(*args.deepgemm, args.peers)
    elif args.analyze:
        if not args.shape:
            parser.error("--analyze needs --shape MxNxK")
        if not analyze(args.analyze, args.shape):
            sys.exit(1)
    elif args.plans:
        collect(args.plans, args.out, os.path.abspath(args.peers))
    else:
        parser.error("give PLANS (collect) or --analyze DIR")


if __name__ == "__main__":
    main()
