"""Bad arguments to the GEMM API are refused up front with a ValueError or
TypeError naming the argument (or extent), never an exception from inside
the package, a MemoryError or a launch no GPU takes. Sizes over fp8-run's
limits (extents up to 2^31 - 1, at most 2^32 elements in A, B and D) are
refused before anything is allocated."""
import numpy as np
import pytest

import qmm

N, K = 64, 128


def fp8_operands(m):
    """Zero FP8 codes with per-tensor scales: shapes are all that matter."""
    return (np.zeros((m, K), np.uint8), np.ones((1, 1), np.float32),
            np.zeros((N, K), np.uint8), np.ones((1, 1), np.float32))


def gemm(m, **kwargs):
    options = dict(a_type="f8E4M3FN", b_type="f8E4M3FN", a_scale="tensor",
                   b_scale="tensor", out_type="f32")
    options.update(kwargs)
    return qmm.Gemm(m, N, K, **options)


def test_a_zero_dimensional_a_with_a_dynamic_m():
    qa, sa, qb, sb = fp8_operands(8)
    with pytest.raises(ValueError, match=r"^a: expected a 2-D array \[m, k\], "
                                         r"got 0-D$"):
        gemm(None)(np.uint8(0), sa, qb, sb)
    with pytest.raises(ValueError, match=r"^a: expected a 2-D array \[m, k\], "
                                         r"got 1-D$"):
        gemm(None)(qa[0], sa, qb, sb)


@pytest.mark.parametrize("m", [8, None])
def test_each_argument_is_named(m):
    qa, sa, qb, sb = fp8_operands(8)
    g = gemm(m)
    with pytest.raises(ValueError, match=r"^a, argument 0 \(.*\): shape "
                                         r"\[\] does not match"):
        gemm(8)(np.uint8(0), sa, qb, sb)
    with pytest.raises(ValueError, match=r"^a_scales, argument 1 \(.*\): "
                                         r"dtype <f8 does not match f32"):
        g(qa, sa.astype(np.float64), qb, sb)
    with pytest.raises(ValueError, match=r"^b, argument 2 \(.*\): shape "
                                         r"\[64, 64\] does not match"):
        g(qa, sa, qb[:, :64], sb)
    with pytest.raises(ValueError, match=r"^b_scales, argument 3 \(.*\): "
                                         r"shape \[1\] does not match"):
        g(qa, sa, qb, sb[0])
    with pytest.raises(ValueError, match=r"^c, argument 4 \(.*\): shape "
                                         r"\[8, 65\] does not match"):
        g(qa, sa, qb, sb, c=np.zeros((8, N + 1), np.float32))
    with pytest.raises(TypeError, match="^b_scales: expected a numpy array, "
                                        "got NoneType$"):
        g(qa, sa, qb, None)
    with pytest.raises(TypeError, match="^a: expected a numpy array, "
                                        "got str$"):
        g("codes", sa, qb, sb)


def test_a_bias_the_gemm_does_not_take_is_refused():
    """It used to be dropped: D came back without it."""
    qa, sa, qb, sb = fp8_operands(8)
    with pytest.raises(ValueError, match="^bias: this GEMM has none"):
        gemm(8)(qa, sa, qb, sb, bias=np.ones(N, np.float32))
    with pytest.raises(ValueError, match="^bias: this GEMM takes it"):
        gemm(8, bias="f32")(qa, sa, qb, sb)


@pytest.mark.parametrize("m,n,k,message", [
    (2 ** 31, 64, 1, "extents are limited to 2147483647, got 2147483648x64x1"),
    (16, 2 ** 40, 128, "extents are limited to 2147483647, "
                       "got 16x1099511627776x128"),
    # 2^16 x (2^16 + 1) outputs: 2^32 + 2^16 elements of D.
    (2 ** 16, 2 ** 16 + 1, 32, "D would have 4295032832 elements, over the "
                               "runner's limit of 2\\^32"),
    # 2^33 elements of A, each extent within the limit.
    (2 ** 17, 64, 2 ** 16, "A would have 8589934592 elements"),
])
def test_sizes_over_the_runners_limits_are_refused_before_allocating(
        m, n, k, message):
    g = qmm.Gemm(m, n, k, a_type="f8E4M3FN", b_type="f8E4M3FN",
                 a_scale="tensor", b_scale="tensor", out_type="f32")
    small = np.zeros((1, 1), np.uint8)
    scale = np.ones((1, 1), np.float32)
    with pytest.raises(ValueError, match=message):
        g(small, scale, small, scale)


