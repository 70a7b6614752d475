"""The frontend lowering from Python: linalg dequantize-then-matmul
programs (test/Conversion/LinalgToQMM/linalg-to-qmm.mlir) run as they are
on the CPU device (upstream linalg semantics, no qmm op involved) and,
raised to qmm.matmul, through the AMD pipeline on the emulator; both
results agree within the f32 accumulation bound."""
import os

import numpy as np
import pytest

import qmm
from conftest import SOURCE_DIR

PROGRAMS = os.path.join(SOURCE_DIR, "test", "Conversion", "LinalgToQMM",
                        "linalg-to-qmm.mlir")
FUSED_PROGRAMS = os.path.join(SOURCE_DIR, "test", "Conversion", "LinalgToQMM",
                              "linalg-to-qmm-after-fusion.mlir")
RNG = np.random.default_rng(5)


def program(name, path=PROGRAMS):
    with open(path) as f:
        for chunk in f.read().split("// -----"):
            if f"func.func @{name}(" in chunk:
                return chunk
    raise KeyError(name)


def operand(element, scale, rows, k, scale_shape=None):
    """Random data quantized; the scale array reshaped as the program
    declares it; the dequantized values (float64) for the bound."""
    x = RNG.standard_normal((rows, k)).astype(np.float32)
    codes, scales = qmm.quantize(x, element, scale)
    values = qmm.dequantize(codes, scales, element, scale, rows, k)
    if scale_shape is not None:
        scales = scales.reshape(scale_shape)
    return codes, scales, values


