"""Activation modules and functions against numpy formulas; in-place variants write their input."""

import math

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F

erf = np.vectorize(math.erf)


def sig(x):
    return 1 / (1 + np.exp(-x))


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


CASES = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    (nn.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    (nn.SiLU(), lambda x: x * sig(x)),
    (nn.Mish(), lambda x: x * np.tanh(softplus(x))),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), sig),
    (nn.Hardtanh(-2.0, 1.5), lambda x: np.clip(x, -2.0, 1.5)),
    (nn.Softplus(beta=2.0, threshold=5.0), lambda x: softplus(x, 2.0, 5.0)),
    (nn.LogSigmoid(), lambda x: np.log(sig(x))),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Threshold(0.5, -1.0), lambda x: np.where(x > 0.5, x, -1.0)),
    (nn.GLU(), lambda x: x[:, :3] * sig(x[:, 3:])),
]


@pytest.mark.parametrize("module, ref", CASES, ids=[type(m).__name__ for m, _ in CASES])
def test_activation_matches_formula(module, ref):
    x = torch.randn(4, 6, dtype=torch.float64) * 4
    np.testing.assert_allclose(module(x).numpy(), ref(x.numpy()), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_modules(dim):
    x = torch.randn(3, 5, dtype=torch.float64)
    a = x.numpy()
    e = np.exp(a - a.max(dim, keepdims=True))
    sm = e / e.sum(dim, keepdims=True)
    np.testing.assert_allclose(nn.Softmax(dim=dim)(x).numpy(), sm, rtol=1e-12)
    np.testing.assert_allclose(nn.LogSoftmax(dim=dim)(x).numpy(), np.log(sm), rtol=1e-10)
    np.testing.assert_allclose(nn.Softmin(dim=dim)(x).numpy(), F.softmax(-x, dim).numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_functions_without_dim_warn_at_their_caller_and_pick_pytorchs_dim(name):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = getattr(F, name)(torch.ones(2, 3, 4))
    (w,) = caught
    assert str(w.message) == (f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                              "dim=X as an argument.")
    assert w.filename == __file__  # PyTorch's _stacklevel=3: the line that called F.{name}
    np.testing.assert_allclose(out.detach().numpy(), getattr(F, name)(torch.ones(2, 3, 4), dim=0).numpy())


@pytest.mark.parametrize("module", [nn.ReLU(inplace=True), nn.LeakyReLU(inplace=True), nn.ELU(inplace=True),
                                    nn.Hardtanh(inplace=True), nn.ReLU6(inplace=True), nn.SiLU(inplace=True)],
                         ids=lambda m: repr(m))
def test_inplace_activations_write_their_input(module):
    x = torch.randn(10, dtype=torch.float64) * 3
    expected = type(module)()(x.clone())
    out = module(x)
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-12)
    assert out.data_ptr() == x.data_ptr()


def test_activation_errors():
    with pytest.raises(AssertionError, match=r"^max_val \(0.0\) must be greater than min_val \(1.0\)$"):
        nn.Hardtanh(1.0, 0.0)
    for training in (True, False):
        with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
            F.rrelu(torch.zeros(3), 0.5, 0.1, training=training)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torch.zeros(2, 3))


def test_glu_checks_the_shape_then_refuses_non_floating_inputs_as_pytorch():
    """F.glu is core's glu (one copy): a scalar or an odd halving dim is refused first, then an integer, bool or
    complex input with PyTorch's NotImplementedError; the node is GluBackward0."""
    with pytest.raises(RuntimeError, match="^glu does not support scalars because halving size must be even$"):
        F.glu(torch.tensor(1))
    with pytest.raises(RuntimeError, match="^Halving dimension must be even, but dimension 1 is size 3$"):
        F.glu(torch.ones(2, 3, dtype=torch.int64))
    for dt, name in ((torch.int64, "Long"), (torch.bool, "Bool"), (torch.complex64, "ComplexFloat")):
        with pytest.raises(NotImplementedError, match=f"^\"glu_cpu\" not implemented for '{name}'$"):
            F.glu(torch.ones(2, 4, dtype=dt))
    x = torch.tensor([[1.0, -2.0, 0.5, 3.0]], requires_grad=True)
    y = F.glu(x)
    assert y.grad_fn.name() == "GluBackward0"
    np.testing.assert_allclose(y.detach().numpy(), [[1 / (1 + np.exp(-0.5)), -2 / (1 + np.exp(-3.0))]], rtol=1e-6)


