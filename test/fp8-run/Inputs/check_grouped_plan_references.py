"""Checks a launch plan fp8-run saved for a grouped GEMM on sm_90a (1x128 x
128x128 scales, bf16 output, no bias) against a reference written here
from the plan's own input files:

- the group layout (buffer 4, i32): contiguous, -1 or a group below G per
  row, each 128-row segment one group's rows then padding; masked
  (--masked: A is [G, M, K], D [G, M, N]), each group's valid rows, in
  [0, M];
- D's initial contents (buffer 5): rows the GEMM writes poisoned (bf16
  0xFFFF, NaN), padding rows -7;
- the exact tier (check0): a written row's intervals centred on the f64
  product of the dequantized A row and its group's B, rounded to bf16, as
  wide as one bf16 ulp plus wgmma's accumulation bound; a padding row's
  intervals [-7, -7];
- the quality tier (check1): NaN on padding rows, close to the product on
  the others;
- the plan's flops: 2 (written rows) N K.

usage: check_grouped_plan_references.py DIR M N K G [--masked]
                                         [--group-offset S]
--group-offset S reads each row's group as (g + S) mod G: a reference of
the wrong group, which must not match.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "Utils"))
import formats  # noqa: E402


def bf16_round(x):
    """Round-to-nearest-even of f64 values to bf16's 8 significant bits (in
    range: no overflow or subnormals at these magnitudes), as float64."""
    mantissa, exponent = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.round(mantissa * 256) / 256, exponent)


def main():
    d = sys.argv[1]
    m, n, k, g = (int(x) for x in sys.argv[2:6])
    options = sys.argv[6:]
    masked = "--masked" in options
    offset = (int(options[options.index("--group-offset") + 1])
              if "--group-offset" in options else 0)
    read = lambda name, dtype: np.fromfile(os.path.join(d, name), dtype)
    rows_total = g * m if masked else m
    e4m3 = formats.table("f8E4M3FN")
    a = e4m3[read("buffer0.bin", np.uint8)].reshape(rows_total, k)
    sa = read("buffer1.bin", np.float32).astype(np.float64).reshape(
        rows_total, -1)
    b = e4m3[read("buffer2.bin", np.uint8)].reshape(g, n, k)
    sb = read("buffer3.bin", np.float32).astype(np.float64).reshape(
        g, -(-n // 128), -1)
    layout = read("buffer4.bin", np.int32)
    init = read("buffer5.bin", np.uint16).reshape(rows_total, n)
    if masked:
        # Row r of the [G M, N] output: group r / M, valid below its count.
        assert layout.size == g and layout.min() >= 0 and layout.max() <= m
        groups = np.repeat(np.arange(g), m)
        written = np.arange(rows_total) % m < layout[groups]
        groups = np.where(written, groups, -1)
    else:
        groups = layout
        assert groups.size == m and groups.min() >= -1 and groups.max() < g
        for start in range(0, m, 128):
            segment = groups[start:start + 128]
            valid = segment[segment >= 0]
            assert np.all(valid == valid[:1]), "a segment mixes groups"
            first_padding = (np.argmax(segment < 0) if (segment < 0).any()
                             else 128)
            assert np.all(segment[first_padding:] < 0), "rows after padding"
        written = groups >= 0
    assert np.all(init[written] == 0xFFFF), "written rows are not poisoned"
    assert np.all(init[~written] == 0xC0E0), "rows not written are not -7"

    kb = np.arange(k) // 128
    da = a * sa[:, kb]
    ref = np.zeros((rows_total, n))
    magnitude = np.zeros((rows_total, n))
    for row in np.nonzero(written)[0]:
        group = (groups[row] + offset) % g
        db = b[group] * sb[group][np.arange(n) // 128][:, kb]
        ref[row] = db @ da[row]
        magnitude[row] = np.abs(db) @ np.abs(da[row])

    bounds = read("check0.f64", np.float64).reshape(rows_total, n, 2)
    low, high = bounds[..., 0], bounds[..., 1]
    assert np.all(low[~written] == -7) and np.all(high[~written] == -7), \
        "intervals of rows not written are not [-7, -7]"
    low, high = low[written], high[written]
    centre = (low + high) / 2
    expected = bf16_round(ref[written])
    assert np.allclose(centre, expected, rtol=0, atol=1e-12 * np.abs(
        expected).max()), "interval centres are not the bf16-rounded reference"
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(expected), 2.0**-126)))
                  - 7)
    chunk = min(128, -(-k // 128) * 128)
    unit = chunk * 2.0**-13 + (-(-k // chunk) + 2) * 2.0**-24
    allowed = ulp + unit * magnitude[written]
    assert np.all((high - low) / 2 <= allowed * (1 + 1e-9)), "intervals too wide"
    assert np.all((high - low) / 2 >= allowed * (1 - 1e-9)), "intervals too narrow"

    quality = read("check1.f64", np.float64).reshape(rows_total, n)
    assert np.all(np.isnan(quality[~written])), "padding rows are judged"
    x, y = quality[written], ref[written]
    calc_diff = 1 - 2 * (x * y).sum() / (x * x + y * y).sum()
    assert calc_diff < 1e-3, f"quality reference far from the product: {calc_diff}"

    with open(os.path.join(d, "plan.txt")) as f:
        flops = [float(line.split()[1]) for line in f
                 if line.startswith("flops ")][0]
    rows = int(written.sum())
    assert flops == 2 * rows * n * k, f"flops {flops} for {rows} written rows"
    print(f"grouped plan references OK: {m}x{n}x{k}, {g} groups"
          f"{' (masked)' if masked else ''}, {rows} rows written, "
          f"{rows_total - rows} not")


if __name__ == "__main__":
    main()
