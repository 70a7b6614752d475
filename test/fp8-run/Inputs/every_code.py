"""Every code of an FP8 format through a GEMM, checked exactly.

  every_code.py make DIR A_TYPE B_TYPE   writes a.npy (1 x 256: every code of
      A_TYPE, NaN and Inf codes replaced by 0, since Inf x 0 = NaN would
      spread to every output), b.npy (256 x 256 identity in
      B_TYPE), unit per-tensor scales
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


def check(d, a_type):
    values = formats.table(a_type)
    values[~np.isfinite(values)] = 0.0
    got = np.load(f"{d}/d.npy").reshape(256).astype(np.float64)
    bad = np.flatnonzero(got != values)
    print(f"codes differing: {len(bad)} of 256")
    for code in bad[:8]:
        print(f"  code 0x{code:02X}: expected {values[code]!r}, got {got[code]!r}")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        check(sys.argv[2], sys.argv[3])
