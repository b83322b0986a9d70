"""Gradients of the long-tail functions composed in ember.core (logaddexp, nan_to_num, deg2rad,
ldexp, frexp, trapezoid, sum_to_size ...) against float64 central differences."""

import math

import pytest

import ember.autograd as E
from ember.autograd import gradcheck

F64 = E.float64


def _x(*values, shape=None):
    t = E.tensor(values, dtype=F64)
    return (t.view(*shape) if shape else t).requires_grad_(True)


@pytest.mark.parametrize("fn", [E.logaddexp, E.logaddexp2])
def test_logaddexp_gradients(fn):
    a, b = _x(0.3, -2.0, 5.0, 1.0), _x(-0.7, 4.0, 5.5, 2.5)
    assert gradcheck(fn, (a, b))


def test_logaddexp_gradient_at_a_tie_is_one_half():
    a, b = _x(1.0), _x(1.0)
    E.logaddexp(a, b).backward()
    assert a.grad.tolist() == [0.5] and b.grad.tolist() == [0.5]


def test_nan_to_num_passes_gradient_only_through_finite_elements():
    x = E.tensor([math.nan, math.inf, 2.0, -math.inf], dtype=F64, requires_grad=True)
    E.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("fn", [E.deg2rad, E.rad2deg, lambda x: E.ldexp(x, E.tensor([1.0, -2.0, 3.0], dtype=F64))])
def test_scaling_gradients(fn):
    assert gradcheck(fn, (_x(0.5, -1.5, 2.0),))


def test_frexp_mantissa_gradient_is_two_to_minus_exponent():
    x = _x(3.0, -0.3, 40.0)
    m, e = E.frexp(x)
    m.sum().backward()
    assert x.grad.tolist() == [2.0 ** -k for k in e.tolist()]


def test_trapezoid_gradients():
    y = _x(1.0, 2.0, 4.0, 3.0, 5.0, 9.0, shape=(2, 3))
    x = _x(0.0, 1.0, 3.0)
    assert gradcheck(lambda y, x: E.trapezoid(y, x), (y, x))
    assert gradcheck(lambda y: E.cumulative_trapezoid(y, dx=0.5, dim=0), (y,))


def test_sum_to_size_gradient_expands_back():
    x = _x(*range(6), shape=(2, 3))
    assert gradcheck(lambda x: x.sum_to_size(1, 3), (x,))


def test_in_place_view_op_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        E.zeros(2, 3, requires_grad=True).t_()
