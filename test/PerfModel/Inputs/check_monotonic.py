#!/usr/bin/env python3
"""check_monotonic.py: the performance model is monotonic in every parameter.

More bandwidth or less latency never makes a kernel slower: for each kernel
below, every throughput parameter (l2-bw, mall-bw, hbm-bw, cu-l2-bw, clock)
is swept upward and every latency or cost parameter (global-latency,
lds-latency, barrier, valu, mfma-issue, memory-issue, salu, launch) upward
as well, one at a time with the others at their defaults, and the predicted
time (`seconds` of `qmm-model --json`) must never rise along a throughput
sweep and never fall along a latency/cost sweep (relative tolerance 1e-9).

Kernels:
  - pipeline: qmm programs compiled by the AMD pipeline (gfx942 and gfx950;
    per-tensor, per-row, blockwise 1x128/128x128, MX; large, small, split-K,
    no-loop), always. Each program's code object is written once
    (`fp8-run --emit-ir` | `fp8-opt --qmm-to-amdgpu-pipeline=format=bin`,
    the object taken out of the gpu.binary) and the sweep runs qmm-model on
    it, which is fast. qmm-model is given what fp8-run --model reads from
    the IR: the launch (from the binary's gpu.launch_func), the disassembled
    loop's trips, the share of trips that run conditional blocks, the FLOP
    and the compulsory bytes. What it cannot be given (the tiles' panels for
    the Infinity Cache traffic) only enters the time through
    max(compute, MALL bytes / mall-bw, HBM bytes / hbm-bw), each term
    monotonic on its own, so the sweep checks fp8-run's model: at the
    defaults, qmm-model's compute_seconds must equal fp8-run --model-only's
    (checked; a mismatch is an error, as the sweep would then check another
    model than the one fp8-run prints).
  - calibration: the code objects of ../shared/calibration (rows of
    kernels.tsv: other people's kernels, measured on an MI355X), when
    --calibration names a directory that exists; otherwise skipped, saying so
    (CI clones the repository alone).

Prints every violation (kernel, parameter, the two values, the two times)
and exits 1 if there is any (or if a tool fails).

usage: check_monotonic.py --fp8-run P --fp8-opt P --qmm-model P --work DIR
                          [--calibration DIR] [--jobs N] [--only SUBSTR]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

# Throughput parameters: the time must not rise as they grow. Each sweep
# spans a wide range around both chips' defaults (l2-bw 17; mall-bw 7.31 /
# 8.53; hbm-bw 4 / 6 TB/s; cu-l2-bw 64 B/clock; clock 1.23 / 1.7 GHz); l2-bw
# includes the points of the issue (15, 17, 20, 21, 23 TB/s).
THROUGHPUT = {
    "l2-bw": [5, 10, 15, 17, 20, 21, 23, 30, 45, 60],
    "mall-bw": [2, 4, 6, 8, 10, 14, 20, 30],
    "hbm-bw": [1, 2, 3, 4, 6, 8, 12, 20],
    "cu-l2-bw": [8, 16, 32, 48, 64, 96, 128, 256],
    # More clock: fewer seconds per cycle, but also fewer L2 bytes per
    # cycle (l2-bw is in TB/s); still never slower.
    "clock": [0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.1, 2.4],
}
# Latency and cost parameters: the time must not fall as they grow.
LATENCY = {
    "global-latency": [100, 200, 300, 400, 500, 700, 1000, 2000],
    "lds-latency": [8, 16, 32, 48, 64, 96, 128, 256],
    "barrier": [0, 4, 8, 16, 32, 64, 128, 256],
    "valu": [1, 2, 3, 4, 6, 8, 12, 16],  # must be positive
    "mfma-issue": [0, 1, 2, 4, 6, 8, 12, 16],
    "memory-issue": [0, 1, 2, 4, 6, 8, 12, 16],
    "salu": [0, 0.5, 1, 2, 4, 8, 16, 32],
    "launch": [0, 1, 2, 3, 5, 10, 20, 50],
}
TOLERANCE = 1e-9

# The pipeline's programs: name, chip, MxNxK, A scale, B scale. Large
# (8192^3, 4096^3), a long K (16384), small and split-K (M 256 / 128), a
# decode GEMV (M 1: split-K, no loop).
PROGRAMS = [
    ("gfx942-tensor-8192", "gfx942", "8192x8192x8192", "tensor", "tensor"),
    ("gfx942-row-4096", "gfx942", "4096x4096x4096", "row", "row"),
    ("gfx942-block-4096", "gfx942", "4096x4096x4096", "1x128", "128x128"),
    ("gfx942-tensor-256x4096x4096", "gfx942", "256x4096x4096", "tensor",
     "tensor"),
    ("gfx950-tensor-8192", "gfx950", "8192x8192x8192", "tensor", "tensor"),
    ("gfx950-tensor-4096", "gfx950", "4096x4096x4096", "tensor", "tensor"),
    ("gfx950-block-4096x7168x16384", "gfx950", "4096x7168x16384", "1x128",
     "128x128"),
    ("gfx950-mxfp8-8192", "gfx950", "8192x8192x8192", "mx32", "mx32"),
    ("gfx950-block-128x7168x2048", "gfx950", "128x7168x2048", "1x128",
     "128x128"),
    ("gfx950-tensor-1x4096x4096", "gfx950", "1x4096x4096", "tensor",
     "tensor"),
]
DEVICE = {"gfx942": "mi300x", "gfx950": "mi355x"}


class ToolError(Exception):
    pass


def run(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        raise ToolError("%s: %s" % (command[0], error))
    if done.returncode != 0:
        raise ToolError("%s: exit %d\n%s" % (" ".join(command),
                                             done.returncode,
                                             done.stderr.strip()))
    return done.stdout


# --- The pipeline's code objects -----------------------------------------

def unescape_mlir(text):
    """The bytes of an MLIR string literal's body (\\XX, \\\\, \\", \\n, \\t)."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = text[i + 1]
        if n in "\\\"":
            out.append(ord(n))
            i += 2
        elif n == "n":
            out.append(10)
            i += 2
        elif n == "t":
            out.append(9)
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def launch_of(binary_ir, kernel):
    """(grid, block) of the gpu.launch_func of `kernel` (@module::@kernel),
    its index constants resolved."""
    constants = dict(re.findall(
        r"(%[\w.$-]+) = arith\.constant (\d+) : index", binary_ir))
    module, name = kernel.split("::")
    pattern = (r"gpu\.launch_func\s+@" + re.escape(module) + "::@" +
               re.escape(name) +
               r"\s+blocks in \(([^)]*)\) threads in \(([^)]*)\)")
    match = re.search(pattern, binary_ir)
    if not match:
        raise ToolError("no gpu.launch_func of @%s in the binary IR" % kernel)

    def triple(text):
        values = []
        for name in text.split(","):
            name = name.strip()
            if name not in constants:
                raise ToolError("launch of @%s: %s is not a constant" %
                                (kernel, name))
            values.append(constants[name])
        return ",".join(values)
    return triple(match.group(1)), triple(match.group(2))


