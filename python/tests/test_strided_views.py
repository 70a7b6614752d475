"""Operands that are views (what qmm-linalg-to-qmm raises a dequantized
slice to): strided along K or N, rank-reducing slices, batch slices with
offsets, strided scales, bias and outputs, quantize and dequantize on
views. Each program runs through the AMD pipeline on the emulator for
both chips and on the cpu device (the reference lowering); the results
agree within the f32 accumulation bound, the cpu device's with numpy's
product of the dequantized operands. Before qmm-copy-strided-operands,
the gfx950 pipeline (and gfx942's for FNUZ data, which no legalization
copies) emitted a vector.load on a strided memref: invalid IR."""
import numpy as np
import pytest

import qmm

RNG = np.random.default_rng(11)
CHIPS = ["gfx942", "gfx950"]
ELEMENTS = ["f8E4M3FN", "f8E4M3FNUZ"]


def codes(element, rows, k, scale="row"):
    """Random data quantized [rows, k]; its scales; the dequantized values
    (float64)."""
    x = RNG.standard_normal((rows, k)).astype(np.float32)
    q, s = qmm.quantize(x, element, scale)
    return q, s, qmm.dequantize(q, s, element, scale, rows, k)


def bound(va, vb, c=0.0):
    k = va.shape[1]
    return 2 * (k + 2) * 2.0 ** -24 * (np.abs(va) @ np.abs(vb).T + np.abs(c))


def run_both(ir, args, chip):
    """The results on the emulator and on the cpu device."""
    got = qmm.run(ir, "f", args, device="emu", chip=chip)
    expected = qmm.run(ir, "f", args, device="cpu", chip=chip)
    return got, expected


def matmul(a, b, element, out="f32", extra=""):
    """A qmm.matmul line on values %a and %b (per-row scales %sa, %sb)."""
    return (f"qmm.matmul a({a}, %sa : tensor<32x128x{element}>, "
            f"tensor<32x1xf32>) #qmm.scale<per_row> "
            f"b({b}, %sb : tensor<16x128x{element}>, tensor<16x1xf32>) "
            f"#qmm.scale<per_row> {extra}")


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("element", ELEMENTS)
@pytest.mark.parametrize("view", ["b_k_stride", "a_k_stride",
                                  "b_rank_reducing", "a_batch_slice"])
