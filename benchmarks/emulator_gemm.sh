#!/usr/bin/env bash
# Emulator speed: runs a 1024x1024x1024 FP8 GEMM kernel (v_mfma 16x16x32,
# LDS-staged tiles) on one core and prints the wall time and emulated MFMAs
# per second. It also checks the result against numpy, so the figure is for
# a correct run. Usage: benchmarks/emulator_gemm.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[0].rsplit('/', 1)[0])
d = sys.argv[1]
rng = np.random.default_rng(0)
# Small integers are exact in e4m3fnuz (bias 8): 1.0 is code 0x40.
values = rng.integers(-2, 3, size=(2, 1024, 1024))
codes = {-2: 0xC8, -1: 0xC0, 0: 0x00, 1: 0x40, 2: 0x48}
lut = np.vectorize(codes.get)
np.save(f"{d}/a.npy", lut(values[0]).astype(np.uint8))
np.save(f"{d}/bt.npy", lut(values[1]).astype(np.uint8))
np.save(f"{d}/d.npy", np.zeros((1024, 1024), np.float32))
np.save(f"{d}/expected.npy", (values[0] @ values[1].T).astype(np.float32))
PY

start=$(date +%s.%N)
"$build/bin/fp8-run" --device emu --chip gfx942 \
  --module "$root/benchmarks/emulator_gemm_kernel.mlir" --kernel gemm_fp8 \
  --grid 32,32,1 --block 64,1,1 \
  --arg "$work/a.npy" --arg "$work/bt.npy" --arg "$work/d.npy" \
  --out "$work/out" --stats > "$work/stats.txt"
end=$(date +%s.%N)

/usr/bin/python3 - "$work" "$start" "$end" <<'PY'
import re
import sys
import numpy as np
d, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
out = np.load(f"{d}/out/arg2.npy")
ok = bool((out == np.load(f"{d}/expected.npy")).all())
stats = open(f"{d}/stats.txt").read()
mfmas = int(re.search(r"mfma: (\d+)", stats).group(1))
wall = end - start
print(stats, end="")
flops = 2 * 1024**3
print(f"emulator 1024x1024x1024 FP8 GEMM: {wall:.2f} s wall, {mfmas} MFMAs, "
      f"{mfmas / wall:,.0f} emulated MFMA/s, {flops / wall / 1e9:.2f} GFLOP/s "
      f"emulated, result {'exact' if ok else 'WRONG'}")
sys.exit(0 if ok else 1)
PY
