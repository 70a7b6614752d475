#!/usr/bin/env python3
"""qmm's Hopper kernels beside the FP8 GEMM libraries a user would pick
instead, on one NVIDIA GPU, by GPU time, on the same bytes.

    benchmarks/nvidia_plans.sh peers                  # here (MLIR build)
    python3 benchmarks/nvidia_peers.py .device-plans/peers --peers .peers
                                                      # on the GPU machine

For each case of the plans directory (cases.txt: name, MxNxK, fp8-run
flags) the script draws A [M, K] and B [N, K] (E4M3) and their scales on
the GPU, writes them into a copy of the plan (file fills in place of the
runner's random ones) and gives the same tensors to every library:

  qmm            the saved launch plan, run by qmm-cuda-run
  cublaslt       torch._scaled_mm, cuBLASLt's default accumulation (the
                 tensor cores' partial sums added into f32 every 128 K)
  cublaslt-fast  the same with use_fast_accum=True (never promoted)
  deepgemm       deep_gemm.fp8_fp4_gemm_nt, its sm90 1D2D kernel (1x128 x
                 128x128 scales; per-tensor cases as constant block
                 scales; it has no per-row FP8 mode with a bf16 output)
  triton         the peers harness's triton_fp8.py kernels, the fastest
                 correct of a few configs per case

Every library's output (qmm's through qmm-cuda-run --save-outputs) is
compared with a float32 product of the dequantized inputs; a library
whose relative error exceeds --tolerance is reported as wrong, not timed.

Timing (GPU time, like for like): every library is timed the same two
ways in the same process order, N runs per sample (N from the shape, the
same for all libraries): a CUDA graph of N back-to-back calls replayed
between two events (qmm-cuda-run --timing graph), and N calls between two
events (back-to-back, which includes whatever CPU work a call does when
the GPU outruns it). Each round times every library (the order rotating,
as the GPU's clock drifts while it warms); a round's figure is the median
of --samples samples, the reported one the median of the rounds, with the
rounds' range.

Writes OUT/<date>-<gpu>.json and .md (default OUT: benchmarks/results).
"""
import argparse
import copy
import datetime
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LIBRARIES = ("qmm", "cublaslt", "cublaslt-fast", "deepgemm", "triton")
LABELS = {"qmm": "qmm", "cublaslt": "cuBLASLt", "cublaslt-fast":
          "cuBLASLt fast-acc", "deepgemm": "DeepGEMM", "triton": "Triton"}
