"""Writes an fp8-run --load directory whose block scales overflow f32 in
the products sa * sb of two tiles only (the wgmma kernel's scale checks).

  make_checked_scale_tiles.py DIR

A 512x256x2048 GEMM, A and B f8E4M3FN (B [N, K]), A's scales 1x128 and B's
128x128, every scale a power of two 2^-2 .. 2^2 but for:

  row 300, K block 1:  sa = 2^68 and B's block (1, 1) sb = 2^60;
  row 130, K block 3:  sa = 2^68 and B's block (0, 3) sb = 2^60.

Each pair's product, 2^128, is beyond f32, while every scaled product is
finite: those two rows' codes in those K blocks are the smallest subnormal
(2^-9), so their partial sums (at most 128 * 2^-9 * 2) times 2^128 stay
below 2^127. Other codes are normal, magnitudes 0.5 .. 2. With 128 x 128
tiles the two products fall in tiles (2, 1) and (1, 0), which a kernel of
one persistent block computes after its first tile: a promotion by the
product sa * sb there gives Inf (or NaN), the reference's sa then sb a
finite D.
"""
import os
import sys

import numpy as np

M, N, K = 512, 256, 2048
BLOCK = 128
EXTREME = [(300, 1, 1), (130, 0, 3)]  # (row of A, B's block of N, K block)


def codes(rng, shape):
    # Sign, exponent field 6 or 7 (2^-1, 2^0), any mantissa: 0.5 .. 1.875.
    sign = rng.integers(0, 2, shape, dtype=np.uint8) << 7
    exponent = rng.integers(6, 8, shape, dtype=np.uint8) << 3
    mantissa = rng.integers(0, 8, shape, dtype=np.uint8)
    return sign | exponent | mantissa


def main(root):
    rng = np.random.default_rng(7)
    a = codes(rng, (M, K))
    b = codes(rng, (N, K))
    sa = (2.0 ** rng.integers(-2, 3, (M, K // BLOCK))).astype(np.float32)
    sb = (2.0 ** rng.integers(-2, 3, (N // BLOCK, K // BLOCK))).astype(
        np.float32)
    for row, block, kb in EXTREME:
        ks = slice(kb * BLOCK, (kb + 1) * BLOCK)
        a[row, ks] = (a[row, ks] & 0x80) | 0x01
        sa[row, kb] = 2.0 ** 68
        sb[block, kb] = 2.0 ** 60
        with np.errstate(over="ignore"):
            assert np.isinf(sa[row, kb] * sb[block, kb])
    os.makedirs(root, exist_ok=True)
    np.save(os.path.join(root, "a.npy"), a)
    np.save(os.path.join(root, "b.npy"), b)
    np.save(os.path.join(root, "a_scale.npy"), sa)
    np.save(os.path.join(root, "b_scale.npy"), sb)


if __name__ == "__main__":
    main(sys.argv[1])
