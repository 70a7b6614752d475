"""qmm: FP8 and MX matrix multiplication for AMD Instinct GPUs, from Python.

Describe a GEMM (or a grouped MoE GEMM), get its qmm IR, compile it for
gfx942 (MI300) or gfx950 (MI350/MI355) into code objects with their launch
metadata, and run it on the emulator, the CPU reference or a GPU with numpy
arrays. The host quantizers are the compiler's own (the ones fp8-run uses).

Arrays are stored as in fp8-run's .npy files: float32 for f32 (and for
f16/bf16 values), uint8 bit patterns for 8-bit formats (E8M0 scales too),
FP4/FP6 packed along the last dimension into uint8 (element 2i of an FP4
row in the low nibble of byte i), int32 for group indices.

    import numpy as np, qmm
    a, b = np.random.randn(256, 512), np.random.randn(1024, 512)
    qa, sa = qmm.quantize(a, "f8E4M3FNUZ", "1x128")
    qb, sb = qmm.quantize(b, "f8E4M3FNUZ", "128x128")
    gemm = qmm.Gemm(256, 1024, 512, a_type="f8E4M3FNUZ", b_type="f8E4M3FNUZ")
    program = gemm.compile("gfx942")          # code objects + metadata
    d = gemm(qa, sa, qb, sb, chip="gfx942")   # on the emulator
    (p,) = gemm.model("gfx942")               # MODELED time on an MI300X
"""

import json
import operator

import numpy as np

from . import _qmm

__all__ = [
    "Gemm",
    "GroupedGemm",
    "NvidiaProgram",
    "Program",
    "chips",
    "compile",
    "decode",
    "dequantize",
    "linalg_to_qmm",
    "model",
    "quantize",
    "run",
]

#: The chips the compiler targets.
chips = tuple(_qmm.chips())

#: Rows of a contiguous grouped GEMM's segments are aligned to this.
GROUPED_M_ALIGNMENT = _qmm.grouped_matmul_m_alignment()

#: The compiler's extents and byte sizes are int64: a GEMM whose matrices
#: would not fit is refused when it is described (running one has
#: fp8-run's far smaller limits: see Gemm.__call__).
_INT64_MAX = 2 ** 63 - 1


def native_fp8(chip):
    """The FP8 e4m3 type the chip's MFMAs read natively."""
    return _qmm.native_fp8(chip)


def quantize(x, element_type, scale, layout="nk", rounding=None,
             min_amax=None, mn_major=False):
    """Quantizes a 2-D array (its storage order: [rows, K] for layout nk,
    [K, rows] for kn) by qmm.quantize's rules. `scale` is "tensor", "row",
    "RxC" (e.g. "1x128", "128x128") or "mx32"; `rounding` "none" (f32 scales
    amax / fmax, DeepGEMM's rule), "pow2_floor" (OCP MX) or "pow2_ceil";
    `min_amax` clamps amax (default 1e-4, 0 for pow2_floor). Returns
    (codes, scales) as stored (see the module's docstring)."""
    return _qmm.quantize(np.asarray(x, dtype=np.float32), element_type, scale,
                         layout, rounding, min_amax, mn_major)


def dequantize(codes, scales, element_type, scale, rows, k, layout="nk",
               mn_major=False):
    """value(code) * scale of every element, float64, logical [rows, K]."""
    return _qmm.dequantize(codes, scales, element_type, scale, rows, k, layout,
                           mn_major)


def decode(codes, element_type, shape):
    """The exact value of every code (stored as above), float64."""
    return _qmm.decode(codes, element_type, list(shape))


def linalg_to_qmm(ir, explain=False):
    """Runs the frontend lowering (qmm-linalg-to-qmm) on MLIR text:
    dequantize-then-matmul linalg IR becomes qmm.matmul; the rest is left
    alone. Returns the new text; with `explain`, (text, reasons): a dict per
    contraction left alone (`function`, `line`, `column` in `ir`, `reason`:
    the first construct that stopped it), as the pass's missed remarks
    (`--remarks-filter-missed=qmm-linalg-to-qmm`) say it."""
    return _qmm.linalg_to_qmm(ir, explain)


def compile(ir, chip="gfx942", config=""):
    """Compiles a qmm program (MLIR text) for `chip`. Returns a dict:
    `kernels` (name, module, argument types, `code_object` bytes (an AMDGPU
    ELF), `resources`: VGPR/AGPR/SGPR counts, spills, LDS and scratch
    bytes, occupancy), `functions` (the host functions with their
    `launches`: kernel, grid, block, argument sources) and `gpu_ir`.
    `config` forces a #qmm.config<...> on every matmul."""
    return _qmm.compile(ir, chip, config)