# 2 * 3 * 16 * 16 elements: above the size where relu runs its Numba kernels (new and in place)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("call", [lambda y: F.relu(y, inplace=True), lambda y: y.relu_(), lambda y: F.relu_(y),
                                  lambda y: nn.ReLU(inplace=True)(y)],
                         ids=["F.relu", "Tensor.relu_", "F.relu_", "ReLU"])
def test_inplace_relu_writes_its_input_and_backpropagates_through_its_result(call, dtype):
    x = torch.randn(2, 3, 16, 16, dtype=dtype)
    x[0, 0, 0, :4] = torch.tensor([0.0, -0.0, float("nan"), float("-inf")], dtype=dtype)
    x.requires_grad_(True)
    y = x * 1.0
    ptr, version = y.data_ptr(), y._version
    out = call(y)
    assert out is y and out.data_ptr() == ptr and y._version == version + 1
    assert type(out.grad_fn).__name__ == "ReluBackward0"
    a = x.detach().numpy()
    np.testing.assert_array_equal(out.detach().numpy(), np.where(a > 0, a, np.where(a != a, a, 0)))
    assert np.signbit(out.detach().numpy()[0, 0, 0, 1])  # relu(-0.0) is -0.0, as PyTorch's `x < 0 ? 0 : x`
    w = torch.randn(2, 3, 16, 16, dtype=dtype)
    (out * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(a <= 0, 0, w.numpy()))  # 0 where x <= 0; NaN passes


def test_inplace_relu_refuses_a_leaf_that_requires_grad_and_its_views():
    x = torch.randn(4, 300, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        F.relu(x, inplace=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        x[1].relu_()


def test_relu_kernel_matches_numpy_on_large_strided_and_float16_inputs():
    for x in (torch.randn(64, 40, dtype=torch.float64), torch.randn(64, 40).t(), torch.randn(64, 40).half()):
        a = x.numpy().astype(np.float64)
        np.testing.assert_array_equal(F.relu(x).numpy().astype(np.float64), np.maximum(a, 0))
        y = x.clone()
        y.relu_()
        np.testing.assert_array_equal(y.numpy().astype(np.float64), np.maximum(a, 0))


def test_inplace_silu_backpropagates_through_the_original_input():
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    y = x * 1.0
    out = F.silu(y, inplace=True)
    assert out.data_ptr() == y.data_ptr()
    out.sum().backward()
    a = x.detach().numpy()
    s = sig(a)
    np.testing.assert_allclose(x.grad.numpy(), s * (1 + a * (1 - s)), rtol=1e-12)


@pytest.mark.torch
def test_inplace_relu_gradient_matches_torch():
    T = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 4, 12, 12)).astype(np.float32)
    x, xt = torch.tensor(a, requires_grad=True), T.tensor(a, requires_grad=True)
    for lib, v in ((torch, x), (T, xt)):
        out = lib.nn.functional.relu(v * 2.0, inplace=True) if lib is T else F.relu(v * 2.0, inplace=True)
        (out * out).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())


RESULT_BACKED = [  # PyTorch differentiates these in-place activations from their result (node names as its)
    ("HardtanhBackward0", lambda y, inplace: F.hardtanh(y, -0.5, 0.75, inplace=inplace)),
    ("HardtanhBackward0", lambda y, inplace: F.relu6(y, inplace=inplace)),
    ("LeakyReluBackward1", lambda y, inplace: F.leaky_relu(y, 0.2, inplace=inplace)),
    ("LeakyReluBackward1", lambda y, inplace: F.leaky_relu(y, 0.0, inplace=inplace)),
    ("EluBackward1", lambda y, inplace: F.elu(y, 0.7, inplace=inplace)),
    ("EluBackward1", lambda y, inplace: F.selu(y, inplace=inplace)),
    ("CeluBackward1", lambda y, inplace: F.celu(y, 1.5, inplace=inplace)),
]


