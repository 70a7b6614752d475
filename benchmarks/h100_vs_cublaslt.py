#!/usr/bin/env python3
"""On an H100: the project's kernels (saved launch plans, run by
qmm-cuda-run) beside cuBLASLt (torch._scaled_mm) on the same shapes and
scale kinds, random FP8 data, bf16 output. Prints one table, measured.

    benchmarks/nvidia_plans.sh bench .device-plans/bench     # here (MLIR)
    python3 benchmarks/h100_vs_cublaslt.py .device-plans/bench   # on the GPU

Both sides run on the same data distribution: FP8 codes drawn uniformly
from the finite E4M3 codes (qmm-cuda-run's fill for plans saved with
--no-data; tools/qmm-cuda-run/Fill.cpp). The tensor cores' power, and so
the clock an H100 holds, depends on the data: on 8192^3, cuBLASLt measured
1257-1340 TFLOP/s on these codes, 1314-1363 on randn * 0.5 and 1216-1284
on randn * 64 (README), so both sides get the same codes' distribution.
Both time with CUDA events after warm-up; the two alternate over
QMM_BENCH_ROUNDS rounds per shape (3 by default; the card's clock drifts
as it warms) and the table gives the median of the rounds' medians and
the rounds' range.
"""
import os
import re
import statistics
import subprocess
import sys

ITERS = int(os.environ.get("QMM_BENCH_ITERS", "5"))
ROUNDS = int(os.environ.get("QMM_BENCH_ROUNDS", "3"))


def build_runner(root):
    build = "/tmp/qmm-cuda-run-build"
    subprocess.run(["cmake", "-S", os.path.join(root, "tools", "qmm-cuda-run"),
                    "-B", build, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "qmm-cuda-run")


def run_plan(runner, plan):
    out = subprocess.run([runner, "--iters", str(ITERS), plan],
                         capture_output=True, text=True)
    match = re.search(r"time: median ([0-9.]+) ms", out.stdout)
    if not match:
        lines = (out.stdout + out.stderr).strip().splitlines()
        return None, lines[-1] if lines else f"exit {out.returncode}"
    return float(match.group(1)), None


def uniform_e4m3(torch, rows, columns):
    """Codes uniform over the finite E4M3 codes, as qmm-cuda-run fills:
    rejection of the two NaN codes (S.1111.111)."""
    codes = torch.randint(0, 256, (rows, columns), dtype=torch.uint8,
                          device="cuda")
    nan = (codes & 0x7F) == 0x7F
    while nan.any():
        codes[nan] = torch.randint(0, 256, (int(nan.sum()),),
                                   dtype=torch.uint8, device="cuda")
        nan = (codes & 0x7F) == 0x7F
    return codes.view(torch.float8_e4m3fn)


def cublaslt_call(torch, m, n, k, scales):
    """torch._scaled_mm(a, b.t()) with per-tensor, row-wise or DeepSeek
    blockwise scales (what cuBLASLt offers through torch)."""
    dev = "cuda"
    a = uniform_e4m3(torch, m, k)
    b = uniform_e4m3(torch, n, k)
    if scales == "tensor":
        sa = torch.tensor(1.0, device=dev)
        sb = torch.tensor(1.0, device=dev)
    elif scales == "row":
        sa = torch.rand(m, 1, device=dev) + 0.5
        sb = torch.rand(1, n, device=dev) + 0.5
    else:  # 1x128 x 128x128: sa [M, K/128] M-major, sb [K/128, N/128]
        sa = (torch.rand(k // 128, m, device=dev) + 0.5).t()
        sb = (torch.rand(n // 128, k // 128, device=dev) + 0.5).t()

    def call():
        return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                                out_dtype=torch.bfloat16)

    return call


def cublaslt_ms(torch, call):
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(max(ITERS, 10)):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    plans = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        root, ".device-plans", "bench")
    import torch
    runner = build_runner(root)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                          "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip()
    print(f"GPU: {smi}; torch {torch.__version__}, CUDA {torch.version.cuda}")
    print(f"median of {ITERS} (qmm) / {max(ITERS, 10)} (cuBLASLt) timed runs "
          f"after warm-up, alternating over {ROUNDS} rounds (median of the "
          "rounds, [range]), CUDA events, FP8 codes uniform over the finite "
          "E4M3 codes on both sides, bf16 out; MEASURED")
    rows = []
    with open(os.path.join(plans, "cases.txt")) as f:
        for line in f:
            name, shape, *flags = line.split()
            m, n, k = (int(x) for x in shape.split("x"))
            scales = {"tensor": "tensor", "row": "row"}.get(
                flags[flags.index("--a-scale") + 1], "block")
            flops = 2.0 * m * n * k
            error, call = None, None
            try:
                call = cublaslt_call(torch, m, n, k, scales)
            except Exception as e:
                error = f"cuBLASLt: {e}"[:80]
            ours, theirs = [], []
            for _ in range(ROUNDS):
                ms, plan_error = run_plan(runner, os.path.join(plans, name))
                if ms:
                    ours.append(flops / (ms * 1e-3) / 1e12)
                else:
                    error = plan_error
                if call is None:
                    continue
                try:
                    theirs.append(flops / (cublaslt_ms(torch, call) * 1e-3)
                                  / 1e12)
                except Exception as e:  # torch refuses some shapes (M = 1)
                    call, error = None, f"cuBLASLt: {e}"[:80]
            rows.append((shape, scales, ours, theirs, error))
            del call
            torch.cuda.empty_cache()
    print(f"{'M x N x K':>18} {'scales':>7} {'qmm TFLOP/s':>20} "
          f"{'cuBLASLt':>20} {'ratio':>7}")
    for shape, scales, ours, theirs, error in rows:
        def fmt(values):
            if not values:
                return "-"
            return (f"{statistics.median(values):.4g} "
                    f"[{min(values):.4g}-{max(values):.4g}]")
        ratio = (f"{statistics.median(ours) / statistics.median(theirs):.4f}"
                 if ours and theirs else "-")
        print(f"{shape:>18} {scales:>7} {fmt(ours):>20} {fmt(theirs):>20} "
              f"{ratio:>7}" + (f"  ({error.strip()})" if error else ""))


if __name__ == "__main__":
    main()
