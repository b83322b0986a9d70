"""Gradients of complex tensors in PyTorch's convention (the conjugate Wirtinger derivative):
float64 finite differences in both the real and the imaginary direction of every element
(gradcheck's float views), hard-coded values, and PyTorch's grads where it is installed."""

from __future__ import annotations

import io

import numpy as np
import pytest

import ember.autograd as E


def crand(*shape, seed: int = 0, requires_grad: bool = True) -> E.Tensor:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
    return E.from_numpy(a).requires_grad_(requires_grad)


UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh",
         "atanh", "reciprocal", "rsqrt", "neg", "square", "expm1", "log1p", "log2", "log10", "sigmoid", "abs",
         "angle", "sgn", "conj", "conj_physical"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_gradients_by_finite_differences(name):
    z = crand(2, 3, seed=1)
    assert E.gradcheck(getattr(E, name), (z,))


def test_sgn_node_is_named_as_pytorchs():
    assert type(crand(3).sgn().grad_fn).__name__ == "SgnBackward0"


@pytest.mark.parametrize("fn", [
    lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a + 2j * b, lambda a, b: a - b * 1.5,
    lambda a, b: a ** b, lambda a, b: a ** 2.5, lambda a, b: (2 + 1j) ** a, lambda a, b: a @ b.t(),
    lambda a, b: (a * b).sum(1), lambda a, b: (a * b).mean(), lambda a, b: a.prod(0),
    lambda a, b: E.where(a.real > 0, a, b),
])
def test_binary_and_reduction_gradients_by_finite_differences(fn):
    assert E.gradcheck(fn, (crand(2, 3, seed=2), crand(2, 3, seed=3)))


def test_real_inputs_of_complex_ops_get_real_gradients():
    r = E.tensor([1.0, 2.0], dtype=E.float64, requires_grad=True)
    z = E.tensor([1 + 2j, 3 - 4j], dtype=E.complex128)
    (r * z).imag.sum().backward()
    assert r.grad.dtype is E.float64 and r.grad.tolist() == [2.0, -4.0]
    a = E.ones(2, dtype=E.float64, requires_grad=True)
    b = E.ones(2, dtype=E.float64, requires_grad=True)
    E.complex(a, b).mul(E.complex(a, b)).abs().sum().backward()
    assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [2.0, 2.0]
    x = E.rand(3, 2, dtype=E.float64, requires_grad=True)
    assert E.gradcheck(lambda x: E.fft.fft(x * 1j).abs(), (x,))


def test_grad_of_a_real_loss_is_the_conjugate_wirtinger_derivative():
    z = E.tensor([1 + 2j, 3 - 4j], dtype=E.complex128, requires_grad=True)
    (z.abs() ** 2).sum().backward()  # |z|^2 = x^2 + y^2: d/dx + i d/dy = 2z
    np.testing.assert_allclose(z.grad.numpy(), [2 + 4j, 6 - 8j], rtol=1e-15)
    z.grad = None
    z.real.sum().backward()
    assert z.grad.tolist() == [1 + 0j, 1 + 0j]
    z.grad = None
    z.imag.sum().backward()
    assert z.grad.tolist() == [1j, 1j]


def test_complex_leaves_train_with_sgd():
    """Minimising |w - t|^2 with PyTorch's gradient (2 (w - t)) converges to t."""
    t = E.tensor([1 - 1j, 0.5 + 2j])
    w = E.zeros(2, dtype=E.complex64, requires_grad=True)
    for _ in range(60):
        loss = ((w - t).abs() ** 2).sum()
        w.grad = None
        loss.backward()
        with E.no_grad():
            w -= 0.1 * w.grad
    np.testing.assert_allclose(w.detach().numpy(), t.numpy(), atol=1e-4)


def test_backward_of_a_complex_scalar_needs_a_gradient():
    z = crand(3)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar outputs"):
        (z * z).sum().backward()


def test_integer_tensors_still_refuse_requires_grad():
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        E.ones(2, dtype=E.int64).requires_grad_()


