"""Executes every entry of a tuning table on the emulator: for each entry,
fp8-run --device emu with the entry's chip, formats, scales and config, on
a small GEMM with partial tiles along M and N and at least two K tiles (the
entry's bucket is too large to emulate). Prints one line per entry and
exits 1 when a run does not PASS.

usage: run_tuning_table.py FP8_RUN TABLE_JSON
"""
import json
import re
import subprocess
import sys

fp8_run, table_path = sys.argv[1], sys.argv[2]
table = json.load(open(table_path))
SCALES = {"#qmm.scale<per_tensor>": "tensor", "#qmm.scale<per_row>": "row",
          "#qmm.scale<block 1x128>": "1x128",
          "#qmm.scale<block 128x128>": "128x128", "#qmm.scale<mx>": "mx32"}
failed = 0
entries = table["entries"]
if not entries:
    print("FAIL: the table has no entries")
    sys.exit(1)
for entry in entries:
    tile = [int(v) for v in re.search(r"tile = \[(\d+), (\d+), (\d+)\]",
                                      entry["config"]).groups()]
    grouped = "(grouped" in entry["out"]
    # Partial tiles along M and N where the bucket is larger than a tile;
    # decode-sized buckets keep their M.
    m = min(entry["m"], tile[0] + 17) if entry["m"] >= tile[0] else entry["m"]
    # A partial last tile along N, and at least 100 columns: the
    # quantization tier's calc_diff is a statistic over the outputs, too
    # noisy over a few dozen of them (a decode row of 55 can exceed it).
    n = 2 * tile[1] - 9
    while n < 100:
        n += tile[1]
    # Three K tiles; with split-K, two K tiles (at least one 128-deep scale
    # block) per range.
    split = re.search(r"split = (\d+)", entry["config"])
    ranges = int(split.group(1)) if split else 1
    k = max(3, 2 * ranges) * max(tile[2], 128)
    args = [fp8_run, "--device", "emu", "--chip", entry["chip"],
            "--a-type", entry["a"], "--b-type", entry["b"],
            "--a-scale", SCALES[entry["a_scales"]],
            "--b-scale", SCALES[entry["b_scales"]],
            "--config", entry["config"]]
    if grouped:
        # Contiguous groups: M a multiple of the 128-row alignment.
        m = 256
        args += ["--groups", "2"]
    args += ["--gemm", "%dx%dx%d" % (m, n, k)]
    run = subprocess.run(args, capture_output=True, text=True)
    ok = run.returncode == 0 and "RESULT: PASS" in run.stdout
    failed += not ok
    print("%s %s %dx%dx%d %s x %s %s / %s %s" % (
        "PASS" if ok else "FAIL", entry["chip"], m, n, k, entry["a"],
        entry["b"], entry["a_scales"], entry["b_scales"], entry["config"]))
    if not ok:
        print(run.stdout[-2000:] + run.stderr[-2000:])
print("%d of %d entries failed" % (failed, len(entries)))
sys.exit(1 if failed else 0)
