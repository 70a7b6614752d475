"""qmm.NvidiaProgram: a GEMM compiled once for sm_90a, saved as launch
plans for qmm-cuda-run (no NVIDIA GPU here). With a dynamic M, each plan
takes its arguments' M: the kernel version of its M (the tile shape the
static choice makes for that M), the grid and data of each M."""
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
    # N = 384 is 3 columns of 128-column tiles, far below half the
    # multiprocessors: 64 x 64 tiles (one consumer warpgroup) for M <= 64,
    # 128 x 64 (two) above. 6 tile columns; 1, 2 and 8 tile rows.
    for m, blocks, threads in ((1, 6, 256), (200, 12, 384), (1000, 48, 384)):
        qa, sa, qb, sb, init = operands(m)
        saved = program.save(str(tmp_path / f"m{m}"), qa, sa, qb, sb, init)
        (launch,) = saved["launches"]
        assert launch["grid"] == (blocks, 1, 1)
        assert launch["block"] == (threads, 1, 1)
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
    # One compilation: M = 200 and 1000 share a version, M = 1 has its own.
    assert ptx[1] == ptx[2]
    assert ptx[0] != ptx[1]


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
