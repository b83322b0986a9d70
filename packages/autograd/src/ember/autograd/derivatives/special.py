"""Derivatives of the special functions (`ember.core.ops.special`), as PyTorch defines them; where
PyTorch has none (zeta and the incomplete gammas in their first argument) the rule raises as it does."""

from __future__ import annotations

import math

from ember.core.ops import elementwise as ew
from ember.core.ops import special as sp
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import not_implemented, where0

__all__ = ["ENTRIES"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_OPS = sp.OPS


def _i1_input(grad, input, result):
    # I1'(x) = I0(x) - I1(x) / x, which is 1/2 at 0
    return grad * ew.where(input == 0, 0.5, _OPS["i0"](input) - result / input)


def _i1e_input(grad, input, result):
    return grad * ew.where(input == 0, 0.5, _OPS["special_i0e"](input) - result * (ew.sign(input) + 1.0 / input))


def _log_ndtr_input(grad, input):
    # pdf / cdf = sqrt(2/pi) / erfcx(-x/sqrt(2)): exp(-x^2/2 - log_ndtr(x)) cancels in the far left tail
    return grad * math.sqrt(2.0 / math.pi) / _OPS["special_erfcx"](input * -math.sqrt(0.5))


def _sinc_input(grad, input):
    px = math.pi * input
    return grad * ew.where(input == 0, 0.0, (px * ew.cos(px) - ew.sin(px)) / (px * input))


def _logit_input(grad, input, eps):
    g = grad / (input * (1.0 - input))
    if eps is None:
        return ew.where(ew.logical_or(input < 0, input > 1), math.nan, g)
    return where0(ew.logical_not(ew.logical_or(input < eps, input > 1.0 - eps)), g)  # a NaN input's grad is NaN


def _xlog1py_input(grad, input, other):
    g = _OPS["special_xlog1py"](grad, other)
    return where0(ew.logical_not(ew.logical_and(input == 0, other <= -1)), g)


def _igamma_other(grad, input, other):
    # the density of Gamma(input, 1) at other: other^(input - 1) e^-other / Gamma(input)
    lg = _OPS["lgamma"](input) if isinstance(input, Tensor) else math.lgamma(input)
    return grad * ew.exp((input - 1.0) * ew.log(other) - other - lg)


ENTRIES = [
    d("lgamma(input)", input=lambda grad, input: grad * _OPS["digamma"](input)),
    d("digamma(input)", input=lambda grad, input: grad * sp.polygamma(1, input)),
    d("polygamma(n, input)", n=None, input=lambda grad, n, input: grad * sp.polygamma(n + 1, input)),
    d("erfc(input)", input=lambda grad, input: -_TWO_OVER_SQRT_PI * grad * ew.exp(-input * input)),
    d("special_erfcx(input)", input=lambda grad, input, result: grad * (2.0 * input * result - _TWO_OVER_SQRT_PI)),
    d("i0(input)", input=lambda grad, input: grad * _OPS["special_i1"](input)),
    d("special_i0e(input)", name="SpecialI0EBackward0",
      input=lambda grad, input, result: grad * (_OPS["special_i1e"](input) - ew.sign(input) * result)),
    d("special_i1(input)", input=_i1_input),
    d("special_i1e(input)", name="SpecialI1EBackward0", input=_i1e_input),
    d("special_ndtri(input)", input=lambda grad, result: grad * _SQRT_2PI * ew.exp(0.5 * result * result)),
    d("special_log_ndtr(input)", input=_log_ndtr_input),
    d("special_entr(input)", input=lambda grad, input: grad * -(1.0 + ew.log(input))),
    d("sinc(input)", input=_sinc_input),
    d("logit(input, eps=None)", eps=None, input=_logit_input),
    d("special_xlog1py(input, other)", name="SpecialXlog1PyBackward0", input=_xlog1py_input,  # PyTorch's title()
      other=lambda grad, input, other: grad * input / (other + 1.0)),
    d("special_zeta(input, other)", input=not_implemented("zeta"),
      other=lambda grad, input, other: grad * -input * _OPS["special_zeta"](input + 1.0, other)),
    d("igamma(input, other)", input=not_implemented("igamma: input"), other=_igamma_other),
    d("igammac(input, other)", input=not_implemented("igammac: input"),
      other=lambda grad, input, other: -_igamma_other(grad, input, other)),
]
