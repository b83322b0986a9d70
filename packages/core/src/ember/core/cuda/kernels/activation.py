"""Scalar device functions of the activations (`ember.core.ops.activation`): forward `f(x, *attrs)`
and backward `b(g, x, *attrs)`, run by the elementwise kernel template. The masks are PyTorch's:
a NaN input (no order either way) keeps its value and passes its gradient."""

from __future__ import annotations

import math

from numba import cuda

__all__ = [
    "leaky_relu", "leaky_relu_b", "elu", "elu_b", "gelu", "gelu_b", "hardtanh", "hardtanh_b", "hardsigmoid",
    "hardsigmoid_b", "hardswish", "hardswish_b", "softplus", "softplus_b", "mish", "mish_b", "log_sigmoid",
    "log_sigmoid_b", "softsign", "softsign_b", "tanhshrink", "tanhshrink_b", "threshold", "threshold_b", "hardshrink",
    "shrink_b", "softshrink", "sigmoid_b", "tanh_b", "silu_b", "ACTIVATIONS", "FUSED_BACKWARD"
]

_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@cuda.jit(device=True)
def _sigmoid(x):
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


@cuda.jit(device=True)
def _softplus(x, beta, threshold):
    bx = x * beta
    if bx > threshold:
        return x
    return (max(bx, 0) + math.log1p(math.exp(-abs(bx)))) / beta


def leaky_relu(x, s):
    return x if x > 0 else x * s


def leaky_relu_b(g, x, s):
    return g if x > 0 else g * s


def elu(x, alpha, scale, input_scale):
    return x * scale if x > 0 else scale * alpha * math.expm1(min(x, 0) * input_scale)


def elu_b(g, x, alpha, scale, input_scale):
    return g * scale * alpha * input_scale * math.exp(min(x, 0) * input_scale) if x <= 0 else g * scale


def gelu(x, tanh_approx):
    if tanh_approx:
        return 0.5 * x * (1 + math.tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1 + math.erf(x * _INV_SQRT_2))


def gelu_b(g, x, tanh_approx):
    if tanh_approx:
        t = math.tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x * x))
    return g * (0.5 * (1 + math.erf(x * _INV_SQRT_2)) + x * math.exp(-0.5 * x * x) * _INV_SQRT_2PI)


def hardtanh(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


def hardtanh_b(g, x, lo, hi):
    return 0.0 if x <= lo or x >= hi else g


def hardsigmoid(x):
    return min(max(x / 6 + 0.5, 0), 1)


def hardsigmoid_b(g, x):
    return g / 6 if -3 < x < 3 else 0.0


def hardswish(x):
    return x * min(max(x + 3, 0), 6) / 6


def hardswish_b(g, x):
    return 0 * g if x <= -3 else (g * (x / 3 + 0.5) if x < 3 else g)


def softplus(x, beta, threshold):
    return _softplus(x, beta, threshold)


def softplus_b(g, x, beta, threshold):
    return g if x * beta > threshold else g * _sigmoid(x * beta)


def mish(x):
    return x * math.tanh(_softplus(x, 1.0, 20.0))


def mish_b(g, x):
    t = math.tanh(_softplus(x, 1.0, 20.0))
    return g * (t + x * _sigmoid(x) * (1 - t * t))


def log_sigmoid(x):
    return min(x, 0) - math.log1p(math.exp(-abs(x)))


def log_sigmoid_b(g, x):
    return g * _sigmoid(-x)


def softsign(x):
    return x / (1 + abs(x))


def softsign_b(g, x):
    d = 1 + abs(x)
    return g / (d * d)


def tanhshrink(x):
    return x - math.tanh(x)


def tanhshrink_b(g, x):
    t = math.tanh(x)
    return g * t * t


def threshold(x, th, v):
    return v if x <= th else x


def threshold_b(g, x, th):
    return 0.0 if x <= th else g


def hardshrink(x, lambd):
    return 0 * x if abs(x) <= lambd else x


def shrink_b(g, x, lambd):
    return 0.0 if abs(x) <= lambd else g


def softshrink(x, lambd):
    return x - lambd if x > lambd else (x + lambd if x < -lambd else 0 * x)


def sigmoid_b(g, y):
    return g * y * (1 - y)


def tanh_b(g, y):
    return g * (1 - y * y)


def silu_b(g, x):
    s = _sigmoid(x)
    return g * s * (1 + x * (1 - s))


# name -> (forward, backward, number of attributes of the forward, of the backward)
ACTIVATIONS = {
    "leaky_relu": (leaky_relu, leaky_relu_b, 1, 1), "elu": (elu, elu_b, 3, 3), "gelu": (gelu, gelu_b, 1, 1),
    "hardtanh": (hardtanh, hardtanh_b, 2, 2), "hardsigmoid": (hardsigmoid, hardsigmoid_b, 0, 0),
    "hardswish": (hardswish, hardswish_b, 0, 0), "softplus": (softplus, softplus_b, 2, 2),
    "mish": (mish, mish_b, 0, 0), "log_sigmoid": (log_sigmoid, log_sigmoid_b, 0, 0),
    "softsign": (softsign, softsign_b, 0, 0), "tanhshrink": (tanhshrink, tanhshrink_b, 0, 0),
    "threshold": (threshold, threshold_b, 2, 1), "hardshrink": (hardshrink, shrink_b, 1, 1),
    "softshrink": (softshrink, shrink_b, 1, 1),
}
FUSED_BACKWARD = {"sigmoid_backward": sigmoid_b, "tanh_backward": tanh_b, "silu_backward": silu_b}
