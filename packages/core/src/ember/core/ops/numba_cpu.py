"""Numba CPU kernels for what numpy cannot do in one vectorised call.

Kernels are built on first use (never at import) and cached on disk (`cache=True`); they
release the GIL (`nogil`) so data-loader and user threads keep running.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np


@cache
def _erf_ufunc():
    import numba

    @numba.vectorize(["float32(float32)", "float64(float64)"], cache=True)
    def erf(x):
        return math.erf(x)

    return erf


@cache
def _erfinv_ufunc():
    import numba

    @numba.vectorize(["float32(float32)", "float64(float64)"], cache=True)
    def erfinv(y):
        # Giles' single-precision start, then two Newton steps on erf for full double accuracy
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
            x -= (math.erf(x) - y) / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
        return x

    return erfinv


def _apply(ufunc, x, dtype, out):
    dt = np.dtype(dtype) if dtype is not None else np.result_type(x, np.float32)
    work = np.float64 if dt == np.float64 else np.float32
    r = ufunc(np.asarray(x, dtype=work))
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r.astype(dt, copy=False)


def erf(x, dtype=None, out=None):
    return _apply(_erf_ufunc(), x, dtype, out)


def erfinv(x, dtype=None, out=None):
    return _apply(_erfinv_ufunc(), x, dtype, out)
