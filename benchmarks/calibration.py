"""benchmarks/calibration.sh's work: models each row of a calibration set's
kernels.tsv with qmm-model and compares with the published figures.

usage: calibration.py --dir DIR --model QMM_MODEL --date DATE --commit C
                      [--model-built TIME]
                      -- [qmm-model options passed to every run]

Published figures: the tsv's column (the rocm-blogs Table 5 figure, "blog")
and, where its source column mentions one ("notebook rerun 501.2",
"notebook 494.8"), the notebook's stored rerun; the two make a band
[min, max] (one figure: a band of width 0). A row is within +-15% of its
band when modeled is in [0.85 min, 1.15 max].
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

# Two kernels rank in the published order when one's band lies above the
# other's by more than this; closer (or overlapping) bands are ties, either
# order is right. 2% covers the blog-vs-rerun spread of k1-k4 (1.1-1.4%)
# and ties k1/k2 (bands 0.8% apart) and k5/k6 (overlapping bands).
TIE = 0.02
LADDER = ["k1", "k2", "k3", "k4", "k5", "k6"]


def read_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 13:
                sys.exit("calibration: %s: expected 13 tab-separated "
                         "columns, got %d: %s" % (path, len(fields),
                                                  line.strip()))
            (row, code_object, symbol, device, m, n, k, grid, block, trips,
             bits, published, source) = fields
            notebook = re.search(r"notebook(?: rerun)? (\d+(?:\.\d+)?)",
                                 source)
            figures = [float(published)] + (
                [float(notebook.group(1))] if notebook else [])
            rows.append({
                "id": row, "code_object": code_object, "symbol": symbol,
                "device": device, "m": int(m), "n": int(n), "k": int(k),
                "grid": grid, "block": block, "trips": trips,
                "bits": int(bits), "blog": float(published),
                "notebook": float(notebook.group(1)) if notebook else None,
                "band": (min(figures), max(figures)),
                "kernel": row.split("_")[0],
            })
    return rows


def model(args, row):
    m, n, k, bits = row["m"], row["n"], row["k"], row["bits"]
    command = [args.model, "%s/%s" % (args.dir, row["code_object"]),
               "--device", row["device"], "--grid", row["grid"],
               "--block", row["block"], "--trips", row["trips"],
               "--operand-bits", "%d,%d" % (bits, bits),
               "--flops", repr(2.0 * m * n * k),
               # The GEMM: each workgroup's A/B panels (tiles from the
               # grid), for L1 and L2 reuse.
               "--problem", "%d,%d,%d" % (m, n, k),
               # A [M, K] and B [N, K] of `bits`, C [M, N] in bf16.
               "--bytes", str(m * k * bits // 8 + n * k * bits // 8 +
                              m * n * 2),
               "--json"]
    if row["symbol"] != "-":
        command += ["--kernel", row["symbol"]]
    done = subprocess.run(command + args.extra, capture_output=True,
                          text=True)
    if done.returncode != 0:
        return None, done.stderr.strip() or "exit %d" % done.returncode
    return json.loads(done.stdout), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--date", required=True)
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--model-built", default="")
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()

    rows = read_rows("%s/kernels.tsv" % args.dir)
    failed = []
    for row in rows:
        row["model"], row["error"] = model(args, row)
        if row["error"]:
            failed.append(row)

    print("Calibration of the performance model: MODELED (qmm-model) vs "
          "published (measured on a real MI355X), %s" % args.date)
    print("Kernels: %s/kernels.tsv (code objects built with upstream "
          "clang 22; README there)." % args.dir)
    print("Model: %s%s; source tree at commit %s." % (
        args.model, " (built %s)" % args.model_built if args.model_built
        else "", args.commit))
    print("Model parameters: defaults%s." % (
        " with " + " ".join(args.extra) if args.extra else ""))
    print("Published: rocm-blogs Table 5 (\"blog\") and the notebook's rerun "
          "where the tsv gives one; the two are a band [min, max].")
    print("within = MODELED in [0.85 x band min, 1.15 x band max].")
    print()
    header = ("%-27s %9s  %-36s %8s %9s %8s  %-7s" %
              ("id", "MODELED", "model's bound", "blog", "notebook",
               "MOD/blog", "within"))
    print(header)
    print("-" * len(header))
    for row in rows:
        notebook = "%.1f" % row["notebook"] if row["notebook"] else "-"
        if row["error"]:
            print("%-27s %9s  %-36s %8.1f %9s %8s  %-7s" %
                  (row["id"], "ERROR", "-", row["blog"], notebook, "-", "-"))
            continue
        tflops = row["model"]["tflops"]
        low, high = row["band"]
        row["ratio"] = tflops / row["blog"]
        row["within"] = 0.85 * low <= tflops <= 1.15 * high
        print("%-27s %9.1f  %-36s %8.1f %9s %8.3f  %-7s" %
              (row["id"], tflops, row["model"]["bound"], row["blog"],
               notebook, row["ratio"], "yes" if row["within"] else "no"))
    for row in failed:
        print("ERROR %s: %s" % (row["id"], row["error"]))
    modeled = [r for r in rows if not r["error"]]

    print()
    print("Summary (%d of %d rows modeled):" % (len(modeled), len(rows)))
    if modeled:
        ratios = [r["ratio"] for r in modeled]
        print("  median MODELED / blog: %.3f over all rows (min %.3f, max "
              "%.3f)" % (statistics.median(ratios), min(ratios),
                         max(ratios)))
        not_k7 = [r["ratio"] for r in modeled if r["kernel"] != "k7"]
        if not_k7:
            print("  median MODELED / blog: %.3f over k1-k6 (without the "
                  "spilling k7 build)" % statistics.median(not_k7))
        within = [r for r in modeled if r["within"]]
        print("  within +-15%% of the band: %d of %d rows%s" % (
            len(within), len(modeled),
            " (" + ", ".join(r["id"] for r in within) + ")"
            if within else ""))
    # Rows outside their band: how far, and what the model says bounds them
    # (the loop's terms per trip, cycles, so the cause can be read off).
    for row in modeled:
        if row["within"] or row["kernel"] == "k7":
            continue
        low, high = row["band"]
        tflops = row["model"]["tflops"]
        edge = low if tflops < low else high
        loop = row["model"].get("main_loop") or {}
        terms = ", ".join("%s %.0f" % (name, loop[key]) for name, key in (
            ("MFMA", "mfma_bound"), ("VALU", "valu_bound"),
            ("LDS", "lds_bound"), ("L2", "l2_bound"),
            ("simulated", "simulated_cycles")) if key in loop)
        print("  outside: %s at %.2f of its band's %s edge; bound %s (per "
              "trip: %s; LDS bank-conflict cycles per wave and trip %.0f; "
              "%.0f%% of the load bytes miss L1)" % (
                  row["id"], tflops / edge,
                  "low" if tflops < low else "high", row["model"]["bound"],
                  terms, loop.get("lds_conflict_cycles", 0),
                  100 * loop.get("global_bytes_to_l2", 1)))
    for row in modeled:
        if row["kernel"] == "k7":
            bound = row["model"]["bound"]
            print("  %s (spilling under upstream LLVM, not AMD's build): "
                  "latency-bound: %s (bound: %s)" % (
                      row["id"], "yes" if bound.startswith(
                          "compute (latency") else "no", bound))

    # The ladder k1..k6 (their one row each).
    ladder = {r["kernel"]: r for r in modeled if r["kernel"] in LADDER}
    if len(ladder) == len(LADDER):
        ties, wrong = [], []
        for i, a in enumerate(LADDER):
            for b in LADDER[i + 1:]:
                ra, rb = ladder[a], ladder[b]
                # Does one band lie above the other by more than TIE?
                if ra["band"][0] > rb["band"][1] * (1 + TIE):
                    higher, lower = ra, rb
                elif rb["band"][0] > ra["band"][1] * (1 + TIE):
                    higher, lower = rb, ra
                else:
                    ties.append("%s/%s" % (a, b))
                    continue
                if not higher["model"]["tflops"] > lower["model"]["tflops"]:
                    wrong.append("%s (%.1f) should model above %s (%.1f)" % (
                        higher["kernel"], higher["model"]["tflops"],
                        lower["kernel"], lower["model"]["tflops"]))
        published = sorted(LADDER, key=lambda x: -ladder[x]["blog"])
        ours = sorted(LADDER, key=lambda x: -ladder[x]["model"]["tflops"])
        print("  ladder k1..k6 in the published order: %s (ties, either "
              "order right: %s; bands within %d%%)" % (
                  "yes" if not wrong else "no", ", ".join(ties) or "none",
                  TIE * 100))
        print("    published (blog), fastest first: %s" % " > ".join(
            published))
        print("    MODELED, fastest first:          %s" % " > ".join(ours))
        for line in wrong:
            print("    out of order: " + line)
    else:
        print("  ladder k1..k6: not checked (rows missing: %s)" % ", ".join(
            x for x in LADDER if x not in ladder))
    print()
    print("All qmm-model figures are MODELED, not measured; the published "
          "ones were measured by others (ROCm 7.1.x, MI355X).")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
