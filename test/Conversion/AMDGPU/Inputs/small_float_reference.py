"""Checks a kernel's f32 outputs, one per code of a small float format,
against the values test/Utils/formats.py derives from the formats'
definitions (E8M0, 2^(code - 127) with 0xFF NaN, from OCP MX v1.0), bit for
bit; any NaN matches NaN.

usage: small_float_reference.py FORMAT OUTPUT.npy
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "Utils"))
import formats  # noqa: E402


def expected(fmt):
    if fmt == "f8E8M0FNU":
        return np.array([np.nan if code == 0xFF else 2.0 ** (code - 127)
                         for code in range(256)])
    return formats.table(fmt)


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    want = expected(fmt).astype(np.float32)
    got = np.load(path).astype(np.float32)[:len(want)]
    same = np.where(np.isnan(want), np.isnan(got),
                    want.view(np.uint32) == got.view(np.uint32))
    for code in np.flatnonzero(~same):
        print(f"{fmt} code {code:#x}: got {got[code]!r}, want {want[code]!r}")
    print(f"{fmt}: {int(same.sum())} of {len(want)} codes decode exactly")
    sys.exit(0 if same.all() else 1)


if __name__ == "__main__":
    main()
