"""The frontend forms beyond dequantize-then-matmul on [R, K] tensors
(test/Conversion/LinalgToQMM: linalg-to-qmm-loop-groups.mlir,
-scale-spellings.mlir, -widening.mlir, -implicit-quantization.mlir): each linalg program runs as it is
on the CPU device (upstream linalg semantics) and, raised to qmm.matmul,
through the AMD pipeline on the emulator for both chips. Both results
agree within twice the f32 accumulation bound, and the linalg program's
result is the product of the operands dequantized independently here
(numpy, from the codes' exact values)."""
import os

import numpy as np
import pytest

import qmm
from conftest import SOURCE_DIR

FORMS = os.path.join(SOURCE_DIR, "test", "Conversion", "LinalgToQMM")
RNG = np.random.default_rng(46)
CHIPS = ["gfx942", "gfx950"]


def program(name, file):
    with open(os.path.join(FORMS, file)) as f:
        for chunk in f.read().split("// -----"):
            if f"func.func @{name}(" in chunk:
                return chunk
    raise KeyError(name)


def quantized(element, scale, rows, k, layout="nk", mn_major=False):
    """Random data quantized (codes, scales as stored) and its value
    [rows, K] in float64."""
    shape = (rows, k) if layout == "nk" else (k, rows)
    x = RNG.standard_normal(shape).astype(np.float32)
    codes, scales = qmm.quantize(x, element, scale, layout=layout,
                                 mn_major=mn_major)
    values = qmm.dequantize(codes, scales, element, scale, rows, k,
                            layout=layout, mn_major=mn_major)
    return codes, scales, values


