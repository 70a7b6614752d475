"""Checks a launch plan fp8-run saved for sm_90a against a reference written
here, from the plan's own input files: the exact tier's intervals must be
centred on the f64 product of the dequantized inputs rounded to bf16, and no
wider than two bf16 ulps plus the f32 accumulation bound; the quality
tier's reference must be close to it (calc_diff below the plan's
threshold for the formats).

usage: check_plan_references.py DIR M N K A_TYPE B_TYPE [--wgmma [CHUNK]]
With --wgmma, the accumulation bound is that of the wgmma kernels: chunks
of CHUNK products (128 by default, at most K rounded up to 128) summed
keeping 14 bits (unit roundoff 2^-13), the chunks' sums added in f32:
CHUNK * 2^-13 + (ceil(K / CHUNK) + 2) * 2^-24 per sum|ab|.
A [M, K] and B [N, K] codes; scales: A's per (row, K block of 128) [M, K/128]; B's per (128 rows,
128 K) [ceil(N/128), K/128] -- the 1x128 x 128x128 recipe -- or one each
(per-tensor).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "Utils"))
import formats  # noqa: E402


def bf16_round(x):
    """Round-to-nearest-even to bf16, as float64."""
    f = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (f + 0x7FFF + ((f >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def main():
    d, m, n, k, a_type, b_type = sys.argv[1:7]
    wgmma = sys.argv[7:8] == ["--wgmma"]
    m, n, k = int(m), int(n), int(k)
    chunk = int(sys.argv[8]) if len(sys.argv) > 8 else 128
    chunk = min(chunk, -(-k // 128) * 128)
    read = lambda name, dtype: np.fromfile(os.path.join(d, name), dtype)
    a = formats.table(a_type)[read("buffer0.bin", np.uint8)].reshape(m, k)
    sa = read("buffer1.bin", np.float32).astype(np.float64)
    sa = (np.full((m, k // 128), sa[0]) if sa.size == 1 else
          sa.reshape(m, -1))
    b = formats.table(b_type)[read("buffer2.bin", np.uint8)].reshape(n, k)
    sb = read("buffer3.bin", np.float32).astype(np.float64)
    sb = (np.full((-(-n // 128), k // 128), sb[0]) if sb.size == 1 else
          sb.reshape(-1, k // 128))
    kb = np.arange(k) // 128
    da = a * sa[:, kb]
    db = b * sb[np.arange(n) // 128][:, kb]
    ref = da @ db.T
    magnitude = np.abs(da) @ np.abs(db).T

    bounds = read("check0.f64", np.float64).reshape(m * n, 2)
    low, high = bounds[:, 0], bounds[:, 1]
    centre = (low + high) / 2
    expected = bf16_round(ref.reshape(-1))
    assert np.allclose(centre, expected, rtol=0, atol=1e-12 * np.abs(
        expected).max()), "interval centres are not the bf16-rounded reference"
    # Half-width: one bf16 ulp of the rounded value plus the accumulation
    # bound times sum|ab|.
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(expected), 2.0**-126))) - 7)
    if wgmma:
        unit = chunk * 2.0**-13 + (-(-k // chunk) + 2) * 2.0**-24
    else:
        unit = (k + 2) * 2.0**-24
    allowed = ulp + unit * magnitude.reshape(-1)
    assert np.all((high - low) / 2 <= allowed * (1 + 1e-9)), "intervals too wide"
    assert np.all((high - low) / 2 >= allowed * (1 - 1e-9)), "intervals too narrow"

    quality = read("check1.f64", np.float64)
    x, y = quality, ref.reshape(-1)
    calc_diff = 1 - 2 * (x * y).sum() / (x * x + y * y).sum()
    with open(os.path.join(d, "plan.txt")) as f:
        threshold = [float(line.split()[6]) for line in f
                     if line.startswith("check ") and " quality " in line][0]
    assert calc_diff < threshold, \
        f"quality reference far from the product: {calc_diff} >= {threshold}"
    print(f"plan references OK: {m}x{n}x{k}, {m * n} intervals, "
          f"quality calc_diff {calc_diff:.2e}")


if __name__ == "__main__":
    main()
