"""The host quantizers from Python: hand-computed codes from the format
definitions, bit equality with fp8-run's own files (the C++ quantizer as
the command-line tool runs it), and DeepGEMM's rule re-implemented in
numpy."""
import os
import subprocess
import sys

import numpy as np
import pytest

import qmm
from conftest import SOURCE_DIR, TOOLS_DIR

sys.path.insert(0, os.path.join(SOURCE_DIR, "test", "fp8-run", "Inputs"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "test", "Utils"))


def test_per_tensor_e4m3fn_by_hand():
    # amax 448 = fmax: scale 1. 448 = 1.75 * 2^8 -> 0x7E; 1 -> 0x38;
    # -0.5 -> 0xB0; 0.3 lies between 0.28125 (0x29) and 0.3125 (0x2A),
    # nearer the latter.
    x = np.array([[448.0, 1.0, -0.5, 0.3]], np.float32)
    codes, scales = qmm.quantize(x, "f8E4M3FN", "tensor")
    assert codes.dtype == np.uint8 and scales.dtype == np.float32
    assert codes.tolist() == [[0x7E, 0x38, 0xB0, 0x2A]]
    assert scales.tolist() == [[1.0]]


def test_per_row_fnuz_by_hand():
    # Row amax 480: scale 2 (fmax 240). 480 / 2 = 240 -> 0x7F; -0 has no
    # code in FNUZ and becomes +0; 3 / 2 = 1.5 -> 0x44 (bias 8).
    x = np.array([[480.0, -0.0, 3.0, 0.0]], np.float32)
    codes, scales = qmm.quantize(x, "f8E4M3FNUZ", "row")
    assert codes.tolist() == [[0x7F, 0x00, 0x44, 0x00]]
    assert scales.tolist() == [[2.0]]


def test_mx_fp4_rounding_rules_by_hand():
    # One block of 32 e2m1 values, packed two per byte, low nibble first.
    x = np.zeros((1, 32), np.float32)
    x[0, :4] = [7.0, 3.5, -1.0, 0.25]
    # OCP floor: 2^(floor(log2 7) - 2) = 1 (E8M0 127); 7 saturates to 6
    # (0b0111), 3.5 ties between 3 (0b0101) and 4 (0b0110): even -> 4;
    # -1 -> 0b1010; 0.25 ties between 0 and 0.5: even -> 0.
    codes, scales = qmm.quantize(x, "f4E2M1FN", "mx32")
    assert codes.shape == (1, 16) and scales.dtype == np.uint8
    assert scales.tolist() == [[127]]
    assert codes[0, :2].tolist() == [0x67, 0x0A]
    # DeepGEMM's ceil: 2^ceil(log2(7 / 6)) = 2 (E8M0 128); 7 / 2 = 3.5 -> 4,
    # 3.5 / 2 = 1.75 ties between 1.5 (0b0011) and 2 (0b0100): even -> 2.
    codes, scales = qmm.quantize(x, "f4E2M1FN", "mx32", rounding="pow2_ceil")
    assert scales.tolist() == [[128]]
    assert codes[0, 0] == 0x46


@pytest.mark.parametrize("a_type,a_scale,chip", [
    ("f8E4M3FNUZ", "1x128", "gfx942"),
    ("f8E5M2", "row", "gfx950"),
    ("f8E4M3FN", "mx32", "gfx950"),
    ("f4E2M1FN", "mx32", "gfx950"),
    ("f6E3M2FN", "mx32", "gfx950"),
])
def test_bit_equal_to_fp8_run(tmp_path, a_type, a_scale, chip):
    subprocess.run([os.path.join(TOOLS_DIR, "fp8-run"), "--device", "cpu",
                    "--chip", chip, "--gemm", "64x32x256", "--a-type", a_type,
                    "--b-type", a_type, "--a-scale", a_scale, "--b-scale",
                    a_scale, "--out-type", "f32", "--dist", "outliers",
                    "--save", str(tmp_path)], check=False,
                   stdout=subprocess.DEVNULL)
    # (fp8-run's verdict on the GEMM does not matter here, its files do.)
    x = np.load(tmp_path / "a_hp.npy")
    codes, scales = qmm.quantize(x, a_type, a_scale)
    np.testing.assert_array_equal(codes, np.load(tmp_path / "a.npy"))
    np.testing.assert_array_equal(scales, np.load(tmp_path / "a_scale.npy"))


def test_deepgemm_rule_in_numpy():
    from check_npy import deepgemm_codes  # numpy, written from DeepGEMM
    x = np.random.default_rng(3).standard_normal((96, 384)).astype(np.float32)
    x[5, 7] = 1e3
    # (check_npy handles the e4m3 formats, whose fmax is the largest value.)
    for element_type in ("f8E4M3FN", "f8E4M3FNUZ"):
        codes, _ = qmm.quantize(x, element_type, "1x128")
        np.testing.assert_array_equal(codes,
                                      deepgemm_codes(x, element_type, "1x128"))


def test_dequantize_is_decode_times_scale():
    x = np.random.default_rng(4).standard_normal((4, 64)).astype(np.float32)
    codes, scales = qmm.quantize(x, "f8E4M3FN", "1x32", layout="nk")
    values = qmm.decode(codes, "f8E4M3FN", (4, 64))
    expected = values * np.repeat(scales.astype(np.float64), 32, axis=1)
    np.testing.assert_array_equal(
        qmm.dequantize(codes, scales, "f8E4M3FN", "1x32", 4, 64), expected)
    # B stored [K, N] with MN-major scales reads back the same values.
    codes_kn, scales_kn = qmm.quantize(x.T.copy(), "f8E4M3FN", "1x32",
                                       layout="kn", mn_major=True)
    np.testing.assert_array_equal(codes_kn, codes.T)
    np.testing.assert_array_equal(
        qmm.dequantize(codes_kn, scales_kn, "f8E4M3FN", "1x32", 4, 64,
                       layout="kn", mn_major=True), expected)


@pytest.mark.parametrize("call,message", [
    (lambda: qmm.quantize(np.ones((2, 32)), "f8E4M3", "tensor"),
     "is not a quantized type"),
    (lambda: qmm.quantize(np.ones((2, 32)), "f8E4M3FN", "1x0"),
     "expected tensor, row, 1x128, 128x128, mx32 or RxC"),
    (lambda: qmm.quantize(np.ones((2, 48)), "f8E4M3FN", "mx32"),
     "mx32 scales need K to be a multiple of 32"),
    (lambda: qmm.quantize(np.ones((2, 32)), "f8E4M3FN", "mx32",
                          rounding="none"),
     "rounding none cannot produce E8M0"),
    (lambda: qmm.quantize(np.ones(8), "f8E4M3FN", "tensor"),
     "expected a 2-D array"),
    (lambda: qmm.dequantize(np.ones((2, 32), np.float32), np.ones((1, 1)),
                            "f8E4M3FN", "tensor", 2, 32),
     "codes: dtype <f4 does not match f8E4M3FN"),
])
def test_bad_input_raises(call, message):
    with pytest.raises(ValueError, match=message):
        call()