def check(name, file, args, va, vb, chip, raised_has=()):
    """The raised program on the emulator against the linalg program on the
    cpu device, and that against va [M, K] @ vb [N, K]^T (M may be spread
    over the result's leading dimensions)."""
    ir = program(name, file)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised
    for text in raised_has:
        assert text in raised, text
    expected = qmm.run(ir, name, args, device="cpu", chip=chip)[0]
    got = qmm.run(raised, name, args, device="emu", chip=chip)[0]
    assert got.shape == expected.shape
    k = va.shape[-1]
    bound = 2 * (k + 2) * 2.0 ** -24 * (np.abs(va) @ np.abs(vb).T)
    bound = bound.reshape(expected.shape)
    reference = (va @ vb.T).reshape(expected.shape)
    assert (np.abs(got - expected) <= bound).all()
    assert (np.abs(expected - reference) <= bound).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_split_k_mx_in_body(chip):
    """MX data whose K is split in the type ([R, K/32, 32]), scales [R,
    K/32], dequantized in the contraction's body."""
    qa, sa, va = quantized("f8E4M3FN", "mx32", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "mx32", 16, 64)
    args = [qa.reshape(32, 2, 32), sa, qb.reshape(16, 2, 32), sb]
    check("split_k_mx_in_body", "linalg-to-qmm-loop-groups.mlir", args, va,
          vb, chip, ["#qmm.scale<mx>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_split_k_blockwise_generics(chip):
    """1x128 x 128x128 blocks with K split in the types, dequantized by
    generics of their own (IREE's form)."""
    qa, sa, va = quantized("f8E4M3FN", "1x128", 64, 256)
    qb, sb, vb = quantized("f8E4M3FN", "128x128", 128, 256)
    args = [qa.reshape(64, 2, 128), sa, qb.reshape(128, 2, 128), sb]
    check("split_k_blockwise_generics", "linalg-to-qmm-loop-groups.mlir",
          args, va, vb, chip, ["#qmm.scale<block 128x128>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_tokens_over_batch_and_seq(chip):
    """[batch, seq, K] activations with per-token scales [batch, seq]
    against a 2-D weight with per-channel scales."""
    qa, sa, va = quantized("f8E4M3FN", "row", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "row", 32, 64)
    args = [qa.reshape(2, 16, 64), sa.reshape(2, 16), qb, sb.reshape(32)]
    check("tokens_over_batch_and_seq", "linalg-to-qmm-loop-groups.mlir",
          args, va, vb, chip, ["output_shape [2, 16, 32]"])


@pytest.mark.parametrize("chip", CHIPS)
def test_tosa_batch_of_one(chip):
    """TOSA's batch-of-1 batch_matmul: A [1, M, K] with [1, M, 1] scales, B
    stored [1, K, N] with [1, 1, N] scales."""
    qa, sa, va = quantized("f8E4M3FN", "row", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "row", 16, 64, layout="kn",
                           mn_major=True)
    args = [qa.reshape(1, 32, 64), sa.reshape(1, 32, 1),
            qb.reshape(1, 64, 16), sb.reshape(1, 1, 16)]
    check("tosa_batch_of_one", "linalg-to-qmm-loop-groups.mlir", args, va,
          vb, chip, ["layout kn"])


@pytest.mark.parametrize("chip", CHIPS)
def test_divided_by_scales(chip):
    """q.to(f32) / s: per-row divisors for A, one for B."""
    m, n, k = 32, 16, 64
    qa, _, _ = quantized("f8E4M3FN", "tensor", m, k)
    qb, _, _ = quantized("f8E4M3FN", "tensor", n, k)
    da = (RNG.random(m) * 3 + 0.25).astype(np.float32)
    db = np.float32(1.7)
    va = qmm.decode(qa, "f8E4M3FN", (m, k)) / da[:, None].astype(np.float64)
    vb = qmm.decode(qb, "f8E4M3FN", (n, k)) / np.float64(db)
    args = [qa, da, qb, np.array(db, np.float32)]
    check("divided_by_scales", "linalg-to-qmm-scale-spellings.mlir", args, va,
          vb, chip, ["arith.divf"])


@pytest.mark.parametrize("chip", CHIPS)
def test_e8m0_decoded_arithmetically(chip):
    """MXFP4 A whose E8M0 scales come as 8-bit integers decoded in the body
    (pow(2, e - 127), NaN for 255); MXFP8 B whose E8M0 scales are bitcast
    and decoded with exp2."""
    qa, sa, va = quantized("f4E2M1FN", "mx32", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "mx32", 16, 64)
    args = [qa, sa.view(np.int8), qb, sb]
    check("e8m0_decoded_arithmetically", "linalg-to-qmm-scale-spellings.mlir",
          args, va, vb, chip, ["#qmm.scale<mx>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_scale_broadcast_first(chip):
    """A's 0-d scale copied to A's shape by a generic before use."""
    qa, sa, va = quantized("f8E4M3FN", "tensor", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "row", 16, 64)
    args = [qa, sa.reshape(()), qb, sb.reshape(16)]
    check("scale_broadcast_first", "linalg-to-qmm-scale-spellings.mlir", args,
          va, vb, chip, ["#qmm.scale<per_tensor>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_scales_outer_product_after(chip):
    """(A_q @ B_q) * (sa x sb), the scales' outer product a generic of its
    own."""
    m, n, k = 32, 16, 64
    qa, _, _ = quantized("f8E4M3FN", "tensor", m, k)
    qb, _, _ = quantized("f8E4M3FN", "tensor", n, k)
    sa = (RNG.random(m) + 0.5).astype(np.float32)
    sb = (RNG.random(n) + 0.5).astype(np.float32)
    va = qmm.decode(qa, "f8E4M3FN", (m, k)) * sa[:, None]
    vb = qmm.decode(qb, "f8E4M3FN", (n, k)) * sb[:, None]
    check("scales_outer_product_after", "linalg-to-qmm-scale-spellings.mlir",
          [qa, sa, qb, sb], va, vb, chip, ["#qmm.scale<per_row>"])


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ["fp8_widened_to_bf16",
                                  "fp8_widened_to_bf16_in_body"])
def test_fp8_widened_to_bf16(chip, name):
    """FP8 widened to bf16, then a bf16 x bf16 -> f32 matmul (B e5m2 stored
    [K, N] in the first, e4m3 [N, K] in the second)."""
    m, n, k = 32, 16, 64
    qa, _, _ = quantized("f8E4M3FN", "tensor", m, k)
    va = qmm.decode(qa, "f8E4M3FN", (m, k))
    if name == "fp8_widened_to_bf16":
        qb, _, _ = quantized("f8E5M2", "tensor", n, k, layout="kn")
        vb = qmm.decode(qb, "f8E5M2", (k, n)).T
    else:
        qb, _, _ = quantized("f8E4M3FN", "tensor", n, k)
        vb = qmm.decode(qb, "f8E4M3FN", (n, k))
    check(name, "linalg-to-qmm-widening.mlir", [qa, qb], va, vb, chip)


@pytest.mark.parametrize("chip", CHIPS)
def test_quantized_and_dequantized(chip):
    """Fake quantization (x / s clamped to +-448, truncf to e4m3, widened,
    times s) in one generic: the FP8 tensor made explicit. The reference
    rounds x / s to e4m3 here (round to nearest even, numpy float64 after
    one f32 division), independently of qmm."""
    m, n, k = 32, 16, 64
    x = RNG.standard_normal((m, k)).astype(np.float32) * 3
    sx = (RNG.random(m) * 0.02 + 0.005).astype(np.float32)
    qb, sb, vb = quantized("f8E4M3FN", "row", n, k)
    scaled = np.clip(x / sx[:, None], -448, 448).astype(np.float64)
    va = e4m3_round(scaled) * sx[:, None].astype(np.float64)
    check("quantized_and_dequantized",
          "linalg-to-qmm-implicit-quantization.mlir",
          [x, sx, qb, sb.reshape(n)], va, vb, chip,
          ["tensor<32x64xf8E4M3FN>"])


def e4m3_round(v):
    """v (|v| <= 448) rounded to the nearest e4m3fn value, ties to even:
    3 mantissa bits for normals (exponent >= -6), steps of 2^-9 below."""
    v = np.asarray(v, np.float64)
    exponent = np.floor(np.log2(np.maximum(np.abs(v), 2.0 ** -6)))
    step = 2.0 ** (exponent - 3)
    return np.round(v / step) * step  # numpy rounds half to even


@pytest.mark.parametrize("chip", CHIPS)
def test_split_k_and_tokens_dynamic(chip):
    """The grouped-loop forms with a dynamic M (the split-K MX program) and a
    dynamic batch (the [batch, seq, K] one): one raised program, called
    with several extents."""
    file = "linalg-to-qmm-loop-groups.mlir"
    for m in (1, 40):
        qa, sa, va = quantized("f8E4M3FN", "mx32", m, 64)
        qb, sb, vb = quantized("f8E4M3FN", "mx32", 16, 64)
        check("split_k_mx_dynamic_m", file,
              [qa.reshape(m, 2, 32), sa, qb.reshape(16, 2, 32), sb], va, vb,
              chip, ["tensor<?x64xf8E4M3FN>"])
    for batches in (1, 3):
        qa, sa, va = quantized("f8E4M3FN", "row", batches * 16, 64)
        qb, sb, vb = quantized("f8E4M3FN", "row", 32, 64)
        check("tokens_dynamic_batch", file,
              [qa.reshape(batches, 16, 64), sa.reshape(batches, 16), qb,
               sb.reshape(32)], va, vb, chip, ["tensor<?x64xf8E4M3FN>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_scales_after_batch_matmul(chip):
    """(A_q @ B_q) * sa * sb on a batch_matmul (B stored [B, K, N]) with
    per-batch per-token [B, M] and per-channel [B, 1, N] scales."""
    batches, m, n, k = 2, 32, 16, 64
    qa, qb, sa, sb, va, vb = [], [], [], [], [], []
    for _ in range(batches):
        a, _, _ = quantized("f8E4M3FN", "tensor", m, k)
        b, _, _ = quantized("f8E4M3FN", "tensor", n, k, layout="kn")
        row = (RNG.random(m) + 0.5).astype(np.float32)
        col = (RNG.random(n) + 0.5).astype(np.float32)
        qa.append(a)
        qb.append(b)
        sa.append(row)
        sb.append(col.reshape(1, n))
        va.append(qmm.decode(a, "f8E4M3FN", (m, k)) * row[:, None])
        vb.append(qmm.decode(b, "f8E4M3FN", (k, n)).T * col[:, None])
    ir = program("scales_after_batch_matmul",
                 "linalg-to-qmm-scale-spellings.mlir")
    raised = qmm.linalg_to_qmm(ir)
    assert raised.count("qmm.matmul a(") == batches
    assert "linalg.generic" not in raised
    args = [np.stack(qa), np.stack(qb), np.stack(sa), np.stack(sb)]
    expected = qmm.run(ir, "scales_after_batch_matmul", args, device="cpu",
                       chip=chip)[0]
    got = qmm.run(raised, "scales_after_batch_matmul", args, device="emu",
                  chip=chip)[0]
    for batch in range(batches):
        bound = 2 * (k + 2) * 2.0 ** -24 * (np.abs(va[batch]) @
                                            np.abs(vb[batch]).T)
        reference = va[batch] @ vb[batch].T
        assert (np.abs(got[batch] - expected[batch]) <= bound).all()
        assert (np.abs(expected[batch] - reference) <= bound).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_blocks_flattened_across_rows(chip):
    """MX data passed as [R*K/32, 32] with a rank-1 E8M0 scale [R*K/32]
    (row-major blocks: row r's block b at r * K/32 + b), reshaped to [R, K]
    after the dequantization."""
    qa, sa, va = quantized("f8E4M3FN", "mx32", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "mx32", 16, 64)
    args = [qa.reshape(64, 32), sa.reshape(64), qb.reshape(32, 32),
            sb.reshape(32)]
    check("blocks_flattened_across_rows", "linalg-to-qmm-loop-groups.mlir",
          args, va, vb, chip, ["#qmm.scale<mx>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_onnx_zero_point_zero(chip):
    """ONNX's (x - zero_point) * scale with FP8's zero point 0 (a constant
    tensor for A, a constant for B), per-tensor scales."""
    qa, sa, va = quantized("f8E4M3FN", "tensor", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "tensor", 16, 64)
    check("onnx_zero_point_zero", "linalg-to-qmm-scale-spellings.mlir",
          [qa, sa.reshape(()), qb, sb.reshape(())], va, vb, chip,
          ["#qmm.scale<per_tensor>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_size_one_views(chip):
    """[M, K] viewed as [M, 1, K] (torch's unflatten) with [M, 1, 1]
    scales, dequantized and collapsed back."""
    qa, sa, va = quantized("f8E4M3FN", "row", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "row", 16, 64)
    check("size_one_views", "linalg-to-qmm-loop-groups.mlir",
          [qa, sa.reshape(32, 1, 1), qb, sb.reshape(16)], va, vb, chip)


@pytest.mark.parametrize("chip", CHIPS)
def test_scales_by_linalg_broadcast(chip):
    """Per-row and per-tensor scales broadcast to the data's shape by
    linalg.broadcast before the dequantization."""
    qa, sa, va = quantized("f8E4M3FN", "row", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "tensor", 16, 64)
    check("scales_by_linalg_broadcast", "linalg-to-qmm-scale-spellings.mlir",
          [qa, sa.reshape(32), qb, sb.reshape(())], va, vb, chip,
          ["#qmm.scale<per_row>"])


@pytest.mark.parametrize("chip", CHIPS)
def test_contraction_ops(chip):
    """linalg.contract, and linalg.batch_matmul reading B [B, N, K]
    through its indexing_maps."""
    file = "linalg-to-qmm-contraction-ops.mlir"
    qa, sa, va = quantized("f8E4M3FN", "row", 32, 64)
    qb, sb, vb = quantized("f8E4M3FN", "row", 16, 64)
    check("contract_op", file, [qa, sa.reshape(32), qb, sb.reshape(16)], va,
          vb, chip)
    batches = [(quantized("f8E4M3FN", "row", 32, 64),
                quantized("f8E4M3FN", "row", 16, 64)) for _ in range(2)]
    ir = program("batch_matmul_b_transposed", file)
    raised = qmm.linalg_to_qmm(ir)
    assert raised.count("qmm.matmul a(") == 2
    args = [np.stack([a[0] for a, _ in batches]),
            np.stack([a[1].reshape(32) for a, _ in batches]),
            np.stack([b[0] for _, b in batches]),
            np.stack([b[1].reshape(16) for _, b in batches])]
    expected = qmm.run(ir, "batch_matmul_b_transposed", args, device="cpu",
                       chip=chip)[0]
    got = qmm.run(raised, "batch_matmul_b_transposed", args, device="emu",
                  chip=chip)[0]
    for i, (a, b) in enumerate(batches):
        bound = 2 * (64 + 2) * 2.0 ** -24 * (np.abs(a[2]) @ np.abs(b[2]).T)
        assert (np.abs(got[i] - expected[i]) <= bound).all()
        assert (np.abs(expected[i] - a[2] @ b[2].T) <= bound).all()


@pytest.mark.parametrize("chip", CHIPS)
def test_division_in_steps(chip):
    """extf by a generic, then the division by per-row scales by another."""
    m, n, k = 32, 16, 64
    qa, _, _ = quantized("f8E4M3FN", "tensor", m, k)
    qb, _, _ = quantized("f8E4M3FN", "tensor", n, k)
    da = (RNG.random(m) * 3 + 0.25).astype(np.float32)
    db = (RNG.random(n) * 3 + 0.25).astype(np.float32)
    va = qmm.decode(qa, "f8E4M3FN", (m, k)) / da[:, None].astype(np.float64)
    vb = qmm.decode(qb, "f8E4M3FN", (n, k)) / db[:, None].astype(np.float64)
    check("division_in_steps", "linalg-to-qmm-scale-spellings.mlir",
          [qa, da, qb, db], va, vb, chip, ["#qmm.scale<per_row>"])
