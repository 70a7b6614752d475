"""Checks qmm-select-config's use of a built-in entry with split-K on a K
other than the bucket's: the selected config is the entry's with its
`split` halved (down to 1, then no split) until the K tiles divide into
that many ranges of whole 128-deep scale blocks.

usage: check_split_fallback.py TABLE K1 OUT1 [K2 OUT2 ...]
"""
import json
import re
import sys

table = json.load(open(sys.argv[1]))
(entry,) = [e for e in table["entries"]
            if e["chip"] == "gfx942" and e["m"] == 128 and e["n"] == 8192
            and e["k"] == 2048 and e["a_scales"] == "#qmm.scale<block 1x128>"]
config = entry["config"]
match = re.search(r"split = (\d+)", config)
if not match:
    sys.exit("the entry has no split-K: " + config)
tile_k = int(re.search(r"tile = \[\d+, \d+, (\d+)\]", config).group(1))
tiles_per_block = max(1, 128 // tile_k)
args = sys.argv[2:]
for k_text, out_path in zip(args[0::2], args[1::2]):
    k = int(k_text)
    tiles = -(-k // tile_k)
    split = int(match.group(1))
    while split > 1 and (tiles % split or (tiles // split) % tiles_per_block):
        split //= 2
    base = re.sub(r", split = \d+", "", config)
    expected = base if split == 1 else base[:-1] + ", split = %d>" % split
    got = re.search(r"config (#qmm\.config<[^>]*>)", open(out_path).read())
    ok = got and got.group(1) == expected
    print("K %d: %s" % (k, "ok" if ok else "expected %s, got %s" % (
        expected, got.group(1) if got else None)))