def check_raised_run(ir, raised, name, args, va, vb, chip):
    """Runs the linalg program on the cpu device and the raised one on the
    emulator: they agree within twice the f32 accumulation bound, and both
    are the product of the dequantized operands `va` [..., M, K], `vb`
    [..., N, K] (leading extents: one product per batch)."""
    k = va.shape[-1]
    vbt = np.swapaxes(vb, -1, -2)
    expected = qmm.run(ir, name, args, device="cpu", chip=chip)[0]
    got = qmm.run(raised, name, args, device="emu", chip=chip)[0]
    bound = 2 * (k + 2) * 2.0 ** -24 * (np.abs(va) @ np.abs(vbt))
    assert got.shape == expected.shape
    assert (np.abs(got - expected) <= bound).all()
    assert (np.abs(expected - va @ vbt) <= bound).all()


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("name,a_spec,b_spec,b_transposed", [
    ("blockwise_nk", ("f8E4M3FN", "1x128", 64, 256, None),
     ("f8E4M3FN", "128x128", 128, 256, None), False),
    ("per_row_generic", ("f8E4M3FN", "row", 32, 128, (32,)),
     ("f8E4M3FN", "row", 16, 128, (16,)), False),
    ("broadcast_row_scales", ("f8E4M3FN", "row", 32, 128, (32, 1)),
     ("f8E4M3FN", "row", 16, 128, (1, 16)), False),
    ("broadcast_tensor_scales", ("f8E4M3FN", "tensor", 32, 128, (1,)),
     ("f8E4M3FN", "tensor", 16, 128, (1, 1)), False),
    ("b_explicit_transpose", ("f8E4M3FN", "row", 32, 128, (32,)),
     ("f8E4M3FN", "row", 16, 128, (16,)), False),
    ("mxfp4", ("f4E2M1FN", "mx32", 32, 64, None),
     ("f8E4M3FN", "mx32", 16, 64, None), False),
    ("mx_scaling_extf", ("f4E2M1FN", "mx32", 32, 64, None),
     ("f8E4M3FN", "mx32", 16, 64, None), False),
    ("kn_mn_major", ("f8E4M3FN", "1x128", 16, 256, None),
     ("f8E4M3FN", "128x128", 128, 256, None), True),
    ("blockwise_views", ("f8E4M3FN", "1x128", 64, 256, None),
     ("f8E4M3FN", "128x128", 128, 256, None), False),
])
def test_raised_program_matches_the_linalg_one(chip, name, a_spec, b_spec,
                                               b_transposed):
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised and "linalg.matmul" not in raised

    qa, sa, va = operand(*a_spec)
    element, scale, n, k, _ = b_spec
    if b_transposed:
        # B stored [K, N] with MN-major scales [K / 128, N / 128].
        x = RNG.standard_normal((k, n)).astype(np.float32)
        qb, sb = qmm.quantize(x, element, scale, layout="kn", mn_major=True)
        vb = qmm.dequantize(qb, sb, element, scale, n, k, layout="kn",
                            mn_major=True)
    else:
        qb, sb, vb = operand(*b_spec)

    check_raised_run(ir, raised, name, [qa, sa, qb, sb], va, vb, chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_converted_scales(chip):
    """f16 (A) and bf16 (B) scales widened in the dequantization's body: the
    raised program converts them the same way. (16-bit arrays cross the
    boundary as float32 values they hold exactly.)"""
    name, element, k = "converted_scales", "f8E4M3FN", 128
    a = RNG.standard_normal((32, k)).astype(np.float32)
    b = RNG.standard_normal((16, k)).astype(np.float32)
    qa, sa = qmm.quantize(a, element, "row")
    qb, sb = qmm.quantize(b, element, "row")
    # The program's f16 and bf16 scales (bf16: the top half of the f32).
    sa16 = sa.reshape(32).astype(np.float16).astype(np.float32)
    sb16 = (sb.reshape(16).view(np.uint32) & 0xFFFF0000).view(np.float32)
    va = qmm.dequantize(qa, sa16.reshape(32, 1), element, "row", 32, k)
    vb = qmm.dequantize(qb, sb16.reshape(16, 1), element, "row", 16, k)
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised
    args = [qa, sa16, qb, sb16]
    check_raised_run(ir, raised, name, args, va, vb, chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_b_transposed_data(chip):
    """B stored [K, N] and read through a transposing map by its
    dequantization: raised with layout kn."""
    name, element, m, n, k = "b_transposed_data", "f8E4M3FN", 32, 16, 64
    qa, sa, va = operand(element, "tensor", m, k)
    x = RNG.standard_normal((k, n)).astype(np.float32)
    qb, sb = qmm.quantize(x, element, "tensor", layout="kn")
    vb = qmm.dequantize(qb, sb, element, "tensor", n, k, layout="kn")
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "layout kn" in raised
    args = [qa, sa.reshape(()), qb, sb.reshape(())]
    check_raised_run(ir, raised, name, args, va, vb, chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_unit_scale_fp8(chip):
    """linalg.matmul straight on FP8 tensors (e4m3 x e5m2, B [K, N]):
    raised with scales of 1."""
    name, m, n, k = "unit_scale_fp8", 32, 16, 64
    one = np.ones((1, 1), np.float32)
    qa, _ = qmm.quantize(RNG.standard_normal((m, k)).astype(np.float32),
                         "f8E4M3FN", "tensor")
    qb, _ = qmm.quantize(RNG.standard_normal((k, n)).astype(np.float32),
                         "f8E5M2", "tensor", layout="kn")
    va = qmm.dequantize(qa, one, "f8E4M3FN", "tensor", m, k)
    vb = qmm.dequantize(qb, one, "f8E5M2", "tensor", n, k, layout="kn")
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised and "linalg.matmul" not in raised
    check_raised_run(ir, raised, name, [qa, qb], va, vb, chip)


def test_raised_program_compiles_for_both_chips():
    raised = qmm.linalg_to_qmm(program("blockwise_nk"))
    for chip in qmm.chips:
        compiled = qmm.compile(raised, chip)
        # gfx950 runs the GEMM alone; gfx942 first converts the OCP data
        # and scales of both operands to FNUZ (four element-wise kernels).
        names = [kernel["name"] for kernel in compiled["kernels"]]
        assert len(names) == (1 if chip == "gfx950" else 5), names
        for kernel in compiled["kernels"]:
            assert kernel["code_object"][:4] == b"\x7fELF"


def test_near_misses_stay_linalg():
    with open(PROGRAMS.replace(".mlir", "-near-misses.mlir")) as f:
        for chunk in f.read().split("// -----"):
            assert "qmm.matmul" not in qmm.linalg_to_qmm(chunk)


def test_explain_says_why_each_near_miss_stays():
    """explain=True: one reason per contraction left alone, at its line,
    saying what the near miss's `expected-remark` annotation says (written
    by hand in the lit test), and none for a program that is raised. The
    remarks are off again afterwards."""
    with open(PROGRAMS.replace(".mlir", "-near-misses.mlir")) as f:
        chunks = f.read().split("// -----")
    checked = 0
    for chunk in chunks:
        lines = chunk.split("\n")
        expected = [(i + 2, line.split("{{", 1)[1].rsplit("}}", 1)[0])
                    for i, line in enumerate(lines)
                    if "expected-remark @below" in line]
        text, reasons = qmm.linalg_to_qmm(chunk, explain=True)
        assert "qmm.matmul" not in text
        assert [(r["line"], r["reason"].startswith(
            "not raised to qmm.matmul: ")) for r in reasons] == \
            [(line, True) for line, _ in expected]
        for (line, why), reason in zip(expected, reasons):
            assert why in reason["reason"], (reason, why)
            assert reason["function"] in chunk
        checked += len(expected)
    assert checked >= 20
    text, reasons = qmm.linalg_to_qmm(program("blockwise_nk"), explain=True)
    assert "qmm.matmul" in text and reasons == []
    assert isinstance(qmm.linalg_to_qmm(chunks[0]), str)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("name,a_scale,k,n", [
    ("dynamic_m_per_token", "row", 128, 16),
    ("dynamic_m_blockwise", "1x128", 256, 128),
])
def test_dynamic_m(chip, name, a_scale, k, n):
    """A dynamic M raised and compiled once (qmm.Program), called with M =
    1, 5 and 40: each result agrees with numpy's product of the dequantized
    operands within the f32 accumulation bound, as the program specialized
    to that M does, raised on the emulator and unraised on the cpu device
    (check_raised_run; the cpu device runs static shapes only). The configs
    differ (M's bucket), so the last bits may."""
    element = "f8E4M3FN"
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "tensor<?x" in raised and "linalg.matmul" not in raised
    # The model evaluates every launch at M, the scale conversion's too
    # (its extent is the scale vector's: M).
    for m in (1, 100):
        assert all(k["workgroups"] > 0 and k["modeled"]
                   for k in qmm.model(raised, chip, m=m))
    once = qmm.Program(raised, name, "emu", chip)
    b_scale = "row" if a_scale == "row" else "128x128"
    qb, sb, vb = operand(element, b_scale, n, k,
                         (n,) if b_scale == "row" else None)
    for m in (1, 5, 40):
        qa, sa, va = operand(element, a_scale, m, k,
                             (m,) if a_scale == "row" else None)
        if name == "dynamic_m_per_token":
            # The program's scales are f16: values it holds exactly.
            sa = sa.astype(np.float16).astype(np.float32)
            va = qmm.dequantize(qa, sa.reshape(m, 1), element, "row", m, k)
        (got,) = once(qa, sa, qb, sb)
        bound = 2 * (k + 2) * 2.0 ** -24 * (np.abs(va) @ np.abs(vb).T)
        assert got.shape == (m, n)
        assert (np.abs(got - va @ vb.T) <= bound).all()
        static = ir.replace("?x", f"{m}x").replace(
            "tensor<?xf16>", f"tensor<{m}xf16>").replace(
            "tensor.empty(%m)", "tensor.empty()")
        check_raised_run(static, qmm.linalg_to_qmm(static), name,
                         [qa, sa, qb, sb], va, vb, chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("name", ["scaled_mm_row_col",
                                  "scaled_mm_channel_vector"])
def test_scales_after_the_product(chip, name):
    """torch._scaled_mm's form, (A_q @ B_q) * sa * sb: raised with the scales
    moved into qmm.matmul, on the emulator, against the linalg program on
    the cpu device and numpy. (@scaled_mm_scalars takes f32 scalar
    arguments, which the devices' calls do not: lit only.)"""
    m, n, k = 32, 16, 64
    qa = qmm.quantize(RNG.standard_normal((m, k)).astype(np.float32),
                      "f8E4M3FN", "tensor")[0]
    qb = qmm.quantize(RNG.standard_normal((k, n)).astype(np.float32),
                      "f8E4M3FN", "tensor", layout="kn")[0]
    a_codes = qmm.decode(qa, "f8E4M3FN", (m, k))
    b_codes = qmm.decode(qb, "f8E4M3FN", (k, n)).T  # B [K, N] as [N, K]
    sa_row = (RNG.random(m) + 0.5).astype(np.float32)
    sb_col = (RNG.random(n) + 0.5).astype(np.float32)
    if name == "scaled_mm_row_col":
        args = [qa, qb, sa_row.reshape(m, 1), sb_col.reshape(1, n)]
        va, vb = a_codes * sa_row[:, None], b_codes * sb_col[:, None]
    else:
        sa = np.float32(0.75)
        args = [qa, qb, np.array(sa, np.float32), sb_col]
        va, vb = a_codes * sa, b_codes * sb_col[:, None]
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "linalg.generic" not in raised and "qmm.matmul" in raised
    check_raised_run(ir, raised, name, args, va, vb, chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_fused_dequantization(chip):
    """Dequantization fused into the contraction (upstream
    linalg-fuse-elementwise-ops' form), and half fused (A's MX
    scaling_extf in the body, B dequantized by its own generic): raised on
    the emulator against the linalg program on the cpu device and numpy."""
    qa, sa, va = operand("f8E4M3FN", "row", 32, 128, (32,))
    qb, sb, vb = operand("f8E4M3FN", "row", 16, 128, (16,))
    ir = program("fused_per_row", FUSED_PROGRAMS)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised and "linalg.generic" not in raised
    check_raised_run(ir, raised, "fused_per_row", [qa, sa, qb, sb], va, vb,
                     chip)

    qa, sa, va = operand("f4E2M1FN", "mx32", 32, 64)
    qb, sb, vb = operand("f8E4M3FN", "mx32", 16, 64)
    ir = program("half_fused_mx", FUSED_PROGRAMS)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised and "linalg.generic" not in raised
    check_raised_run(ir, raised, "half_fused_mx", [qa, sa, qb, sb], va, vb,
                     chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_fused_blockwise_dynamic_m(chip):
    """The fused blockwise form with B stored [K, N] (MN-major block
    scales), bf16 scales of A widened in the body, a dynamic M and
    accumulation into the destination: one compiled program called with M
    = 3 and 130 agrees with numpy (C + A B^T), and the program specialized
    to each M, raised on the emulator, with the linalg one on the cpu
    device."""
    name, n, k = "fused_blockwise_kn", 128, 256
    ir = program(name, FUSED_PROGRAMS)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised and "accumulate" in raised
    once = qmm.Program(raised, name, "emu", chip)
    x = RNG.standard_normal((k, n)).astype(np.float32)
    qb, sb = qmm.quantize(x, "f8E5M2", "128x128", layout="kn", mn_major=True)
    vb = qmm.dequantize(qb, sb, "f8E5M2", "128x128", n, k, layout="kn",
                        mn_major=True)
    for m in (3, 130):
        a = RNG.standard_normal((m, k)).astype(np.float32)
        qa, sa = qmm.quantize(a, "f8E4M3FN", "1x128")
        # The program's scales are bf16 (the top half of an f32).
        sa = (sa.view(np.uint32) & 0xFFFF0000).view(np.float32)
        va = qmm.dequantize(qa, sa, "f8E4M3FN", "1x128", m, k)
        c = RNG.standard_normal((m, n)).astype(np.float32)
        args = [qa, sa, qb, sb, c]
        bound = 2 * (k + 2) * 2.0 ** -24 * (np.abs(va) @ np.abs(vb).T +
                                           np.abs(c))
        (got,) = once(*args)
        assert got.shape == (m, n)
        assert (np.abs(got - (c + va @ vb.T)) <= bound).all()
        static = ir.replace("?x", f"{m}x")
        expected = qmm.run(static, name, args, device="cpu", chip=chip)[0]
        specialized = qmm.run(qmm.linalg_to_qmm(static), name, args,
                              device="emu", chip=chip)[0]
        assert (np.abs(specialized - expected) <= bound).all()
        assert (np.abs(expected - (c + va @ vb.T)) <= bound).all()


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_blockwise_views_dynamic_m(chip):
    """torch's blockwise spelling on reshaped views ([M, K/128, 128] with
    [M, K/128, 1] scales; B [K, N] viewed [K/128, 128, N/128, 128]) with
    a dynamic M: compiled once, called with M = 2 and 129 against numpy, and specialized to each
    M, raised on the emulator against the linalg program on the cpu
    device."""
    name, n, k = "blockwise_views_torch", 128, 256
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert "qmm.matmul" in raised and "linalg.generic" not in raised
    once = qmm.Program(raised, name, "emu", chip)
    x = RNG.standard_normal((k, n)).astype(np.float32)
    qb, sb = qmm.quantize(x, "f8E4M3FN", "128x128", layout="kn",
                          mn_major=True)
    vb = qmm.dequantize(qb, sb, "f8E4M3FN", "128x128", n, k, layout="kn",
                        mn_major=True)
    for m in (2, 129):
        qa, sa, va = operand("f8E4M3FN", "1x128", m, k, (m, k // 128, 1))
        (got,) = once(qa, sa, qb, sb)
        bound = 2 * (k + 2) * 2.0 ** -24 * (np.abs(va) @ np.abs(vb).T)
        assert got.shape == (m, n)
        assert (np.abs(got - va @ vb.T) <= bound).all()
        static = ir.replace("?x", f"{m}x").replace(
            "output_shape [%m, 2, 128]", f"output_shape [{m}, 2, 128]"
        ).replace("tensor.empty(%m)", "tensor.empty()")
        check_raised_run(static, qmm.linalg_to_qmm(static), name,
                         [qa, sa, qb, sb], va, vb, chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_batched(chip):
    """linalg.batch_matmul of dequantized operands (A with per-batch
    per-row [B, M, 1] scales, B stored [B, K, N] with per-batch [B, 1, 1]
    scales): raised to one qmm.matmul per batch on slices, which the host
    program runs as memref.subview views of the arguments and the result;
    on the emulator against the linalg program on the cpu device and
    numpy."""
    name, batches, m, n, k = "batched_keepdim", 2, 16, 32, 128
    element = "f8E4M3FN"
    qa, sa, va, qb, sb, vb = [], [], [], [], [], []
    for _ in range(batches):
        codes, scales, values = operand(element, "row", m, k, (m, 1))
        qa.append(codes)
        sa.append(scales)
        va.append(values)
        x = RNG.standard_normal((k, n)).astype(np.float32)
        codes, scales = qmm.quantize(x, element, "tensor", layout="kn")
        qb.append(codes)
        sb.append(scales.reshape(1, 1))
        vb.append(qmm.dequantize(codes, scales, element, "tensor", n, k,
                                 layout="kn"))
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert raised.count("qmm.matmul a(") == batches
    assert "linalg.batch_matmul" not in raised
    args = [np.stack(qa), np.stack(sa), np.stack(qb), np.stack(sb)]
    check_raised_run(ir, raised, name, args, np.stack(va), np.stack(vb),
                     chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("m", [1, 40])
def test_batched_dynamic_m(chip, m):
    """A batched program with a dynamic M, compiled once and called with
    several M: each batch's slices start at offsets known at run time
    only, which the kernels take as arguments (qmm-kernel-size-arguments)
    from memref.extract_strided_metadata in the host program. On the
    emulator against the linalg program on the cpu device and numpy."""
    name, batches, n, k = "batched_dynamic_m", 2, 32, 128
    qa, sa, va, qb, sb, vb = [], [], [], [], [], []
    for _ in range(batches):
        codes, scales, values = operand("f8E4M3FN", "row", m, k, (m, 1))
        qa.append(codes)
        sa.append(scales)
        va.append(values)
        x = RNG.standard_normal((k, n)).astype(np.float32)
        codes, scales = qmm.quantize(x, "f8E4M3FN", "tensor", layout="kn")
        qb.append(codes)
        sb.append(scales.reshape(1, 1))
        vb.append(qmm.dequantize(codes, scales, "f8E4M3FN", "tensor", n, k,
                                 layout="kn"))
    ir = program(name)
    raised = qmm.linalg_to_qmm(ir)
    assert raised.count("qmm.matmul a(") == batches
    args = [np.stack(qa), np.stack(sa), np.stack(qb), np.stack(sb)]
    check_raised_run(ir, raised, name, args, np.stack(va), np.stack(vb),
                     chip)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_batched_scale_of_runtime_extent(chip):
    """Batched and fused, A's per-row scales [2, ?]: the second batch's
    scale slice starts at a run-time offset (1 * ?), passed to the kernel
    as an argument. On the emulator against the cpu device and numpy; a
    scale extent other than M is the host program's clear error."""
    name, m, n, k = "batched_dyn_scale", 32, 16, 64
    qa, sa, va = [], [], []
    for _ in range(2):
        codes, scales, values = operand("f8E4M3FN", "row", m, k, (m,))
        qa.append(codes)
        sa.append(scales)
        va.append(values)
    qb, sb, vb = operand("f8E4M3FN", "tensor", n, k)
    ir = program(name, FUSED_PROGRAMS)
    raised = qmm.linalg_to_qmm(ir)
    assert raised.count("qmm.matmul a(") == 2
    c = np.zeros((2, m, n), np.float32)
    args = [np.stack(qa), np.stack(sa), np.stack([qb, qb]),
            sb.reshape(()), c]
    check_raised_run(ir, raised, name, args, np.stack(va),
                     np.stack([vb, vb]), chip)
    args[1] = np.stack(sa)[:, :m - 1].copy()
    with pytest.raises(RuntimeError, match="A's scales do not match"):
        qmm.run(raised, name, args, device="emu", chip=chip)