def test_operand_views(chip, element, view):
    e = element
    qa, sa, va = codes(e, 32, 128)
    qb, sb, vb = codes(e, 16, 128)
    # The function's arguments hold the operands inside larger tensors.
    if view == "b_k_stride":
        # B = bb[:, 1::2] (the program).
        bb = np.zeros((16, 256), np.uint8)
        bb[:, 1::2] = qb
        sig = f"%a: tensor<32x128x{e}>, %bb: tensor<16x256x{e}>"
        body = (f"%b = tensor.extract_slice %bb[0, 1] [16, 128] [1, 2] : "
                f"tensor<16x256x{e}> to tensor<16x128x{e}>")
        args = [qa, sa, bb, sb]
    elif view == "a_k_stride":
        # A = aa[:, 0:256:2] beside unrelated codes.
        aa = RNG.integers(0, 256, (32, 256)).astype(np.uint8)
        aa[:, 0::2] = qa
        sig = f"%aa: tensor<32x256x{e}>, %b: tensor<16x128x{e}>"
        body = (f"%a = tensor.extract_slice %aa[0, 0] [32, 128] [1, 2] : "
                f"tensor<32x256x{e}> to tensor<32x128x{e}>")
        args = [aa, sa, qb, sb]
    elif view == "b_rank_reducing":
        # B = bb[:, :, 1] of [16, 128, 2]: its K stride is 2.
        bb = np.zeros((16, 128, 2), np.uint8)
        bb[:, :, 1] = qb
        sig = f"%a: tensor<32x128x{e}>, %bb: tensor<16x128x2x{e}>"
        body = (f"%b = tensor.extract_slice %bb[0, 0, 1] [16, 128, 1] "
                f"[1, 1, 1] : tensor<16x128x2x{e}> to tensor<16x128x{e}>")
        args = [qa, sa, bb, sb]
    else:
        # A = aa[1] of [3, 32, 128]: an offset, K contiguous.
        aa = RNG.integers(0, 256, (3, 32, 128)).astype(np.uint8)
        aa[1] = qa
        sig = f"%aa: tensor<3x32x128x{e}>, %b: tensor<16x128x{e}>"
        body = (f"%a = tensor.extract_slice %aa[1, 0, 0] [1, 32, 128] "
                f"[1, 1, 1] : tensor<3x32x128x{e}> to tensor<32x128x{e}>")
        args = [aa, sa, qb, sb]
    a_arg, b_arg = sig.split(", ")
    ir = f"""
func.func @f({a_arg}, %sa: tensor<32x1xf32>, {b_arg}, %sb: tensor<16x1xf32>)
    -> tensor<32x16xf32> {{
  {body}
  %c = tensor.empty() : tensor<32x16xf32>
  %d = {matmul('%a', '%b', e)} outs(%c : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}}"""
    (got,), (expected,) = run_both(ir, args, chip)
    limit = bound(va, vb)
    assert (np.abs(got - expected) <= limit).all()
    assert (np.abs(expected - va @ vb.T) <= limit).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_b_kn_strided_along_n(chip):
    """B stored [K, N] (layout kn) as every other column of [K, 2N]."""
    e = "f8E4M3FN"
    qa, sa, va = codes(e, 32, 128, "tensor")
    x = RNG.standard_normal((128, 16)).astype(np.float32)
    qb, sb = qmm.quantize(x, e, "tensor", layout="kn")
    vb = qmm.dequantize(qb, sb, e, "tensor", 16, 128, layout="kn")
    bb = np.zeros((128, 32), np.uint8)
    bb[:, 0::2] = qb
    ir = f"""
func.func @f(%a: tensor<32x128x{e}>, %sa: tensor<1x1xf32>,
             %bb: tensor<128x32x{e}>, %sb: tensor<1x1xf32>) -> tensor<32x16xf32> {{
  %b = tensor.extract_slice %bb[0, 0] [128, 16] [1, 2] : tensor<128x32x{e}> to tensor<128x16x{e}>
  %c = tensor.empty() : tensor<32x16xf32>
  %d = qmm.matmul a(%a, %sa : tensor<32x128x{e}>, tensor<1x1xf32>) #qmm.scale<per_tensor>
                  b(%b, %sb : tensor<128x16x{e}>, tensor<1x1xf32>) #qmm.scale<per_tensor> layout kn
                  outs(%c : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}}"""
    (got,), (expected,) = run_both(ir, [qa, sa, bb, sb], chip)
    limit = bound(va, vb)
    assert (np.abs(got - expected) <= limit).all()
    assert (np.abs(expected - va @ vb.T) <= limit).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_strided_scales_bias_and_output(chip):
    """Blockwise A scales read with a stride, a strided bias, and D
    accumulated into every other column of a wider C (written back through
    tensor.insert_slice): the other columns keep their values."""
    e, k = "f8E4M3FNUZ", 256
    qa, sa, va = codes(e, 32, k, "1x128")
    qb, sb, vb = codes(e, 16, k, "row")
    saa = np.zeros((32, 4), np.float32)
    saa[:, 0::2] = sa
    bias = RNG.standard_normal(16).astype(np.float32)
    bias2 = np.zeros(32, np.float32)
    bias2[1::2] = bias
    cc = RNG.standard_normal((32, 32)).astype(np.float32)
    ir = f"""
func.func @f(%a: tensor<32x{k}x{e}>, %saa: tensor<32x4xf32>,
             %b: tensor<16x{k}x{e}>, %sb: tensor<16x1xf32>,
             %bias2: tensor<32xf32>, %cc: tensor<32x32xf32>) -> tensor<32x32xf32> {{
  %sa = tensor.extract_slice %saa[0, 0] [32, 2] [1, 2] : tensor<32x4xf32> to tensor<32x2xf32>
  %bias = tensor.extract_slice %bias2[1] [16] [2] : tensor<32xf32> to tensor<16xf32>
  %c = tensor.extract_slice %cc[0, 1] [32, 16] [1, 2] : tensor<32x32xf32> to tensor<32x16xf32>
  %d = qmm.matmul a(%a, %sa : tensor<32x{k}x{e}>, tensor<32x2xf32>) #qmm.scale<block 1x128>
                  b(%b, %sb : tensor<16x{k}x{e}>, tensor<16x1xf32>) #qmm.scale<per_row>
                  accumulate bias(%bias : tensor<16xf32>)
                  outs(%c : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = tensor.insert_slice %d into %cc[0, 1] [32, 16] [1, 2] : tensor<32x16xf32> into tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}}"""
    (got,), (expected,) = run_both(ir, [qa, saa, qb, sb, bias2, cc], chip)
    c = cc[:, 1::2]
    # One more rounding each for C and the bias.
    limit = 2 * (k + 4) * 2.0 ** -24 * (np.abs(va) @ np.abs(vb).T +
                                        np.abs(c) + np.abs(bias))
    assert (got[:, 0::2] == cc[:, 0::2]).all()
    assert (expected[:, 0::2] == cc[:, 0::2]).all()
    assert (np.abs(got - expected)[:, 1::2] <= limit).all()
    reference = c + va @ vb.T + bias
    assert (np.abs(expected[:, 1::2] - reference) <= limit).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_quantize_and_dequantize_views(chip):
    """qmm.quantize of every other column of an f32 tensor, and
    qmm.dequantize into every other column of another: the device's codes,
    scales and values equal the cpu device's."""
    e = "f8E4M3FN"
    xx = RNG.standard_normal((16, 256)).astype(np.float32)
    yy = RNG.standard_normal((16, 256)).astype(np.float32)
    ir = f"""
func.func @f(%xx: tensor<16x256xf32>, %yy: tensor<16x256xf32>)
    -> (tensor<16x128x{e}>, tensor<16x1xf32>, tensor<16x256xf32>) {{
  %x = tensor.extract_slice %xx[0, 1] [16, 128] [1, 2] : tensor<16x256xf32> to tensor<16x128xf32>
  %q0 = tensor.empty() : tensor<16x128x{e}>
  %s0 = tensor.empty() : tensor<16x1xf32>
  %q, %s = qmm.quantize %x : tensor<16x128xf32> encoding #qmm.scale<per_row>
             outs(%q0, %s0 : tensor<16x128x{e}>, tensor<16x1xf32>)
             -> tensor<16x128x{e}>, tensor<16x1xf32>
  %y0 = tensor.extract_slice %yy[0, 0] [16, 128] [1, 2] : tensor<16x256xf32> to tensor<16x128xf32>
  %y = qmm.dequantize %q, %s : tensor<16x128x{e}>, tensor<16x1xf32> encoding #qmm.scale<per_row>
         outs(%y0 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %r = tensor.insert_slice %y into %yy[0, 0] [16, 128] [1, 2] : tensor<16x128xf32> into tensor<16x256xf32>
  return %q, %s, %r : tensor<16x128x{e}>, tensor<16x1xf32>, tensor<16x256xf32>
}}"""
    got, expected = run_both(ir, [xx, yy], chip)
    q, s = qmm.quantize(np.ascontiguousarray(xx[:, 1::2]), e, "row")
    assert (got[0] == expected[0]).all() and (got[0] == q).all()
    assert (got[1] == expected[1]).all() and (got[1] == s).all()
    assert (got[2] == expected[2]).all()
    assert (got[2][:, 1::2] == yy[:, 1::2]).all()
    values = qmm.dequantize(q, s, e, "row", 16, 128)
    assert (got[2][:, 0::2] == values.astype(np.float32)).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_packed_view_is_refused(chip):
    """Packed FP4 data viewed with a stride along K: two values share a
    byte, so no element-wise copy can make it contiguous; the pipeline
    refuses it with the reason."""
    ir = """
func.func @f(%aa: tensor<32x256xf4E2M1FN>, %sa: tensor<32x1xf32>,
             %b: tensor<16x128xf8E4M3FN>, %sb: tensor<16x1xf32>) -> tensor<32x16xf32> {
  %a = tensor.extract_slice %aa[0, 0] [32, 128] [1, 2] : tensor<32x256xf4E2M1FN> to tensor<32x128xf4E2M1FN>
  %c = tensor.empty() : tensor<32x16xf32>
  %d = qmm.matmul a(%a, %sa : tensor<32x128xf4E2M1FN>, tensor<32x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<16x128xf8E4M3FN>, tensor<16x1xf32>) #qmm.scale<per_row>
                  outs(%c : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}"""
    with pytest.raises(RuntimeError, match="must be whole buffers"):
        qmm.compile(ir, chip)


