"""Writes fp8-run --load directories whose scale products leave f32's range.

  make_scale_range.py DIR        write DIR/<kind>_<case>/
  make_scale_range.py --check D  check D/<kind>_<case>/d.npy against the
                                 hand-computed value

A 16x16x128 GEMM, A and B f8E4M3FN (B [N, K]), every code the same, every
scale the same power of two, so that each product a * sa * b * sb is exact
and D is known by hand (f32 sums of equal powers of two are exact):

  overflow:  codes 2^-6 (0x08), scales 2^66: D = 128 * 2^-12 * 2^132 = 2^127,
             while sa * sb = 2^132 is beyond f32 (an f32 product of the
             scales gives Inf, or NaN on zero codes);
  underflow: codes 448 (0x7E), scales 2^-75: D = 128 * 448^2 * 2^-150
             = 49 * 2^-131 (a normal f32), while sa * sb = 2^-150 rounds
             to 0 in f32.

Scale kinds: tensor, row, block (A 1x128, B 128x128), mx32 (E8M0 codes
127 + 66 = 193 and 127 - 75 = 52).
"""
import os
import sys

import numpy as np

M, N, K = 16, 16, 128
CASES = {
    "overflow": (0x08, 66, 2.0 ** 127),
    "underflow": (0x7E, -75, 49 * 2.0 ** -131),
}
KINDS = ("tensor", "row", "block", "mx32")


def scales(kind, operand, exponent):
    rows = M if operand == "a" else N
    if kind == "mx32":
        return np.full((rows, K // 32), 127 + exponent, dtype=np.uint8)
    shape = {"tensor": (1, 1), "row": (rows, 1),
             "block": (rows, 1) if operand == "a" else (1, 1)}[kind]
    return np.full(shape, 2.0 ** exponent, dtype=np.float32)


def write(root):
    for kind in KINDS:
        for case, (code, exponent, _) in CASES.items():
            d = os.path.join(root, kind + "_" + case)
            os.makedirs(d, exist_ok=True)
            for operand in "ab":
                rows = M if operand == "a" else N
                np.save(os.path.join(d, operand + ".npy"),
                        np.full((rows, K), code, dtype=np.uint8))
                np.save(os.path.join(d, operand + "_scale.npy"),
                        scales(kind, operand, exponent))


def check(root):
    bad = 0
    for kind in KINDS:
        for case, (_, _, expected) in CASES.items():
            name = kind + "_" + case
            path = os.path.join(root, name, "d.npy")
            if not os.path.exists(path):
                continue
            d = np.load(path).astype(np.float64)
            wrong = int(np.count_nonzero(d != expected))
            print(f"{name}: {wrong} of {d.size} differ from {expected!r}")
            bad += wrong
    print("check:", "PASS" if bad == 0 else "FAIL")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    write(sys.argv[1])
