"""Derivatives of the special functions beyond the table's gradchecks (test_derivatives.py): the ones
PyTorch refuses, the ops without one, values at the points where a rule has a special case, second
order, node names, and gradients against PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ag_util import make

import ember.autograd as E
from ember.autograd import special as S

F64 = E.float64


def _grad(fn, x: E.Tensor) -> list[float]:
    x = x.detach().requires_grad_()
    fn(x).sum().backward()
    return x.grad.tolist()


@pytest.mark.parametrize(("fn", "message"), [
    (lambda x: S.zeta(x, 2.0), "the derivative for 'zeta' is not implemented."),
    (lambda x: S.gammainc(x, 2.0), "the derivative for 'igamma: input' is not implemented."),
    (lambda x: E.igammac(x, E.tensor([1.0, 2.0], dtype=F64)),
     "the derivative for 'igammac: input' is not implemented."),
])
def test_derivatives_pytorch_lacks_raise_like_pytorch(fn, message):
    x = E.tensor([1.5, 2.5], dtype=F64, requires_grad=True)
    with pytest.raises(NotImplementedError, match=message):
        fn(x).sum().backward()


@pytest.mark.parametrize("name", ["airy_ai", "bessel_j0", "bessel_y1", "modified_bessel_k0", "spherical_bessel_j0",
                                  "scaled_modified_bessel_k1"])
def test_functions_without_a_derivative_give_results_that_do_not_require_grad(name):
    x = E.tensor([0.5, 1.5], dtype=F64, requires_grad=True)
    assert not getattr(S, name)(x).requires_grad
    assert not S.chebyshev_polynomial_t(x, 3).requires_grad and not S.hermite_polynomial_h(x, x).requires_grad


def test_special_points_of_the_rules():
    zero = E.tensor([0.0], dtype=F64)
    assert _grad(S.i1, zero) == [0.5] and _grad(S.i1e, zero) == [0.5] and _grad(E.sinc, zero) == [0.0]
    x = E.tensor([0.1, 0.5, 0.95, 1.5], dtype=F64)
    clamped = _grad(lambda v: E.logit(v, eps=0.2), x)
    assert clamped[0] == 0.0 and clamped[2] == 0.0 and clamped[3] == 0.0 and clamped[1] == pytest.approx(4.0)
    free = _grad(E.logit, x)
    assert math.isnan(free[3]) and free[1] == pytest.approx(4.0)
    # with eps, only an x outside [eps, 1 - eps] has a zero gradient: a NaN x's is NaN, as PyTorch's rule
    assert math.isnan(_grad(lambda v: E.logit(v, eps=0.2), E.tensor([math.nan], dtype=F64))[0])
    # xlog1py(0, y <= -1) has no gradient wrt x, as PyTorch masks it
    g = _grad(lambda v: S.xlog1py(v, E.tensor([-1.0, 1.0], dtype=F64)), E.tensor([0.0, 0.0], dtype=F64))
    assert g == [0.0, pytest.approx(math.log(2.0))]


def test_grad_fn_names_are_pytorchs():
    x = E.tensor([0.5, 1.5], dtype=F64, requires_grad=True)
    names = {"LgammaBackward0": E.lgamma(x), "DigammaBackward0": S.psi(x), "PolygammaBackward0": E.polygamma(2, x),
             "SpecialErfcxBackward0": S.erfcx(x), "I0Backward0": E.i0(x), "SpecialI0EBackward0": S.i0e(x),
             "SpecialI1EBackward0": S.i1e(x), "SpecialNdtriBackward0": S.ndtri(x / 2), "SincBackward0": E.sinc(x),
             "LogitBackward0": E.logit(x / 2), "SpecialXlog1PyBackward0": S.xlog1py(x, x),
             "IgammaBackward0": E.igamma(x, x)}
    for name, y in names.items():
        assert y.grad_fn.name() == name


def test_ndtr_records_pytorchs_composite_nodes():
    # PyTorch composes ndtr of Scalar-overload mul and add around erf: its graph is those nodes, not one ndtr node
    x = E.tensor([-2.0, 0.5, 3.0], dtype=F64, requires_grad=True)
    node, names = S.ndtr(x).grad_fn, []
    while node is not None and node.next_functions:
        names.append(node.name())
        node = node.next_functions[0][0]
    assert names == ["MulBackward1", "AddBackward1", "ErfBackward0", "MulBackward1"]
    pdf = np.exp(-0.5 * np.array([-2.0, 0.5, 3.0]) ** 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(_grad(S.ndtr, x), pdf, rtol=1e-14)
    assert E.autograd.gradgradcheck(S.ndtr, (make((4,), -3.0, 2.0),))


def test_second_order():
    x = make((4,), 0.5, 3.0)
    assert E.autograd.gradgradcheck(E.lgamma, (x,))
    assert E.autograd.gradgradcheck(lambda v: E.polygamma(1, v), (x,))
    assert E.autograd.gradgradcheck(S.erfcx, (make((4,), -1.0, 2.0),))
    assert E.autograd.gradgradcheck(S.log_ndtr, (make((4,), -3.0, 2.0),))


@pytest.mark.torch
def test_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    cases = {"gammaln": (0.2, 5), "digamma": (0.2, 5), "erfc": (-2, 2), "erfcx": (-2, 5), "i0": (-3, 3),
             "i0e": (-3, 3), "i1": (-3, 3), "i1e": (-3, 3), "ndtr": (-3, 3), "ndtri": (0.01, 0.99),
             "log_ndtr": (-8, 3), "entr": (0.1, 3), "sinc": (-3, 3), "logit": (0.05, 0.95)}
    for name, (lo, hi) in cases.items():
        a = rng.uniform(lo, hi, 20)
        got = _grad(getattr(S, name), E.tensor(a, dtype=F64))
        t = torch.tensor(a, requires_grad=True)
        getattr(torch.special, name)(t).sum().backward()
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-9, err_msg=name)
    a, b = rng.uniform(0.5, 4, 20), rng.uniform(0.5, 4, 20)
    for name in ("gammainc", "gammaincc", "zeta", "xlog1py"):
        got = _grad(lambda v, n=name: getattr(S, n)(E.tensor(a + (name == "zeta"), dtype=F64), v), E.tensor(b))
        t = torch.tensor(b, requires_grad=True)
        getattr(torch.special, name)(torch.tensor(a + (name == "zeta")), t).sum().backward()
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-8, err_msg=name)
    for n in (1, 2):
        t = torch.tensor(b, requires_grad=True)
        torch.polygamma(n, t).sum().backward()
        np.testing.assert_allclose(_grad(lambda v, n=n: E.polygamma(n, v), E.tensor(b, dtype=F64)), t.grad.numpy(),
                                   rtol=1e-8)
