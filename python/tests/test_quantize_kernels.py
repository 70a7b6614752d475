"""qmm.quantize and qmm.dequantize compiled for the device (the AMD
pipeline's qmm-lower-quantization-to-loops kernels, run on the emulator)
against the host quantizer and dequantizer, an independent C++
implementation: every code and scale bit-equal; dequantized values equal to
the f64 product value(code) * scale rounded once to f32, then to the output
type."""
import numpy as np
import pytest

import qmm

RNG = np.random.default_rng(7)

ENCODINGS = {
    "tensor": "#qmm.scale<per_tensor>",
    "row": "#qmm.scale<per_row>",
    "1x128": "#qmm.scale<block 1x128>",
    "128x128": "#qmm.scale<block 128x128>",
    "mx32": "#qmm.scale<mx>",
}
STORAGE_BITS = {"f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6}


def _scale_shape(scale, rows, k, mn_major):
    if scale == "tensor":
        shape = [1, 1]
    elif scale == "row":
        shape = [rows, 1]
    elif scale == "mx32":
        shape = [rows, k // 32]
    else:
        r, c = (int(v) for v in scale.split("x"))
        shape = [-(-rows // r), -(-k // c)]
    return shape[::-1] if mn_major else shape


def _tensor(shape, element):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + element + ">"


def _encoding(scale, mn_major):
    text = ENCODINGS[scale]
    return text[:-1] + ", mn_major>" if mn_major else text


def quantize_ir(element, scale, rows, k, layout, rounding, mn_major):
    shape = [rows, k] if layout == "nk" else [k, rows]
    scale_type = "f8E8M0FNU" if scale == "mx32" else "f32"
    x, q = _tensor(shape, "f32"), _tensor(shape, element)
    s = _tensor(_scale_shape(scale, rows, k, mn_major), scale_type)
    extra = (" layout kn" if layout == "kn" else "") + \
        (f" rounding {rounding}" if rounding else "")
    return f"""
func.func @quantize(%x: {x}) -> ({q}, {s}) {{
  %q0 = tensor.empty() : {q}
  %s0 = tensor.empty() : {s}
  %q, %s = qmm.quantize %x : {x} encoding {_encoding(scale, mn_major)}{extra}
             outs(%q0, %s0 : {q}, {s}) -> {q}, {s}
  return %q, %s : {q}, {s}
}}"""


def dequantize_ir(element, scale, rows, k, layout, mn_major, out_type):
    shape = [rows, k] if layout == "nk" else [k, rows]
    scale_type = "f8E8M0FNU" if scale == "mx32" else "f32"
    q, out = _tensor(shape, element), _tensor(shape, out_type)
    s = _tensor(_scale_shape(scale, rows, k, mn_major), scale_type)
    extra = " layout kn" if layout == "kn" else ""
    return f"""
func.func @dequantize(%q: {q}, %s: {s}) -> {out} {{
  %o0 = tensor.empty() : {out}
  %o = qmm.dequantize %q, %s : {q}, {s} encoding {_encoding(scale, mn_major)}{extra}
         outs(%o0 : {out}) -> {out}
  return %o : {out}
}}"""


# (element type, scale, rows, K, layout, rounding, MN-major, chip): per-token
# and 128x128 blocks (two passes) with partial blocks, per-tensor over the
# whole tensor (two passes), per-row, MX with packed FP4/FP6 rows ([K, rows]
# FP6 and FP4 rows ending in a tail group: 37 rows), MN-major scales, a
# transposed input with blocks of 128 rows. Every input but the per-tensor
# one holds a NaN and an Inf.
CASES = [
    ("f8E4M3FNUZ", "1x128", 70, 300, "nk", None, False, "gfx942"),
    ("f8E4M3FN", "128x128", 200, 256, "nk", None, False, "gfx950"),
    ("f8E5M2", "tensor", 33, 96, "nk", None, False, "gfx942"),
    ("f8E5M2FNUZ", "row", 48, 160, "kn", None, False, "gfx942"),
    ("f8E4M3FN", "row", 24, 128, "nk", "pow2_ceil", False, "gfx950"),
    ("f8E4M3FN", "1x128", 40, 256, "nk", "pow2_floor", True, "gfx950"),
    ("f4E2M1FN", "mx32", 16, 128, "nk", None, False, "gfx950"),
    ("f6E3M2FN", "mx32", 16, 96, "nk", "pow2_ceil", False, "gfx942"),
    ("f6E2M3FN", "mx32", 37, 64, "kn", None, False, "gfx950"),
    ("f8E4M3FN", "mx32", 20, 64, "nk", None, False, "gfx942"),
    ("f4E2M1FN", "mx32", 37, 64, "kn", "pow2_ceil", False, "gfx942"),
    ("f8E4M3FN", "128x128", 130, 256, "kn", None, False, "gfx950"),
]


def _input(rows, k, layout, specials=True):
    x = RNG.standard_normal((rows, k)).astype(np.float32)
    x *= np.exp(RNG.uniform(-6, 6, (rows, 1))).astype(np.float32)
    x[0, :5] = [0.0, -0.0, 1e-30, -3.0e4, 7.0]  # zeros, a subnormal code, saturation
    if specials:
        # A NaN and an Inf: their blocks get NaN scales, their codes NaN
        # or 0.
        x[rows - 1, k // 2] = np.nan
        x[rows // 2, 1] = -np.inf
    return x if layout == "nk" else np.ascontiguousarray(x.T)


@pytest.mark.parametrize("element,scale,rows,k,layout,rounding,mn_major,chip",
                         CASES)
def test_quantize_kernel_matches_host(element, scale, rows, k, layout,
                                      rounding, mn_major, chip):
    x = _input(rows, k, layout, specials=scale != "tensor")
    ir = quantize_ir(element, scale, rows, k, layout, rounding, mn_major)
    codes, scales = qmm.run(ir, "quantize", [x], device="emu", chip=chip)
    want_codes, want_scales = qmm.quantize(x, element, scale, layout,
                                           rounding, mn_major=mn_major)
    assert codes.shape == want_codes.shape
    assert (codes == want_codes).all(), "codes differ"
    assert (scales.view(np.uint8) == want_scales.view(np.uint8)).all(), \
        "scales differ"


def _round_bf16(x):
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("out_type", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("element,scale,rows,k,layout,rounding,mn_major,chip",
                         CASES[0:6:3] + CASES[6:])
def test_dequantize_kernel_matches_host(element, scale, rows, k, layout,
                                        rounding, mn_major, chip, out_type):
    x = _input(rows, k, layout, specials=scale != "tensor")
    codes, scales = qmm.quantize(x, element, scale, layout, rounding,
                                 mn_major=mn_major)
    ir = dequantize_ir(element, scale, rows, k, layout, mn_major, out_type)
    out, = qmm.run(ir, "dequantize", [codes, scales], device="emu", chip=chip)
    # The host's f64 value * scale is exact; the op rounds it to f32, then
    # to the output type.
    exact = qmm.dequantize(codes, scales, element, scale, rows, k, layout,
                           mn_major=mn_major)
    want = np.float32(exact if layout == "nk" else exact.T)
    if out_type == "bf16":
        want = _round_bf16(want)
    elif out_type == "f16":
        want = np.float32(np.float16(want))
    assert out.shape == want.shape
    same = np.where(np.isnan(want), np.isnan(out),
                    out.view(np.uint32) == want.view(np.uint32))
    assert same.all()


def test_quantize_kernel_dynamic_rows():
    # One program, rows known at run time: the grid and the loops follow.
    ir = """
func.func @quantize(%x: tensor<?x256xbf16>) -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %q0 = tensor.empty(%m) : tensor<?x256xf8E4M3FN>
  %s0 = tensor.empty(%m) : tensor<?x2xf32>
  %q, %s = qmm.quantize %x : tensor<?x256xbf16> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>)
             -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  return %q, %s : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
}"""
    program = qmm.Program(ir, "quantize", "emu", "gfx950")
    for rows in (1, 5, 130):
        x = _round_bf16(RNG.standard_normal((rows, 256)).astype(np.float32))
        codes, scales = program(x)
        want_codes, want_scales = qmm.quantize(x, "f8E4M3FN", "1x128")
        assert (codes == want_codes).all() and (scales == want_scales).all()


def test_auto_device_falls_back_to_cpu():
    # Packed FP4 codes with a dynamic number of rows: the AMD pipeline
    # refuses them (packed rows are addressed by byte from static extents),
    # so the auto device runs the program on the cpu device, which
    # specializes it to the call's shapes.
    ir = """
func.func @quantize(%x: tensor<?x64xf32>) -> (tensor<?x64xf4E2M1FN>, tensor<?x2xf8E8M0FNU>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %q0 = tensor.empty(%m) : tensor<?x64xf4E2M1FN>
  %s0 = tensor.empty(%m) : tensor<?x2xf8E8M0FNU>
  %q, %s = qmm.quantize %x : tensor<?x64xf32> encoding #qmm.scale<mx>
             outs(%q0, %s0 : tensor<?x64xf4E2M1FN>, tensor<?x2xf8E8M0FNU>)
             -> tensor<?x64xf4E2M1FN>, tensor<?x2xf8E8M0FNU>
  return %q, %s : tensor<?x64xf4E2M1FN>, tensor<?x2xf8E8M0FNU>
}"""
    with pytest.raises(RuntimeError, match="packed 'f4E2M1FN' data needs "
                                           "static shapes"):
        qmm.run(ir, "quantize", [np.zeros((3, 64), np.float32)],
                device="emu", chip="gfx950")
    for rows in (3, 10):
        x = RNG.standard_normal((rows, 64)).astype(np.float32)
        codes, scales = qmm.run(ir, "quantize", [x], device="auto",
                                chip="gfx950")
        want_codes, want_scales = qmm.quantize(x, "f4E2M1FN", "mx32")
        assert (codes == want_codes).all() and (scales == want_scales).all()