def model(ir, chip="gfx942", device=None, config="", params=None, m=None):
    """Predicts how fast a qmm program (MLIR text) runs on a GPU, without
    running it: compiles it for `chip` and feeds each kernel's code object,
    launch and workload to the performance model (qmm/PerfModel).

    Every figure returned is MODELED, not measured: it rests on the model's
    parameters (sustained clock, latencies, bandwidths;
    docs/performance-model.md), which `params` overrides, as a dict {name: number} (e.g.
    {"clock": 2.1, "hbm-bw": 5.3}) or a list of "name=value" strings.
    `device` is "mi300x", "mi325x" or "mi355x" (default: the chip's, mi300x
    for gfx942 and mi355x for gfx950) and must be built on `chip`; `config`
    forces a #qmm.config<...> on every matmul. A program with a dynamic M
    is modeled at M = `m` (its one code object; the grid at that M).

    Returns a list of dicts, one per kernel launched, as fp8-run --model
    --json writes them: "kernel", "modeled" (True), "device", "chip",
    "parameters", "seconds", "tflops", "peak_tflops", "fraction_of_peak",
    "bound", resources ("vgprs", "lds_bytes", "occupancy", ...), the grid
    ("workgroups", "rounds", "grid_efficiency"), "main_loop" (None when the
    kernel has none, else its counts and bounds: "trips", "mfma",
    "mfma_busy", "iteration_cycles", "bound", ...), "compute_seconds",
    "mall_seconds", "hbm_seconds", "compulsory_bytes" and "notes". Raises
    ValueError for an unknown chip, device or parameter and RuntimeError
    when the program does not compile."""
    m = None if m is None else _extent("m", m)
    return json.loads(_qmm.model(ir, chip, device or "", config, params, m))


def run(ir, function, args, device="emu", chip="gfx942", config="",
        iterations=0):
    """Calls `function` of the program on `device` ("emu", "cpu", "hip" or
    "auto") with numpy arrays in the function's argument order; returns the
    list of its results. With `iterations`, also times that many calls
    (see run_timed)."""
    results, _, _ = _qmm.run(ir, function, list(args), device, chip, config,
                             iterations)
    return results


def run_timed(ir, function, args, device="emu", chip="gfx942", config="",
              iterations=1):
    """run() plus (device name, seconds per call over `iterations`)."""
    return _qmm.run(ir, function, list(args), device, chip, config, iterations)


class Program:
    """One function of a program compiled once for a device and called many
    times. Where the program's M is dynamic (tensor<?x...>), each call may
    pass operands of any M; the results have the M of the call.

        gemm = qmm.Gemm(None, 4096, 7168)            # M is dynamic
        program = qmm.Program(gemm.ir(), gemm.function, "emu", "gfx950")
        for m in (1, 17, 128):
            (d,) = program(qa[m], sa[m], qb, sb, c[m])
    """

    def __init__(self, ir, function, device="emu", chip="gfx942", config=""):
        self._program = _qmm.Program(ir, function, device, chip, config)

    def __call__(self, *args):
        """The function's results (a list) for numpy `args`."""
        results, _, _ = self._program.call(list(args), 0)
        return results

    def timed(self, *args, iterations=1):
        """(results, device name, seconds per call over `iterations`)."""
        return self._program.call(list(args), iterations)


class NvidiaProgram:
    """A function of a qmm program compiled once for an NVIDIA chip
    (sm_90a), whose launches are saved as launch plans for `qmm-cuda-run`
    on a GPU of the chip (no NVIDIA GPU is needed here, and none is used).
    Where the program's M is dynamic, each plan takes the M of its
    arguments: one compilation, a plan per M.

        gemm = qmm.Gemm(None, 4096, 7168, a_type="f8E4M3FN",
                        b_type="f8E4M3FN")
        program = qmm.NvidiaProgram(gemm.ir(), gemm.function)
        for m in (1, 17, 128):
            program.save(f"plans/m{m}", qa[m], sa[m], qb, sb, init[m])
        # there: qmm-cuda-run --save-outputs out plans/m17

    A plan has no checks: the caller knows what to expect of its outputs.
    qmm-cuda-run reports NOT VALIDATED, and --save-outputs DIR writes the
    function's results there (buffer<i>.bin, i in save()'s "results"),
    which start poisoned unless save(results_read=True) uploads them (a C
    that is accumulated into)."""

    def __init__(self, ir, function, chip="sm_90a"):
        self._program = _qmm.NvidiaProgram(ir, function, chip)

    def save(self, directory, *args, with_data=True, results_read=False):
        """Writes the launch plan on numpy `args` (the function's arguments;
        with_data=False: their shapes only, the runner draws random values
        of their types) into `directory`. Returns its launches (kernel,
        grid, block, dynamic_shared_bytes), the buffers of the function's
        results and counts."""
        return self._program.save(list(args), directory, with_data,
                                  results_read)


