"""ember.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import functional as AF


def _t(values):
    return E.tensor(values, dtype=E.float64)


def test_jacobian_of_elementwise_and_matrix_functions():
    x = _t([0.5, -1.0, 2.0])
    j = AF.jacobian(lambda t: t.exp(), x)
    assert np.allclose(j.numpy(), np.diag(np.exp(x.numpy())))
    a = _t([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
    ja, jx = AF.jacobian(lambda m, v: m @ v, (a, x))
    assert tuple(ja.shape) == (2, 2, 3) and np.allclose(jx.numpy(), a.numpy())
    assert np.allclose(ja.numpy()[0, 0], x.numpy()) and np.allclose(ja.numpy()[0, 1], 0)


def test_hessian_of_a_quadratic_and_a_cubic():
    a = _t([[2.0, 1.0], [1.0, 3.0]])
    h = AF.hessian(lambda v: (v @ (a @ v)) / 2, _t([0.3, -0.2]))
    assert np.allclose(h.numpy(), a.numpy())
    x = _t([1.0, 2.0])
    assert np.allclose(AF.hessian(lambda v: (v ** 3).sum(), x).numpy(), np.diag(6 * x.numpy()))


def test_vector_products():
    x = _t([0.5, 1.5])
    v = _t([1.0, -2.0])
    out, g = AF.vjp(lambda t: t * t, x, v)
    assert np.allclose(g.numpy(), 2 * x.numpy() * v.numpy()) and not out.requires_grad
    _, jv = AF.jvp(lambda t: t.sin(), x, v)
    assert np.allclose(jv.numpy(), np.cos(x.numpy()) * v.numpy())
    _, hv = AF.hvp(lambda t: (t ** 3).sum(), x, v)
    _, vh = AF.vhp(lambda t: (t ** 3).sum(), x, v)
    assert np.allclose(hv.numpy(), 6 * x.numpy() * v.numpy()) and np.allclose(vh.numpy(), hv.numpy())


def test_strict_mode_refuses_in_pytorchs_words():
    hessian, jacobian, vhp, vjp = AF.hessian, AF.jacobian, AF.vhp, AF.vjp
    x, y = E.tensor([1.0, 2.0]), E.tensor([3.0])
    with pytest.raises(RuntimeError, match="^Output 1 of the user-provided function does not require gradients. The "
                                           "outputs must be computed in a differentiable manner from the input when "
                                           "running in strict mode.$"):
        jacobian(lambda a: (a * 2, E.ones(1)), x, strict=True)
    with pytest.raises(RuntimeError, match="^Output 1 of the user-provided function is independent of input 1. This "
                                           "is not allowed in strict mode.$"):
        jacobian(lambda a, b: (a * 2 + b, a.sum() * 3), (x, y), strict=True)
    with pytest.raises(RuntimeError, match="^The output of the user-provided function is independent of input 1. "
                                           "This is not allowed in strict mode.$"):
        vjp(lambda a, b: a * 2, (x, y), E.ones(2), strict=True)
    linear = "^While computing the hessian, found that the jacobian of the user-provided function with respect to " \
             "input 0 is independent of the input. This is not allowed in strict mode."
    with pytest.raises(RuntimeError, match=linear):
        hessian(lambda a: (a * 2).sum(), x, strict=True)
    with pytest.raises(RuntimeError, match=linear):
        vhp(lambda a: (a * 2).sum(), x, E.ones(2), strict=True)
    assert jacobian(lambda a, b: a * 2, (x, y))[1].tolist() == [[0.0], [0.0]]  # not strict: zeros