METHODS = ("graph", "back-to-back")
SCALINGS = {"tensor": "per-tensor", "row": "per-row",
            "block": "1x128 x 128x128"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- Cases and plans --------------------------------------------------------

def read_cases(plans, only, exact=False):
    cases = []
    with open(os.path.join(plans, "cases.txt")) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if only and not any(o == words[0] if exact else o in words[0]
                                for o in only):
                continue
            name, shape, flags = words[0], words[1], words[2:]
            m, n, k = (int(x) for x in shape.split("x"))
            # The scales decide what the libraries are given; other flags
            # (--cluster-rows, --max-blocks...) only shape qmm's kernel.
            scales = [flags[flags.index(f) + 1] if f in flags else None
                      for f in ("--a-scale", "--b-scale")]
            scaling = {("tensor", "tensor"): "tensor", ("row", "row"): "row",
                       ("1x128", "128x128"): "block"}.get(tuple(scales))
            if scaling is None or any(
                    f in flags for f in ("--a-type", "--b-type", "--out-type",
                                         "--b-layout", "--bias", "--gelu",
                                         "--accumulate", "--out-scale")):
                raise SystemExit("%s: only bf16-output E4M3 GEMMs with "
                                 "tensor, row or 1x128/128x128 scales are "
                                 "compared" % name)
            # A's block scales as the plan stores them: MN-major
            # ([K/128, M], the layout DeepGEMM is given too) or K-major.
            a_scales_mn = "--a-scale-major" in flags and \
                flags[flags.index("--a-scale-major") + 1] == "mn"
            cases.append({"name": name, "m": m, "n": n, "k": k,
                          "scaling": scaling, "a_scales_mn": a_scales_mn,
                          "plan": os.path.join(plans, name)})
    return cases


def plan_with_inputs(plan, work, files, output_bytes):
    """A copy of `plan` in `work` whose FP8 buffers (A, then B) and scale
    buffers (A's, then B's) are read from `files` (name -> bytes object);
    returns the copy and the index of its output buffer (the first
    poisoned one of `output_bytes`; a Stream-K workspace is poisoned
    too)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(plan, work)
    queues = {"fp8e4m3": ["a.bin", "b.bin"], "scale": ["sa.bin", "sb.bin"]}
    lines, output = [], None
    with open(os.path.join(work, "plan.txt")) as f:
        for line in f:
            words = line.split()
            if words[:1] == ["buffer"]:
                index, size, fill = int(words[1]), int(words[2]), words[3]
                if fill in queues:
                    if not queues[fill]:
                        raise ValueError("%s: more %s buffers than A and B "
                                         "have" % (plan, fill))
                    name = queues[fill].pop(0)
                    if size != len(files[name]):
                        raise ValueError(
                            "%s: buffer %d holds %d bytes, %s has %d" %
                            (plan, index, size, name, len(files[name])))
                    with open(os.path.join(work, name), "wb") as out:
                        out.write(files[name])
                    line = "buffer %d %d file %s\n" % (index, size, name)
                elif fill == "poison" and size == output_bytes and \
                        output is None:
                    output = index
            lines.append(line)
    if any(queues.values()) or output is None:
        raise ValueError("%s: expected A, B, their scales and one output "
                         "buffer" % plan)
    with open(os.path.join(work, "plan.txt"), "w") as f:
        f.writelines(lines)
    return work, output


# --- Inputs and the reference ----------------------------------------------

class Problem:
    """A, B and their scales for one case, on the GPU, in qmm's layouts:
    scales f32, per-tensor one each, per-row [M] and [N], blockwise
    [M, K/128] and [N/128, K/128] (row-major)."""

    def __init__(self, torch, case, data):
        self.torch = torch
        m, n, k = case["m"], case["n"], case["k"]
        self.m, self.n, self.k, self.scaling = m, n, k, case["scaling"]
        self.a_scales_mn = case.get("a_scales_mn", False)
        seed = int(hashlib.sha256(case["name"].encode()).hexdigest()[:8], 16)
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        self.a = self.draw(m, k, data, g)
        self.b = self.draw(n, k, data, g)
        kb, nb = -(-k // 128), -(-n // 128)

        def scales(*shape):
            return torch.rand(*shape, device="cuda", generator=g) + 0.5
        if self.scaling == "tensor":
            self.sa, self.sb = scales(()), scales(())
        elif self.scaling == "row":
            self.sa, self.sb = scales(m), scales(n)
        else:
            self.sa, self.sb = scales(m, kb), scales(nb, kb)

    def clone(self):
        """Another copy of the inputs (the same bytes at other addresses)."""
        other = copy.copy(self)
        other.a, other.b = self.a.clone(), self.b.clone()
        other.sa, other.sb = self.sa.clone(), self.sb.clone()
        return other

    def input_bytes(self):
        return sum(t.numel() * t.element_size()
                   for t in (self.a, self.b, self.sa, self.sb))

    def draw(self, rows, columns, data, g):
        torch = self.torch
        if data == "randn":
            return (torch.randn(rows, columns, device="cuda", generator=g) *
                    0.5).to(torch.float8_e4m3fn)
        # Codes uniform over the finite E4M3 codes (qmm-cuda-run's own
        # random fill): the two NaN codes redrawn.
        codes = torch.randint(0, 256, (rows, columns), dtype=torch.uint8,
                              device="cuda", generator=g)
        nan = (codes & 0x7F) == 0x7F
        while bool(nan.any()):
            codes[nan] = torch.randint(0, 256, (int(nan.sum()),),
                                       dtype=torch.uint8, device="cuda",
                                       generator=g)
            nan = (codes & 0x7F) == 0x7F
        return codes.view(torch.float8_e4m3fn)

    def files(self):
        def raw(t):
            return t.contiguous().view(self.torch.uint8).cpu().numpy() \
                .tobytes() if t.dtype == self.torch.float8_e4m3fn else \
                t.contiguous().cpu().numpy().astype("<f4").tobytes()
        return {"a.bin": raw(self.a), "b.bin": raw(self.b),
                "sa.bin": raw((self.sa.t() if self.a_scales_mn and
                               self.scaling == "block" else self.sa)
                              .reshape(-1)),
                "sb.bin": raw(self.sb.reshape(-1))}

    def reference(self):
        """f32 [M, N]: the dequantized product."""
        torch = self.torch
        a, b = self.a.float(), self.b.float()
        if self.scaling == "block":
            sa = self.sa.repeat_interleave(128, dim=1)[:, :self.k]
            sb = self.sb.repeat_interleave(128, dim=0)[:self.n]
            sb = sb.repeat_interleave(128, dim=1)[:, :self.k]
            return (a * sa) @ (b * sb).t()
        product = a @ b.t()
        if self.scaling == "tensor":
            return product * (self.sa * self.sb)
        return product * self.sa[:, None] * self.sb[None, :]


def relative_error(torch, out, ref):
    den = ref.norm().item()
    return (out.float() - ref).norm().item() / (den if den > 0 else 1.0)


# --- The libraries -----------------------------------------------------------

def cublaslt_call(torch, p, fast):
    if fast and p.scaling == "block":
        return None, ("cuBLASLt has no fast accumulation with 128x128 "
                      "blockwise scales")
    a, bt = p.a, p.b.t()
    if p.scaling == "tensor":
        sa, sb = p.sa, p.sb
    elif p.scaling == "row":
        sa, sb = p.sa[:, None].contiguous(), p.sb[None, :].contiguous()
    else:
        # cuBLASLt's blockwise mode: A's scales M-major, B's [K/128, N/128].
        sa, sb = p.sa.t().contiguous().t(), p.sb.t()

    def call():
        return torch._scaled_mm(a, bt, scale_a=sa, scale_b=sb,
                                out_dtype=torch.bfloat16,
                                use_fast_accum=fast)
    return call, "torch._scaled_mm(use_fast_accum=%s)" % fast


def deepgemm_call(torch, dg, p):
    if p.scaling == "row":
        return None, "no per-row FP8 mode with a bf16 output"
    kb, nb = -(-p.k // 128), -(-p.n // 128)
    if p.scaling == "block":
        sa, sb = p.sa, p.sb
        how = "fp8_fp4_gemm_nt, sm90 1D2D kernel"
    else:
        sa = p.sa.expand(p.m, kb).contiguous()
        sb = p.sb.expand(nb, kb).contiguous()
        how = "fp8_fp4_gemm_nt, sm90 1D2D kernel, constant block scales"
    # A's scales once into the TMA-aligned MN-major layout the kernel reads,
    # so that the timed call transforms nothing (DeepGEMM's own benchmark
    # times its GEMM kernel alone); B's 128x128 FP32 scales are read as
    # they are.
    # (Built here: DeepGEMM's Python layout helpers crash this build, the
    # GEMM entry points do not.) MN-major: stride 1 along M, each K
    # block's column padded to 16 bytes, the TMA's alignment.
    aligned_m = -(-p.m // 4) * 4
    columns = torch.zeros(kb, aligned_m, device="cuda", dtype=torch.float32)
    columns[:, :p.m] = sa.t()
    sfa = columns[:, :p.m].t()
    sfb = sb.contiguous()
    d = torch.empty(p.m, p.n, device="cuda", dtype=torch.bfloat16)

    def call():
        dg.fp8_fp4_gemm_nt((p.a, sfa), (p.b, sfb), d,
                           disable_ue8m0_cast=True)
        return d
    return call, how


def triton_call(torch, tf, configs, p, ref, args, log):
    """The fastest correct of the candidate configs (one graph sample
    each)."""
    mode = p.scaling
    sa, sb = (p.sa, p.sb)
    best = None
    candidates = configs.candidates(p.m, p.n, p.k, mode,
                                    max_configs=args.triton_configs,
                                    has_tma=tf.HAS_TMA)
    for impl, cfg in candidates:
        try:
            def make(q, impl=impl, cfg=cfg):
                return tf.make_launcher(q.a, q.b, q.sa, q.sb, mode, cfg, impl,
                                        False)
            call = make(p)
            out = call()
            torch.cuda.synchronize()
            err = relative_error(torch, out, ref)
            if not err <= args.tolerance:
                log("  triton %s %s: relative error %.2e" % (impl, cfg, err))
                continue
            ms = graph_samples(torch, call, runs_per_sample(p), 1)[0]
        except Exception as error:  # a config Triton cannot compile here
            log("  triton %s %s: %s" % (impl, cfg, str(error)[:200]))
            continue
        if best is None or ms < best[0]:
            best = (ms, call, "triton_fp8 %s BM=%d BN=%d BK=%d stages=%d "
                    "warps=%d" % (impl, cfg["BM"], cfg["BN"], cfg["BK"],
                                  cfg["num_stages"], cfg["num_warps"]), make)
    if best is None:
        return None, "no candidate config compiled and passed", None
    return best[1], best[2], best[3]


# --- Timing ------------------------------------------------------------------

def runs_per_sample(p):
    """About 3 ms of work per sample at 1 PFLOP/s plus 5 us a run; 10 to 200
    runs."""
    estimate_ms = 2.0 * p.m * p.n * p.k / 1e15 * 1e3 + 0.005
    return int(min(200, max(10, math.ceil(3.0 / estimate_ms))))


def event_samples(torch, issue, runs, samples):
    """`samples` times the milliseconds per run of `issue()` (which issues
    `runs` runs) between two events on the current stream."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        start.record()
        issue()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / runs)
    return times