class Gemm:
    """D = dequant(A) dequant(B)^T (+ C) with the epilogue, as one qmm.matmul.

    A is [m, k]; B is [n, k] (b_layout "nk") or [k, n] ("kn"). Call it with
    the quantized operands (and bias, C, ... in the function's argument
    order: a, a_scales, b, b_scales[, bias], init[, aux][, out_scales]); an
    init of zeros is supplied when not given and accumulate is off.

    With m=None, M is dynamic: one program (compiled at the first call for
    a device, chip and config, and kept) serves operands of any M.
    """

    def __init__(self, m, n, k, a_type="f8E4M3FN", b_type="f8E4M3FN",
                 a_scale="1x128", b_scale="128x128", out_type="bf16",
                 b_layout="nk", accumulate=False, bias=None, activation=None,
                 aux=None, out_scale=None, out_rounding=None,
                 function="qmm_gemm"):
        m = None if m is None else _extent("m", m)
        n, k = _extent("n", n), _extent("k", k)
        _check_matrix_sizes(m, n, k)
        self.m, self.n, self.k = m, n, k
        self.out_type = out_type
        self.accumulate = accumulate
        self.bias, self.aux, self.out_scale = bias, aux, out_scale
        self.function = function
        self._programs = {}
        self._ir = _qmm.gemm_ir(-1 if m is None else m, n, k, a_type, b_type,
                                a_scale, b_scale,
                                out_type, b_layout, accumulate, bias,
                                activation, aux, out_scale, out_rounding,
                                function)

    def ir(self):
        """The qmm IR (a func.func around one qmm.matmul)."""
        return self._ir

    def compile(self, chip="gfx942", config=""):
        return compile(self._ir, chip, config)

    def model(self, chip="gfx942", device=None, config="", params=None,
              m=None):
        """The performance model's MODELED (not measured) figures for this
        GEMM on `device` (with m=None in the constructor, at M = `m`); see
        qmm.model."""
        return model(self._ir, chip, device, config, params, m)

    def __call__(self, a, a_scales, b, b_scales, bias=None, c=None,
                 device="emu", chip="gfx942", config=""):
        """Runs the GEMM; returns D, or (D, aux, scales) as the op has them.
        Arguments of the wrong rank, shape or dtype raise ValueError (a
        non-array TypeError) naming the argument, before anything runs;
        so does a GEMM over fp8-run's limits (extents up to 2^31 - 1, at
        most 2^32 elements in A, B and D)."""
        args = {"a": a, "a_scales": a_scales, "b": b, "b_scales": b_scales}
        _optional_argument(args, "bias", bias, self.bias is not None,
                           "construct it with bias=...")
        args = {name: _array(name, value) for name, value in args.items()}
        if self.m is not None:
            m = self.m
        elif args["a"].ndim != 2:
            raise ValueError(f"a: expected a 2-D array [m, k], got "
                             f"{args['a'].ndim}-D")
        else:
            m = args["a"].shape[0]
        # Before the zeros below: a larger GEMM would exhaust memory.
        _qmm.check_gemm_size(m, self.n, self.k)
        if c is None:
            if self.accumulate:
                raise ValueError("an accumulating GEMM needs c")
            c = _zeros(self.out_type, (m, self.n))
        args["c"] = _array("c", c)
        if self.aux is not None:
            args["aux"] = np.zeros((m, self.n), np.float32)
        if self.out_scale is not None:
            blocks = _out_scale_shape(self.out_scale, m, self.n)
            dtype = np.uint8 if self.out_scale == "mx32" else np.float32
            args["out_scales"] = np.zeros(blocks, dtype)
        key = (device, chip, config)
        if key not in self._programs:
            self._programs[key] = Program(self._ir, self.function, device,
                                          chip, config)
        results, _, _ = self._programs[key]._program.call(
            list(args.values()), 0, list(args))
        return results[0] if len(results) == 1 else tuple(results)