def test_a_dynamic_m_over_the_limit_is_refused_before_allocating():
    # 2^16 + 1 rows of A (K = 32 bytes each, 2 MiB) make D 2^32 + 2^16.
    g = qmm.Gemm(None, 2 ** 16, 32, a_type="f8E4M3FN", b_type="f8E4M3FN",
                 a_scale="tensor", b_scale="tensor", out_type="f32")
    qa = np.zeros((2 ** 16 + 1, 32), np.uint8)
    scale = np.ones((1, 1), np.float32)
    with pytest.raises(ValueError, match="D would have 4295032832 elements"):
        g(qa, scale, np.zeros((1, 1), np.uint8), scale)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_a_grid_no_gpu_takes_is_refused_at_compile_time(chip):
    """2^40 rows in tiles of 128: 2^33 workgroups along y (blockDim.y 1),
    over the 2^32 - 1 work-items the dispatch packet holds per dimension.
    The launch used to come back with that grid."""
    g = qmm.Gemm(2 ** 40, 128, 256, a_type=qmm.native_fp8(chip),
                 b_type=qmm.native_fp8(chip))
    with pytest.raises(RuntimeError, match=f"not a valid launch on {chip}: "
                                           "y: 8589934592 workgroups of 1 "
                                           "threads exceed the 4294967295 "
                                           "work-items"):
        g.compile(chip)


@pytest.mark.parametrize("extents,error,message", [
    ((64.0, 64, 128), TypeError, "^m: expected an integer, got float 64.0$"),
    ((64, "64", 128), TypeError, "^n: expected an integer, got str '64'$"),
    ((64, 64, True), TypeError, "^k: expected an integer, got bool True$"),
    ((-1, 64, 128), ValueError, "^m must be positive, got -1$"),
    ((64, 0, 128), ValueError, "^n must be positive, got 0$"),
    ((64, 64, 2 ** 70), ValueError, "^k = 1180591620717411303424 does not "
                                    "fit in int64$"),
    # 2^80 elements: no int64 byte size holds them (it used to fail in the
    # compiler with a message about the calling convention).
    ((2 ** 40, 2 ** 40, 2 ** 40), ValueError,
     "^A would have 1208925819614629174706176 elements, more than int64 "
     "byte sizes hold$"),
    # 2^62 elements of up to 4 bytes: 2^64 bytes.
    ((2 ** 31, 2 ** 31, 1), ValueError, "^D would have 4611686018427387904 "
                                        "elements"),
])
def test_extents_are_positive_integers(extents, error, message):
    with pytest.raises(error, match=message):
        qmm.Gemm(*extents)
    with pytest.raises(error, match=message):
        qmm.GroupedGemm(*extents, groups=2)


def test_integer_like_extents_are_taken():
    g = qmm.Gemm(np.int64(64), np.int32(64), np.uint16(128))
    assert (g.m, g.n, g.k) == (64, 64, 128)
    assert type(g.m) is int


def test_grouped_gemm_arguments():
    groups, m = 2, 128
    g = qmm.GroupedGemm(m, N, K, groups, a_type="f8E4M3FN", b_type="f8E4M3FN",
                        a_scale="tensor", b_scale="tensor", out_type="f32")
    qa = np.zeros((m, K), np.uint8)
    qb = np.zeros((groups, N, K), np.uint8)
    sa = np.ones((1, 1), np.float32)
    sb = np.ones((groups, 1, 1), np.float32)
    init = np.zeros((m, N), np.float32)
    rows = np.repeat(np.arange(groups, dtype=np.int32), m // groups)
    assert g(qa, sa, qb, sb, rows, init).shape == (m, N)
    # Group indices were cast to int32 silently: 0.5 became group 0.
    with pytest.raises(TypeError, match="^groups: expected integers, got "
                                        "float64$"):
        g(qa, sa, qb, sb, rows + 0.5, init)
    with pytest.raises(ValueError, match="^groups: values outside int32$"):
        g(qa, sa, qb, sb, rows.astype(np.int64) + 2 ** 32, init)
    with pytest.raises(ValueError, match=r"^groups, argument 4 \(.*\): shape "
                                         r"\[127\] does not match"):
        g(qa, sa, qb, sb, rows[1:], init)
    with pytest.raises(ValueError, match=r"^init, argument 5 \(.*\): dtype "
                                         r"\|u1 does not match f32"):
        g(qa, sa, qb, sb, rows, init.astype(np.uint8))
    with pytest.raises(ValueError, match="^aux: this GEMM has none"):
        g(qa, sa, qb, sb, rows, init, aux=init)
    with pytest.raises(ValueError, match="^out_scales: this GEMM has none"):
        g(qa, sa, qb, sb, rows, init, out_scales=init)
    with pytest.raises(ValueError, match="^groups must be positive, got 0$"):
        qmm.GroupedGemm(m, N, K, 0)


def test_model_m_is_a_positive_integer():
    g = gemm(None)
    with pytest.raises(TypeError, match="^m: expected an integer, got float"):
        g.model("gfx942", m=1.5)
    with pytest.raises(ValueError, match="^m must be positive, got 0$"):
        g.model("gfx942", m=0)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_model_parameters_are_finite(value):
    with pytest.raises(ValueError, match="model parameter 'clock'"):
        gemm(64).model("gfx942", params={"clock": value})