def graph_samples(torch, call, runs, samples):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        for _ in range(runs):
            call()
    graph.replay()
    torch.cuda.synchronize()
    times = event_samples(torch, graph.replay, runs, samples)
    del graph
    return times


def back_to_back_samples(torch, call, runs, samples):
    for _ in range(3):
        call()
    torch.cuda.synchronize()

    def issue():
        for _ in range(runs):
            call()
    return event_samples(torch, issue, runs, samples)


def qmm_samples(runner, plan, runs, samples, save_outputs=None, copies=1):
    command = [runner, "--no-validate", "--iters", str(runs), "--rounds",
               str(samples), "--timing", "graph,back-to-back"]
    if copies > 1:
        command += ["--rotate", str(copies)]
    json_path = os.path.join(plan, "result.json")
    command += ["--json", json_path]
    if save_outputs:
        command += ["--save-outputs", save_outputs]
    done = subprocess.run(command + [plan], capture_output=True, text=True)
    if done.returncode != 0:
        # --no-validate: nothing is checked (NOT VALIDATED, exit 0); 2 is
        # an error, 3 no device.
        raise RuntimeError("qmm-cuda-run exit %d: %s" % (
            done.returncode, (done.stdout + done.stderr).strip()[-400:]))
    with open(json_path) as f:
        report = json.load(f)
    methods = {m["method"]: m["samples_ms"]
               for m in report["timing"]["methods"]}
    return methods, report


