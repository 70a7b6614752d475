"""check_tune_space.py REPORT SMALLEST_TILE DEEPEST_TILE_K

Checks the ranking of an `fp8-run --tune --json` report: the narrowest tile
extent (M or N) among the candidates is SMALLEST_TILE and the deepest tile
K is DEEPEST_TILE_K. Exits 1 saying what differs.
"""
import json
import re
import sys

report, smallest, deepest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ranking = json.load(open(report))["tune"]
tiles = []
for row in ranking:
    match = re.search(r"tile = \[(\d+), (\d+), (\d+)\]", row["config"])
    if not match:
        sys.exit("no tile in %r" % row["config"])
    tiles.append(tuple(int(x) for x in match.groups()))
narrowest = min(min(m, n) for m, n, _ in tiles)
deepest_k = max(k for _, _, k in tiles)
if (narrowest, deepest_k) != (smallest, deepest):
    sys.exit("%s: narrowest tile %d (expected %d), deepest tile K %d "
             "(expected %d), over %d candidates"
             % (report, narrowest, smallest, deepest_k, deepest, len(tiles)))
print("ok: %d candidates" % len(tiles))
