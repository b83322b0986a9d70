"""`_safe_softmax`'s derivative: softmax's backward of its result, zero on all -inf rows, bitwise the gradient
of the composition attention used before (`where(empty, 0, softmax(where(empty, 0, x)))`)."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea

NEG = -np.inf


def _scores(shape, dtype, seed) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.3] = NEG
    rows = x.reshape(-1, shape[-1])
    rows[rng.choice(rows.shape[0], max(rows.shape[0] // 4, 1), replace=False)] = NEG
    rows[0] = NEG
    rows[1] = rng.standard_normal(shape[-1])
    return x


def _grads(fn, x: np.ndarray, g: np.ndarray):
    t = ea.from_numpy(x.copy()).requires_grad_(True)
    y = fn(t)
    y.backward(ea.from_numpy(g))
    return y.detach().numpy(), t.grad.numpy()


def _composition(x):
    empty = (x == NEG).all(-1, keepdim=True)
    return ea.where(empty, 0.0, ea.softmax(ea.where(empty, 0.0, x), -1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5, 6), (4, 2, 64, 64)], ids=["numpy", "rows-pass"])
def test_gradient_is_the_compositions(shape, dtype):
    x = _scores(shape, dtype, 0)
    g = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    y, gx = _grads(lambda t: ea._safe_softmax(t, -1), x, g)
    y0, gx0 = _grads(_composition, x, g)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(gx, gx0)
    empty = (x == NEG).all(-1)
    assert (gx[empty] == 0).all() and np.isfinite(gx).all()


def test_gradient_against_finite_differences():
    x = _scores((4, 5), np.float64, 2)
    keep = np.isfinite(x)
    g = np.random.default_rng(3).standard_normal(x.shape)
    _, gx = _grads(lambda t: ea._safe_softmax(t, 1), x, g)
    num = np.zeros_like(x)
    for idx in zip(*np.nonzero(keep)):
        hi, lo = x.copy(), x.copy()
        hi[idx] += 1e-6
        lo[idx] -= 1e-6
        f = [(ea._safe_softmax(ea.from_numpy(a), 1).numpy() * g).sum() for a in (hi, lo)]
        num[idx] = (f[0] - f[1]) / 2e-6
    np.testing.assert_allclose(gx[keep], num[keep], rtol=1e-6, atol=1e-8)
    assert (gx[~keep] == 0).all()


def test_grad_fn_name():
    y = ea._safe_softmax(ea.zeros(2, 3, requires_grad=True), 1)
    assert type(y.grad_fn).__name__ == "SafeSoftmaxBackward0"
