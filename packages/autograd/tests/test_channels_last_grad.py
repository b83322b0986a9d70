"""Gradients through channels_last and permuted inputs, whose elementwise results keep the inputs' layout
(NOTE [ Elementwise result layout ] in ember.core.ops.memfmt): the values are those of the row-major
computation, checked by float64 finite differences and against numpy's closed forms."""

import numpy as np
import pytest

import ember.autograd as E

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4, 5))
B = RNG.standard_normal((2, 3, 4, 5))

FNS = {
    "exp": lambda x, y: x.exp(),
    "mul": lambda x, y: x * y,
    "add bias": lambda x, y: x + y[:, :, :1, :1],
    "sigmoid": lambda x, y: x.sigmoid(),
    "where": lambda x, y: E.where(x > 0, x, y),
    "div": lambda x, y: x / (y.abs() + 1),
    "square": lambda x, y: x ** 2,
    "clamp": lambda x, y: x.clamp(-0.5, 0.5),
    "mixed layouts": lambda x, y: (x + 1) * y.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
}


def _leaves():
    x = E.tensor(A).contiguous(memory_format=E.channels_last).requires_grad_(True)
    y = E.tensor(B).requires_grad_(True)
    return x, y


@pytest.mark.parametrize("name", list(FNS))
def test_gradients_by_finite_differences(name):
    x, y = _leaves()
    assert x.stride() == (60, 1, 15, 3)
    assert E.autograd.gradcheck(FNS[name], (x, y), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", list(FNS))
def test_gradients_equal_the_row_major_computation(name):
    x, y = _leaves()
    g = E.tensor(RNG.standard_normal((2, 3, 4, 5)))
    FNS[name](x, y).backward(g)
    xc, yc = E.tensor(A).requires_grad_(True), E.tensor(B).requires_grad_(True)
    FNS[name](xc, yc).backward(g)
    np.testing.assert_allclose(x.grad.numpy(), xc.grad.numpy(), rtol=1e-14, atol=1e-14)
    assert (y.grad is None) == (yc.grad is None)
    if y.grad is not None:
        np.testing.assert_allclose(y.grad.numpy(), yc.grad.numpy(), rtol=1e-14, atol=1e-14)


def test_gradients_against_closed_forms():
    x, y = _leaves()
    (x.exp() * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(A) * B, rtol=1e-14)
    np.testing.assert_allclose(y.grad.numpy(), np.exp(A), rtol=1e-14)
    x, y = _leaves()
    E.where(x > 0, x * x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(A > 0, 2 * A, 0), rtol=1e-14)
    np.testing.assert_allclose(y.grad.numpy(), np.where(A > 0, 0, 1.0), rtol=1e-14)
