"""Independent check of fp8-run's .npy files, in numpy.

Decodes the saved bit patterns with its own tables (built from the format
definitions: exponent/mantissa widths, bias, special encodings), recomputes
D in float64 from the dequantized operands, re-quantizes the unquantized
inputs with the DeepGEMM rule (q = x * (fmax / amax), amax clamped at 1e-4,
all in float32) and compares with what fp8-run wrote.

usage: check_npy.py DIR A_TYPE B_TYPE A_BLOCK B_BLOCK B_LAYOUT OUT_TYPE
  *_BLOCK is RxC (rows x K) or 'mx'; B_LAYOUT is nk or kn.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Utils"))
from formats import table, unpack_rows  # noqa: E402


def expand_scales(scales, block, rows, k):
    """Scale of every logical (row, k) element."""
    if block == "mx":
        values = np.ldexp(1.0, scales.astype(np.int64) - 127)
        values[scales == 255] = np.nan
        br, bk = 1, 32
    else:
        values = scales.astype(np.float64)
        br, bk = (int(x) for x in block.split("x"))
    full = np.repeat(np.repeat(values, br, axis=0), bk, axis=1)
    return full[:rows, :k]


def dequantize(directory, name, fmt, block, layout, rows, k):
    data = np.load(f"{directory}/{name}.npy")
    scales = np.load(f"{directory}/{name}_scale.npy")
    assert data.dtype == np.uint8, data.dtype
    stored_cols = k if layout == "nk" else rows
    codes = unpack_rows(data, fmt, stored_cols)
    if layout == "kn":
        codes = codes.T
    assert codes.shape == (rows, k), codes.shape
    return table(fmt)[codes] * expand_scales(scales, block, rows, k)


def deepgemm_codes(x, fmt, block):
    """DeepGEMM's per-block cast, in float32, rounded to the nearest code
    (ties to the even code) with saturation."""
    br, bk = (int(v) for v in block.split("x"))
    values = table(fmt)
    fmax = np.float32(np.nanmax(values))
    rows, k = x.shape
    amax = np.zeros(((rows + br - 1) // br, (k + bk - 1) // bk), np.float32)
    for i in range(amax.shape[0]):
        for j in range(amax.shape[1]):
            amax[i, j] = np.abs(x[i * br:(i + 1) * br, j * bk:(j + 1) * bk]).max()
    amax = np.maximum(amax, np.float32(1e-4))
    multiplier = (fmax / amax).astype(np.float32)
    full = np.repeat(np.repeat(multiplier, br, axis=0), bk, axis=1)[:rows, :k]
    scaled = np.clip((x * full).astype(np.float32), -fmax, fmax).astype(np.float64)
    positive = [(v, c) for c, v in enumerate(values) if np.isfinite(v) and v >= 0
                and not (c >> 7)]
    grid = np.array([v for v, _ in positive])
    codes = np.array([c for _, c in positive])
    mag = np.abs(scaled)
    hi = np.clip(np.searchsorted(grid, mag, side="left"), 1, len(grid) - 1)
    lo = hi - 1
    below, above = mag - grid[lo], grid[hi] - mag
    pick_hi = (above < below) | ((above == below) & (codes[hi] % 2 == 0))
    chosen = np.where(pick_hi, codes[hi], codes[lo])
    chosen = np.where(mag == grid[hi], codes[hi], chosen)
    negative = np.signbit(scaled) & ~((chosen == 0) & fmt.endswith("FNUZ"))
    return (chosen | (negative.astype(np.int64) << 7)).astype(np.uint8)


def main():
    directory, a_type, b_type, a_block, b_block, b_layout, out_type = sys.argv[1:8]
    a_hp = np.load(f"{directory}/a_hp.npy")
    b_hp = np.load(f"{directory}/b_hp.npy")
    d = np.load(f"{directory}/d.npy")
    assert a_hp.dtype == np.float32 and b_hp.dtype == np.float32
    assert d.dtype == np.float32, d.dtype
    m, k = a_hp.shape
    n = b_hp.shape[0] if b_layout == "nk" else b_hp.shape[1]
    assert d.shape == (m, n), d.shape

    a = dequantize(directory, "a", a_type, a_block, "nk", m, k)
    b = dequantize(directory, "b", b_type, b_block, b_layout, n, k)
    reference = a @ b.T
    error = np.abs(d - reference)
    # One rounding to the output type plus f32 accumulation.
    ulp = {"f32": 2.0 ** -23, "bf16": 2.0 ** -8, "f16": 2.0 ** -11}[out_type]
    allowed = ulp * np.abs(reference) + (k + 2) * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T)
    bad = int((error > allowed).sum())
    print(f"numpy: dequantized-reference violations {bad} of {d.size}")

    if a_block != "mx" and not a_type.startswith("f4") and not a_type.startswith("f6"):
        ours = deepgemm_codes(a_hp, a_type, a_block)
        theirs = np.load(f"{directory}/a.npy")
        print(f"numpy: DeepGEMM-rule A codes differing {int((ours != theirs).sum())}")
    diff = 1 - 2 * (d.astype(np.float64) * (a_hp.astype(np.float64) @ (
        b_hp if b_layout == "nk" else b_hp.T).astype(np.float64).T)).sum() / (
        (d.astype(np.float64) ** 2).sum() + ((a_hp.astype(np.float64) @ (
            b_hp if b_layout == "nk" else b_hp.T).astype(np.float64).T) ** 2).sum())
    print(f"numpy: calc_diff vs unquantized {diff:.3e}")


if __name__ == "__main__":
    main()