# --- One case -------------------------------------------------------------------

def rotation_copies(p, args):
    """Copies of the inputs the timed runs cycle through, so that they read
    at least --rotate-bytes (more than the L2 cache holds: a model's layers
    read their weights from HBM); 1 where one copy already does."""
    if args.rotate_bytes <= 0:
        return 1
    return int(min(64, max(1, math.ceil(args.rotate_bytes /
                                        p.input_bytes()))))


def rotated(make, problems):
    """One call per copy of the inputs, taken in turn: run i reads copy
    i mod len(problems), in graphs and back to back alike."""
    calls = [make(q) for q in problems]
    state = {"next": 0}

    def call():
        index = state["next"]
        state["next"] = (index + 1) % len(calls)
        return calls[index]()
    return call


def run_case(torch, case, libs, args, modules, log):
    p = Problem(torch, case, args.data)
    ref = p.reference()
    runs = runs_per_sample(p)
    copies = rotation_copies(p, args)
    problems = [p] + [p.clone() for _ in range(copies - 1)]
    record = {"case": case["name"], "m": p.m, "n": p.n, "k": p.k,
              "scaling": p.scaling, "runs_per_sample": runs,
              "copies": copies, "libraries": {}}
    calls = {}
    for lib in libs:
        entry = {"how": "", "relative_error": None, "rounds": {}}
        record["libraries"][lib] = entry
        try:
            if lib == "qmm":
                work = os.path.join(args.work, case["name"])
                plan, output = plan_with_inputs(case["plan"], work,
                                                p.files(), 2 * p.m * p.n)
                outputs = os.path.join(work, "outputs")
                os.makedirs(outputs, exist_ok=True)
                _, report = qmm_samples(args.runner, plan, runs, 1, outputs)
                with open(os.path.join(outputs, "buffer%d.bin" % output),
                          "rb") as f:
                    raw = f.read()
                out = torch.frombuffer(bytearray(raw), dtype=torch.bfloat16)
                out = out.reshape(p.m, p.n).cuda()
                entry["how"] = "qmm-cuda-run, the saved launch plan (%d " \
                    "launches)" % report["plan"]["launches"]
                if p.a_scales_mn and p.scaling == "block":
                    entry["how"] += ", A's block scales MN-major"
                calls[lib] = plan
            else:
                make = None
                if lib in ("cublaslt", "cublaslt-fast"):
                    fast = lib == "cublaslt-fast"
                    call, how = cublaslt_call(torch, p, fast)
                    make = lambda q, fast=fast: cublaslt_call(torch, q, fast)[0]
                elif args.warm_jobs > 0 and not os.path.exists(
                        warm_marker(args, case, lib)):
                    call, how = None, ("did not complete the warm-up (the "
                                       "process crashed or it raised; see "
                                       "the log)")
                elif lib == "deepgemm":
                    dg = modules["deepgemm"]
                    call, how = deepgemm_call(torch, dg, p)
                    make = lambda q: deepgemm_call(torch, dg, q)[0]
                else:
                    call, how, make = triton_call(
                        torch, modules["triton"], modules["triton_configs"],
                        p, ref, args, log)
                entry["how"] = how
                if call is None:
                    entry["skipped"] = how
                    continue
                out = call()
                torch.cuda.synchronize()
                calls[lib] = rotated(make, problems) if copies > 1 else call
            entry["relative_error"] = relative_error(torch, out, ref)
            del out
            if not entry["relative_error"] <= args.tolerance:
                entry["wrong"] = True
                calls.pop(lib, None)
        except Exception as error:
            entry["error"] = "%s: %s" % (type(error).__name__,
                                         str(error)[:400])
            calls.pop(lib, None)
            torch.cuda.synchronize()
    del ref
    time_in_rounds(torch, record, calls, libs, runs, args, copies)
    return record


