"""Random linalg programs for the frontend lowering's differential test
(fuzz/linalg_differential.py): dequantize-then-matmul in the forms the
docs/frontend.md lists, and near misses of them, each with its
inputs and a numpy model of what it computes.

`make_case` draws a description (`Case`): family (the form), operands'
element types, scale kinds and spellings, dequantization bodies,
contraction, destination, extents, and a near miss in about one case in
four; then random data. `linalg_emit.emit` prints the program from the
description; `reference` evaluates it in numpy from the same description
(every element-wise f32 operation rounded as IEEE f32 does, the
contraction summed in float64): the reference, and the magnitude sum |a b|
the tolerances are made of.
"""
import numpy as np

from formats import FORMATS, pack_rows, table, width
from linalg_bodies import NumpyBody, dequantize, post_scale

OCP = ["f8E4M3FN", "f8E5M2"]
FNUZ = ["f8E4M3FNUZ", "f8E5M2FNUZ"]
SUB_BYTE = ["f6E2M3FN", "f6E3M2FN", "f4E2M1FN"]
FAMILIES = ["generic", "fused", "half_fused", "post", "views", "batched",
            "unit"]
FAMILY_WEIGHTS = [30, 18, 8, 12, 12, 10, 5]

# Near misses per family: each must stay linalg, or raise to a program
# that computes the same.
BODY_NEAR = ["scale_twice", "add_scale", "zero_point", "relu", "bf16_round",
             "third_factor"]
NEAR_MISSES = {
    "generic": BODY_NEAR + ["per_k_scale", "const_index", "block_mismatch",
                            "a_transposed", "bf16_out"],
    "fused": BODY_NEAR + ["per_k_scale", "const_index", "block_mismatch"],
    "half_fused": BODY_NEAR,
    "post": ["post_elementwise", "post_add", "post_twice", "pre_and_post"],
    "views": BODY_NEAR + ["view_within_block"],
    "batched": BODY_NEAR,
    "unit": ["bf16_out"],
}


