#!/usr/bin/env python3
"""On an H100: the project's kernels (saved launch plans, run by
qmm-cuda-run) beside cuBLASLt (torch._scaled_mm) on the same shapes and
scale kinds, random FP8 data, bf16 output. Prints one table, measured.

    benchmarks/nvidia_plans.sh bench .device-plans/bench     # here (MLIR)
    python3 benchmarks/h100_vs_cublaslt.py .device-plans/bench   # on the GPU

Both sides time with CUDA events after warm-up and report the median.
"""
import os
import re
import statistics
import subprocess
import sys

ITERS = int(os.environ.get("QMM_BENCH_ITERS", "5"))


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


def cublaslt_ms(torch, m, n, k, scales):
    """torch._scaled_mm(a, b.t()) with per-tensor, row-wise or DeepSeek
    blockwise scales (what cuBLASLt offers through torch)."""
    dev = "cuda"
    a = (torch.randn(m, k, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device=dev) * 0.5).to(torch.float8_e4m3fn)
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
          "after warm-up, CUDA events, random data, bf16 out; MEASURED")
    rows = []
    with open(os.path.join(plans, "cases.txt")) as f:
        for line in f:
            name, shape, *flags = line.split()
            m, n, k = (int(x) for x in shape.split("x"))
            scales = {"tensor": "tensor", "row": "row"}.get(
                flags[flags.index("--a-scale") + 1], "block")
            flops = 2.0 * m * n * k
            ms, error = run_plan(runner, os.path.join(plans, name))
            ours = flops / (ms * 1e-3) / 1e12 if ms else None
            try:
                theirs_ms = cublaslt_ms(torch, m, n, k, scales)
                theirs = flops / (theirs_ms * 1e-3) / 1e12
            except Exception as e:  # torch refuses some shapes (M = 1)
                theirs, error = None, (error or "") + f" cuBLASLt: {e}"[:80]
            rows.append((shape, scales, ours, theirs, error))
    print(f"{'M x N x K':>18} {'scales':>7} {'qmm TFLOP/s':>12} "
          f"{'cuBLASLt':>9} {'ratio':>7}")
    for shape, scales, ours, theirs, error in rows:
        fmt = lambda v: f"{v:.4g}" if v else "-"
        ratio = f"{ours / theirs:.4f}" if ours and theirs else "-"
        print(f"{shape:>18} {scales:>7} {fmt(ours):>12} {fmt(theirs):>9} "
              f"{ratio:>7}" + (f"  ({error.strip()})" if error else ""))


if __name__ == "__main__":
    main()
