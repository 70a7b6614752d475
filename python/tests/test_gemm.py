"""GEMMs from Python: describe, compile for gfx942 and gfx950 (code objects
and their metadata), run on the emulator and the CPU reference with numpy
arrays, and compare with numpy's own product of the dequantized operands."""
import numpy as np
import pytest

import qmm

RNG = np.random.default_rng(11)


def bf16_round(x):
    """Round-to-nearest-even to bf16, in float32 (numpy has no bf16)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def calc_diff(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    return 1 - 2 * (x * y).sum() / (x * x + y * y).sum()


def check_bf16_output(d, reference, magnitudes, k):
    """Every element within one bf16 ulp of the bf16-rounded f64 reference
    plus the f32 accumulation bound (k + 2) 2^-24 sum |a b|."""
    rounded = bf16_round(reference).astype(np.float64)
    ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(rounded), 1e-30))) - 7)
    allowed = ulp + (k + 2) * 2.0 ** -24 * magnitudes
    assert (np.abs(d - rounded) <= allowed).all()


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_blockwise_fp8_gemm_on_the_emulator(chip):
    m, n, k = 200, 320, 512
    element = qmm.native_fp8(chip)
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    qa, sa = qmm.quantize(a, element, "1x128")
    qb, sb = qmm.quantize(b, element, "128x128")

    gemm = qmm.Gemm(m, n, k, a_type=element, b_type=element,
                    a_scale="1x128", b_scale="128x128", out_type="bf16")
    assert "qmm.matmul" in gemm.ir()
    program = gemm.compile(chip)
    assert program["chip"] == chip
    (kernel,) = program["kernels"]
    assert kernel["code_object"][:4] == b"\x7fELF"
    # e_machine 224 = EM_AMDGPU.
    assert int.from_bytes(kernel["code_object"][18:20], "little") == 224
    assert kernel["resources"]["scratch_bytes"] == 0
    assert kernel["resources"]["vgpr_spills"] == 0
    assert kernel["resources"]["lds_bytes"] > 0
    (function,) = program["functions"]
    assert function["name"] == "qmm_gemm"
    (launch,) = function["launches"]
    assert launch["kernel"] == kernel["name"]
    assert launch["block"][0] % 64 == 0
    tile_n = (n + launch["grid"][0] - 1) // launch["grid"][0]
    assert launch["grid"][0] * tile_n >= n

    d = gemm(qa, sa, qb, sb, device="emu", chip=chip)
    assert d.shape == (m, n) and d.dtype == np.float32
    da = qmm.dequantize(qa, sa, element, "1x128", m, k)
    db = qmm.dequantize(qb, sb, element, "128x128", n, k)
    check_bf16_output(d, da @ db.T, np.abs(da) @ np.abs(db).T, k)
    # Against the unquantized inputs: DeepGEMM's FP8 threshold.
    assert calc_diff(d, a.astype(np.float64) @ b.T.astype(np.float64)) < 1e-3


def test_split_k_temporaries_and_run():
    """A forced split-K config: one launch over 4 ranges along grid z, two
    temporaries (the partial sums; the arrival counters, to be zeroed), and
    the run matches numpy's product of the dequantized operands."""
    m, n, k = 16, 64, 1024
    element = qmm.native_fp8("gfx942")
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    qa, sa = qmm.quantize(a, element, "tensor")
    qb, sb = qmm.quantize(b, element, "tensor")
    gemm = qmm.Gemm(m, n, k, a_type=element, b_type=element,
                    a_scale="tensor", b_scale="tensor", out_type="bf16")
    config = ("#qmm.config<tile = [16, 32, 128], waves = [1, 2], "
              "mfma = fp8 [16, 16, 32], stages = 2, split = 4>")
    (function,) = gemm.compile("gfx942", config)["functions"]
    (launch,) = function["launches"]
    # 64 / 32 x 16 / 16 tiles, 4 ranges of the 8 K tiles.
    assert launch["grid"] == (2, 1, 4)
    # Per range: 2 tiles x 1 accumulator x 128 threads x 4 f32; one
    # counter per tile and wave.
    assert function["temporaries"] == [
        {"type": "memref<4x1024xf32>", "zeroed": False},
        {"type": "memref<4xi32>", "zeroed": True}]
    assert "alloc0" in launch["arguments"] and "alloc1" in launch["arguments"]
    d = gemm(qa, sa, qb, sb, device="emu", chip="gfx942", config=config)
    da = qmm.dequantize(qa, sa, element, "tensor", m, k)
    db = qmm.dequantize(qb, sb, element, "tensor", n, k)
    check_bf16_output(d, da @ db.T, np.abs(da) @ np.abs(db).T, k)


