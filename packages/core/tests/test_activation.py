"""Every activation against a float64 reference written from its definition; every backward op
against central differences of the forward; dtypes, in-place and errors."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import activation as A

erf = np.vectorize(math.erf)


def T(a):
    return E.from_numpy(np.array(a))


def sig(x):
    return 1 / (1 + np.exp(-x))


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log(1 + np.exp(np.minimum(beta * x, 50))) / beta)


SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805
# public function, keyword arguments, forward op attrs (positional), reference
CASES = [
    (E.leaky_relu, {"negative_slope": 0.2}, (0.2,), lambda x: np.where(x > 0, x, 0.2 * x)),
    (E.elu, {"alpha": 1.5}, (1.5, 1.0, 1.0), lambda x: np.where(x > 0, x, 1.5 * (np.exp(x) - 1))),
    (E.selu, {}, (SELU_A, SELU_S, 1.0), lambda x: SELU_S * np.where(x > 0, x, SELU_A * (np.exp(x) - 1))),
    (E.celu, {"alpha": 2.0}, (2.0, 1.0, 0.5), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * (np.exp(x / 2) - 1))),
    (E.gelu, {}, ("none",), lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2)))),
    (E.gelu, {"approximate": "tanh"}, ("tanh",),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (E.hardtanh, {"min_val": -0.5, "max_val": 2.0}, (-0.5, 2.0), lambda x: np.minimum(np.maximum(x, -0.5), 2.0)),
    (E.relu6, {}, (0.0, 6.0), lambda x: np.minimum(np.maximum(x, 0), 6)),
    (E.hardsigmoid, {}, (), lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6),
    (E.hardswish, {}, (), lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6),
    (E.softplus, {"beta": 2.0, "threshold": 5.0}, (2.0, 5.0), lambda x: softplus(x, 2.0, 5.0)),
    (E.mish, {}, (), lambda x: x * np.tanh(softplus(x))),
    (E.logsigmoid, {}, (), lambda x: np.log(sig(x))),
    (E.softsign, {}, (), lambda x: x / (1 + np.abs(x))),
    (E.tanhshrink, {}, (), lambda x: x - np.tanh(x)),
    (E.threshold, {"threshold": 0.5, "value": -2.0}, (0.5,), lambda x: np.where(x > 0.5, x, -2.0)),
    (E.hardshrink, {"lambd": 0.7}, (0.7,), lambda x: np.where(np.abs(x) > 0.7, x, 0)),
    (E.softshrink, {"lambd": 0.7}, (0.7,), lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.7, 0)),
]
NAMES = {E.logsigmoid: "log_sigmoid", E.relu6: "hardtanh", E.selu: "elu", E.celu: "elu"}
IDS = [f"{f.__name__}-{'-'.join(map(str, kw.values()))}" for f, kw, _, _ in CASES]


def backward_op(fn):
    return getattr(A, NAMES.get(fn, fn.__name__) + "_backward")


def away_from_kinks(x):
    """Move points off the non-differentiable corners (0, +-0.5, +-0.7, 2, +-3, 6, 2.5) for differences."""
    for k in (0.0, 0.5, -0.5, 0.7, -0.7, 2.0, 2.5, 3.0, -3.0, 6.0):
        x = np.where(np.abs(x - k) < 1e-3, x + 3e-3, x)
    return x


@pytest.mark.parametrize("fn,kwargs,attrs,ref", CASES, ids=IDS)
def test_activation_forward_and_backward(fn, kwargs, attrs, ref):
    x = away_from_kinks(np.random.default_rng(0).uniform(-7, 7, (5, 13)))
    got = fn(T(x), **kwargs)
    assert got.dtype is E.float64
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=1e-12, atol=1e-12)
    x32 = x.astype(np.float32)
    got32 = fn(T(x32), **kwargs)
    assert got32.dtype is E.float32
    np.testing.assert_allclose(got32.numpy(), ref(x32.astype(np.float64)), rtol=1e-5, atol=1e-6)
    g = np.random.default_rng(1).standard_normal(x.shape)
    gi = backward_op(fn)(T(g), T(x), *attrs).numpy()
    eps = 1e-6
    want = (ref(x + eps) - ref(x - eps)) / (2 * eps) * g
    np.testing.assert_allclose(gi, want, rtol=1e-6, atol=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=20))
def test_fused_sigmoid_tanh_silu_backward_match_finite_differences(values):
    x = np.array(values)
    g = np.random.default_rng(2).standard_normal(x.shape)
    eps = 1e-6
    for bw, saved, ref in ((A.sigmoid_backward, sig(x), sig), (A.tanh_backward, np.tanh(x), np.tanh),
                           (A.silu_backward, x, lambda v: v * sig(v))):
        want = (ref(x + eps) - ref(x - eps)) / (2 * eps) * g
        np.testing.assert_allclose(bw(T(g), T(saved)).numpy(), want, rtol=1e-5, atol=1e-7)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-80, 80), min_size=1, max_size=20))
def test_softplus_logsigmoid_and_mish_do_not_overflow(values):
    x = np.array(values, dtype=np.float32)
    for fn in (E.softplus, E.logsigmoid, E.mish, E.gelu, E.elu):
        assert np.isfinite(fn(T(x)).numpy()).all()


def test_inplace_activations_write_into_the_input_and_bump_its_version():
    x = E.tensor([-2.0, 0.5, 8.0])
    v = x._version
    y = E.relu6(x, inplace=True)
    assert y is x and x.tolist() == [0.0, 0.5, 6.0] and x._version > v
    E.leaky_relu(x, 0.5, inplace=True)
    E.threshold(x, 1.0, 9.0, inplace=True)
    assert x.tolist() == [9.0, 9.0, 6.0]


def test_activation_errors():
    with pytest.raises(NotImplementedError, match="^\"GeluKernelImpl\" not implemented for 'Long'$"):
        E.gelu(E.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="^\"elu_cpu\" not implemented for 'Int'$"):
        E.selu(E.tensor([1, 2], dtype=E.int32))
    with pytest.raises(RuntimeError, match="^ZeroDivisionError: alpha cannot be 0 for CELU$"):
        E.celu(E.tensor([1.0]), 0.0)
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, "
                                           "but found -0.5$"):
        E.softshrink(E.tensor([1.0]), -0.5)
    with pytest.raises(RuntimeError, match="^approximate argument must be either none or tanh.$"):
        E.gelu(E.tensor([1.0]), approximate="fast")
    with pytest.raises(TypeError, match="^gelu\\(\\): argument 'approximate' must be str, not NoneType$"):
        E.gelu(E.tensor([1.0]), approximate=None)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        E.hardtanh(E.tensor([1.0]), 2.0, 1.0)
    with pytest.raises(TypeError, match="argument 'input' must be Tensor"):
        E.softsign([1.0])


@pytest.mark.parametrize("x_dtype, w_dtype, names", [(E.int64, E.float32, "Long and Float"),
                                                      (E.float32, E.float64, "Float and Double"),
                                                      (E.float16, E.float32, "Half and Float")])
def test_prelu_refuses_mixed_dtypes_in_pytorchs_words(x_dtype, w_dtype, names):
    with pytest.raises(RuntimeError, match=f"^prelu: Type promoting not supported. Got {names}$"):
        E.prelu(E.tensor([1.0, -2.0], dtype=x_dtype), E.tensor([0.5], dtype=w_dtype))


def test_prelu_glu_and_rrelu():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 4)), rng.random(3)
    np.testing.assert_allclose(E.prelu(T(x), T(w)).numpy(), np.where(x > 0, x, w[:, None] * x), rtol=1e-12)
    np.testing.assert_allclose(E.prelu(T(x), T(w[:1])).numpy(), np.where(x > 0, x, w[0] * x), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Found parameter numbers = 2 and channel size = 3"):
        E.prelu(T(x), T(w[:2]))
    z = E.prelu(T([[-0.0, 0.0, -2.0]]), T([0.5]))  # x > 0 ? x : w * x, as PyTorch's kernel: -0.0 stays -0.0
    assert np.signbit(z.numpy()).tolist() == [[True, False, True]]
    np.testing.assert_allclose(E.glu(T(x), 2).numpy(), x[..., :2] * sig(x[..., 2:]), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        E.glu(T(x), 1)
    y = E.rrelu(T(x), 0.1, 0.3, training=True).numpy()
    ratio = y[x < 0] / x[x < 0]
    assert (ratio >= 0.1).all() and (ratio <= 0.3).all() and np.array_equal(y[x >= 0], x[x >= 0])
    np.testing.assert_allclose(E.rrelu(T(x), 0.1, 0.3).numpy(), np.where(x > 0, x, 0.2 * x), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threshold_and_hardtanh_backward_one_pass_kernels_match_their_masks(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 5)).astype(dtype)
    x[0, 0, :3] = [np.nan, 0.0, 1.0]
    g = rng.standard_normal(x.shape).astype(dtype)
    g[0, 0, 1] = np.inf  # masked out: 0, not inf * 0 = NaN
    got = A.threshold_backward(E.from_numpy(g), E.from_numpy(x), 0.0).numpy()
    np.testing.assert_array_equal(got, np.where(x <= 0, 0, g))  # NaN input passes the gradient, as PyTorch's
    assert got.dtype == dtype and got[0, 0, 0] == g[0, 0, 0] and got[0, 0, 1] == 0
    got = A.hardtanh_backward(E.from_numpy(g), E.from_numpy(x), -0.5, 0.5).numpy()
    np.testing.assert_array_equal(got, np.where((x <= -0.5) | (x >= 0.5), 0, g))  # NaN input passes, as PyTorch
    # a strided gradient takes the numpy path and gives the same values
    gt = E.from_numpy(np.ascontiguousarray(g.transpose(2, 1, 0))).permute(2, 1, 0)
    np.testing.assert_array_equal(A.threshold_backward(gt, E.from_numpy(x), 0.0).numpy(), np.where(x <= 0, 0, g))


@pytest.mark.parametrize("dtype,ulp", [(np.float32, 2), (np.float64, 2)])
def test_log_sigmoid_and_its_backward_are_the_shared_loops_within_ulps_of_float64(dtype, ulp):
    # float32/float64 log_sigmoid and its backward loop over vector_math's functions (the ones ember.jit's fused
    # kernels inline): in any layout the loop's bits, within `ulp` ulps of the float64 values (longdouble for float64)
    from ember.core.ops import numba_nn

    x = np.concatenate([np.linspace(-40, 40, 2001), [0.0, -0.0, 1e-30, -1e-30, 100.0, -100.0]]).astype(dtype)
    g = np.random.default_rng(1).standard_normal(x.shape).astype(dtype)
    want_f, want_b = np.empty_like(x), np.empty_like(x)
    numba_nn.log_sigmoid()(x, want_f)
    numba_nn.log_sigmoid_backward()(g, x, want_b)
    wide = np.longdouble if dtype == np.float64 else np.float64
    xw = x.astype(wide)
    ref_f = np.minimum(xw, 0) - np.log1p(np.exp(-np.abs(xw)))
    ref_b = g.astype(wide) / (1 + np.exp(xw))
    eps = np.finfo(dtype).eps
    for got, ref in ((want_f, ref_f), (want_b, ref_b)):
        assert np.all(np.abs(got - ref) <= ulp * eps * np.abs(ref) + np.finfo(dtype).tiny)  # denormals: absolute
    m = x.reshape(-1, 1)[:2000].reshape(40, 50)
    for view, sel in ((m, np.s_[:2000]), (m.T, np.s_[:2000])):
        got = A.log_sigmoid_op(E.from_numpy(view)).numpy()
        np.testing.assert_array_equal(got, want_f[sel].reshape(40, 50) if view is m else want_f[sel].reshape(40, 50).T)
    gv = g[:2000].reshape(40, 50)
    got = A.log_sigmoid_backward(E.from_numpy(gv.T), E.from_numpy(m.T)).numpy()
    np.testing.assert_array_equal(got, want_b[:2000].reshape(40, 50).T)
    nan = A.log_sigmoid_op(E.from_numpy(np.array([np.nan, np.inf, -np.inf], dtype))).numpy()
    assert np.isnan(nan[0]) and nan[1] == 0 and nan[2] == -np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_sigmoid_of_a_0_dim_tensor_is_0_dim(dtype):
    # the shared loop runs on a flat view: a 0-dim input keeps its shape (np.ascontiguousarray would make it 1-D)
    x = E.from_numpy(np.array(-0.5, dtype))
    got = A.log_sigmoid_op(x)
    assert tuple(got.shape) == () and got.numpy().dtype == dtype
    assert abs(float(got.numpy()) - (-0.5 - np.log1p(np.exp(-0.5)))) < 1e-6
    back = A.log_sigmoid_backward(E.from_numpy(np.array(2.0, dtype)), x)
    assert tuple(back.shape) == () and abs(float(back.numpy()) - 2 / (1 + np.exp(-0.5))) < 1e-6


def test_threshold_and_hardtanh_backward_compare_in_the_input_dtype():
    # PyTorch converts the thresholds to the input's dtype, as the forwards compare: float32(0.1) > 0.1 in float64,
    # but not in float32, so at x = float32(0.1) the forward replaced x and the gradient is 0 (hard-coded PyTorch)
    x = np.full(4, np.float32(0.1))
    g = np.ones(4, np.float32)
    assert A.threshold_backward(E.from_numpy(g), E.from_numpy(x), 0.1).tolist() == [0.0] * 4
    assert A.hardtanh_backward(E.from_numpy(g), E.from_numpy(-x), -0.1, 1.0).tolist() == [0.0] * 4
    assert A.hardtanh_backward(E.from_numpy(g), E.from_numpy(x), -1.0, 0.1).tolist() == [0.0] * 4
    assert E.threshold(E.from_numpy(x), 0.1, -1.0).tolist() == [-1.0] * 4


def test_half_precision_activations_compute_in_float32_like_pytorch():
    # x * relu6(x + 3) / 6 at the float16 maximum: the intermediate x * 6 overflows in float16
    x = E.tensor([65504.0, -1.0], dtype=E.float16)
    assert E.hardswish(x).tolist() == [65504.0, -0.333251953125]
    assert E.hardswish(x).dtype is E.float16


@pytest.mark.parametrize("value", [0.27, -0.5, -0.0, float("nan")])
def test_relu_of_a_0_dim_tensor(value):
    """The small-tensor path built its result with a ufunc that gives a 0-dim input back as a scalar."""
    for dt in (E.float32, E.float64):
        r = E.relu(E.tensor(value, dtype=dt))
        want = np.where(np.less(value, 0), 0.0, value)
        assert r.shape == () and r.dtype is dt
        np.testing.assert_array_equal(np.signbit(r.numpy()), np.signbit(want))
        np.testing.assert_array_equal(r.numpy(), want.astype(dt.np))


@pytest.mark.parametrize("dtype", [E.bfloat16, E.float16])
@pytest.mark.parametrize("name, args", [("gelu", ("none",)), ("gelu", ("tanh",)), ("elu", (1.0, 1.0, 1.0)),
                                        ("mish", ()), ("softplus", (1.0, 20.0)), ("sigmoid", ()), ("tanh", ()),
                                        ("silu", ())])
def test_half_precision_backward_computes_in_float32_and_rounds_once(dtype, name, args):
    # PyTorch's reduced-float backward kernels convert to float, compute, and round the gradient once
    g = np.random.default_rng(0)
    x = E.tensor(g.normal(size=64) * 2, dtype=dtype)
    grad = E.tensor(g.normal(size=64), dtype=dtype)
    saved = {"sigmoid": E.sigmoid, "tanh": E.tanh}.get(name, lambda t: t)
    bwd = getattr(A, f"{name}_backward")
    got = bwd(grad, saved(x), *args)
    want = bwd(grad.float(), saved(x).float(), *args).to(dtype)
    assert got.dtype is dtype
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    torch = pytest.importorskip("torch")
    if args == ("none",):  # (the tanh form's float32 rounding order differs from PyTorch's by an ulp near zero)
        tdt = torch.bfloat16 if dtype is E.bfloat16 else torch.float16
        tg = torch.ops.aten.gelu_backward(torch.tensor(grad.float().numpy()).to(tdt),
                                          torch.tensor(x.float().numpy()).to(tdt))
        np.testing.assert_array_equal(got.float().numpy(), tg.float().numpy())


def test_rrelu_writes_a_row_major_output():
    """PyTorch's rrelu_with_noise returns a row-major tensor for a transposed input (training or not); the slopes
    are drawn in row-major order of the elements either way."""
    x = E.tensor(np.arange(-6.0, 6.0).reshape(3, 4))
    for training in (True, False):
        assert E.rrelu(x.t(), 0.1, 0.3, training=training).stride() == (3, 1)
    E.manual_seed(2)
    a = E.rrelu(x.t(), 0.1, 0.3, training=True).numpy()
    E.manual_seed(2)
    np.testing.assert_array_equal(a, E.rrelu(x.t().contiguous(), 0.1, 0.3, training=True).numpy())


def test_out_keyword_is_taken_where_pytorchs_function_takes_it():
    x = E.tensor([1.0, -0.25, 0.75])
    for name in ("isnan", "isfinite"):  # relu too in PyTorch: see elementwise.NO_OUT
        with pytest.raises(TypeError, match=f"^{name}\\(\\) got an unexpected keyword argument 'out'$"):
            getattr(E, name)(x, out=E.empty(3))
    y = x.clone()
    y.relu_()  # relu(x, out=x), ember's in-place spelling
    assert y.tolist() == [1.0, 0.0, 0.75]
    out = E.empty(3)
    assert E.hardshrink(x, 0.5, out=out) is out and out.tolist() == [1.0, 0.0, 0.75]
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        E.hardshrink(x, out=E.empty(3, dtype=E.float64))
    with pytest.raises(TypeError, match="^hardshrink\\(\\) got an unexpected keyword argument 'out'$"):
        x.hardshrink(out=out)  # the method takes none


def test_softplus_with_beta_zero_is_a_silent_inf():
    x = E.tensor(np.array([0.0, 1.0, -1.0], dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "divide by zero" RuntimeWarning would raise here
        out = E.softplus(x, beta=0.0)
    assert np.isposinf(out.numpy()).all()


@pytest.mark.parametrize(("name", "attrs"), [("softplus", (1.0, 20.0)), ("mish", ()), ("gelu", ("none",)),
                                             ("hardswish", ()), ("elu", (1.0, 1.0, 1.0))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_and_inf_inputs_are_silent_even_under_a_user_filter(name, attrs, dtype):
    # PyTorch warns nothing; numpy's "invalid value encountered" must not surface under simplefilter("error")
    x = E.tensor(np.array([np.nan, np.inf, -np.inf, 0.0], dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(E, name)(x).numpy()
        grad = getattr(A, f"{name}_backward")(E.ones(4, dtype=x.dtype), x, *attrs).numpy()
    assert np.isnan(out[0]) and out[1] == np.inf
    assert grad.shape == (4,)


@pytest.mark.parametrize("fn", [lambda x: E.hardtanh(x), lambda x: E.relu6(x)])
def test_hardtanh_refuses_bool_inputs_as_pytorch(fn):
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        fn(E.tensor([True, False]))


@pytest.mark.parametrize("x", [E.tensor([1.0j]), E.tensor([True]), E.tensor([1.5])])
def test_clamp_without_bounds_names_the_missing_bounds_before_any_dtype_refusal(x):
    for f in (lambda: E.clamp(x), lambda: x.clamp(), lambda: E.clip(x)):
        with pytest.raises(RuntimeError, match="torch.clamp: At least one of 'min' or 'max' must not be None"):
            f()