def time_in_rounds(torch, record, calls, libs, runs, args, copies=1):
    """Times each library of `calls` (qmm: its plan's directory; the others:
    a call) --rounds times, the order rotating, --samples samples of `runs`
    runs each way (METHODS); each round's median joins the library's
    entry of `record`, an error its `error`."""
    order = [lib for lib in libs if lib in calls]
    for round_index in range(args.rounds):
        shift = round_index % max(1, len(order))
        for lib in order[shift:] + order[:shift]:
            entry = record["libraries"][lib]
            try:
                if lib == "qmm":
                    methods, _ = qmm_samples(args.runner, calls[lib], runs,
                                             args.samples, copies=copies)
                else:
                    methods = {
                        "graph": graph_samples(torch, calls[lib], runs,
                                               args.samples),
                        "back-to-back": back_to_back_samples(
                            torch, calls[lib], runs, args.samples)}
            except Exception as error:
                entry["error"] = "%s: %s" % (type(error).__name__,
                                             str(error)[:400])
                continue
            for method in METHODS:
                entry["rounds"].setdefault(method, []).append(
                    statistics.median(methods[method]))


# --- Warm-up: JIT compilation in parallel ------------------------------------

def warm_marker(args, case, lib):
    return os.path.join(args.warm_dir, "%s.%s.ok" % (case["name"], lib))


def warm(torch, cases, libs, args, modules, log):
    """Compiles what DeepGEMM and Triton JIT-compile at a case's first call
    (into their caches), without timing: run in parallel processes before
    the measurement, which then finds every kernel compiled. A library
    that completes a case leaves a marker; the measurement leaves out the
    cases without one (a library that crashed the process here would take
    the measurement down with it)."""
    for case in cases:
        p = Problem(torch, case, args.data)
        for lib in ("deepgemm", "triton"):
            if lib not in modules or lib not in libs:
                continue
            try:
                if lib == "deepgemm":
                    call, _ = deepgemm_call(torch, modules["deepgemm"], p)
                    if call:
                        call()
                else:
                    for impl, cfg in modules["triton_configs"].candidates(
                            p.m, p.n, p.k, p.scaling,
                            max_configs=args.triton_configs,
                            has_tma=modules["triton"].HAS_TMA):
                        try:
                            modules["triton"].make_launcher(
                                p.a, p.b, p.sa, p.sb, p.scaling, cfg, impl,
                                False)()
                        except Exception:
                            pass  # reported by the measurement
                torch.cuda.synchronize()
                open(warm_marker(args, case, lib), "w").close()
            except Exception as error:
                log("warm-up %s %s: %s" % (case["name"], lib,
                                           str(error)[:300]))
        del p
        torch.cuda.empty_cache()


def warm_in_parallel(cases, args, log):
    # Each library in processes of its own: one that crashes takes no
    # other library's warm-up with it.
    libs = [l for l in ("deepgemm", "triton") if l in args.libs.split(",")]
    jobs = min(args.warm_jobs, len(cases))
    if jobs <= 0 or not libs:
        return
    started = time.time()
    workers = []
    for lib, j in [(lib, j) for lib in libs for j in range(jobs)]:
        names = ",".join(c["name"] for c in cases[j::jobs])
        command = [sys.executable, os.path.abspath(__file__), args.plans,
                   "--warm-worker", "--only", names, "--libs", lib,
                   "--data", args.data, "--peers", args.peers,
                   "--triton-configs", str(args.triton_configs),
                   "--warm-dir", args.warm_dir, "--exact-names"]
        workers.append(subprocess.Popen(command))
    codes = [w.wait() for w in workers]
    log("warm-up: %d processes, %.0f s, exit codes %s" % (
        len(workers), time.time() - started, codes))


# --- Report -----------------------------------------------------------------------

def summarize(record, flops=None):
    """Each library's figures per method: the median of its rounds in ms
    and TFLOP/s (of `flops`, 2 M N K by default), with the rounds' range."""
    if flops is None:
        flops = 2.0 * record["m"] * record["n"] * record["k"]
    for entry in record["libraries"].values():
        entry["summary"] = {}
        for method, rounds in entry["rounds"].items():
            if not rounds:
                continue
            ms = statistics.median(rounds)
            entry["summary"][method] = {
                "ms": ms, "tflops": flops / (ms * 1e-3) / 1e12,
                "tflops_range": [flops / (max(rounds) * 1e-3) / 1e12,
                                 flops / (min(rounds) * 1e-3) / 1e12]}