@pytest.mark.parametrize("name, call", RESULT_BACKED, ids=[f"{i}-{n}" for i, (n, _) in enumerate(RESULT_BACKED)])
def test_inplace_activation_differentiates_from_its_result(name, call):
    a = np.random.default_rng(3).standard_normal((4, 7)) * 4
    a[0, :4] = [0.0, -0.5, 0.75, 6.0]  # on the kinks
    x = torch.tensor(a, requires_grad=True)
    w = torch.tensor(np.random.default_rng(4).standard_normal((4, 7)))
    y = x * 1.0
    out = call(y, True)
    assert out.data_ptr() == y.data_ptr() and type(out.grad_fn).__name__ == name
    (out * w).sum().backward()
    got = x.grad.numpy().copy()
    x.grad = None
    (call(x * 1.0, False) * w).sum().backward()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-12, atol=1e-15)
    # the rule saved the result, not a clone of the input: writing the result again is caught, as in PyTorch
    y = x * 1.0
    out = call(y, True)
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("call, message", [
    (lambda y: F.leaky_relu(y, -0.1, inplace=True), "In-place leakyReLu backward"),
    (lambda y: F.elu(y, -1.0, inplace=True), "In-place elu backward")])
def test_inplace_activation_with_a_negative_slope_refuses_backward(call, message):
    x = torch.randn(5, requires_grad=True)
    out = call(x * 1.0)  # the forward runs, as PyTorch's
    with pytest.raises(RuntimeError, match=message):
        out.sum().backward()


@pytest.mark.torch
def test_inplace_activation_gradients_match_torch():
    T = pytest.importorskip("torch")
    a = np.random.default_rng(5).standard_normal((3, 8)).astype(np.float32) * 3
    for fname, args in (("hardtanh", (-1.0, 1.0)), ("relu6", ()), ("leaky_relu", (0.05,)), ("elu", (1.2,)),
                        ("selu", ()), ("celu", (0.5,))):
        grads = []
        for lib, f in ((torch, F), (T, T.nn.functional)):
            x = lib.tensor(a, requires_grad=True)
            out = getattr(f, fname)(x * 1.5, *args, inplace=True)
            (out * out).sum().backward()
            grads.append(x.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6, err_msg=fname)


def test_softsign_and_tanhshrink_are_pytorchs_compositions():
    # PyTorch's F.softsign / F.tanhshrink are Python: x / (|x| + 1) and x - tanh(x); their graphs end in
    # DivBackward0 / SubBackward0, a 16-bit input rounds at each step, and an integer softsign divides to float
    x = torch.tensor(np.linspace(-3, 3, 7), requires_grad=True)
    assert F.softsign(x).grad_fn.name() == "DivBackward0"
    assert F.tanhshrink(x).grad_fn.name() == "SubBackward0"
    h = torch.tensor(np.linspace(-3, 3, 64)).to(torch.bfloat16)
    np.testing.assert_array_equal(F.softsign(h).float().numpy(), (h / (h.abs() + 1)).float().numpy())
    np.testing.assert_array_equal(F.tanhshrink(h).float().numpy(), (h - h.tanh()).float().numpy())
    assert F.softsign(torch.tensor([-2, 0, 3])).tolist() == pytest.approx([-2 / 3, 0.0, 0.75])


def test_rrelu_nodes_are_pytorchs():
    """rrelu's output carries PyTorch's RreluWithNoiseBackward0 (RreluWithNoiseBackward1 in place), training or not,
    and its gradient is the drawn slope below zero."""
    x = torch.tensor([[-2.0, 1.0], [3.0, -4.0]], requires_grad=True)
    for training in (True, False):
        assert F.rrelu(x.t(), training=training).grad_fn.name() == "RreluWithNoiseBackward0"
    out = F.rrelu(x, 0.1, 0.3, training=True)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (out / x).detach().numpy(), rtol=1e-6)
    z = x.clone()
    assert F.rrelu_(z, training=True).grad_fn.name() == "RreluWithNoiseBackward1"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16bit_glu_computes_in_float32_and_rounds_once(dtype):
    # PyTorch's glu kernel: a * sigmoid(b) in float32, one rounding (the sigmoid rounded first left a quarter of
    # these an ulp off); its node stays GluBackward0
    x = (torch.randn(6, 10, generator=torch.Generator().manual_seed(1)) * 2).to(getattr(torch, dtype))
    a, b = x.float().numpy()[:, :5], x.float().numpy()[:, 5:]
    want = torch.tensor((a / (1 + np.exp(-b))).astype(np.float32)).to(x.dtype).float().numpy()
    got = F.glu(x.requires_grad_(), 1)
    assert got.dtype is x.dtype and got.grad_fn.name() == "GluBackward0"
    np.testing.assert_array_equal(got.detach().float().numpy(), want)