@pytest.mark.parametrize("chip", CHIPS)
def test_quantize_batch_slice(chip):
    """qmm.quantize of one batch of a [2, 16, 128] tensor (an offset view,
    which the quantization loops took only as a whole buffer)."""
    e = "f8E4M3FNUZ"
    xx = RNG.standard_normal((2, 16, 128)).astype(np.float32)
    ir = f"""
func.func @f(%xx: tensor<2x16x128xf32>) -> (tensor<16x128x{e}>, tensor<16x1xf32>) {{
  %x = tensor.extract_slice %xx[1, 0, 0] [1, 16, 128] [1, 1, 1] : tensor<2x16x128xf32> to tensor<16x128xf32>
  %q0 = tensor.empty() : tensor<16x128x{e}>
  %s0 = tensor.empty() : tensor<16x1xf32>
  %q, %s = qmm.quantize %x : tensor<16x128xf32> encoding #qmm.scale<block 1x128>
             outs(%q0, %s0 : tensor<16x128x{e}>, tensor<16x1xf32>)
             -> tensor<16x128x{e}>, tensor<16x1xf32>
  return %q, %s : tensor<16x128x{e}>, tensor<16x1xf32>
}}"""
    got, expected = run_both(ir, [xx], chip)
    q, s = qmm.quantize(xx[1], e, "1x128")
    for device in (got, expected):
        assert (device[0] == q).all() and (device[1] == s).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_dynamic_m_with_strided_b(chip):
    """A dynamic M puts the matmul in the branches of an scf.if (its small-M
    and large-M versions): B's copy runs there as a kernel too. One program
    compiled once, called with M = 3 and 70, against the cpu device and
    numpy."""
    e = "f8E4M3FNUZ"
    qb, sb, vb = codes(e, 16, 128)
    bb = np.zeros((16, 256), np.uint8)
    bb[:, 1::2] = qb
    ir = f"""
func.func @f(%a: tensor<?x128x{e}>, %sa: tensor<?x1xf32>,
             %bb: tensor<16x256x{e}>, %sb: tensor<16x1xf32>) -> tensor<?x16xf32> {{
  %b = tensor.extract_slice %bb[0, 1] [16, 128] [1, 2] : tensor<16x256x{e}> to tensor<16x128x{e}>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x128x{e}>
  %c = tensor.empty(%m) : tensor<?x16xf32>
  %d = qmm.matmul a(%a, %sa : tensor<?x128x{e}>, tensor<?x1xf32>) #qmm.scale<per_row>
                  b(%b, %sb : tensor<16x128x{e}>, tensor<16x1xf32>) #qmm.scale<per_row>
                  outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %d : tensor<?x16xf32>
}}"""
    once = qmm.Program(ir, "f", "emu", chip)
    for m in (3, 70):
        qa, sa, va = codes(e, m, 128)
        (got,) = once(qa, sa, bb, sb)
        (expected,) = qmm.run(ir, "f", [qa, sa, bb, sb], device="cpu",
                              chip=chip)
        limit = bound(va, vb)
        assert got.shape == (m, 16)
        assert (np.abs(got - expected) <= limit).all()
        assert (np.abs(expected - va @ vb.T) <= limit).all()
