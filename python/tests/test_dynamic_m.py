"""One program for every M: a GEMM with a dynamic M (qmm.Gemm(None, n, k))
is compiled once per device and chip and called with operands of several
M, each result checked against numpy's product of the dequantized
operands. Mismatched shapes stop at the host program's checks."""
import numpy as np
import pytest

import qmm

from test_gemm import check_bf16_output

RNG = np.random.default_rng(23)


def operands(m, n, k, element, a_scale="1x128", b_scale="128x128"):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    qa, sa = qmm.quantize(a, element, a_scale)
    qb, sb = qmm.quantize(b, element, b_scale)
    da = qmm.dequantize(qa, sa, element, a_scale, m, k)
    db = qmm.dequantize(qb, sb, element, b_scale, n, k)
    return (qa, sa, qb, sb), da, db


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("scales", [("1x128", "128x128"), ("row", "row"),
                                    ("tensor", "tensor")])
def test_one_program_serves_every_m(chip, scales):
    n, k = 192, 256
    element = qmm.native_fp8(chip)
    gemm = qmm.Gemm(None, n, k, a_type=element, b_type=element,
                    a_scale=scales[0], b_scale=scales[1], out_type="bf16")
    assert "tensor<?x256x" in gemm.ir()
    qb = sb = db = None
    for m in (1, 33, 200):
        (qa, sa, qb_m, sb_m), da, db_m = operands(m, n, k, element, *scales)
        if qb is None:
            qb, sb, db = qb_m, sb_m, db_m  # one B for every M, as in serving
        d = gemm(qa, sa, qb, sb, chip=chip)
        assert d.shape == (m, n)
        reference = da @ db.T
        check_bf16_output(d, reference, np.abs(da) @ np.abs(db).T, k)
    # Every call above used the one compiled program.
    assert list(gemm._programs) == [("emu", chip, "")]


def test_mismatched_rows_stop_at_the_host_checks():
    chip, n, k = "gfx950", 128, 256
    element = qmm.native_fp8(chip)
    gemm = qmm.Gemm(None, n, k, a_type=element, b_type=element,
                    a_scale="1x128", b_scale="128x128", out_type="f32")
    program = qmm.Program(gemm.ir(), gemm.function, "emu", chip)
    (qa, sa, qb, sb), _, _ = operands(40, n, k, element)
    good = np.zeros((40, n), np.float32)
    (d,) = program(qa, sa, qb, sb, good)
    assert d.shape == (40, n)
    with pytest.raises(RuntimeError, match="the output's rows differ from "
                                           "A's rows"):
        program(qa, sa, qb, sb, np.zeros((39, n), np.float32))
    with pytest.raises(RuntimeError, match="A's scales do not match A's rows"):
        program(qa, sa[:20], qb, sb, good)
    # Static extents are still checked against the function's types.
    with pytest.raises(ValueError, match="argument 4"):
        program(qa, sa, qb, sb, np.zeros((40, n + 1), np.float32))


def test_compile_and_model_report_the_dynamic_grid():
    """The matmul is versioned by M (M <= 64: a small-M kernel; else the
    256 bucket's): two launches whose grids follow M, and the model of
    each M counts the one that runs."""
    chip, n, k = "gfx950", 192, 256
    gemm = qmm.Gemm(None, n, k, a_type="f8E4M3FN", b_type="f8E4M3FN")
    program = gemm.compile(chip)
    small, large = program["functions"][0]["launches"]
    # Each launch says when the host code reaches it (outermost first).
    assert small["conditions"] == ["dim(arg0, 0) ule 64", "dim(arg0, 0) ugt 0"]
    assert large["conditions"] == ["!(dim(arg0, 0) ule 64)",
                                   "dim(arg0, 0) ugt 0"]
    tiles = []
    for launch in (small, large):
        # N = 192 in tiles of the config's tile N: a static column count;
        # the rows of workgroups follow M.
        tile_m = int(launch["grid_expressions"][1].split("ceildiv")[1])
        assert launch["grid"][1] == -1
        assert launch["grid_expressions"][1] == f"dim(arg0, 0) ceildiv {tile_m}"
        assert launch["grid"][0] > 0 and launch["grid_expressions"][0] == str(
            launch["grid"][0])
        assert "dim(arg0, 0)" in launch["arguments"]
        tiles.append(tile_m)
    # The model needs an M, and then reports the grid at that M (MODELED).
    with pytest.raises(RuntimeError, match="the M to model at"):
        gemm.model(chip)
    for m, launch, tile_m in ((1, small, tiles[0]), (64, small, tiles[0]),
                              (65, large, tiles[1]),
                              (tiles[1] + 65, large, tiles[1])):
        (kernel,) = gemm.model(chip, m=m)
        assert kernel["modeled"]
        rows = -(-m // tile_m)
        assert kernel["workgroups"] == launch["grid"][0] * rows * launch[
            "grid"][2]


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_masked_grouped_dynamic_m(chip):
    # One masked grouped program for every row capacity Mmax; each group's
    # rows past its count keep init.
    groups, n, k = 3, 128, 256
    element = qmm.native_fp8(chip)
    gemm = qmm.GroupedGemm(None, n, k, groups, masked=True, a_type=element,
                           b_type=element, out_type="f32")
    assert "tensor<3x?x256x" in gemm.ir()
    program = qmm.Program(gemm.ir(), gemm.function, "emu", chip)
    weights = [operands(1, n, k, element)[0][2:] for _ in range(groups)]
    db = [qmm.dequantize(qb, sb, element, "128x128", n, k)
          for qb, sb in weights]
    qb = np.stack([w[0] for w in weights])
    sb = np.stack([w[1] for w in weights])
    for m in (1, 40):
        parts = [operands(m, n, k, element) for _ in range(groups)]
        qa = np.stack([p[0][0] for p in parts])
        sa = np.stack([p[0][1] for p in parts])
        counts = np.array([m, 0, (m + 1) // 2], np.int32)
        init = np.full((groups, m, n), 3.0, np.float32)
        (d,) = program(qa, sa, qb, sb, counts, init)
        assert d.shape == (groups, m, n)
        for g in range(groups):
            rows = counts[g]
            da = parts[g][1][:rows]
            reference = da @ db[g].T
            bound = (k + 2) * 2.0 ** -24 * (np.abs(da) @ np.abs(db[g]).T)
            assert (np.abs(d[g, :rows] - reference) <= bound).all()
            assert (d[g, rows:] == 3.0).all()


def test_cpu_device_specializes_each_call():
    # The cpu device (the reference lowering) runs a dynamic-M program by
    # specializing it to each call's shapes; a mismatched call is refused
    # by the verifier of the specialized program.
    n, k = 128, 256
    element = "f8E4M3FN"
    gemm = qmm.Gemm(None, n, k, a_type=element, b_type=element,
                    a_scale="1x128", b_scale="128x128", out_type="f32")
    program = qmm.Program(gemm.ir(), gemm.function, "cpu", "gfx950")
    for m in (1, 33):
        (qa, sa, qb, sb), da, db = operands(m, n, k, element)
        (d,) = program(qa, sa, qb, sb, np.zeros((m, n), np.float32))
        assert d.shape == (m, n)
        reference = da @ db.T
        bound = (k + 2) * 2.0 ** -24 * (np.abs(da) @ np.abs(db).T)
        assert (np.abs(d - reference) <= bound).all()
    with pytest.raises(RuntimeError, match="the call's shapes do not fit"):
        program(qa, sa, qb, sb, np.zeros((m - 1, n), np.float32))
