"""Independent check of an FP8 output saved by fp8-run, in numpy.

Recomputes D in float64 from the dequantized operands (check_npy's own
decoder), re-quantizes it to FP8 with DeepGEMM's per-token 1x128 cast
(amax clamped at 1e-4, scale amax / fmax, codes sat(rne(x * fmax / amax)),
in float32) and compares with d.npy / d_scale.npy. The kernel accumulated
in float32 in its own order, so its amax and codes may sit one rounding
away: scales must agree to 1e-5 relative and codes to one step of the
format.

usage: check_fp8_output.py DIR A_TYPE B_TYPE A_BLOCK B_BLOCK OUT_TYPE
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Utils"))
from check_npy import deepgemm_codes, dequantize  # noqa: E402
from formats import table  # noqa: E402


def step_index(codes, fmt):
    """Signed position of each code on the format's value grid."""
    values = table(fmt)
    grid = np.unique(np.abs(values[np.isfinite(values)]))
    decoded = values[codes]
    return np.sign(decoded) * np.searchsorted(grid, np.abs(decoded))


def main():
    directory, a_type, b_type, a_block, b_block, out_type = sys.argv[1:7]
    d = np.load(f"{directory}/d.npy")
    d_scale = np.load(f"{directory}/d_scale.npy")
    a_hp = np.load(f"{directory}/a_hp.npy")
    b_hp = np.load(f"{directory}/b_hp.npy")
    m, k = a_hp.shape
    n = b_hp.shape[0]
    assert d.dtype == np.uint8 and d.shape == (m, n), (d.dtype, d.shape)
    assert d_scale.shape == (m, (n + 127) // 128), d_scale.shape

    a = dequantize(directory, "a", a_type, a_block, "nk", m, k)
    b = dequantize(directory, "b", b_type, b_block, "nk", n, k)
    reference = (a @ b.T).astype(np.float32)

    ours = deepgemm_codes(reference, out_type, "1x128")
    fmax = np.float32(np.nanmax(table(out_type)))
    amax = np.array([[np.abs(reference[i, j:j + 128]).max()
                      for j in range(0, n, 128)] for i in range(m)], np.float32)
    scales = np.maximum(amax, np.float32(1e-4)) / fmax
    scale_error = np.abs(d_scale / scales - 1).max()
    steps = np.abs(step_index(d, out_type) - step_index(ours, out_type))
    print(f"numpy: scale relative difference {'ok' if scale_error < 1e-5 else scale_error}")
    print(f"numpy: codes more than one step apart {int((steps > 1).sum())} of {d.size}")
    print(f"numpy: codes equal {int((steps == 0).sum())} of {d.size}")


main()