class GroupedGemm:
    """A grouped (MoE) GEMM, qmm.grouped_matmul: contiguous (A [m, k] with
    an int32 group per row, -1 for padding rows, segments aligned to
    GROUPED_M_ALIGNMENT) or masked (A [groups, m, k] with a valid-row count
    per group); B is [groups, n, k]. With m=None, M (masked: each group's
    row capacity) is dynamic: one program serves every M."""

    def __init__(self, m, n, k, groups, masked=False, a_type="f8E4M3FN",
                 b_type="f8E4M3FN", a_scale="1x128", b_scale="128x128",
                 out_type="bf16", accumulate=False, bias=None, activation=None,
                 aux=None, out_scale=None, out_rounding=None,
                 function="qmm_grouped_gemm"):
        m = None if m is None else _extent("m", m)
        n, k = _extent("n", n), _extent("k", k)
        groups = _extent("groups", groups)
        _check_matrix_sizes(m, n, k, groups, masked)
        self.m, self.n, self.k, self.groups = m, n, k, groups
        self.masked = masked
        self.out_type = out_type
        self.bias, self.aux, self.out_scale = bias, aux, out_scale
        self.function = function
        self._ir = _qmm.grouped_gemm_ir(-1 if m is None else m, n, k,
                                        groups, masked, a_type,
                                        b_type, a_scale, b_scale, out_type,
                                        accumulate, bias, activation, aux,
                                        out_scale, out_rounding, function)

    def ir(self):
        return self._ir

    def compile(self, chip="gfx942", config=""):
        return compile(self._ir, chip, config)

    def model(self, chip="gfx942", device=None, config="", params=None):
        """The performance model's MODELED (not measured) figures for this
        GEMM on `device`; see qmm.model."""
        return model(self._ir, chip, device, config, params)

    def __call__(self, a, a_scales, b, b_scales, groups, init, bias=None,
                 aux=None, out_scales=None, device="emu", chip="gfx942",
                 config=""):
        """Runs the GEMM; returns D, or (D[, aux][, scales]). Rows that are
        not computed keep what `init`, `aux` and (an FP8 output)
        `out_scales` hold, so the caller passes them."""
        args = {"a": a, "a_scales": a_scales, "b": b, "b_scales": b_scales}
        _optional_argument(args, "bias", bias, self.bias is not None,
                           "construct it with bias=...")
        args["groups"] = _group_indices(groups)
        args["init"] = init
        _optional_argument(args, "aux", aux, self.aux is not None,
                           "construct it with aux=...")
        _optional_argument(args, "out_scales", out_scales,
                           self.out_scale is not None,
                           "its output is not FP8")
        args = {name: _array(name, value) for name, value in args.items()}
        program = _qmm.Program(self._ir, self.function, device, chip, config)
        results, _, _ = program.call(list(args.values()), 0, list(args))
        return results[0] if len(results) == 1 else tuple(results)


def _extent(name, value):
    """A GEMM extent (or group count): a positive integer that fits in
    int64; TypeError or ValueError naming it otherwise."""
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise TypeError(f"{name}: expected an integer, got "
                        f"{type(value).__name__} {value!r}")
    value = operator.index(value)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    if value > _INT64_MAX:
        raise ValueError(f"{name} = {value} does not fit in int64")
    return value


def _check_matrix_sizes(m, n, k, groups=1, masked=False):
    """Refuses a GEMM whose A, B or D (of up to 4-byte elements) the
    compiler could not size in int64 bytes; a dynamic M counts as 1."""
    rows = (groups if masked else 1) * (m or 1)
    for name, elements in (("A", rows * k), ("B", groups * n * k),
                           ("D", rows * n)):
        if 4 * elements > _INT64_MAX:
            raise ValueError(f"{name} would have {elements} elements, more "
                             f"than int64 byte sizes hold")


def _array(name, value):
    """`value` as a numpy array (lists are converted); TypeError naming the
    argument when it is not an array of numbers. Its dtype, rank and shape
    are checked against the function's types by the binding."""
    array = value if isinstance(value, np.ndarray) else None
    if array is None and value is not None:
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):
            array = None
    if array is None or array.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a numpy array, got "
                        f"{type(value).__name__}")
    return array


def _optional_argument(args, name, value, taken, why_not):
    """Adds argument `name` where the GEMM takes it; a missing one, or one
    given to a GEMM without it (it would be ignored), is an error."""
    if taken:
        if value is None:
            raise ValueError(f"{name}: this GEMM takes it")
        args[name] = value
    elif value is not None:
        raise ValueError(f"{name}: this GEMM has none ({why_not})")


def _group_indices(groups):
    """A contiguous grouped GEMM's group per row (or a masked one's row
    count per group) as int32, without a silent cast: floats and values
    outside int32 are refused."""
    array = _array("groups", groups)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"groups: expected integers, got {array.dtype}")
    info = np.iinfo(np.int32)
    if array.size and (array.min() < info.min or array.max() > info.max):
        raise ValueError("groups: values outside int32")
    return array.astype(np.int32)


def _zeros(type_name, shape):
    if type_name in ("f32", "bf16", "f16"):
        return np.zeros(shape, np.float32)
    return np.zeros(shape, np.uint8)


def _out_scale_shape(out_scale, m, n):
    width = 32 if out_scale == "mx32" else int(out_scale.split("x")[1])
    return (m, -(-n // width))
