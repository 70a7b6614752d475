"""fp8-run's call mode (call-mode.test), checked with numpy alone.

  call_mode.py gen DIR M     writes a.npy, sa.npy, b.npy, sb.npy (and
                             bad_dtype.npy: A's codes as float32)
  call_mode.py check DIR M   reads DIR/out/result0.npy, result1.npy and
                             compares with numpy's product of the inputs
                             decoded by test/Utils/formats.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Utils"))
from formats import table  # noqa: E402

K, N = 64, 16


def values(directory, m):
    a = table("f8E4M3FN")[np.load(os.path.join(directory, "a.npy"))]
    b = table("f8E5M2")[np.load(os.path.join(directory, "b.npy"))]
    sa = np.load(os.path.join(directory, "sa.npy")).astype(np.float64)
    sb = float(np.load(os.path.join(directory, "sb.npy")))
    assert a.shape == (m, K) and b.shape == (K, N) and sa.shape == (m,)
    # Each dequantized value is rounded to f32, as the program's mulf does.
    da = (a * sa[:, None]).astype(np.float32).astype(np.float64)
    db = (b * sb).astype(np.float32).astype(np.float64)
    return da, db


def main(mode, directory, m):
    m = int(m)
    if mode == "gen":
        rng = np.random.default_rng(m)
        finite_a = np.flatnonzero(np.isfinite(table("f8E4M3FN")))
        finite_b = np.flatnonzero(np.isfinite(table("f8E5M2")))
        np.save(os.path.join(directory, "a.npy"),
                rng.choice(finite_a, (m, K)).astype(np.uint8))
        np.save(os.path.join(directory, "b.npy"),
                rng.choice(finite_b, (K, N)).astype(np.uint8))
        scales = (rng.random(m) + 0.5).astype(np.float16).astype(np.float32)
        np.save(os.path.join(directory, "sa.npy"), scales)
        np.save(os.path.join(directory, "sb.npy"), np.array(0.375, np.float32))
        np.save(os.path.join(directory, "bad_dtype.npy"),
                np.zeros((m, K), np.float32))
        return
    da, db = values(directory, m)
    exact = da @ db
    bound = (K + 2) * 2.0 ** -24 * (np.abs(da) @ np.abs(db))
    d = np.load(os.path.join(directory, "out", "result0.npy"))
    h = np.load(os.path.join(directory, "out", "result1.npy"))
    print("result0", d.dtype, d.shape, "result1", h.dtype, h.shape)
    print("f32 violations", int((np.abs(d - exact) > bound).sum()))
    # The bf16 result is the f32 one rounded (to nearest even): the f32
    # bits with the low half rounded away, as float32 in the file.
    bits = d.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    print("bf16 mismatches", int((rounded.view(np.float32) != h).sum()))


if __name__ == "__main__":
    main(*sys.argv[1:])
