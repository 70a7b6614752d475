"""Inputs and expected results for the MFMA kernels of mfma_kernels_gfx942.mlir and mfma_kernels_gfx950.mlir.

usage: mfma_case.py gen CASE DIR       writes DIR/in*.npy (kernel arguments)
       mfma_case.py check CASE DIR     compares DIR/out/arg<N>.npy with the
                                       reference [--expect-mismatch]

The reference is the instructions' mathematical definition from AMD's ISA
guides -- D = C + sum_k A[i,k] * B[k,j], and for the scaled forms each 32-K
block's dot product times 2^(sA - 127) * 2^(sB - 127) -- computed in float64
from small-integer inputs, so every sum is exact. It knows nothing of the
register layouts: a kernel only reproduces it when the emulator places the
operands where the guides say.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Utils"))
from formats import encode_exact, pack_rows, table, width  # noqa: E402

# name: (M, N, K, A format, B format, scaled?)
CASES = {
    "mfma_16x16x32_fp8": (16, 16, 32, "f8E4M3FNUZ", "f8E4M3FNUZ", False),
    "mfma_16x16x32_bf8_fp8": (16, 16, 32, "f8E5M2FNUZ", "f8E4M3FNUZ", False),
    "mfma_32x32x16_fp8": (32, 32, 16, "f8E4M3FNUZ", "f8E4M3FNUZ", False),
    "mfma_32x32x16_bf8_bf8": (32, 32, 16, "f8E5M2FNUZ", "f8E5M2FNUZ", False),
    "mfma_32x32x64_fp6_fp8": (32, 32, 64, "f6E2M3FN", "f8E4M3FN", False),
    "scaled_16x16x128_fp8": (16, 16, 128, "f8E4M3FN", "f8E4M3FN", True),
    "scaled_16x16x128_fp8_consecutive": (16, 16, 128, "f8E4M3FN", "f8E4M3FN", True),
    "mfma_16x16x128_fp4_fp8": (16, 16, 128, "f4E2M1FN", "f8E4M3FN", False),
    "scaled_32x32x64_fp4_fp8": (32, 32, 64, "f4E2M1FN", "f8E4M3FN", True),
    "scaled_zero_constant_scales": (16, 16, 128, "f8E4M3FN", "f8E4M3FN", False),
}


def operands(case):
    m, n, k, fa, fb, scaled = CASES[case]
    rng = np.random.default_rng(sum(map(ord, case)))
    # Small integers every format holds exactly (FP4: 0, +-1..4, 6; FP6
    # e2m3: up to 7.5).
    choices = [-4, -3, -2, -1, 0, 1, 2, 3, 4]
    a = rng.choice(choices, size=(m, k)).astype(np.float64)
    bt = rng.choice(choices, size=(n, k)).astype(np.float64)
    sa = rng.integers(124, 131, size=(m, k // 32)) if scaled else None
    sb = rng.integers(124, 131, size=(n, k // 32)) if scaled else None
    return a, bt, sa, sb


def stored(values, name):
    codes = encode_exact(values, name)
    if width(name) < 8:
        return pack_rows(codes, width(name))
    return codes


def reference(case):
    m, n, k, fa, fb, scaled = CASES[case]
    a, bt, sa, sb = operands(case)
    if not scaled:
        return a @ bt.T
    d = np.zeros((m, n))
    for blk in range(k // 32):
        cols = slice(32 * blk, 32 * blk + 32)
        part = a[:, cols] @ bt[:, cols].T
        part *= np.ldexp(1.0, sa[:, blk] - 127)[:, None]
        part *= np.ldexp(1.0, sb[:, blk] - 127)[None, :]
        d += part
    return d


def main():
    mode, case, directory = sys.argv[1:4]
    m, n, k, fa, fb, scaled = CASES[case]
    a, bt, sa, sb = operands(case)
    if mode == "gen":
        os.makedirs(directory, exist_ok=True)
        args = [stored(a, fa), stored(bt, fb)]
        if scaled:
            args += [sa.astype(np.uint8), sb.astype(np.uint8)]
        args.append(np.zeros((m, n), dtype=np.float32))
        for i, arg in enumerate(args):
            np.save(f"{directory}/in{i}.npy", arg)
        return
    d_index = 4 if scaled else 2
    d = np.load(f"{directory}/out/arg{d_index}.npy").astype(np.float64)
    expected = reference(case)
    bad = int((d != expected).sum())
    if "--expect-mismatch" in sys.argv:
        print(f"{case}: {bad} of {d.size} elements differ from the "
              f"reference (a mismatch was expected)")
        sys.exit(0 if bad else 1)
    print(f"{case}: {bad} of {d.size} elements differ from the reference")
    sys.exit(1 if bad else 0)


main()