def test_cpu_device_matches_the_emulator_bound():
    m, n, k = 64, 96, 256
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)  # B stored [K, N]
    qa, sa = qmm.quantize(a, "f8E4M3FN", "row")
    qb, sb = qmm.quantize(b, "f8E5M2", "tensor", layout="kn")
    gemm = qmm.Gemm(m, n, k, a_type="f8E4M3FN", b_type="f8E5M2",
                    a_scale="row", b_scale="tensor", b_layout="kn",
                    out_type="f32", bias="f32", activation="gelu_erf")
    bias = RNG.standard_normal(n).astype(np.float32)
    d = gemm(qa, sa, qb, sb, bias=bias, device="cpu", chip="gfx950")
    da = qmm.dequantize(qa, sa, "f8E4M3FN", "row", m, k)
    db = qmm.dequantize(qb, sb, "f8E5M2", "tensor", n, k, layout="kn")
    pre = da @ db.T + bias
    from math import erf
    gelu = 0.5 * pre * (1 + np.vectorize(erf)(pre / np.sqrt(2)))
    assert np.abs(d - gelu).max() <= 1e-4 * np.abs(gelu).max()


def test_mxfp4_on_gfx950_packed_arrays():
    m, n, k = 64, 64, 128
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    qa, sa = qmm.quantize(a, "f4E2M1FN", "mx32")
    qb, sb = qmm.quantize(b, "f8E4M3FN", "mx32")
    assert qa.shape == (m, k // 2) and sa.dtype == np.uint8
    gemm = qmm.Gemm(m, n, k, a_type="f4E2M1FN", b_type="f8E4M3FN",
                    a_scale="mx32", b_scale="mx32", out_type="f32")
    d = gemm(qa, sa, qb, sb, device="emu", chip="gfx950")
    da = qmm.dequantize(qa, sa, "f4E2M1FN", "mx32", m, k)
    db = qmm.dequantize(qb, sb, "f8E4M3FN", "mx32", n, k)
    reference = da @ db.T
    bound = (k + 2) * 2.0 ** -24 * (np.abs(da) @ np.abs(db).T)
    assert (np.abs(d - reference) <= bound + 1e-30).all()


def test_fp8_output_with_per_token_scales():
    m, n, k = 128, 256, 256
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    qa, sa = qmm.quantize(a, "f8E4M3FNUZ", "1x128")
    qb, sb = qmm.quantize(b, "f8E4M3FNUZ", "128x128")
    gemm = qmm.Gemm(m, n, k, a_type="f8E4M3FNUZ", b_type="f8E4M3FNUZ",
                    out_type="f8E4M3FNUZ", out_scale="1x128")
    codes, scales = gemm(qa, sa, qb, sb, chip="gfx942")
    assert codes.dtype == np.uint8 and scales.shape == (m, 2)
    reference = (qmm.dequantize(qa, sa, "f8E4M3FNUZ", "1x128", m, k) @
                 qmm.dequantize(qb, sb, "f8E4M3FNUZ", "128x128", n, k).T)
    # Scales: amax / 240 per 128 columns, to f32 rounding.
    amax = np.abs(reference).reshape(m, 2, 128).max(axis=2)
    np.testing.assert_allclose(scales, amax / 240, rtol=1e-5)
    # The output re-quantizes the reference: within half an e4m3 unit.
    out = qmm.dequantize(codes, scales, "f8E4M3FNUZ", "1x128", m, n)
    assert (np.abs(out - reference) <= np.abs(reference) * 2.0 ** -4 +
            np.repeat(scales, 128, axis=1) * 2.0 ** -10).all()


def test_masked_grouped_gemm():
    groups, m, n, k = 3, 40, 64, 256
    a = RNG.standard_normal((groups, m, k)).astype(np.float32)
    b = RNG.standard_normal((groups, n, k)).astype(np.float32)
    parts = [qmm.quantize(a[g], "f8E4M3FN", "1x128") for g in range(groups)]
    weights = [qmm.quantize(b[g], "f8E4M3FN", "128x128") for g in range(groups)]
    qa = np.stack([p[0] for p in parts]); sa = np.stack([p[1] for p in parts])
    qb = np.stack([w[0] for w in weights]); sb = np.stack([w[1] for w in weights])
    counts = np.array([m, 0, 17], np.int32)
    init = np.full((groups, m, n), 5.0, np.float32)
    gemm = qmm.GroupedGemm(m, n, k, groups, masked=True, a_type="f8E4M3FN",
                           b_type="f8E4M3FN", out_type="f32")
    d = gemm(qa, sa, qb, sb, counts, init, chip="gfx950")
    for g in range(groups):
        da = qmm.dequantize(qa[g], sa[g], "f8E4M3FN", "1x128", m, k)
        db = qmm.dequantize(qb[g], sb[g], "f8E4M3FN", "128x128", n, k)
        rows = counts[g]
        reference = da[:rows] @ db.T
        bound = (k + 2) * 2.0 ** -24 * (np.abs(da[:rows]) @ np.abs(db).T)
        assert (np.abs(d[g, :rows] - reference) <= bound).all()
        assert (d[g, rows:] == 5.0).all()  # rows past the count: untouched


@pytest.mark.parametrize("device,chip", [("emu", "gfx942"), ("emu", "gfx950"),
                                         ("cpu", "gfx950")])
def test_masked_grouped_gemm_fp8_output(device, chip):
    # Each written row quantized per 1x128 block; rows past a group's count
    # keep their codes (0x40) and scales (-7).
    groups, m, n, k = 3, 40, 192, 256
    fp8 = "f8E4M3FNUZ" if chip == "gfx942" else "f8E4M3FN"
    a = RNG.standard_normal((groups, m, k)).astype(np.float32)
    b = RNG.standard_normal((groups, n, k)).astype(np.float32)
    parts = [qmm.quantize(a[g], fp8, "1x128") for g in range(groups)]
    weights = [qmm.quantize(b[g], fp8, "128x128") for g in range(groups)]
    qa = np.stack([p[0] for p in parts]); sa = np.stack([p[1] for p in parts])
    qb = np.stack([w[0] for w in weights]); sb = np.stack([w[1] for w in weights])
    counts = np.array([m, 0, 17], np.int32)
    init = np.full((groups, m, n), 0x40, np.uint8)
    scales0 = np.full((groups, m, 2), -7.0, np.float32)
    gemm = qmm.GroupedGemm(m, n, k, groups, masked=True, a_type=fp8,
                           b_type=fp8, out_type=fp8, out_scale="1x128")
    codes, scales = gemm(qa, sa, qb, sb, counts, init, out_scales=scales0,
                         device=device, chip=chip)
    for g in range(groups):
        rows = counts[g]
        assert (codes[g, rows:] == 0x40).all()
        assert (scales[g, rows:] == -7.0).all()
        if rows == 0:
            continue
        da = qmm.dequantize(qa[g], sa[g], fp8, "1x128", m, k)[:rows]
        db = qmm.dequantize(qb[g], sb[g], fp8, "128x128", n, k)
        reference = da.astype(np.float64) @ db.T.astype(np.float64)
        out = qmm.dequantize(codes[g, :rows], scales[g, :rows], fp8, "1x128",
                             rows, n)
        # The scale is amax / fmax of the block (fmax 448 OCP, 240 FNUZ),
        # the codes within half an FP8 step (2^-4 relative, 2^-3 at the
        # format's subnormal edge) of the f64 product.
        fmax = 240.0 if chip == "gfx942" else 448.0
        for blk in range(2):
            cols = slice(128 * blk, min(128 * (blk + 1), n))
            amax = np.abs(reference[:, cols]).max(axis=1)
            assert np.allclose(scales[g, :rows, blk], amax / fmax, rtol=1e-5)
            err = np.abs(out[:, cols] - reference[:, cols])
            assert (err <= 2.0 ** -4 * np.abs(reference[:, cols]) +
                    amax[:, None] * 2.0 ** -9 + 1e-6).all()


def test_errors_are_exceptions():
    gemm = qmm.Gemm(64, 64, 128, a_type="f8E4M3FN", b_type="f8E4M3FN",
                    a_scale="tensor", b_scale="tensor", out_type="f32")
    with pytest.raises(RuntimeError, match="unknown chip 'gfx90a'"):
        gemm.compile("gfx90a")
    with pytest.raises(RuntimeError, match="the AMD pipeline failed for gfx942"):
        gemm.compile("gfx942", config="#qmm.config<tile = [512, 512, 512], "
                     "waves = [2, 2], mfma = fp8 [32, 32, 16], stages = 1>")
    qa = np.zeros((64, 128), np.uint8)
    scale = np.ones((1, 1), np.float32)
    with pytest.raises(ValueError, match=r"argument 0 .*shape \[64, 64\] "
                       r"does not match f8E4M3FN \[64, 128\]"):
        gemm(qa[:, :64], scale, qa, scale)
    with pytest.raises(ValueError, match=r"argument 1 .*dtype <f8 does not "
                       r"match f32"):
        gemm(qa, scale.astype(np.float64), qa, scale)
    with pytest.raises(RuntimeError, match="unknown device"):
        gemm(qa, scale, qa, scale, device="tpu")
    # No GPU here: the HIP device says so (Debian's HIP runtime answers
    # hipErrorNoDevice); `auto` falls back to the emulator.
    with pytest.raises(RuntimeError, match="no HIP device"):
        gemm(qa, scale, qa, scale, device="hip", chip="gfx950")
    assert gemm(qa, scale, qa, scale, device="auto", chip="gfx950").shape == \
        (64, 64)
    with pytest.raises(ValueError, match="mix FNUZ and OCP"):
        qmm.Gemm(64, 64, 128, a_type="f8E4M3FN", b_type="f8E4M3FNUZ")
    with pytest.raises(ValueError, match="cannot parse the program"):
        qmm.run("func.func @f(", "f", [])