def test_save_and_load_complex_tensors():
    z = crand(2, 3, requires_grad=False).to(E.complex64)
    buf = io.BytesIO()
    E.save({"z": z, "w": crand(2).requires_grad_()}, buf)
    buf.seek(0)
    back = E.load(buf)
    assert back["z"].dtype is E.complex64 and back["w"].requires_grad and back["w"].dtype is E.complex128
    np.testing.assert_array_equal(back["z"].numpy(), z.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("name", UNARY)
def test_unary_grads_match_pytorch(name):
    torch = pytest.importorskip("torch")
    z = crand(2, 3, seed=4)
    w = crand(2, 3, seed=5, requires_grad=False)
    tz = torch.tensor(z.detach().numpy(), requires_grad=True)
    tw = torch.tensor(w.numpy())
    out = getattr(E, name)(z)
    tout = getattr(torch, name)(tz)
    np.testing.assert_allclose(out.detach().resolve_conj().numpy(), tout.detach().resolve_conj().numpy(), rtol=1e-10,
                               atol=1e-12)
    # a real loss of the (complex or real) output
    (out * w).real.sum().backward() if out.is_complex() else (out * w.real).sum().backward()
    (tout * tw).real.sum().backward() if tout.is_complex() else (tout * tw.real).sum().backward()
    np.testing.assert_allclose(z.grad.resolve_conj().numpy(), tz.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.torch
def test_chain_of_ops_grads_match_pytorch():
    torch = pytest.importorskip("torch")

    def loss(lib, a, b, r):
        y = lib.exp(a) * b.conj() / (a + 2) + lib.sqrt(b) @ a.t()
        return (y.abs() + lib.angle(y) * r).mean() + (a * r).real.pow(2).sum()

    a, b = crand(3, 3, seed=6), crand(3, 3, seed=7)
    r = E.from_numpy(np.random.default_rng(8).standard_normal((3, 3))).requires_grad_()
    ta, tb, tr = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (a, b, r))
    loss(E, a, b, r).backward()
    loss(torch, ta, tb, tr).backward()
    for x, tx in ((a, ta), (b, tb), (r, tr)):
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.torch
def test_complex_checkpoints_load_in_pytorch_and_back():
    torch = pytest.importorskip("torch")
    z = crand(2, 3, requires_grad=False).to(E.complex64)
    buf = io.BytesIO()
    E.save({"z": z}, buf)
    buf.seek(0)
    tz = torch.load(buf)["z"]
    assert tz.dtype == torch.complex64
    np.testing.assert_array_equal(tz.numpy(), z.numpy())
    buf = io.BytesIO()
    torch.save({"w": torch.tensor([1 + 2j, 3j], dtype=torch.complex128)}, buf)
    buf.seek(0)
    w = E.load(buf)["w"]
    assert w.dtype is E.complex128 and w.tolist() == [1 + 2j, 3j]


@pytest.mark.parametrize("fn", [lambda z: (z.exp() * z).abs(), lambda z: E.fft.fft(z).abs().pow(2),
                                lambda z: (z * z.conj()).real + z.angle()])
def test_second_derivatives_of_complex_functions(fn):
    z = E.from_numpy(np.array([0.3 + 0.4j, -0.5 + 0.2j])).requires_grad_()
    assert E.gradgradcheck(fn, (z,))


def test_complex_parts_and_moments_carry_pytorchs_node_names():
    z = E.tensor([1j, 2.0], requires_grad=True)
    assert type(z.real.grad_fn).__name__ == "SelectBackward0"  # PyTorch's real/imag select view_as_real
    assert type(z.imag.grad_fn).__name__ == "SelectBackward0"
    assert type(z.std().grad_fn).__name__ == "StdBackward0"
    assert type(z.var(0).grad_fn).__name__ == "VarBackward0"
    z.std().backward()
    assert abs(z.grad[0].item() - (-0.6325 + 0.3162j)) < 1e-4
