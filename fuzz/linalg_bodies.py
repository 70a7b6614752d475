"""The element-wise bodies of the generated linalg programs, written once
and read two ways: as MLIR text (`TextBody`) and as numpy arithmetic
rounded as f32 is (`NumpyBody`), so that the program and its model come
from the same description (fuzz/linalg_programs.py)."""
import numpy as np

# Dequantization bodies: the accepted forms, then near misses.
ACCEPTED = ["mul_qs", "mul_sq", "div_qs", "scaling"]
NEAR = ["scale_twice", "add_scale", "zero_point", "relu", "bf16_round",
        "third_factor"]


def dequantize(variant, e, q, s):
    """The dequantized value of data element `q` with scale `s` (None:
    no scale) as `variant` computes it, through emitter `e`."""
    if variant == "scaling":
        return e.scaling_extf(q, s)
    x = e.ext(q)
    if s is None or variant == "none":
        return x
    t = e.scale(s)
    if variant == "mul_qs":
        return e.mul(x, t)
    if variant == "mul_sq":
        return e.mul(t, x)
    if variant == "scale_twice":
        return e.mul(e.mul(x, t), t)
    if variant == "add_scale":
        return e.add(x, t)
    if variant == "div_qs":
        return e.div(x, t)
    if variant == "zero_point":
        return e.mul(e.sub(x, e.const(1.0)), t)
    if variant == "relu":
        return e.maximum(e.mul(x, t), e.const(0.0))
    if variant == "bf16_round":
        return e.round_bf16(e.mul(x, t))
    if variant == "third_factor":
        return e.mul(e.mul(x, t), e.const(2.0))
    raise ValueError(variant)


def post_scale(order, e, p, sa, sb):
    """Scales after the product: `order` says how the factors associate
    (None: that side has none)."""
    factors = [f for f in (sa, sb) if f is not None]
    if order == "twice":
        return e.mul(e.mul(p, factors[0]), factors[0])
    if order == "add":
        return e.add(e.mul(p, factors[0]), factors[0])
    if len(factors) == 1:
        return e.mul(p, factors[0]) if order != "left" else e.mul(factors[0], p)
    if order == "pairwise":
        return e.mul(p, e.mul(factors[0], factors[1]))
    if order == "left":
        return e.mul(factors[1], e.mul(factors[0], p))
    return e.mul(e.mul(p, factors[0]), factors[1])


class TextBody:
    """Prints a body's operations; values are SSA names with types."""

    def __init__(self, prefix, truncf_mode=None, e8m0_decode=False):
        self.lines, self.count, self.prefix = [], 0, prefix
        self.truncf_mode = truncf_mode
        # E8M0 scales decoded arithmetically (2^(e - 127), NaN for 255, as
        # torchao writes it) instead of by extf.
        self.e8m0_decode = e8m0_decode

    def _new(self, text):
        name = f"%{self.prefix}{self.count}"
        self.count += 1
        self.lines.append(f"    {name} = {text}")
        return name

    def ext(self, q):
        name, etype = q
        return self._new(f"arith.extf {name} : {etype} to f32")

    def scale(self, s):
        name, stype = s
        if stype == "f32":
            return name
        if stype == "f64":
            mode = f" {self.truncf_mode}" if self.truncf_mode else ""
            return self._new(f"arith.truncf {name}{mode} : f64 to f32")
        if stype == "e8m0" and self.e8m0_decode:
            bits = self._new(f"arith.bitcast {name} : f8E8M0FNU to i8")
            wide = self._new(f"arith.extui {bits} : i8 to i32")
            bias = self._new("arith.constant 127 : i32")
            unbiased = self._new(f"arith.subi {wide}, {bias} : i32")
            exponent = self._new(f"arith.sitofp {unbiased} : i32 to f32")
            power = self._new(f"math.exp2 {exponent} : f32")
            nan_code = self._new("arith.constant 255 : i32")
            is_nan = self._new(f"arith.cmpi eq, {wide}, {nan_code} : i32")
            nan = self._new("arith.constant 0x7FC00000 : f32")
            return self._new(f"arith.select {is_nan}, {nan}, {power} : f32")
        if stype == "e8m0":
            stype = "f8E8M0FNU"
        return self._new(f"arith.extf {name} : {stype} to f32")

    def scaling_extf(self, q, s):
        return self._new(f"arith.scaling_extf {q[0]}, {s[0]} : {q[1]}, "
                         f"f8E8M0FNU to f32")

    def mul(self, x, y):
        return self._new(f"arith.mulf {x}, {y} : f32")

    def add(self, x, y):
        return self._new(f"arith.addf {x}, {y} : f32")

    def sub(self, x, y):
        return self._new(f"arith.subf {x}, {y} : f32")

    def div(self, x, y):
        return self._new(f"arith.divf {x}, {y} : f32")

    def maximum(self, x, y):
        return self._new(f"arith.maximumf {x}, {y} : f32")

    def round_bf16(self, x):
        t = self._new(f"arith.truncf {x} : f32 to bf16")
        return self._new(f"arith.extf {t} : bf16 to f32")

    def const(self, value):
        return self._new(f"arith.constant {value!r} : f32")


def _f32(x):
    with np.errstate(all="ignore"):
        return np.asarray(x, np.float64).astype(np.float32).astype(np.float64)


class NumpyBody:
    """The same operations on float64 arrays holding f32 values, each
    result rounded to f32 (to nearest even, as arith does)."""

    def ext(self, q):
        return q

    def scale(self, s):
        return s

    def scaling_extf(self, q, s):
        return self.mul(q, s)

    def mul(self, x, y):
        with np.errstate(all="ignore"):
            return _f32(np.asarray(x) * np.asarray(y))

    def add(self, x, y):
        with np.errstate(all="ignore"):
            return _f32(np.asarray(x) + np.asarray(y))

    def sub(self, x, y):
        with np.errstate(all="ignore"):
            return _f32(np.asarray(x) - np.asarray(y))

    def div(self, x, y):
        with np.errstate(all="ignore"):
            return _f32(np.asarray(x) / np.asarray(y))

    def maximum(self, x, y):
        # arith.maximumf propagates NaN.
        with np.errstate(all="ignore"):
            return np.maximum(x, y)

    def round_bf16(self, x):
        bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        out = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
        return np.where(np.isnan(x), x, out)

    def const(self, value):
        return value
