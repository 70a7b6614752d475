"""check_tune_space.py REPORT NARROWEST_TILE_N DEEPEST_TILE_K

Checks the candidates of an `fp8-run --tune --json` report (its "tune"
ranking, or the "tune_space" list of --tune-space): the narrowest tile
N among the candidates is NARROWEST_TILE_N and the deepest tile K is
DEEPEST_TILE_K. Exits 1 saying what differs.
"""
import json
import re
import sys

report, smallest, deepest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = json.load(open(report))
ranking = data["tune_space"] if "tune_space" in data else data["tune"]
tiles = []
for row in ranking:
    match = re.search(r"tile = \[(\d+), (\d+), (\d+)\]", row["config"])
    if not match:
        sys.exit("no tile in %r" % row["config"])
    tiles.append(tuple(int(x) for x in match.groups()))
narrowest = min(n for _, n, _ in tiles)
deepest_k = max(k for _, _, k in tiles)
if (narrowest, deepest_k) != (smallest, deepest):
    sys.exit("%s: narrowest tile N %d (expected %d), deepest tile K %d "
             "(expected %d), over %d candidates"
             % (report, narrowest, smallest, deepest_k, deepest, len(tiles)))
print("ok: %d candidates" % len(tiles))
