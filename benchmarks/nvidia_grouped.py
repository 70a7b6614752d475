#!/usr/bin/env python3
"""qmm's grouped (MoE) GEMMs beside DeepGEMM's on one NVIDIA GPU, by GPU
time, on the same bytes: the contiguous and masked layouts with 1x128 x
128x128 scales.

    python3 benchmarks/nvidia_grouped.py --plans DIR       # here (MLIR build)
    QMM_PEERS_SCRIPT=benchmarks/nvidia_grouped.py \\
      bash benchmarks/nvidia_peers.sh DIR .peers           # on the GPU machine

The cases are DeepGEMM's own (tests/generators.py): contiguous,
enumerate_m_grouped_contiguous's 4 groups of about 8192 rows and 8 of
about 4096 on (N, K) = (6144, 7168), (7168, 3072), (4096, 4096), (4096,
2048), and DeepSeek-V3's expert shapes (N x K = 4096 x 7168 and 7168 x
2048) with 8 groups of about 256 and 4 of about 1024 rows; masked,
enumerate_m_grouped_masked's groups (32 of about 192 and 20 rows, 6 of
about 1024 and 20) in buffers of 4096 rows per group, on the DeepSeek-V3
expert shapes, and 32 groups of about 4 rows (decode). Each group's row
count is drawn as DeepGEMM's generator draws it (expected x uniform(0.7,
1.3), from a fixed seed); contiguous, each is padded to 128 rows and M is
their sum, which fixes qmm's kernel (compiled here, --no-data; each plan
holds its case's row groups, so that benchmarks/nvidia_ab.sh can time two
builds' plans of the cases on random A and B). Masked
cases of at most 64 expected rows use qmm's 64-row tiles (--tile-m 64;
DeepGEMM picks its block from its expected-M argument, which it is given
as its test gives it, 1.2 x expected).

On the GPU machine the script draws A [M, K], B [G, N, K] (randn * 0.5 as
E4M3) and their scales, builds the row groups (-1 on padding rows), writes
them into a copy of each plan and gives the same tensors to

  qmm       the saved launch plan, run by qmm-cuda-run
  deepgemm  deep_gemm.m_grouped_fp8_fp4_gemm_nt_contiguous (the M
            alignment set to qmm's 128) or ..._nt_masked, its sm90 1D2D
            kernels

Both outputs' written rows are compared with a float32 product of the
dequantized inputs (each row its group's B); a library whose relative
error exceeds --tolerance is reported as wrong, not timed. Timing is
benchmarks/nvidia_peers.py's: CUDA graphs of N back-to-back calls and N
calls back to back, --rounds rounds of --samples samples, the library
order rotating. TFLOP/s count the written rows only (2 x rows x N x K).

Writes OUT/<date>-<gpu>-grouped.json and .md (default OUT:
benchmarks/results).
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvidia_peers as peers  # noqa: E402

ROOT = peers.ROOT
ALIGNMENT = 128
LIBRARIES = ("qmm", "deepgemm")
LABELS = {"qmm": "qmm", "deepgemm": "DeepGEMM"}
MASKED_MAX_M = 4096
DEEPSEEK_EXPERTS = ((4096, 7168), (7168, 2048))
# A's scales MN-major ([K/128, M], masked [G, K/128, Mmax]), the layout
# DeepGEMM's kernels read (nvidia_plans.sh peers gives dense plans the same).
A_SCALES_MN = ["--a-scale-major", "mn"]
# (layout, groups, expected rows per group, N, K)
CASES = [("contiguous", g, m, n, k)
         for g, m in ((4, 8192), (8, 4096))
         for n, k in ((6144, 7168), (7168, 3072), (4096, 4096), (4096, 2048))
         ] + [("contiguous", g, m, n, k)
              for g, m in ((8, 256), (4, 1024))
              for n, k in DEEPSEEK_EXPERTS
              ] + [("masked", g, m, n, k)
                   for g, m in ((32, 192), (6, 1024), (32, 20), (6, 20),
                                (32, 4))
                   for n, k in DEEPSEEK_EXPERTS]


def group_rows(groups, expected, seed):
    """Each group's rows, drawn as DeepGEMM's generator draws them."""
    rng = random.Random(seed)
    return [int(expected * rng.uniform(0.7, 1.3)) for _ in range(groups)]


def case_name(layout, groups, expected, n, k):
    return "%s_g%d_m%d_%dx%d" % (layout, groups, expected, n, k)


def group_layout(layout, rows, m):
    """The kernels' group argument for groups of `rows` valid rows: masked,
    the counts; contiguous, each of the M rows' group, -1 on the padding
    that ends each group's segment (segments of whole 128-row tiles)."""
    if layout == "masked":
        return list(rows)
    groups = []
    for group, valid in enumerate(rows):
        padded = -(-valid // ALIGNMENT) * ALIGNMENT
        groups += [group] * valid + [-1] * (padded - valid)
    if len(groups) != m:
        raise ValueError("the groups' segments hold %d rows, M is %d" %
                         (len(groups), m))
    return groups


def write_group_layout(plan, values):
    """Writes `values` (i32) into the plan's first file-filled buffer, the
    row groups (fp8-run --no-data draws its own; a later one is the
    scheduler's zeroed scratch), so that the plan alone runs the case:
    benchmarks/nvidia_ab.sh times it on random A and B."""
    with open(os.path.join(plan, "plan.txt")) as f:
        files = [line.split() for line in f
                 if line.split()[:1] == ["buffer"] and
                 line.split()[3] == "file"]
    if not files or int(files[0][2]) != 4 * len(values):
        raise SystemExit("%s: expected a first file buffer of %d bytes (the "
                         "row groups), found %s" % (plan, 4 * len(values),
                                                    files[:1]))
    with open(os.path.join(plan, files[0][4]), "wb") as f:
        f.write(struct.pack("<%di" % len(values), *values))


# --- Here: the plans ---------------------------------------------------------

def write_plans(out, fp8_run, extra_flags=(), only=(), a_scales="mn"):
    if os.path.exists(out) and not os.path.exists(
            os.path.join(out, "cases.txt")):
        raise SystemExit("%s exists and holds no cases.txt: not "
                         "overwriting it" % out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    source = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"],
                           cwd=ROOT).returncode != 0
    with open(os.path.join(out, "source.txt"), "w") as f:
        f.write((source or "unknown") + ("+local changes" if dirty else "") +
                "\n")
    lines = []
    for index, (layout, groups, expected, n, k) in enumerate(CASES):
        name = case_name(layout, groups, expected, n, k)
        if only and not any(o in name for o in only):
            continue
        rows = group_rows(groups, expected, seed=index)
        flags = list(A_SCALES_MN) if a_scales == "mn" else []
        if layout == "masked":
            m = MASKED_MAX_M
            flags = ["--masked"] + flags + (["--tile-m", "64"]
                                            if expected <= 64 else [])
        else:
            m = sum(-(-r // ALIGNMENT) * ALIGNMENT for r in rows)
        flags += list(extra_flags)
        subprocess.run([fp8_run, "--chip", "sm_90a", "--gemm",
                        "%dx%dx%d" % (m, n, k), "--groups", str(groups),
                        "--a-type", "f8E4M3FN", "--b-type", "f8E4M3FN",
                        "--a-scale", "1x128", "--b-scale", "128x128",
                        "--no-data", "--save", os.path.join(out, name)] +
                       flags, check=True, stdout=subprocess.DEVNULL)
        write_group_layout(os.path.join(out, name),
                           group_layout(layout, rows, m))
        lines.append("%s %s %d %d %d %d %d %s %s\n" % (
            name, layout, m, n, k, groups, expected,
            ",".join(str(r) for r in rows), " ".join(flags)))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.writelines(lines)
    print("wrote %d grouped plans to %s" % (len(lines), out))


def read_cases(plans, only):
    cases = []
    with open(os.path.join(plans, "cases.txt")) as f:
        for line in f:
            words = line.split()
            if not words or (only and not any(o in words[0] for o in only)):
                continue
            name, layout, m, n, k, groups, expected, rows = words[:8]
            cases.append({"name": name, "layout": layout, "m": int(m),
                          "n": int(n), "k": int(k), "groups": int(groups),
                          "expected": int(expected),
                          "rows": [int(r) for r in rows.split(",")],
                          "flags": words[8:],
                          "plan": os.path.join(plans, name)})
    return cases


# --- There: inputs, libraries, timing -----------------------------------------

class GroupedProblem:
    """A and B (E4M3) and their f32 scales, and the group layout.
    Contiguous: A [M, K], A's scales [M, K/128], the row groups [M] (-1 on
    padding rows). Masked: A [G, Mmax, K], its scales [G, Mmax, K/128],
    the valid rows [G]. B [G, N, K], its scales [G, N/128, K/128]. qmm's
    plan is given A's scales transposed where its flags say MN-major."""

    def __init__(self, torch, case):
        flags = case.get("flags", [])
        self.a_scales_mn = any(flags[i:i + 2] == A_SCALES_MN
                               for i in range(len(flags)))
        self.torch = torch
        self.masked = case["layout"] == "masked"
        self.m, self.n, self.k = case["m"], case["n"], case["k"]
        self.groups, self.rows = case["groups"], case["rows"]
        self.expected = case["expected"]
        g = torch.Generator(device="cuda")
        g.manual_seed(len(self.rows) * 7919 + self.n + self.k + self.m)
        kb, nb = -(-self.k // 128), -(-self.n // 128)

        def fp8(*shape):
            return (torch.randn(*shape, device="cuda", generator=g) *
                    0.5).to(torch.float8_e4m3fn)

        def scales(*shape):
            return torch.rand(*shape, device="cuda", generator=g) + 0.5
        lead = (self.groups,) if self.masked else ()
        self.a = fp8(*lead, self.m, self.k)
        self.sa = scales(*lead, self.m, kb)
        self.b, self.sb = fp8(self.groups, self.n, self.k), scales(
            self.groups, nb, kb)
        # Each group's first row and valid rows in the [rows, N] output.
        self.segments = []
        self.layout = torch.tensor(
            group_layout(case["layout"], self.rows, self.m),
            dtype=torch.int32, device="cuda")
        if self.masked:
            self.segments = [(group * self.m, rows)
                             for group, rows in enumerate(self.rows)]
        else:
            start = 0
            for rows in self.rows:
                self.segments.append((start, rows))
                start += -(-rows // ALIGNMENT) * ALIGNMENT
        self.output_rows = self.groups * self.m if self.masked else self.m
        self.written = sum(self.rows)

    def files(self):
        def raw(t):
            if t.dtype == self.torch.float8_e4m3fn:
                t = t.view(self.torch.uint8)
            return t.contiguous().cpu().numpy().tobytes()
        sa = self.sa.transpose(-1, -2) if self.a_scales_mn else self.sa
        return {"fp8e4m3": [raw(self.a), raw(self.b)],
                "scale": [raw(sa.reshape(-1)), raw(self.sb.reshape(-1))],
                "file": [raw(self.layout)]}

    def relative_error(self, out):
        """Over the written rows of `out` ([rows, N]), each group's against
        the f32 product of its dequantized A rows and B."""
        a2d = self.a.reshape(-1, self.k)
        sa2d = self.sa.reshape(-1, self.sa.shape[-1])
        error = norm = 0.0
        for group, (start, rows) in enumerate(self.segments):
            if rows == 0:
                continue
            a = a2d[start:start + rows].float() * \
                sa2d[start:start + rows].repeat_interleave(128, 1)[
                    :, :self.k]
            sb = self.sb[group].repeat_interleave(128, 0)[:self.n]
            b = self.b[group].float() * sb.repeat_interleave(128, 1)[
                :, :self.k]
            ref = a @ b.t()
            error += (out[start:start + rows].float() - ref).norm().item() ** 2
            norm += ref.norm().item() ** 2
            del a, b, ref
        return (error / norm) ** 0.5 if norm > 0 else error ** 0.5


def plan_with_inputs(plan, work, files):
    """A copy of `plan` in `work` whose buffers filled at random (A and B's
    codes, their scales) or from a file (the row groups) are read from
    `files` (fill -> bytes objects, in buffer order); returns the copy and
    the index of D (the bf16 buffer, poisoned)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(plan, work)
    queues = {fill: list(parts) for fill, parts in files.items()}
    lines, output = [], None
    with open(os.path.join(work, "plan.txt")) as f:
        for line in f:
            words = line.split()
            if words[:1] == ["buffer"]:
                index, size, fill = int(words[1]), int(words[2]), words[3]
                if fill in queues and queues[fill]:
                    data = queues[fill].pop(0)
                    if size != len(data):
                        raise ValueError("%s: buffer %d holds %d bytes, the "
                                         "input %d" % (plan, index, size,
                                                       len(data)))
                    name = "input%d.bin" % index
                    with open(os.path.join(work, name), "wb") as out:
                        out.write(data)
                    line = "buffer %d %d file %s\n" % (index, size, name)
                elif fill == "bf16":
                    # D: poisoned, so that qmm-cuda-run --save-outputs
                    # saves it (padding rows, which the kernel leaves, stay
                    # NaN; only written rows are compared).
                    output = index
                    line = "buffer %d %d poison\n" % (index, size)
            lines.append(line)
    if any(queues.values()) or output is None:
        raise ValueError("%s: expected A, B, their scales, the row groups and "
                         "a bf16 output" % plan)
    with open(os.path.join(work, "plan.txt"), "w") as f:
        f.writelines(lines)
    return work, output


def deepgemm_call(torch, dg, p):
    """DeepGEMM's grouped GEMM on `p`, A's scales in the TMA-aligned
    MN-major layout its kernels read (built once, as in
    nvidia_peers.deepgemm_call); returns the call and D as [rows, N]."""
    kb = -(-p.k // 128)
    aligned_m = -(-p.m // 4) * 4
    lead = (p.groups,) if p.masked else ()
    columns = torch.zeros(*lead, kb, aligned_m, device="cuda",
                          dtype=torch.float32)
    columns[..., :p.m] = p.sa.transpose(-1, -2)
    sfa = columns[..., :p.m].transpose(-1, -2)
    sfb = p.sb.contiguous()
    d = torch.empty(*lead, p.m, p.n, device="cuda", dtype=torch.bfloat16)
    if p.masked:
        expected = int(p.expected * 1.2)

        def call():
            dg.m_grouped_fp8_fp4_gemm_nt_masked(
                (p.a, sfa), (p.b, sfb), d, p.layout, expected,
                disable_ue8m0_cast=True)
            return d.view(-1, p.n)
        return call, ("m_grouped_fp8_fp4_gemm_nt_masked, sm90 1D2D kernel, "
                      "expected M %d" % expected)
    if hasattr(dg, "set_mk_alignment_for_contiguous_layout"):
        dg.set_mk_alignment_for_contiguous_layout(ALIGNMENT)

    def call():
        dg.m_grouped_fp8_fp4_gemm_nt_contiguous(
            (p.a, sfa), (p.b, sfb), d, p.layout, disable_ue8m0_cast=True)
        return d
    return call, ("m_grouped_fp8_fp4_gemm_nt_contiguous, sm90 1D2D kernel, "
                  "M alignment %d" % ALIGNMENT)


def runs_per_sample(p):
    estimate_ms = 2.0 * p.written * p.n * p.k / 1e15 * 1e3 + 0.005
    return int(min(100, max(5, -(-3.0 // estimate_ms))))


def run_case(torch, case, libs, args, modules, log):
    p = GroupedProblem(torch, case)
    runs = runs_per_sample(p)
    record = {"case": case["name"], "layout": case["layout"], "m": p.m,
              "n": p.n, "k": p.k, "groups": p.groups,
              "expected": p.expected, "rows": p.rows, "written": p.written,
              "flags": case["flags"], "runs_per_sample": runs,
              "libraries": {}}
    calls = {}
    for lib in libs:
        entry = {"how": "", "relative_error": None, "rounds": {}}
        record["libraries"][lib] = entry
        try:
            if lib == "qmm":
                work = os.path.join(args.work, case["name"])
                plan, output = plan_with_inputs(case["plan"], work, p.files())
                outputs = os.path.join(work, "outputs")
                os.makedirs(outputs, exist_ok=True)
                _, report = peers.qmm_samples(args.runner, plan, runs, 1,
                                              outputs)
                with open(os.path.join(outputs, "buffer%d.bin" % output),
                          "rb") as f:
                    raw = f.read()
                out = torch.frombuffer(bytearray(raw), dtype=torch.bfloat16)
                out = out.reshape(p.output_rows, p.n).cuda()
                entry["how"] = ("qmm-cuda-run, the saved launch plan (%d "
                                "launches)" % report["plan"]["launches"])
                calls[lib] = plan
            else:
                call, entry["how"] = deepgemm_call(torch, modules["deepgemm"],
                                                   p)
                out = call()
                torch.cuda.synchronize()
                calls[lib] = call
            entry["relative_error"] = p.relative_error(out)
            del out
            if not entry["relative_error"] <= args.tolerance:
                entry["wrong"] = True
                calls.pop(lib, None)
        except Exception as error:
            entry["error"] = "%s: %s" % (type(error).__name__,
                                         str(error)[:400])
            calls.pop(lib, None)
            torch.cuda.synchronize()
    peers.time_in_rounds(torch, record, calls, libs, runs, args)
    peers.summarize(record, 2.0 * p.written * p.n * p.k)
    del p
    return record


def warm(torch, cases, modules, args, log):
    """DeepGEMM JIT-compiles a kernel per shape at its first call: done here
    in worker processes before the measurement (a crash here leaves its
    case's marker out, and the measurement leaves DeepGEMM out there)."""
    for case in cases:
        try:
            p = GroupedProblem(torch, case)
            deepgemm_call(torch, modules["deepgemm"], p)[0]()
            torch.cuda.synchronize()
            open(os.path.join(args.warm_dir, case["name"] + ".ok"),
                 "w").close()
            del p
        except Exception as error:
            log("warm-up %s: %s" % (case["name"], str(error)[:300]))
        torch.cuda.empty_cache()


def warm_in_parallel(cases, args, log):
    jobs = min(args.warm_jobs, len(cases))
    if jobs <= 0:
        return
    started = time.time()
    workers = [subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), args.plans_dir,
         "--warm-worker", "--only", ",".join(c["name"] for c in
                                             cases[j::jobs]),
         "--peers", args.peers, "--warm-dir", args.warm_dir])
        for j in range(jobs)]
    codes = [w.wait() for w in workers]
    log("warm-up: %d processes, %.0f s, exit codes %s" % (
        len(workers), time.time() - started, codes))


# --- Report -------------------------------------------------------------------

def markdown(report):
    env = report["environment"]
    lines = [
        "# Grouped (MoE) FP8 GEMMs: qmm and DeepGEMM on %s" % env["gpu"], "",
        "Measured %s by `benchmarks/nvidia_grouped.py` (GPU time; driver %s, "
        "CUDA %s, torch %s, DeepGEMM %s, qmm %s). 1x128 x 128x128 scales, "
        "bf16 output, E4M3 data (randn x 0.5), the same bytes for both "
        "libraries (A's scales MN-major, as DeepGEMM's kernels read them, "
        "unless a row says otherwise); each group's rows drawn as DeepGEMM's test generator "
        "draws them (expected x U(0.7, 1.3)), padded to 128 in the "
        "contiguous layout, in buffers of %d rows per group in the masked "
        "one. TFLOP/s count the written rows (2 x rows x N x K); ratios "
        "are of GPU times. Median of %d rounds (each the median of %d "
        "samples), the rounds' range in brackets." % (
            report["date"], env["driver"], env["cuda"], env["torch"],
            env["deepgemm"], env["qmm"], MASKED_MAX_M, report["rounds"],
            report["samples"]), "",
        "| layout | G | rows per group (expected) | rows written | N x K "
        "| qmm TFLOP/s | DeepGEMM TFLOP/s | qmm / DeepGEMM (graph) "
        "| back-to-back | qmm us | rel. error qmm, DG |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for record in report["cases"]:
        libs = record["libraries"]

        def figure(lib, method="graph"):
            return libs.get(lib, {}).get("summary", {}).get(method)

        def cell(lib):
            entry, summary = libs.get(lib, {}), figure(lib)
            if summary:
                low, high = summary["tflops_range"]
                return "%.0f [%.0f-%.0f]" % (summary["tflops"], low, high)
            return entry.get("error") or entry.get("skipped") or (
                "wrong" if entry.get("wrong") else "-")

        def ratio(method):
            q, d = figure("qmm", method), figure("deepgemm", method)
            return "%.2f" % (d["ms"] / q["ms"]) if q and d else "-"

        def error(lib):
            value = libs.get(lib, {}).get("relative_error")
            return "%.1e" % value if value is not None else "-"
        qmm = figure("qmm")
        flags = " ".join(f for f in record.get("flags", [])
                         if f != "--masked")
        mn = " ".join(A_SCALES_MN)
        flags = (flags.replace(mn, "").strip() if mn in flags else
                 ("A's scales K-major " + flags).strip())
        # (The first run's records predate the layout and expected-rows
        # keys: contiguous cases, named after their expected rows.)
        expected = record.get("expected") or int(
            re.search(r"_m(\d+)_", record["case"]).group(1))
        lines.append("| %s | %d | %d%s | %d | %dx%d | %s | %s | %s | %s | %s "
                     "| %s, %s |" % (
                         record.get("layout", "contiguous"),
                         record["groups"], expected,
                         " (qmm %s)" % flags if flags else "",
                         record["written"], record["n"], record["k"],
                         cell("qmm"), cell("deepgemm"), ratio("graph"),
                         ratio("back-to-back"),
                         "%.1f" % (qmm["ms"] * 1e3) if qmm else "-",
                         error("qmm"), error("deepgemm")))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("plans_dir", nargs="?",
                        help="the grouped plans (cases.txt, one plan per "
                        "case)")
    parser.add_argument("--plans", metavar="DIR",
                        help="here: write the plans into DIR and stop")
    parser.add_argument("--fp8-run", default=os.path.join(ROOT, "build",
                                                          "bin", "fp8-run"))
    parser.add_argument("--qmm-flags", default="",
                        help="with --plans: more fp8-run flags for every "
                        "plan (a variant's, e.g. '--tile-n 192')")
    parser.add_argument("--a-scale-major", choices=("mn", "k"), default="mn",
                        help="with --plans: the layout of A's scales in "
                        "qmm's plans (DeepGEMM is given MN-major ones)")
    parser.add_argument("--render", metavar="JSON",
                        help="write the Markdown of a results JSON next to "
                        "it and stop (no GPU)")
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks",
                                                      "results"))
    parser.add_argument("--peers", default=os.path.join(ROOT, ".peers"))
    parser.add_argument("--runner", default="")
    parser.add_argument("--libs", default=",".join(LIBRARIES))
    parser.add_argument("--only", default="")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=2e-2)
    parser.add_argument("--warm-jobs", type=int, default=8)
    parser.add_argument("--warm-worker", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--warm-dir", default="/tmp/qmm-grouped-warm")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    if args.plans:
        return write_plans(args.plans, args.fp8_run, args.qmm_flags.split(),
                           [o for o in args.only.split(",") if o],
                           args.a_scale_major)
    if args.render:
        with open(args.render) as f:
            report = json.load(f)
        with open(os.path.splitext(args.render)[0] + ".md", "w") as f:
            f.write(markdown(report))
        return
    if not args.plans_dir:
        parser.error("the plans directory is required")
    libs = [l for l in args.libs.split(",") if l]
    if any(l not in LIBRARIES for l in libs):
        parser.error("--libs: expected some of %s" % ", ".join(LIBRARIES))
    cases = read_cases(args.plans_dir, [o for o in args.only.split(",") if o])

    def log(message):
        print("[%s] %s" % (time.strftime("%H:%M:%S"), message), flush=True)

    import faulthandler
    faulthandler.enable()
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    modules = peers.import_peers(torch, args, libs, log)
    if args.warm_worker:
        return warm(torch, cases, modules, args, log)
    if "deepgemm" in modules:
        shutil.rmtree(args.warm_dir, ignore_errors=True)
        os.makedirs(args.warm_dir)
        warm_in_parallel(cases, args, log)
    elif "deepgemm" in libs:
        libs.remove("deepgemm")
    if not args.runner:
        args.runner = peers.build_runner()
    args.work = tempfile.mkdtemp(prefix="qmm-grouped-")
    report = {"rounds": args.rounds, "samples": args.samples,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                  "%Y-%m-%d"), "libraries": libs,
              "environment": peers.environment(torch, modules,
                                               args.plans_dir),
              "cases": []}
    base = peers.results_base(args, report, "grouped")
    for case in cases:
        started = time.time()
        case_libs = [l for l in libs if l != "deepgemm" or os.path.exists(
            os.path.join(args.warm_dir, case["name"] + ".ok"))]
        record = run_case(torch, case, case_libs, args, modules, log)
        report["cases"].append(record)
        log("%s (%.0f s): %s" % (case["name"], time.time() - started, ", ".join(
            "%s %.0f" % (lib, e["summary"]["graph"]["tflops"])
            for lib, e in record["libraries"].items()
            if "graph" in e.get("summary", {}))))
        torch.cuda.empty_cache()
        peers.save_report(base, report, markdown)
    log("wrote %s.{json,md}" % base)
    shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    main()
