"""The performance model from Python (qmm.model): every figure is MODELED
(compiled only, nothing runs). The expected values are facts independent of
the model: the products' published peaks, the GEMM's own FLOP and bytes,
the documented default HBM bandwidth, and that a faster clock cannot make a
kernel slower."""
import pytest

import qmm

M = N = K = 4096
FLOP = 2 * M * N * K


def per_tensor_gemm(chip):
    element = qmm.native_fp8(chip)
    return qmm.Gemm(M, N, K, a_type=element, b_type=element,
                    a_scale="tensor", b_scale="tensor", out_type="bf16")


@pytest.fixture(scope="module")
def gemm942():
    return per_tensor_gemm("gfx942")


def test_mi300x_per_tensor_fp8_gemm(gemm942):
    (p,) = gemm942.model("gfx942", device="mi300x")
    assert p["modeled"] is True
    assert p["device"] == "mi300x" and p["chip"] == "gfx942"
    # MI300X dense FP8: 304 CUs x 4096 FLOP/clk x 2.1 GHz = 2614.9 TFLOP/s
    # (AMD's product sheet: 2614.9).
    assert abs(p["peak_tflops"] - 2615) <= 1
    assert 0 < p["fraction_of_peak"] <= 1
    assert p["seconds"] > 0
    # TFLOP/s is the GEMM's own FLOP over the modeled time.
    assert p["tflops"] == pytest.approx(FLOP / p["seconds"] / 1e12, rel=1e-9)
    assert p["fraction_of_peak"] == pytest.approx(
        p["tflops"] / p["peak_tflops"], rel=1e-9)
    # A and B (FP8) are read and D (bf16) written at least once.
    assert p["compulsory_bytes"] >= M * K + N * K + 2 * M * N
    # No kernel beats HBM at the documented default of 4 TB/s.
    assert p["parameters"]["hbm-bw"] == 4
    assert p["seconds"] >= p["compulsory_bytes"] / 4.0e12
    assert p["bound"]
    loop = p["main_loop"]
    assert loop is not None
    assert 0 < loop["mfma_busy"] <= 1
    assert loop["mfma"] and all(name.startswith("v_mfma")
                                for name in loop["mfma"])
    assert p["spills"] is False and p["scratch_bytes"] == 0


def test_default_device_follows_the_chip(gemm942):
    (p,) = qmm.model(gemm942.ir(), "gfx942")
    assert p["device"] == "mi300x"
    (q,) = per_tensor_gemm("gfx950").model("gfx950")
    assert q["device"] == "mi355x" and q["chip"] == "gfx950"
    # MI355X dense FP8: 256 CUs x 8192 FLOP/clk x 2.4 GHz = 5033 TFLOP/s.
    assert abs(q["peak_tflops"] - 5033) <= 1
    assert 0 < q["fraction_of_peak"] <= 1


def test_a_faster_clock_is_faster(gemm942):
    (fast,) = gemm942.model(params={"clock": 2.0})
    (slow,) = gemm942.model(params=["clock=1.0"])
    assert fast["parameters"]["clock"] == 2.0
    assert slow["parameters"]["clock"] == 1.0
    assert fast["seconds"] < slow["seconds"]


def test_grouped_gemm():
    gemm = qmm.GroupedGemm(256, 512, 256, 4, a_type="f8E4M3FNUZ",
                           b_type="f8E4M3FNUZ")
    predictions = gemm.model("gfx942")
    assert predictions and all(p["modeled"] is True for p in predictions)
    assert all(p["seconds"] > 0 for p in predictions)


def test_errors(gemm942):
    ir = gemm942.ir()
    with pytest.raises(ValueError, match="unknown device 'mi999x'"):
        qmm.model(ir, "gfx942", device="mi999x")
    with pytest.raises(ValueError, match="mi355x is a gfx950"):
        qmm.model(ir, "gfx942", device="mi355x")
    with pytest.raises(ValueError, match="unknown chip"):
        qmm.model(ir, "gfx90a")
    with pytest.raises(ValueError, match="unknown model parameter 'warp'"):
        qmm.model(ir, params={"warp": 9})
    with pytest.raises(ValueError, match="model parameter 'clock'"):
        qmm.model(ir, params={"clock": 0})
    with pytest.raises(ValueError, match="cannot parse"):
        qmm.model("not mlir")
    # A config the compiler rejects: the pipeline's message comes back.
    with pytest.raises(RuntimeError, match="AMD pipeline failed"):
        qmm.model(ir, config="#qmm.config<bogus>")
