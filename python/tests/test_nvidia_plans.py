"""qmm.NvidiaProgram: a GEMM compiled once for sm_90a, saved as launch
plans for qmm-cuda-run (no NVIDIA GPU here). With a dynamic M, each plan
takes its arguments' M: the same PTX, the grid and data of each M."""
import os

import numpy as np
import pytest

import qmm

N, K = 384, 512


def operands(m):
    rng = np.random.default_rng(m)
    a = rng.standard_normal((m, K)).astype(np.float32)
    b = rng.standard_normal((N, K)).astype(np.float32)
    qa, sa = qmm.quantize(a, "f8E4M3FN", "1x128")
    qb, sb = qmm.quantize(b, "f8E4M3FN", "128x128")
    init = np.zeros((m, N), dtype=np.float32)
    return qa, sa, qb, sb, init


def plan_lines(directory, word):
    with open(os.path.join(directory, "plan.txt")) as f:
        return [line.split() for line in f if line.startswith(word + " ")]


def test_one_compilation_a_plan_per_m(tmp_path):
    gemm = qmm.Gemm(None, N, K, a_type="f8E4M3FN", b_type="f8E4M3FN",
                    a_scale="1x128", b_scale="128x128", out_type="f32")
    program = qmm.NvidiaProgram(gemm.ir(), gemm.function)
    # 128 x 128 tiles of 3 columns: 1, 2 and 8 tile rows.
    for m, blocks in ((1, 3), (200, 6), (1000, 24)):
        qa, sa, qb, sb, init = operands(m)
        saved = program.save(str(tmp_path / f"m{m}"), qa, sa, qb, sb, init)
        (launch,) = saved["launches"]
        assert launch["grid"] == (blocks, 1, 1)
        assert launch["block"] == (384, 1, 1)
        assert saved["tensor_maps"] == 3
        # The plan's A is the caller's bytes; its tensor map spans M rows.
        buffer0 = plan_lines(tmp_path / f"m{m}", "buffer")[0]
        assert buffer0[3] == "file"
        with open(tmp_path / f"m{m}" / buffer0[4], "rb") as f:
            assert f.read() == qa.tobytes()
        maps = plan_lines(tmp_path / f"m{m}", "tensormap")
        # "tensormap I BUFFER OFFSET u8 RANK K M ...": A of K x M (innermost
        # first).
        assert maps[0][6:8] == [str(K), str(m)]
        # D, the result, starts poisoned (an output the runner saves).
        assert saved["results"] == [4]
        assert plan_lines(tmp_path / f"m{m}", "buffer")[4][3] == "poison"
    ptx = [(tmp_path / f"m{m}" / "kernel0.ptx").read_bytes()
           for m in (1, 200, 1000)]
    assert ptx[0] == ptx[1] == ptx[2]


def test_without_data_the_runner_draws_the_inputs(tmp_path):
    gemm = qmm.Gemm(64, N, K, a_type="f8E4M3FN", b_type="f8E4M3FN",
                    a_scale="tensor", b_scale="tensor", out_type="bf16")
    program = qmm.NvidiaProgram(gemm.ir(), gemm.function)
    rng = np.random.default_rng(1)
    qa, sa = qmm.quantize(rng.standard_normal((64, K)).astype(np.float32),
                          "f8E4M3FN", "tensor")
    qb, sb = qmm.quantize(rng.standard_normal((N, K)).astype(np.float32),
                          "f8E4M3FN", "tensor")
    init = np.zeros((64, N), dtype=np.float32)
    program.save(str(tmp_path), qa, sa, qb, sb, init, with_data=False)
    fills = [line[3] for line in plan_lines(tmp_path, "buffer")]
    assert fills == ["fp8e4m3", "scale", "fp8e4m3", "scale", "poison"]
    # A C that is read: uploaded.
    program.save(str(tmp_path / "c"), qa, sa, qb, sb, init,
                 results_read=True)
    assert plan_lines(tmp_path / "c", "buffer")[4][3] == "file"


def test_bad_input():
    gemm = qmm.Gemm(64, N, K, a_type="f8E4M3FN", b_type="f8E4M3FN")
    with pytest.raises(ValueError, match="unknown NVIDIA chip 'sm_80'"):
        qmm.NvidiaProgram(gemm.ir(), gemm.function, chip="sm_80")
    with pytest.raises(ValueError, match="has no function @nope"):
        qmm.NvidiaProgram(gemm.ir(), "nope")
    program = qmm.NvidiaProgram(gemm.ir(), gemm.function)
    with pytest.raises(ValueError, match="takes 5 arguments, got 1"):
        program.save("/tmp/unused", np.zeros(1, dtype=np.float32))
    # What sm_90a cannot run is refused when compiling, with the reason.
    fnuz = qmm.Gemm(64, N, K, a_type="f8E4M3FNUZ", b_type="f8E4M3FNUZ")
    with pytest.raises(RuntimeError, match="reads OCP FP8"):
        qmm.NvidiaProgram(fnuz.ir(), fnuz.function)
