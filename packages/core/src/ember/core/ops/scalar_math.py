"""Scalar math that numpy lacks, written once as plain Python and compiled per device:
`numba.vectorize` for the CPU kernels, a CUDA device function for the GPU ones."""

from __future__ import annotations

import math

__all__ = ["erfinv", "maximum", "minimum", "fmax", "fmin"]


def erfinv(y):
    """The inverse error function: Giles' single-precision start, then two Newton steps on erf."""
    if y <= -1.0:
        return -math.inf if y == -1.0 else math.nan
    if y >= 1.0:
        return math.inf if y == 1.0 else math.nan
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        p = 0.000100950558 + p * w
        p = 0.00134934322 + p * w
        p = -0.00367342844 + p * w
        p = 0.00573950773 + p * w
        p = -0.0076224613 + p * w
        p = 0.00943887047 + p * w
        p = 1.00167406 + p * w
        p = 2.83297682 + p * w
    x = p * y
    for _ in range(2):
        x -= (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))  # 2/sqrt(pi) e^{-x^2}
    return x


def maximum(a, b):
    """PyTorch's scalar maximum of floats: a NaN operand gives the canonical NaN (the float64 literal rounds to
    0x7fc00000 in float32); `b` only where it wins strictly, so of -0.0 and 0.0 the first operand."""
    if a != a or b != b:
        return math.nan
    return b if a < b else a


def minimum(a, b):
    """As `maximum`, the smaller."""
    if a != a or b != b:
        return math.nan
    return b if a > b else a


def fmax(a, b):
    """PyTorch's scalar fmax: the number against a NaN, of two NaNs the second, quieted (`b + b`); of equal
    zeros the first operand."""
    if a != a:
        return b + b if b != b else b
    return a if b != b or not a < b else b


def fmin(a, b):
    """As `fmax`, the smaller."""
    if a != a:
        return b + b if b != b else b
    return a if b != b or not a > b else b