class Operand:
    """One operand: `rows` x `k` logically (B's rows are N), stored
    [rows, K] (`layout` nk) or [K, rows] (kn), and its scale."""

    def __init__(self, name, etype, rows, k):
        self.name, self.etype, self.rows, self.k = name, etype, rows, k
        self.layout = "nk"
        # kind: none | tensor | row | block | mx | near; spelling: see
        # scale_shape.
        self.kind, self.spelling = "none", None
        self.block = (1, 1)
        self.scale_type = "f32"  # f32, f16, bf16, f64 (constants), e8m0
        self.scale_const = False  # a dense constant, not an argument
        self.truncf_mode = None
        self.body = "mul_qs"
        self.batched_scale = False
        self.torch_view = False  # views: scales [M, K/C, 1] at (m, kb, 0)

    def has_scale_input(self):
        return self.kind != "none" and self.spelling not in ("const32",
                                                              "const64")

    def scale_shape(self):
        """The scale tensor's shape (without a batch extent)."""
        r, c = self.block
        rows, k = self.rows, self.k
        return {
            "0d": [], "1": [1], "11": [1, 1], "vec": [rows],
            "keep": [rows, 1], "keep_mn": [1, rows],
            "k": [-(-rows // r), -(-k // c)], "mn": [-(-k // c), -(-rows // r)],
            "per_k": [k], "const_index": [rows, 2], "within": [rows, c],
        }[self.spelling]

    def scale_map(self, r, k):
        """The scale map's results, rows and K being loops `r` and `k`."""
        rb, cb = self.block
        row = f"{r} floordiv {rb}" if rb > 1 else r
        return {
            "0d": [], "1": ["0"], "11": ["0", "0"], "vec": [r],
            "keep": [r, "0"], "keep_mn": ["0", r],
            "k": [row, f"{k} floordiv {cb}"], "mn": [f"{k} floordiv {cb}", row],
            "per_k": [k], "const_index": [r, "1"],
        }[self.spelling]

    def expand_scale(self, values):
        """The scale each logical (row, k) element reads: [rows, K]."""
        rows, k = np.meshgrid(np.arange(self.rows), np.arange(self.k),
                              indexing="ij")
        rb, cb = self.block
        index = {
            "0d": (), "1": (0,), "11": (0, 0), "vec": (rows,),
            "keep": (rows, 0), "keep_mn": (0, rows),
            "k": (rows // rb, k // cb), "mn": (k // cb, rows // rb),
            "per_k": (k,), "const_index": (rows, 1), "within": (rows, k % cb),
        }[self.spelling]
        return np.broadcast_to(np.asarray(values)[index], (self.rows, self.k))

    def describe(self):
        text = f"{self.etype} {self.kind}"
        if self.kind != "none":
            text += f":{self.spelling}"
            if self.kind == "block":
                text += f"{self.block[0]}x{self.block[1]}"
            text += f"/{self.scale_type}" + ("/const" if self.scale_const else "")
            if self.truncf_mode:
                text += f"/{self.truncf_mode}"
            text += f" {self.body}"
        return text + (f" {self.layout}" if self.name == "b" else "")


class Case:
    """One generated program: its description, data and known-bug tags."""

    def __init__(self, index):
        self.index = index
        self.family = None
        self.near = None
        self.m = self.n = self.k = 0
        self.batch = 0
        self.dynamic_m = False
        self.contraction = "matmul_nk"
        self.init = "zero_fill"
        self.out_bf16 = False
        self.post = None  # post family: how the factors associate
        self.fused_side = "b"  # half_fused: the side dequantized apart
        self.b_first = False  # fused bodies: B's dequantization first
        self.chip = "gfx942"
        self.known = []

    def describe(self):
        text = (f"{self.family} {'?' if self.dynamic_m else ''}{self.m}x"
                f"{self.n}x{self.k}{' batch ' + str(self.batch) if self.batch else ''}"
                f" {self.contraction} init={self.init} A=[{self.a.describe()}]"
                f" B=[{self.b.describe()}]")
        if self.post:
            text += f" post={self.post}"
        if self.near:
            text += f" near={self.near}"
        return text


# ---------------------------------------------------------------------------
# Choosing a case
# ---------------------------------------------------------------------------

def pick_types(rng, case):
    """Element types, and whether the scales are MX, for case.chip."""
    gfx950 = case.chip == "gfx950"
    if rng.random() < 0.2 and case.family not in ("post", "unit", "batched"):
        types = OCP + SUB_BYTE
        return rng.choice(types), rng.choice(types), True
    fnuz = rng.random() < 0.5
    family = FNUZ if fnuz else OCP
    sub_ok = not (fnuz and gfx950) and case.family in ("generic", "fused")

    def one():
        if sub_ok and rng.random() < 0.15:
            return rng.choice(SUB_BYTE)
        return rng.choice(family)
    return one(), one(), False


def block_ks(case, a, b):
    wide = case.chip == "gfx950" and not any(t in FNUZ for t in (a, b))
    return [128, 256] if wide else [32, 64, 128]


def pick_scale(rng, case, op, mx, allowed=("tensor", "row", "block")):
    """A scale kind and spelling for `op` (accepted forms)."""
    if mx:
        op.kind, op.spelling, op.block = "mx", "k", (1, 32)
        op.scale_type = "e8m0"
        op.body = rng.choice(["mul_qs", "mul_sq", "scaling"])
        return
    op.kind = rng.choice(list(allowed))
    if op.kind == "tensor":
        op.spelling = rng.choice(["0d", "1", "11", "const32", "const64"])
    elif op.kind == "row":
        op.spelling = rng.choice(["vec", "keep", "keep_mn"])
    else:
        op.spelling = rng.choice(["k", "mn"])
        rows = [1, 1, 2] if op.name == "a" else [128, 64, 32, 1]
        op.block = (int(rng.choice(rows)), 128)
    op.body = rng.choice(["mul_qs", "mul_sq", "div_qs"])
    if op.spelling == "const64":
        op.scale_type = "f64"
    elif op.spelling != "const32":
        op.scale_const = rng.random() < 0.15
        kinds = ["f32"] * 6 + ["f16", "bf16"] + (["f64"] if op.scale_const else [])
        op.scale_type = rng.choice(kinds)
    if op.scale_type == "f64" and rng.random() < 0.2:
        op.truncf_mode = rng.choice(["downward", "upward", "toward_zero",
                                     "to_nearest_even"])


def pick_extents(rng, case, mx, sub_byte, block_k):
    case.m = int(rng.integers(1, 49))
    case.n = int(rng.integers(1, 49))
    if mx or sub_byte:
        case.k = 32 * int(rng.integers(1, 5))
    elif block_k:
        case.k = block_k * int(rng.integers(1, 3)) - (
            int(rng.integers(0, 16)) if rng.random() < 0.3 else 0)
    elif rng.random() < 0.7:
        case.k = 16 * int(rng.integers(1, 9))
    else:
        case.k = int(rng.integers(1, 129))


def make_operands(rng, case):
    ta, tb, mx = pick_types(rng, case)
    case.a = Operand("a", ta, case.m, case.k)
    case.b = Operand("b", tb, case.n, case.k)
    return mx


def choose(rng, case, near_rate):
    """Draws the description of `case` (extents, types, scales, form)."""
    case.family = rng.choice(FAMILIES, p=np.array(FAMILY_WEIGHTS) /
                             sum(FAMILY_WEIGHTS))
    case.chip = rng.choice(["gfx942", "gfx950"])
    if rng.random() < near_rate:
        case.near = rng.choice(NEAR_MISSES[case.family])
    ta, tb, mx = pick_types(rng, case)
    sub_byte = ta in SUB_BYTE or tb in SUB_BYTE
    ks = block_ks(case, ta, tb)
    block_k = int(rng.choice(ks))
    case.a = Operand("a", ta, 0, 0)
    case.b = Operand("b", tb, 0, 0)
    for op in (case.a, case.b):
        if case.family in ("unit",) or (case.family == "post"):
            op.kind = "none"
        elif case.family == "views":
            op.kind, op.spelling = "block", "k"
            op.block = (1 if op.name == "a" else int(rng.choice([1, 32, 64, 128])),
                        block_k)
            op.body = rng.choice(["mul_qs", "mul_sq", "div_qs"])
            op.scale_type = rng.choice(["f32"] * 4 + ["bf16", "f16"])
        elif case.family == "batched":
            pick_scale(rng, case, op, False, ("tensor", "row"))
            if op.spelling in ("1", "keep_mn", "const64") or (
                    op.spelling == "const32" and rng.random() < 0.5):
                op.kind, op.spelling = "tensor", "11"
            op.scale_const = False
            if op.scale_type == "f64":
                op.scale_type, op.truncf_mode = "f32", None
            op.batched_scale = op.spelling not in ("0d", "const32")
        else:
            pick_scale(rng, case, op, mx)
            if op.kind == "block":
                op.block = (op.block[0], block_k)
    block = any(op.kind == "block" for op in (case.a, case.b))
    pick_extents(rng, case, mx, sub_byte, block_k if block else 0)
    if case.family == "views":
        case.k = block_k * int(rng.integers(1, 3))
        rb = case.b.block[0]
        case.n = rb * int(rng.integers(1, 3)) if rb > 1 else int(rng.integers(1, 49))
        case.a.torch_view = rng.random() < 0.5
        case.b.layout = rng.choice(["nk", "kn"])
        if case.b.layout == "kn":
            case.b.spelling = "mn"
        case.contraction = "views"
    for op, rows in ((case.a, case.m), (case.b, case.n)):
        op.rows, op.k = rows, case.k
    if case.family == "batched":
        case.batch = int(rng.integers(1, 4))
        case.b.layout = "kn"
        case.contraction = "batch_matmul"
    elif case.family in ("generic",):
        case.contraction = rng.choice(["matmul_nk", "matmul_kn", "generic_nk",
                                       "generic_kn", "transpose",
                                       "transposed_data"])
        if case.contraction in ("matmul_kn", "generic_kn", "transposed_data"):
            case.b.layout = "kn"
    elif case.family in ("fused", "half_fused", "post", "unit"):
        case.b.layout = rng.choice(["nk", "kn"])
        case.contraction = {"fused": "fused", "half_fused": "half_fused"}.get(
            case.family, "matmul_" + case.b.layout)
        if case.family == "unit" and rng.random() < 0.3:
            case.contraction = "generic_" + case.b.layout
        case.b_first = rng.random() < 0.5
        case.fused_side = rng.choice(["a", "b"])
    if case.family == "post":
        pick_post(rng, case)
    if case.b.layout == "kn" and case.b.kind == "block" and case.family != "views":
        case.b.spelling = rng.choice(["k", "mn"])
    inits = ["zero_fill", "zero_generic", "acc_arg", "fill_const",
             "negzero_fill"]
    case.init = rng.choice(inits, p=[0.55, 0.1, 0.2, 0.1, 0.05])
    if case.family == "post":
        case.init = "zero_fill"
    apply_near_miss(rng, case, ks)
    case.dynamic_m = (case.family in ("generic", "fused", "views", "batched")
                      and rng.random() < 0.25 and not case.a.scale_const
                      and case.a.kind not in ("near",))


def pick_post(rng, case):
    """Scales after the product: A's per tensor or per token, B's per tensor
    or per channel, f32 (or none on one side)."""
    case.post_a = rng.choice(["0d", "1", "11", "const32", "vec", "keep", None])
    case.post_b = rng.choice(["0d", "1", "11", "vec", "keep", "keep_mn", None])
    if case.post_a is None and case.post_b is None:
        case.post_b = "vec"
    case.post = rng.choice(["right", "left", "pairwise"])


def apply_near_miss(rng, case, ks):
    near = case.near
    if near is None:
        return
    side = case.a if rng.random() < 0.5 or case.family == "post" else case.b
    if near in BODY_NEAR:
        if side.kind in ("none",) or side.body == "scaling":
            side.kind, side.spelling, side.scale_type = "row", "vec", "f32"
            side.scale_const = False
            if side.batched_scale is False and case.batch:
                side.batched_scale = True
        side.body = near
    elif near == "per_k_scale":
        side.kind, side.spelling, side.scale_type = "near", "per_k", "f32"
        side.body, side.scale_const = "mul_qs", False
    elif near == "const_index":
        side.kind, side.spelling, side.scale_type = "near", "const_index", "f32"
        side.body, side.scale_const = "mul_qs", False
    elif near == "block_mismatch":
        for op, c in ((case.a, ks[0]), (case.b, 2 * ks[0])):
            op.kind, op.spelling, op.block = "block", "k", (op.block[0], c)
            op.scale_type, op.body, op.scale_const = "f32", "mul_qs", False
        case.k = max(case.k, 2 * ks[0])
        case.a.k = case.b.k = case.k
    elif near == "view_within_block":
        case.a.kind, case.a.spelling = "near", "within"
        case.a.torch_view = False
    elif near == "bf16_out":
        case.out_bf16 = True
    elif near == "pre_and_post":
        case.a.kind, case.a.spelling, case.a.body = "row", "vec", "mul_qs"
        case.a.scale_type, case.a.scale_const = "f32", False
    if any(op.kind == "mx" for op in (case.a, case.b)) and near in (
            "per_k_scale", "const_index", "block_mismatch"):
        # E8M0 scales belong to MX: the other operand's mutation keeps the
        # pair consistent only with f32 scales on both sides.
        for op in (case.a, case.b):
            if op.kind == "mx":
                op.kind, op.spelling, op.scale_type = "row", "vec", "f32"
                op.body = "mul_qs"
                if op.etype in SUB_BYTE:
                    op.etype = "f8E4M3FN"
            if op.etype in SUB_BYTE:
                op.etype = "f8E4M3FN"
        if case.a.etype in FNUZ or case.b.etype in FNUZ:
            case.a.etype = case.b.etype = "f8E4M3FN"


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def random_scales(rng, shape, scale_type, extreme=False):
    """Scale values of `scale_type` (float64 holding them exactly; E8M0 as
    codes)."""
    count = int(np.prod(shape)) if len(shape) else 1
    if scale_type == "e8m0":
        return (127 + rng.integers(-8, 9, size=count)).astype(
            np.uint8).reshape(shape)
    lo, hi = (-40, 40) if extreme else (-6, 6)
    values = (np.where(rng.random(count) < 0.1, -1.0, 1.0)
              * (1 + rng.random(count)) * np.exp2(rng.integers(lo, hi + 1, count)))
    if scale_type == "f64":
        return values.reshape(shape)
    values = values.astype(np.float32).astype(np.float64)
    if scale_type == "f16":
        values = np.clip(np.abs(values), 2.0 ** -14, 60000.0) * np.sign(values)
        values = values.astype(np.float16).astype(np.float64)
    elif scale_type == "bf16":
        bits = values.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
        values = bits.view(np.float32).astype(np.float64)
    return values.reshape(shape)


def random_codes(rng, etype, shape):
    values = table(etype)
    finite = np.flatnonzero(np.isfinite(values))
    return rng.choice(finite, size=shape).astype(np.uint8)


def inject_nonfinite(rng, case):
    """One NaN code, or one scale set to infinity."""
    candidates = []
    for op, codes in ((case.a, case.a_codes), (case.b, case.b_codes)):
        bad = np.flatnonzero(~np.isfinite(table(op.etype)))
        if len(bad) and codes.size:
            candidates.append(("code", codes, bad))
    for values, op in ((case.sa_vals, case.a), (case.sb_vals, case.b)):
        if values is not None and op.scale_type in ("f32", "f16", "bf16") \
                and np.size(values) and op.has_scale_input() \
                and not op.scale_const:
            candidates.append(("scale", values, None))
    if not candidates:
        return
    kind, array, bad = candidates[int(rng.integers(0, len(candidates)))]
    flat = array.reshape(-1)
    i = int(rng.integers(0, flat.size))
    flat[i] = rng.choice(bad) if kind == "code" else np.inf
    case.nonfinite = kind


def make_data(rng, case):
    batch = (case.batch,) if case.batch else ()
    a, b = case.a, case.b
    case.a_codes = random_codes(rng, a.etype, batch + (case.m, case.k))
    b_shape = (case.n, case.k) if b.layout == "nk" else (case.k, case.n)
    case.b_codes = random_codes(rng, b.etype, batch + b_shape)
    extreme = rng.random() < 0.05
    for op, attr in ((a, "sa_vals"), (b, "sb_vals")):
        values = None
        if op.kind != "none":
            if op.spelling in ("const32", "const64"):
                shape = ()
            else:
                shape = tuple(op.scale_shape())
                if op.batched_scale:
                    shape = batch + shape
            values = np.array(random_scales(rng, shape, op.scale_type, extreme))
        setattr(case, attr, values)
    if case.family == "post":
        for side, attr, rows in ((case.post_a, "pa_vals", case.m),
                                 (case.post_b, "pb_vals", case.n)):
            shape = post_shape(side, rows)
            setattr(case, attr, None if side is None else
                    random_scales(rng, shape, "f32", extreme))
        if case.near == "post_elementwise":
            case.pe_vals = random_scales(rng, (case.m, case.n), "f32")
    case.c_values = None
    if case.init == "acc_arg":
        shape = batch + (case.m, case.n)
        case.c_values = (rng.standard_normal(shape) * 4).astype(np.float32).astype(
            np.float64)
    case.nonfinite = None
    if rng.random() < 0.05:
        inject_nonfinite(rng, case)


def post_shape(side, rows):
    return {"0d": (), "1": (1,), "11": (1, 1), "const32": (), "vec": (rows,),
            "keep": (rows, 1), "keep_mn": (1, rows), None: None}[side]


def make_case(seed, index, near_rate=0.25):
    rng = np.random.default_rng([seed, index])
    case = Case(index)
    choose(rng, case, near_rate)
    make_data(rng, case)
    return case


# ---------------------------------------------------------------------------
# Arguments and the model
# ---------------------------------------------------------------------------

def npy_of(values, etype, shape=None):
    """An argument's array in fp8-run's convention: 8-bit formats as uint8
    codes, FP4/FP6 packed along the last dimension, others as float32."""
    values = np.array(values, order="C")  # 0-d stays 0-d
    if shape is not None:
        values = values.reshape(shape)
    if etype in FORMATS:
        bits = width(etype)
        if bits < 8:
            flat = values.reshape(-1, values.shape[-1]).astype(np.uint8)
            packed = pack_rows(flat, bits)
            return packed.reshape(values.shape[:-1] + (packed.shape[-1],))
        return values.astype(np.uint8)
    if etype == "e8m0":
        return values.astype(np.uint8)
    return values.astype(np.float32)


def scale_to_f32(values, scale_type, mode):
    """The scale as the body converts it to f32 (float64 array)."""
    values = np.asarray(values)
    if scale_type == "e8m0":
        v = np.ldexp(1.0, values.astype(np.int64) - 127)
        return np.where(values == 255, np.nan, v)
    if scale_type != "f64":
        return values.astype(np.float64)
    with np.errstate(over="ignore"):
        nearest = values.astype(np.float32)
    if mode in (None, "to_nearest_even"):
        return nearest.astype(np.float64)
    toward = {"downward": -np.inf, "upward": np.inf, "toward_zero": 0.0}[mode]
    step = np.nextafter(nearest, np.float32(toward)).astype(np.float64)
    wrong = {"downward": nearest > values, "upward": nearest < values,
             "toward_zero": np.abs(nearest) > np.abs(values)}[mode]
    return np.where(wrong, step, nearest.astype(np.float64))


def dequantized(op, codes, scales):
    """[rows, K]: the f32 values op's dequantization computes, from its
    codes in [rows, K] order and its scale values (None: none)."""
    q = table(op.etype)[codes]
    s = None
    if op.kind != "none":
        s32 = scale_to_f32(scales, op.scale_type, op.truncf_mode)
        if op.spelling in ("const32", "const64"):
            s = np.full(q.shape, float(s32))
        else:
            s = op.expand_scale(s32)
    return dequantize(op.body, NumpyBody(), q, s)


def exact_product(va, vb):
    """va @ vb.T in float64, NaN wherever an IEEE sum would be (an input
    NaN, or infinities of both signs or times zero)."""
    with np.errstate(all="ignore"):
        ref = va @ vb.T
        mag = np.abs(va) @ np.abs(vb).T
        bad = (np.isnan(va).astype(float) @ np.ones_like(vb).T > 0) | (
            np.ones_like(va) @ np.isnan(vb).astype(float).T > 0)
        inf_a, inf_b = np.isinf(va), np.isinf(vb)
        if inf_a.any() or inf_b.any():
            terms = va[:, None, :] * vb[None, :, :]
            bad |= np.isnan(terms).any(axis=2)
            pos = (terms == np.inf).any(axis=2)
            neg = (terms == -np.inf).any(axis=2)
            bad |= pos & neg
            ref = np.where(pos & ~neg, np.inf, np.where(neg & ~pos, -np.inf, ref))
    return np.where(bad, np.nan, ref), mag


def post_factor(side, values, m, n, axis_rows):
    if side is None:
        return None
    v = np.asarray(values, np.float64)
    if side in ("0d", "const32", "1", "11"):
        return np.full((m, n), float(v.reshape(-1)[0]))
    vec = v.reshape(-1)
    return (np.broadcast_to(vec[:, None], (m, n)) if axis_rows
            else np.broadcast_to(vec[None, :], (m, n)))


def reference(case):
    """(reference, magnitude) of the case's result, float64 [(B,) M, N]."""
    refs, mags = [], []
    for i in range(max(case.batch, 1)):
        pick = (lambda x: x[i]) if case.batch else (lambda x: x)
        sa = pick(case.sa_vals) if case.a.batched_scale else case.sa_vals
        sb = pick(case.sb_vals) if case.b.batched_scale else case.sb_vals
        cb = pick(case.b_codes)
        va = dequantized(case.a, pick(case.a_codes), sa)
        vb = dequantized(case.b, cb if case.b.layout == "nk" else cb.T, sb)
        ref, mag = exact_product(va, vb)
        refs.append(ref)
        mags.append(mag)
    ref, mag = (np.stack(refs), np.stack(mags)) if case.batch else (refs[0],
                                                                     mags[0])
    if case.post:
        ref, mag = reference_post(case, ref, mag)
    c = {"fill_const": 0.5, "negzero_fill": -0.0}.get(case.init)
    if case.init == "acc_arg":
        c = case.c_values
    if c is not None:
        with np.errstate(all="ignore"):
            ref, mag = ref + c, mag + np.abs(c)
    if case.out_bf16:
        ref = NumpyBody().round_bf16(ref.astype(np.float32).astype(np.float64))
    return ref, mag


def reference_post(case, ref, mag):
    m, n = case.m, case.n
    sa = post_factor(case.post_a, case.pa_vals, m, n, True)
    sb = post_factor(case.post_b, case.pb_vals, m, n, False)
    near = case.near
    order = {"post_twice": "twice", "post_add": "add"}.get(near, case.post)
    if near == "post_elementwise":
        sa, sb, order = case.pe_vals, None, "right"
    with np.errstate(all="ignore"):
        out = post_scale(order, NumpyBody(), ref, sa, sb)
        # The same operations on magnitudes.
        mag = post_scale(order, NumpyBody(), mag,
                         None if sa is None else np.abs(sa),
                         None if sb is None else np.abs(sb))
    return out, mag