def read_floors(binary, cases, log):
    """Microseconds of a plain streaming read of each M <= 64 case's bytes
    (A, B and D's), by benchmarks/nvidia_read_floor.cu; {} where it fails."""
    small = [c for c in cases if c["m"] <= 64]
    # (The read kernel reads whole 16-byte words.)
    rounded = {c["name"]: (bytes_moved(c) + 15) // 16 * 16 for c in small}
    sizes = sorted(set(rounded.values()))
    if not sizes:
        return {}
    run = subprocess.run([binary] + [str(b) for b in sizes],
                         capture_output=True, text=True)
    if run.returncode != 0:
        log("read floor failed: %s" % run.stderr.strip()[:300])
        return {}
    floors = {int(m.group(1)): float(m.group(2)) for m in re.finditer(
        r"^read (\d+) bytes .*?: ([0-9.]+) us per launch", run.stdout,
        re.M)}
    log("read floors: %s" % ", ".join(
        "%d B %.2f us" % (b, floors[b]) for b in sorted(floors)))
    return {name: floors[b] for name, b in rounded.items() if b in floors}


def bytes_moved(record):
    m, n, k = record["m"], record["n"], record["k"]
    return m * k + n * k + 2 * m * n


def markdown(report):
    env = report["environment"]
    lines = ["# qmm beside cuBLASLt, DeepGEMM and Triton on %s" %
             env["gpu"], "",
             "Measured %s by `benchmarks/nvidia_peers.py` (MEASURED, GPU "
             "time): %s, driver %s, CUDA %s, torch %s, Triton %s, DeepGEMM "
             "%s; qmm %s. Inputs: %s, the same bytes for every library; "
             "bf16 output. %d rounds of %d samples; the figure is the "
             "median of the rounds' medians (range in brackets); each "
             "sample is N runs (per case below) replayed from a CUDA graph "
             "or issued back to back. Ratios are of time (above 1: qmm is "
             "faster); the HBM bound (M <= 64) is A, B and D's bytes at "
             "%.1f TB/s; the read floor (M <= 64), the time of a plain "
             "streaming read of those bytes timed the same way "
             "(benchmarks/nvidia_read_floor.cu, the best of its kernels), "
             "what a kernel that reads its operands once can reach." % (
                 report["date"], env["gpu"], env["driver"], env["cuda"],
                 env["torch"], env["triton"], env["deepgemm"],
                 env["qmm"], report["data"], report["rounds"],
                 report["samples"], report["hbm_tbps"]) + (
                 " Every library's timed runs take the case's inputs from "
                 "copies in turn (as many as make %.0f MB, at most 64; "
                 "`copies` in the JSON), so that they read more than the L2 "
                 "cache holds, as a model's layers do." % (
                     report["rotate_bytes"] / 1e6)
                 if report.get("rotate_bytes", 0) > 0 else
                 " One copy of the inputs: those that fit in the L2 cache "
                 "stay there between runs."), ""]
    libs = report["libraries"]
    for method in METHODS:
        lines += ["## %s, TFLOP/s" % ("CUDA graph" if method == "graph"
                                      else "Back to back"), "",
                  "| case | scales | N | " + " | ".join(
                      LABELS[l] for l in libs) +
                  " | qmm / cuBLASLt | qmm / fastest peer | qmm, share of "
                  "the HBM bound | qmm, share of the read floor |",
                  "|---|---|---|" + "---|" * len(libs) + "---|---|---|---|"]
        for record in report["cases"]:
            cells, best_peer = [], None
            for lib in libs:
                entry = record["libraries"].get(lib, {})
                s = entry.get("summary", {}).get(method)
                if entry.get("wrong"):
                    cells.append("wrong (rel. err. %.1e)" %
                                 entry["relative_error"])
                elif entry.get("skipped"):
                    cells.append("n/a")
                elif entry.get("error") and not s:
                    cells.append("error")
                elif not s:
                    cells.append("-")
                else:
                    cells.append("%.0f [%.0f-%.0f]" % (
                        s["tflops"], s["tflops_range"][0],
                        s["tflops_range"][1]) if s["tflops"] >= 10 else
                        "%.2f (%.1f us)" % (s["tflops"], s["ms"] * 1e3))
                    if lib != "qmm" and (best_peer is None or
                                         s["ms"] < best_peer[1]):
                        best_peer = (lib, s["ms"])
            qmm = record["libraries"].get("qmm", {}).get(
                "summary", {}).get(method)
            ratio = ("%.2fx %s" % (best_peer[1] / qmm["ms"],
                                   LABELS[best_peer[0]])
                     if qmm and best_peer else "-")
            default = record["libraries"].get("cublaslt", {}).get(
                "summary", {}).get(method)
            vs_default = ("%.2fx" % (default["ms"] / qmm["ms"])
                          if qmm and default else "-")
            hbm = "-"
            if qmm and record["m"] <= 64:
                bound_ms = bytes_moved(record) / (
                    report["hbm_tbps"] * 1e12) * 1e3
                hbm = "%.0f%%" % (100 * bound_ms / qmm["ms"])
            floor = "-"
            floor_us = report.get("read_floor_us", {}).get(record["case"])
            if qmm and floor_us:
                floor = "%.0f%% (%.1f us)" % (
                    100 * floor_us * 1e-3 / qmm["ms"], floor_us)
            lines.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
                record["case"],
                SCALINGS[record["scaling"]], record["runs_per_sample"],
                " | ".join(cells), vs_default, ratio, hbm, floor))
        lines.append("")
    lines += ["## How each library was called", ""]
    for record in report["cases"]:
        for lib, entry in record["libraries"].items():
            note = entry.get("error") or ""
            err = entry.get("relative_error")
            lines.append("- %s %s: %s%s%s" % (
                record["case"], LABELS[lib], entry.get("how", ""),
                "; relative error %.2e" % err if err is not None else "",
                "; " + note if note else ""))
    return "\n".join(lines) + "\n"