def conditional_share(config, gemm, a_scale, b_scale, ir_trips):
    """The share of trips that run the loop's conditional blocks, as the
    program model computes it from the IR (ProgramModel.cpp): a scale block
    spanning several K tiles updates on the trips that end one; per tensor
    or row, once after the last trip."""
    k = int(gemm.split("x")[2])
    tile_k = int(re.search(r"tile = \[\d+, \d+, (\d+)\]", config).group(1))
    block_k = k
    for scale in (a_scale, b_scale):
        if scale == "mx32":
            block_k = 32
        elif re.fullmatch(r"\d+x\d+", scale):
            block_k = int(scale.split("x")[1])
    if ir_trips > 1 and block_k < k and block_k > tile_k:
        per_block = block_k // tile_k
        return ((ir_trips + per_block - 1) // per_block) / ir_trips
    if ir_trips > 1 and block_k >= k:
        return 1.0 / ir_trips
    return 1.0


def prepare_program(args, program):
    """Compiles one program; returns its kernel (qmm-model arguments) and
    fp8-run's figures at the defaults."""
    name, chip, gemm, a_scale, b_scale = program
    flags = ["--chip", chip, "--gemm", gemm, "--a-scale", a_scale,
             "--b-scale", b_scale]
    ir_path = os.path.join(args.work, name + ".mlir")
    with open(ir_path, "w") as f:
        f.write(run([args.fp8_run] + flags + ["--emit-ir"]))
    binary_ir = run([args.fp8_opt, ir_path,
                     "--qmm-to-amdgpu-pipeline=chip=%s format=bin" % chip])
    # --select pass: the config the pipeline (fp8-opt above) chooses, not
    # fp8-run's model-guided default for large GEMMs.
    report = json.loads(run([args.fp8_run] + flags +
                            ["--model-only", "--json", "--select", "pass"]))
    models = report["model"]
    if len(models) != 1:
        raise ToolError("%s: %d kernels modeled, expected 1" %
                        (name, len(models)))
    reference = models[0]
    objects = re.findall(r'bin = "((?:[^"\\]|\\.)*)"', binary_ir)
    if len(objects) != 1:
        raise ToolError("%s: %d code objects in the binary, expected 1" %
                        (name, len(objects)))
    code_object = os.path.join(args.work, name + ".co")
    with open(code_object, "wb") as f:
        f.write(unescape_mlir(objects[0]))
    kernel = reference["kernel"].replace("@", "")  # module::kernel
    grid, block = launch_of(binary_ir, kernel)
    m, n, k = (int(x) for x in gemm.split("x"))
    loop = reference.get("main_loop")
    trips = loop["trips"] if loop else 0
    # The IR's K-loop trips (per split-K range).
    config = reference["config"]
    tile_k = int(re.search(r"tile = \[\d+, \d+, (\d+)\]", config).group(1))
    split = re.search(r"split = (\d+)", config)
    range_k = k // (int(split.group(1)) if split else 1)
    ir_trips = (range_k + tile_k - 1) // tile_k
    command = [args.qmm_model, code_object,
               "--kernel", kernel.split("::")[-1],
               "--device", reference["device"], "--grid", grid,
               "--block", block, "--trips", str(trips),
               "--conditional-share",
               repr(conditional_share(config, gemm, a_scale, b_scale,
                                      ir_trips)),
               "--flops", repr(2.0 * m * n * k),
               "--bytes", str(reference["compulsory_bytes"])]
    # What else fp8-run reads from the IR: the tiles and panels (L1 and L2
    # reuse) and the compiler's LDS bank-conflict estimate.
    work = reference["workload"]
    if work["tile_m"] > 0 and work["a_panel_bytes"] > 0:
        command += ["--tiles", "%d,%d,%d,%d" % (
            work["tile_m"], work["tile_n"], work["a_panel_bytes"],
            work["b_panel_bytes"])]
    if loop and work["loop_trips"] > 0 and work["mfmas_per_trip"] > 0:
        # The IR's trips and MFMAs per trip, as fp8-run gives them (the
        # disassembled loop's trips and unrolling follow).
        command[command.index("--trips") + 1] = str(work["loop_trips"])
        command += ["--mfmas-per-trip", str(work["mfmas_per_trip"])]
    command += ["--lds-conflicts",
                repr(work["lds_conflict_cycles_per_trip"])]
    label = "%s (%s %s, %s/%s, %s)" % (name, reference["device"], gemm,
                                       a_scale, b_scale, config)
    return {"name": name, "label": label, "command": command,
            "reference": reference}


# --- The calibration set ---------------------------------------------------

def calibration_kernels(directory, qmm_model):
    kernels = []
    with open(os.path.join(directory, "kernels.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            (row, code_object, symbol, device, m, n, k, grid, block, trips,
             bits, _published, _source) = line.rstrip("\n").split("\t")
            m, n, k, bits = int(m), int(n), int(k), int(bits)
            command = [qmm_model, os.path.join(directory, code_object),
                       "--device", device, "--grid", grid, "--block", block,
                       "--trips", trips, "--flops", repr(2.0 * m * n * k),
                       "--bytes", str((m * k + n * k) * bits // 8 +
                                      m * n * 2)]
            if symbol != "-":
                command += ["--kernel", symbol]
            kernels.append({"name": row, "label": "%s (%s, %s)" %
                            (row, device, code_object),
                            "command": command, "reference": None})
    return kernels


# --- The sweep -------------------------------------------------------------

def model(command, assignment=None):
    extra = ["--model-param", assignment] if assignment else []
    return json.loads(run(command + extra + ["--json"]))


def run_json(command):
    return json.loads(run(command))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fp8-run", required=True)
    parser.add_argument("--fp8-opt", required=True)
    parser.add_argument("--qmm-model", required=True)
    parser.add_argument("--work", required=True,
                        help="directory for the programs and code objects")
    parser.add_argument("--calibration", default="",
                        help="../shared/calibration (skipped when missing)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--only", default="",
                        help="only the kernels whose name contains this")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    start = time.time()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    errors = []

    programs = [p for p in PROGRAMS if args.only in p[0]]
    kernels = []
    for program, future in [(p, pool.submit(prepare_program, args, p))
                            for p in programs]:
        try:
            kernels.append(future.result())
        except ToolError as error:
            errors.append("%s: %s" % (program[0], error))
    pipeline_count = len(kernels)
    calibration_count = 0
    if args.calibration and os.path.isfile(
            os.path.join(args.calibration, "kernels.tsv")):
        found = [k for k in calibration_kernels(args.calibration,
                                                args.qmm_model)
                 if args.only in k["name"]]
        calibration_count = len(found)
        kernels += found
        calibration_note = "%d kernels from %s" % (calibration_count,
                                                   args.calibration)
    else:
        calibration_note = "skipped (no %s)" % (
            os.path.join(args.calibration, "kernels.tsv")
            if args.calibration else "--calibration")

    # One qmm-model process per kernel models the defaults and every
    # parameter's values (--sweep); for each kernel, one point is modeled
    # again by a process of its own (--model-param), which must agree: the
    # sweep is the model fp8-run and --model-param use.
    sweeps = list(THROUGHPUT.items()) + list(LATENCY.items())
    sweep_flags = []
    for parameter, values in sweeps:
        sweep_flags += ["--sweep", "%s=%s" % (
            parameter, ",".join(str(v) for v in values))]
    jobs = {}
    for number, kernel in enumerate(kernels):
        jobs[kernel["name"]] = pool.submit(
            run_json, kernel["command"] + sweep_flags + ["--json"])
        parameter, values = sweeps[number % len(sweeps)]
        value = values[len(values) // 2]
        jobs[(kernel["name"], "single")] = (parameter, value, pool.submit(
            model, kernel["command"], "%s=%s" % (parameter, value)))
    results = {}
    model_runs = 0
    for kernel in kernels:
        name = kernel["name"]
        try:
            swept = jobs[name].result()
            model_runs += 1
        except ToolError as error:
            errors.append("%s: %s" % (name, error))
            continue
        results[(name, None, None)] = swept["defaults"]
        for point in swept["sweeps"]:
            value = point["value"]
            number = float(value)
            key = [v for v in dict(sweeps)[point["parameter"]]
                   if float(v) == number]
            results[(name, point["parameter"], key[0])] = point["prediction"]
        parameter, value, single = jobs[(name, "single")]
        try:
            alone = single.result()
            model_runs += 1
        except ToolError as error:
            errors.append("%s %s=%s: %s" % (name, parameter, value, error))
            continue
        if alone["seconds"] != results[(name, parameter, value)]["seconds"]:
            errors.append(
                "%s: --sweep %s=%s models %.9g s, --model-param alone %.9g s"
                % (name, parameter, value,
                   results[(name, parameter, value)]["seconds"],
                   alone["seconds"]))
    pool.shutdown()

    print("pipeline kernels: %d (qmm-model on the AMD pipeline's code "
          "objects)" % pipeline_count)
    print("calibration kernels: %s" % calibration_note)
    violations = []
    for kernel in kernels:
        base = results.get((kernel["name"], None, None))
        if base is None:
            continue
        print("  %s: %.1f TFLOP/s MODELED at the defaults, %s" %
              (kernel["label"], base["tflops"], base["bound"]))
        reference = kernel["reference"]
        if reference is not None:
            ours, theirs = base["compute_seconds"], reference[
                "compute_seconds"]
            if abs(ours - theirs) > TOLERANCE * max(abs(theirs), 1e-30):
                errors.append(
                    "%s: qmm-model's compute_seconds %.9g differ from "
                    "fp8-run --model-only's %.9g at the defaults: the sweep "
                    "would not check fp8-run's model (a workload field "
                    "qmm-model is not given, or the two tools built from "
                    "different sources?)" % (kernel["name"], ours, theirs))
        for parameter, values in sweeps:
            faster_when_larger = parameter in THROUGHPUT
            points = [(v, results.get((kernel["name"], parameter, v)))
                      for v in values]
            points = [(v, r) for v, r in points if r is not None]
            for (v0, r0), (v1, r1) in zip(points, points[1:]):
                s0, s1 = r0["seconds"], r1["seconds"]
                if faster_when_larger:
                    bad = s1 > s0 * (1 + TOLERANCE)
                else:
                    bad = s1 < s0 * (1 - TOLERANCE)
                if bad:
                    violations.append(
                        "VIOLATION %s %s (%s): %s=%s -> %s: %.3f us -> "
                        "%.3f us (%+.2f%%), %.1f -> %.1f TFLOP/s MODELED, "
                        "bound %s -> %s" %
                        (kernel["name"], parameter,
                         "more must not be slower" if faster_when_larger
                         else "more must not be faster",
                         parameter, v0, v1, s0 * 1e6, s1 * 1e6,
                         (s1 / s0 - 1) * 100, r0["tflops"], r1["tflops"],
                         r0["bound"], r1["bound"]))
    for line in violations:
        print(line)
    # Each violating (kernel, parameter) pair's whole sweep, in TFLOP/s.
    names = [k["name"] for k in kernels]
    parameters = [name for name, _ in sweeps]
    pairs = sorted(set(tuple(v.split()[1:3]) for v in violations),
                   key=lambda pair: (names.index(pair[0]),
                                     parameters.index(pair[1])))
    for kernel, parameter in pairs:
        values = dict(sweeps)[parameter]
        print("SWEEP %s %s (TFLOP/s MODELED): %s" % (
            kernel, parameter, ", ".join(
                "%s=%.1f" % (v, results[(kernel, parameter, v)]["tflops"])
                for v in values if (kernel, parameter, v) in results)))
    for line in errors:
        print("ERROR " + line)
    print("swept %d kernels (%d pipeline, %d calibration) x %d parameters "
          "(%d model runs, %.1f s): %d violations, %d errors" %
          (len(kernels), pipeline_count, calibration_count, len(sweeps),
           model_runs, time.time() - start, len(violations), len(errors)))
    sys.exit(1 if violations or errors else 0)


if __name__ == "__main__":
    main()
