"""Derivatives of the elementwise primitives (unary math, binary arithmetic, where, clamp, lerp)."""



from __future__ import annotations

import math

from ember.core.dispatch import get_op
from ember.core.ops import elementwise as ew
from ember.core.ops.activation import threshold_backward as _threshold_backward
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import cj, where0, zeros_with

__all__ = ["ENTRIES", "COMPOSITE_ENTRIES"]

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _unary(name: str, rule, node_name: str | None = None):
    return d(f"{name}(input)", name=node_name, input=rule)


def _pow_input(grad, input, exponent):
    if isinstance(exponent, Tensor):
        return where0(exponent != 0, grad * cj(exponent * input ** (exponent - 1)))
    if exponent == 0:
        return grad * 0.0
    return grad * cj(exponent * input ** (exponent - 1))


def _pow_exponent(grad, input, exponent, result):
    if isinstance(input, Tensor):
        if input._dtype.is_complex or (isinstance(exponent, Tensor) and exponent._dtype.is_complex):
            return where0(input != 0, grad * cj(result * ew.log(input)))
        return where0(ew.logical_not(ew.logical_and(input == 0, exponent >= 0)), grad * result * ew.log(input))
    if input == 0:
        return where0(exponent < 0, grad * result * -math.inf)
    if isinstance(input, complex) or exponent._dtype.is_complex:
        import cmath

        return grad * cj(result * cmath.log(input))
    return grad * result * (math.log(input) if input > 0 else math.nan)


def _on_half_cpu(t) -> bool:
    return t._dtype.itemsize == 2 and t._dtype.is_floating_point and t.device.type == "cpu"


def _fused_cpu(t) -> bool:
    """Whether PyTorch's fused backward op (`tanh_backward`, `sigmoid_backward`) serves `t`: a real CPU tensor. A
    double backward then records TanhBackwardBackward0 as PyTorch's does; on a float16/bfloat16 tensor it computes
    in float32 and rounds once, where the composite rule would round at every step."""
    return t.device.type == "cpu" and not t._dtype.is_complex


def _tanh_grad(grad, result):
    return get_op("tanh_backward")(grad, result) if _fused_cpu(result) else grad * cj(1.0 - result * result)


def _sigmoid_grad(grad, result):
    if _on_half_cpu(result) and result._dtype.name == "bfloat16":  # PyTorch's float16 kernel rounds every step:
        return get_op("sigmoid_backward")(grad, result)  # (grad * (1 - y)) * y
    if _on_half_cpu(result):
        return grad * (1.0 - result) * result
    if _fused_cpu(result):
        return get_op("sigmoid_backward")(grad, result)
    return grad * cj(result * (1.0 - result))


def _silu_grad(grad, input):
    if _on_half_cpu(input):
        return get_op("silu_backward")(grad, input)
    s = ew.sigmoid(input)
    return grad * cj(s * (1.0 + input * (1.0 - s)))


def _inv_or_zero(t):
    """1 / t, 0 where t is 0 (atan2 at the origin has gradient 0 in PyTorch, not NaN)."""
    return ew.where(t == 0, 0.0, 1.0 / t)


def _max_input(grad, input, other):
    # PyTorch's masks: a tie splits the gradient, and a NaN (no order either way) passes it to both
    return ew.where(input == other, grad * 0.5, where0(ew.logical_not(input < other), grad))


def _max_other(grad, input, other):
    return ew.where(input == other, grad * 0.5, where0(ew.logical_not(input > other), grad))


def _fmax_mask(input, other):
    return ew.logical_or(input >= other, ew.isnan(other))


def _fmin_mask(input, other):
    return ew.logical_or(input <= other, ew.isnan(other))


def _clamp_input(grad, input, min, max):
    mask = None if min is None else input >= min
    if max is not None:
        upper = input <= max
        mask = upper if mask is None else ew.logical_and(mask, upper)
    return where0(mask, grad)