# --- Environment ------------------------------------------------------------

def results_base(args, report, kind):
    """OUT/<date>-<gpu>-<kind> (the GPU from --tag or its name)."""
    gpu = args.tag or re.sub(r"[^a-z0-9]+", "-", report["environment"][
        "gpu"].lower().replace("nvidia", "")).strip("-")
    os.makedirs(args.out, exist_ok=True)
    return os.path.join(args.out, "%s-%s-%s" % (report["date"], gpu, kind))


def save_report(base, report, markdown):
    with open(base + ".json", "w") as f:
        json.dump(report, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write(markdown(report))


def build_runner():
    build = "/tmp/qmm-cuda-run-build"
    subprocess.run(["cmake", "-S", os.path.join(ROOT, "tools", "qmm-cuda-run"),
                    "-B", build, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "qmm-cuda-run")


def environment(torch, modules, plans):
    def smi(field):
        try:
            return subprocess.run(
                ["nvidia-smi", "--query-gpu=" + field,
                 "--format=csv,noheader"], capture_output=True,
                text=True).stdout.strip().splitlines()[0]
        except Exception:
            return "?"
    source = os.path.join(plans, "source.txt")
    qmm = open(source).read().strip() if os.path.exists(source) else "?"
    triton = modules.get("triton")
    return {"gpu": torch.cuda.get_device_name(0), "driver":
            smi("driver_version"), "cuda": torch.version.cuda,
            "torch": torch.__version__,
            "triton": getattr(sys.modules.get("triton"), "__version__", "-")
            if triton else "-",
            "deepgemm": getattr(modules.get("deepgemm"), "__version__", "-"),
            "qmm": qmm}


def import_peers(torch, args, libs, log):
    modules = {}
    if "deepgemm" in libs:
        try:
            sys.path.insert(0, os.path.join(args.peers, "DeepGEMM"))
            import deep_gemm
            modules["deepgemm"] = deep_gemm
        except Exception as error:
            log("DeepGEMM unavailable: %s" % error)
    if "triton" in libs:
        try:
            sys.path.insert(0, args.peers)
            import triton_fp8
            import fp8_configs
            modules["triton"] = triton_fp8
            modules["triton_configs"] = fp8_configs
        except Exception as error:
            log("Triton kernels unavailable: %s" % error)
    return modules


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--render", metavar="JSON",
                        help="write the Markdown of a results JSON next to "
                        "it and stop (no GPU)")
    parser.add_argument("plans", nargs="?", help="benchmarks/nvidia_plans.sh peers' "
                        "directory (cases.txt and one plan per case)")
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks",
                                                      "results"))
    parser.add_argument("--peers", default=os.path.join(ROOT, ".peers"),
                        help="the peers harness: DeepGEMM/ (built), "
                        "triton_fp8.py, fp8_configs.py")
    parser.add_argument("--runner", default="",
                        help="qmm-cuda-run (default: built with cmake)")
    parser.add_argument("--libs", default=",".join(LIBRARIES))
    parser.add_argument("--only", default="",
                        help="cases whose name contains one of these "
                        "(comma-separated)")
    parser.add_argument("--data", choices=("randn", "uniform"),
                        default="randn", help="randn: randn * 0.5 cast to "
                        "E4M3 (the peers' and DeepGEMM's tests' data); "
                        "uniform: codes uniform over the finite E4M3 codes")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=2e-2,
                        help="largest relative error (Frobenius) accepted")
    parser.add_argument("--triton-configs", type=int, default=3)
    parser.add_argument("--rotate-bytes", type=float, default=256e6,
                        help="time every library over copies of a case's "
                        "inputs, taken in turn, so that the timed runs read "
                        "at least this many bytes (the L2 cache cold, as "
                        "for a model's layers; H200: 50 MB of L2); 0: one "
                        "copy, the inputs L2-resident where they fit")
    parser.add_argument("--hbm-tbps", type=float, default=4.8,
                        help="HBM bandwidth for the decode bound (H200: "
                        "4.8 TB/s)")
    parser.add_argument("--read-floor", default="",
                        help="benchmarks/nvidia_read_floor.cu built: the "
                        "time of a plain read of each M <= 64 case's bytes, "
                        "beside qmm's (nvidia_peers.sh builds it with nvcc)")
    parser.add_argument("--warm-jobs", type=int, default=8,
                        help="processes that JIT-compile DeepGEMM's and "
                        "Triton's kernels before the measurement (0: none)")
    parser.add_argument("--warm-only", action="store_true",
                        help="only compile DeepGEMM's and Triton's kernels "
                        "into their caches (the measurement then starts "
                        "warm)")
    parser.add_argument("--warm-worker", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--exact-names", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--warm-dir", default="/tmp/qmm-peers-warm",
                        help="where the warm-up leaves its markers")
    parser.add_argument("--tag", default="",
                        help="the machine in the file name (default: from "
                        "the GPU's name)")
    args = parser.parse_args()
    if args.render:
        with open(args.render) as f:
            report = json.load(f)
        with open(os.path.splitext(args.render)[0] + ".md", "w") as f:
            f.write(markdown(report))
        return
    if not args.plans:
        parser.error("the plans directory is required")
    libs = [l for l in args.libs.split(",") if l]
    for lib in libs:
        if lib not in LIBRARIES:
            parser.error("--libs: unknown library '%s' (expected %s)" %
                         (lib, ", ".join(LIBRARIES)))
    if args.rounds < 1 or args.samples < 1:
        parser.error("--rounds and --samples must be at least 1")
    if args.rotate_bytes < 0:
        parser.error("--rotate-bytes must be 0 or positive")
    cases = read_cases(args.plans, [o for o in args.only.split(",") if o],
                       args.exact_names)

    def log(message):
        print("[%s] %s" % (time.strftime("%H:%M:%S"), message), flush=True)

    import faulthandler
    faulthandler.enable()  # a library's crash names its Python frame
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    modules = import_peers(torch, args, libs, log)
    if args.warm_worker:
        os.makedirs(args.warm_dir, exist_ok=True)
        warm(torch, cases, libs, args, modules, log)
        return
    if "deepgemm" in modules or "triton" in modules:
        shutil.rmtree(args.warm_dir, ignore_errors=True)
        os.makedirs(args.warm_dir)
        warm_in_parallel(cases, args, log)
    if args.warm_only:
        return
    if not args.runner:
        args.runner = build_runner()
    libs = [l for l in libs if l in ("qmm", "cublaslt", "cublaslt-fast") or
            (l == "deepgemm" and "deepgemm" in modules) or
            (l == "triton" and "triton" in modules)]
    args.work = tempfile.mkdtemp(prefix="qmm-peers-")
    report = {"rounds": args.rounds, "samples": args.samples,
              "rotate_bytes": args.rotate_bytes,
              "hbm_tbps": args.hbm_tbps, "date": datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y-%m-%d"),
              "data": args.data, "libraries": libs,
              "environment": environment(torch, modules, args.plans),
              "cases": []}
    base = results_base(args, report, "peers")
    if args.read_floor:
        report["read_floor_us"] = read_floors(args.read_floor, cases, log)
    for case in cases:
        started = time.time()
        record = run_case(torch, case, libs, args, modules, log)
        summarize(record)
        report["cases"].append(record)
        figures = ", ".join(
            "%s %.0f" % (lib, e["summary"]["graph"]["tflops"])
            for lib, e in record["libraries"].items()
            if "graph" in e.get("summary", {}))
        log("%s (%.0f s): %s" % (case["name"], time.time() - started,
                                 figures))
        torch.cuda.empty_cache()
        # After every case: a run cut short keeps what it measured.
        save_report(base, report, markdown)
    log("wrote %s.{json,md}" % base)
    shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    main()
