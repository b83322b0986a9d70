"""Numba CPU kernels for what numpy cannot do in one vectorised call.

Kernels are built on first use (never at import) and cached on disk (`cache=True`); they
release the GIL (`nogil`) so data-loader and user threads keep running.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

__all__ = ["erf", "erfinv"]


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

    from ember.core.ops.scalar_math import erfinv

    return numba.vectorize(["float32(float32)", "float64(float64)"], cache=True)(erfinv)


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