def _times(grad, alpha):
    """`grad * conj(alpha)`, or `grad` itself for alpha 1 (PyTorch's `maybe_multiply`)."""
    if alpha == 1:
        return grad
    return grad * (alpha.conjugate() if type(alpha) is complex else alpha)


def _clamp_min(grad, input, min, max):
    mask = input < min
    if max is not None:
        mask = ew.logical_and(mask, min < max)
    return where0(mask, grad)


def _clamp_max(grad, input, min, max):
    mask = input > max
    if min is not None:
        mask = ew.logical_and(mask, min < max)
    return where0(mask, grad)


ENTRIES = [
    _unary("neg", lambda grad: -grad),
    _unary("abs", lambda grad, input: grad * input.sgn()),
    _unary("square", lambda grad, input: grad * 2.0 * cj(input), "PowBackward0"),  # PyTorch: pow(x, 2)
    _unary("frac", lambda grad: grad),
    # flat steps: zeros, whatever the incoming gradient holds (a NaN or infinite one too), as PyTorch's
    *(_unary(name, lambda grad: zeros_with(grad._shape, grad)) for name in ("sign", "floor", "ceil", "trunc", "round")),
    _unary("relu", lambda grad, result: _threshold_backward(grad, result, 0.0)),  # one pass; NaN passes, as PyTorch
    _unary("exp", lambda grad, result: grad * cj(result)),
    _unary("exp2", lambda grad, result: grad * cj(result) * _LN2),
    _unary("expm1", lambda grad, result: grad * cj(result + 1.0)),
    _unary("log", lambda grad, input: grad / cj(input)),
    _unary("log1p", lambda grad, input: grad / cj(input + 1.0), "Log1PBackward0"),
    _unary("log2", lambda grad, input: grad / cj(input * _LN2)),
    _unary("log10", lambda grad, input: grad / cj(input * _LN10)),
    _unary("sqrt", lambda grad, result: grad / cj(2.0 * result)),
    _unary("rsqrt", lambda grad, result: -0.5 * grad * cj(result * result * result)),
    _unary("reciprocal", lambda grad, result: -grad * cj(result * result)),
    _unary("sin", lambda grad, input: grad * cj(ew.cos(input))),
    _unary("cos", lambda grad, input: -grad * cj(ew.sin(input))),
    _unary("tan", lambda grad, result: grad * cj(1.0 + result * result)),
    _unary("asin", lambda grad, input: grad * cj(ew.rsqrt(1.0 - input * input))),
    _unary("acos", lambda grad, input: -grad * cj(ew.rsqrt(1.0 - input * input))),
    _unary("atan", lambda grad, input: grad / cj(1.0 + input * input)),
    _unary("sinh", lambda grad, input: grad * cj(ew.cosh(input))),
    _unary("cosh", lambda grad, input: grad * cj(ew.sinh(input))),
    _unary("tanh", _tanh_grad),
    _unary("asinh", lambda grad, input: grad * cj(ew.rsqrt(input * input + 1.0))),
    _unary("acosh", lambda grad, input: grad * cj(ew.rsqrt(input * input - 1.0))),
    _unary("atanh", lambda grad, input: grad / cj(1.0 - input * input)),
    _unary("sigmoid", _sigmoid_grad),
    _unary("silu", _silu_grad),
    # PyTorch's order, `2 / sqrt(pi) * exp(-x^2) * grad`: in a 16-bit dtype each step rounds
    _unary("erf", lambda grad, input: _TWO_OVER_SQRT_PI * ew.exp(-(input * input)) * grad),
    _unary("erfinv", lambda grad, result: grad * (0.5 * math.sqrt(math.pi)) * ew.exp(result * result)),

    # PyTorch's AddBackward0/SubBackward0 save alpha, whichever input needs a gradient (`_saved_alpha`): `other`'s
    # gradient is `maybe_multiply(grad, alpha.conj())`
    d("add(input, other, *, alpha=1)", input=lambda grad, alpha: grad, other=lambda grad, alpha: _times(grad, alpha)),
    d("sub(input, other, *, alpha=1)", input=lambda grad, alpha: grad,
      other=lambda grad, alpha: _times(-grad, alpha)),
    d("mul(input, other)", input=lambda grad, other: grad * cj(other), other=lambda grad, input: grad * cj(input)),
    d("div(input, other)", input=lambda grad, other: grad / cj(other),
      other=lambda grad, input, other: -grad * cj((input / other) / other)),  # other * other underflows at 1e-30
    # the rounding quotients are flat steps: zero gradients (PyTorch's zeros, not grad * 0: a NaN grad stays out),
    # under `div(rounding_mode=)`'s node; `floor_divide` itself PyTorch does not differentiate (arith renames it)
    *(d(f"{name}(input, other)", name="DivBackward2", input=lambda grad, input: zeros_with(input._shape, grad),
        other=lambda grad, other: zeros_with(other._shape, grad)) for name in ("floor_divide", "trunc_divide")),
    d("remainder(input, other)", input=lambda grad: grad,
      other=lambda grad, input, other: -grad * ew.floor_divide(input, other)),
    d("fmod(input, other)", input=lambda grad: grad,
      other=lambda grad, input, other: -grad * ew.trunc_divide(input, other)),
    d("pow(input, exponent)", input=_pow_input, exponent=_pow_exponent),
    d("maximum(input, other)", input=_max_input, other=lambda grad, input, other: _max_input(grad, other, input)),
    d("minimum(input, other)", input=_max_other, other=lambda grad, input, other: _max_other(grad, other, input)),
    d("fmax(input, other)", input=lambda grad, input, other: where0(_fmax_mask(input, other), grad),
      other=lambda grad, input, other: where0(ew.logical_not(_fmax_mask(input, other)), grad)),
    d("fmin(input, other)", input=lambda grad, input, other: where0(_fmin_mask(input, other), grad),
      other=lambda grad, input, other: where0(ew.logical_not(_fmin_mask(input, other)), grad)),
    d("atan2(input, other)",
      input=lambda grad, input, other: grad * other * _inv_or_zero(input * input + other * other),
      other=lambda grad, input, other: -grad * input * _inv_or_zero(input * input + other * other)),
    d("hypot(input, other)", input=lambda grad, input, result: grad * input / result,
      other=lambda grad, other, result: grad * other / result),
    d("copysign(input, other)", other=lambda grad: grad * 0.0,
      input=lambda grad, input, result: grad * ew.where(input == 0, 0.0, result / input)),
    d("xlogy(input, other)",  # d/dx x log y = log y, also at x = 0 (PyTorch masks only x = 0 with y <= 0)
      input=lambda grad, input, other: ew.where(ew.logical_and(input == 0, other <= 0), 0.0, ew.xlogy(grad, other)),
      other=lambda grad, input, other: grad * input / other),
    d("where(condition, input, other)", condition=None, input=lambda grad, condition: where0(condition, grad),
      other=lambda grad, condition: ew.where(condition, 0.0, grad)),
    d("clamp(input, min=None, max=None)", name="ClampBackward1", input=_clamp_input, min=_clamp_min,
      max=_clamp_max),
    d("lerp(input, end, weight)", input=lambda grad, weight: grad * (1.0 - weight),
      end=lambda grad, weight: grad * weight, weight=lambda grad, input, end: grad * (end - input)),
]


# composites PyTorch records as one node (`record.computed`; see reduce.COMPOSITE_ENTRIES). ldexp's input gradient
# scales by pow(2, other) in other's dtype, as PyTorch's: an integer exponent below 0 gives 0. Its rule names
# `result` too, unused, because PyTorch's node saves the result whichever input requires grad (`_saved_result`)
COMPOSITE_ENTRIES = [
    d("ldexp(input, other)", input=lambda grad, other, result: grad * ew.pow(2, other),
      other=lambda grad, result: grad * cj(result) * math.log(2.0)),
]
