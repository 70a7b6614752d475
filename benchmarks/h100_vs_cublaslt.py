#!/usr/bin/env python3
"""On an H100: the project's kernels (saved launch plans, run by
qmm-cuda-run) beside cuBLASLt (torch._scaled_mm) on the same shapes and
scale kinds, random FP8 data, bf16 output. Prints one table, measured.

    benchmarks/nvidia_plans.sh bench .device-plans/bench     # here (MLIR)
    python3 benchmarks/h100_vs_cublaslt.py .device-plans/bench   # on the GPU

Both sides multiply the same bytes: the script draws A and B with torch
and writes them into a copy of each plan (`file` fills in place of the
random ones of a plan saved with --no-data). QMM_BENCH_DATA picks them:
`uniform` (the default: codes uniform over the finite E4M3 codes, what
qmm-cuda-run draws itself) or `randn` (randn * 0.5 cast to E4M3). The
tensor cores' power, and so the clock an H100 holds under its power
limit, depends on the data (on 8192^3, cuBLASLt measured 1257-1340
TFLOP/s on uniform codes, 1314-1363 on randn * 0.5; README), so the two
sides must see the same data. Both time with CUDA events after warm-up;
the two alternate over QMM_BENCH_ROUNDS rounds per shape (3 by default;
the card's clock drifts as it warms) and the table gives the median of
the rounds' medians and the rounds' range.

cuBLASLt runs in two modes for per-tensor and per-row scales (blockwise
has one): its default (use_fast_accum=False), which adds the tensor
cores' partial sums into f32 every 128 K (inferred from Nsight Compute's
count of its f32 instructions: 64 per output at K = 8192), and "fast
accumulation" (use_fast_accum=True), which never does. The project's
kernel promotes every 512 K by default (promotion-k-tiles=4,
include/qmm/Conversion/NVVM/WgmmaPromotion.h), between the two in
precision, so the table gives the ratio to each. QMM_BENCH_FAST=0 leaves
the fast mode out.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ITERS = int(os.environ.get("QMM_BENCH_ITERS", "5"))
ROUNDS = int(os.environ.get("QMM_BENCH_ROUNDS", "3"))
DATA = os.environ.get("QMM_BENCH_DATA", "uniform")
FAST = os.environ.get("QMM_BENCH_FAST", "1") != "0"


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


def draw_e4m3(torch, rows, columns):
    if DATA == "uniform":
        return uniform_e4m3(torch, rows, columns)
    return (torch.randn(rows, columns, device="cuda") * 0.5).to(
        torch.float8_e4m3fn)


def plan_with_inputs(torch, plan, a, b, work):
    """A copy of `plan` in `work` whose FP8 buffers (A [M, K], then B
    [N, K], in the plan's order) are read from files holding a and b."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(plan, work)
    operands = [("a.bin", a), ("b.bin", b)]
    lines = []
    with open(os.path.join(work, "plan.txt")) as f:
        for line in f:
            words = line.split()
            if words[:1] == ["buffer"] and words[3] in ("fp8e4m3", "fp8e5m2"):
                if words[3] != "fp8e4m3" or not operands:
                    raise ValueError(f"{plan}: expected two E4M3 buffers "
                                     "(A and B)")
                name, tensor = operands.pop(0)
                if int(words[2]) != tensor.numel():
                    raise ValueError(f"{plan}: buffer {words[1]} holds "
                                     f"{words[2]} bytes, not {tensor.numel()}")
                tensor.view(torch.uint8).cpu().numpy().tofile(
                    os.path.join(work, name))
                line = f"buffer {words[1]} {words[2]} file {name}\n"
            lines.append(line)
    if operands:
        raise ValueError(f"{plan}: expected two E4M3 buffers (A and B)")
    with open(os.path.join(work, "plan.txt"), "w") as f:
        f.writelines(lines)
    return work


def cublaslt_call(torch, a, b, scales, fast=False):
    """torch._scaled_mm(a, b.t()) with per-tensor, row-wise or DeepSeek
    blockwise scales (what cuBLASLt offers through torch); `fast`: its
    fast accumulation (no promotion into f32)."""
    dev = "cuda"
    m, k = a.shape
    n = b.shape[0]
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
                                out_dtype=torch.bfloat16,
                                use_fast_accum=fast)

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


DATA_NAMES = {"uniform": "codes uniform over the finite E4M3 codes",
              "randn": "randn * 0.5 cast to E4M3"}


def main():
    if DATA not in DATA_NAMES:
        sys.exit(f"QMM_BENCH_DATA: expected uniform or randn, got {DATA}")
    work = tempfile.mkdtemp(prefix="qmm-bench-")
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
          "rounds, [range]), CUDA events, the same A and B bytes on both "
          f"sides ({DATA_NAMES[DATA]}), bf16 out; MEASURED")
    rows = []
    with open(os.path.join(plans, "cases.txt")) as f:
        for line in f:
            name, shape, *flags = line.split()
            m, n, k = (int(x) for x in shape.split("x"))
            scales = {"tensor": "tensor", "row": "row"}.get(
                flags[flags.index("--a-scale") + 1], "block")
            flops = 2.0 * m * n * k
            error, call = None, None
            a, b = draw_e4m3(torch, m, k), draw_e4m3(torch, n, k)
            plan = plan_with_inputs(torch, os.path.join(plans, name), a, b,
                                    os.path.join(work, name))
            try:
                call = cublaslt_call(torch, a, b, scales)
            except Exception as e:
                error = f"cuBLASLt: {e}"[:80]
            fast = None
            if FAST and scales != "block" and call is not None:
                fast = cublaslt_call(torch, a, b, scales, fast=True)
            ours, theirs, fastest = [], [], []
            for _ in range(ROUNDS):
                ms, plan_error = run_plan(runner, plan)
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
                if fast is None:
                    continue
                try:
                    fastest.append(flops / (cublaslt_ms(torch, fast) * 1e-3)
                                   / 1e12)
                except Exception as e:
                    fast, error = None, f"cuBLASLt fast: {e}"[:80]
            rows.append((shape, scales, ours, theirs, fastest, error))
            del call, fast, a, b
            shutil.rmtree(plan)
            torch.cuda.empty_cache()
    shutil.rmtree(work, ignore_errors=True)
    print(f"{'M x N x K':>18} {'scales':>7} {'qmm TFLOP/s':>20} "
          f"{'cuBLASLt':>20} {'ratio':>7}"
          + (f" {'cuBLASLt fast acc.':>20} {'ratio':>7}" if FAST else ""))

    def fmt(values):
        if not values:
            return "-"
        return (f"{statistics.median(values):.4g} "
                f"[{min(values):.4g}-{max(values):.4g}]")

    def ratio(ours, theirs):
        if not ours or not theirs:
            return "-"
        return f"{statistics.median(ours) / statistics.median(theirs):.4f}"

    for shape, scales, ours, theirs, fastest, error in rows:
        line = (f"{shape:>18} {scales:>7} {fmt(ours):>20} {fmt(theirs):>20} "
                f"{ratio(ours, theirs):>7}")
        if FAST:
            line += f" {fmt(fastest):>20} {ratio(ours, fastest):>7}"
        print(line + (f"  ({error.strip()})" if error else ""))


if __name__ == "__main__":
    main()
