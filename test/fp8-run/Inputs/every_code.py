"""Every code of a format through a GEMM, checked exactly.

  every_code.py make DIR A_TYPE B_TYPE   writes a.npy (1 x 256: every code of
      A_TYPE, NaN and Inf codes replaced by 0, since Inf x 0 = NaN would
      spread to every output), b.npy (256 x 256 identity in
      B_TYPE), unit per-tensor scales
  every_code.py make-mx DIR A_TYPE B_TYPE   the same for an FP4/FP6 A with
      MX scales: A is 1 x K (K = 32 for FP4, 64 for FP6) holding every code
      (FP4: twice), packed as the dialect specifies (little-endian bit
      stream per row, written here from that rule); B is the K x K identity;
      every E8M0 scale is 2^0 (0x7F)
  every_code.py check DIR A_TYPE         D must equal the decoded codes
      (formats.py, independent of the compiler), bit for bit
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Utils"))
import formats  # noqa: E402


def make(d, a_type, b_type):
    values = formats.table(a_type)
    codes = np.arange(256, dtype=np.uint8)
    codes[~np.isfinite(values)] = 0
    os.makedirs(d, exist_ok=True)
    np.save(f"{d}/a.npy", codes.reshape(1, 256))
    one = int(np.flatnonzero(formats.table(b_type) == 1.0)[0])
    np.save(f"{d}/b.npy", (np.eye(256) * one).astype(np.uint8))
    np.save(f"{d}/a_scale.npy", np.ones((1, 1), np.float32))
    np.save(f"{d}/b_scale.npy", np.ones((1, 1), np.float32))


def make_mx(d, a_type, b_type):
    bits = formats.width(a_type)
    k = 32 if bits == 4 else 64
    codes = (np.arange(k) % (1 << bits)).astype(np.uint8).reshape(1, k)
    os.makedirs(d, exist_ok=True)
    np.save(f"{d}/a.npy", formats.pack_rows(codes, bits))
    one = int(np.flatnonzero(formats.table(b_type) == 1.0)[0])
    np.save(f"{d}/b.npy", (np.eye(k) * one).astype(np.uint8))
    np.save(f"{d}/a_scale.npy", np.full((1, k // 32), 0x7F, np.uint8))
    np.save(f"{d}/b_scale.npy", np.full((k, k // 32), 0x7F, np.uint8))


def check(d, a_type):
    values = formats.table(a_type)
    values[~np.isfinite(values)] = 0.0
    got = np.load(f"{d}/d.npy").astype(np.float64).ravel()
    expected = values[np.arange(got.size) % values.size]
    bad = np.flatnonzero(got != expected)
    print(f"codes differing: {len(bad)} of {got.size}")
    for n in bad[:8]:
        print(f"  column {n}: expected {expected[n]!r}, got {got[n]!r}")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "make-mx":
        make_mx(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        check(sys.argv[2], sys.argv[3])
