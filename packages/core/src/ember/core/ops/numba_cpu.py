"""Numba CPU kernels for what numpy cannot do in one vectorised call.

Kernels are built on first use (never at import) and cached on disk (`cache=True`); they
release the GIL (`nogil`) so data-loader and user threads keep running.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ember.core.ops import numba_nn

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
def _relu_inplace():
    import numba

    # x: 1-D contiguous float32/float64, rewritten in place (0 where x <= 0, NaN passes). The `+ 0.0` makes
    # every store a computed value: `x[i] = 0 if v <= 0 else v` alone lets LLVM store only the zeros, as
    # masked vector stores, which this machine's AMD cores run 7x slower than the plain stores of this loop.
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x):
        for i in range(x.shape[0]):
            v = x[i]
            x[i] = (0.0 if v <= 0 else v) + 0.0

    return kernel


_RELU_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_RELU_MIN_NUMEL = 1024  # below it numpy's call costs less than the kernel's dispatch


def relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """`max(x, 0)` of a large contiguous float32/float64 array, new or in place (`out` is `x`), or None
    when no kernel applies. numpy's `maximum` against a broadcast zero runs without SIMD (7x slower than this)."""
    if x.dtype not in _RELU_DTYPES or x.size < _RELU_MIN_NUMEL or not x.flags.c_contiguous:
        return None
    flat = x.reshape(-1)
    if out is None:
        out = np.empty_like(x)
        numba_nn.threshold_backward()(flat, flat, 0.0, out.reshape(-1))  # g = x: the same pass, one kernel
        return out
    if out is x:  # `relu_`: the tensor's cached array is both operands
        _relu_inplace()(flat)
        return out
    return None
