"""Numba CPU kernels for what numpy cannot do in one vectorised call.

Kernels are built on first use (never at import) and cached on disk (`cache=True`); they
release the GIL (`nogil`) so data-loader and user threads keep running.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np


__all__ = ["erf", "erfinv", "relu", "clamp"]


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

    # x: 1-D contiguous float32/float64, rewritten in place as PyTorch's `x < 0 ? 0 : x` (-0.0 and NaN pass).
    # The product with `one` (1, unknown to the compiler) makes every store a computed value: `x[i] = 0 if
    # v < 0 else v` alone lets LLVM store only the zeros, as masked vector stores, which this machine's AMD
    # cores run 5-7x slower than the plain stores of this loop (`v * 1.0` or `v + -0.0` it would fold away).
    # `zero` and `one` come in x's dtype: a float64 literal would widen a float32 loop.
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, zero, one):
        for i in range(x.shape[0]):
            v = x[i]
            x[i] = (zero if v < zero else v) * one

    return kernel


@cache
def _relu_out():
    import numba

    # x, out: 1-D contiguous, one dtype: out = x < 0 ? 0 : x (-0.0 and NaN pass, as PyTorch's clamp_min).
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, out):
        for i in range(x.shape[0]):
            v = x[i]
            out[i] = 0.0 if v < 0 else v

    return kernel


_RELU_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_RELU_MIN_NUMEL = 1024  # below it numpy's call costs less than the kernel's dispatch


def relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """`x < 0 ? 0 : x` of a large contiguous float32/float64 array, new or in place (`out` is `x`), or None
    when no kernel applies. numpy's `maximum` against a broadcast zero runs without SIMD (7x slower than this)."""
    if x.dtype not in _RELU_DTYPES or x.size < _RELU_MIN_NUMEL or not x.flags.c_contiguous:
        return None
    flat = x.reshape(-1)
    if out is None:
        out = np.empty_like(x)
        _relu_out()(flat, out.reshape(-1))
        return out
    if out is x:  # `relu_`: the tensor's cached array is both operands
        _relu_inplace()(flat, x.dtype.type(0), x.dtype.type(1))
        return out
    return None


@cache
def _clamp_out():
    import numba

    # x, out: 1-D contiguous, one dtype; lo, hi of x's dtype: PyTorch's `x < lo ? lo : x`, then `x > hi ? hi : x`
    # (-0.0 and NaN pass). An absent bound is -inf (lo) or +inf (hi), past which nothing is.
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, lo, hi, out):
        for i in range(x.shape[0]):
            v = x[i]
            v = lo if v < lo else v
            out[i] = hi if v > hi else v

    return kernel


def clamp(x: np.ndarray, lo: float | None, hi: float | None) -> np.ndarray | None:
    """A new C-contiguous float32/float64 array clamped to the number bounds (None: none), as PyTorch's clamp, or
    None when no kernel applies (a NaN bound, another dtype or layout). numpy's `where` passes, which this
    replaces, branch on each element (350 µs on 64x1024 against this loop's 10) and cost 4 calls on small arrays."""
    if x.dtype not in _RELU_DTYPES or not x.flags.c_contiguous or lo != lo or hi != hi or not x.size:
        return None
    t = x.dtype.type
    out = np.empty(x.shape, x.dtype)
    _clamp_out()(x.reshape(-1), t(-np.inf) if lo is None else t(lo), t(np.inf) if hi is None else t(hi),
                 out.reshape(-1))
    return out


@cache
def extremum_ufuncs():
    """float32/float64 ufuncs (broadcasting, `out=`) of PyTorch's scalar maximum/minimum/fmax/fmin: `b` only
    where it wins strictly (of -0.0 and 0.0 the first operand), a canonical NaN from maximum/minimum (the float64
    literal rounds to 0x7fc00000 in float32), fmax/fmin the number against a NaN and of two NaNs the second,
    quieted (`b + b`). A signaling NaN against a number is the caller's (ember.core.ops.elementwise._extremum)."""
    import numba

    from ember.core.ops import scalar_math

    sigs = ["float32(float32, float32)", "float64(float64, float64)"]
    return {f.__name__: numba.vectorize(sigs, cache=True, nopython=True)(f)
            for f in (scalar_math.maximum, scalar_math.minimum, scalar_math.fmax, scalar_math.fmin)}


@cache
def axpy_ufunc():
    """The float32/float64 ufunc `axpy(input, other, alpha)` (broadcasting, `out=`): PyTorch's CPU `add` with
    `alpha`, one fused multiply-add rounding once (ember.core._fma_kernels)."""
    import numba

    from ember.core._fma_kernels import axpy

    return numba.vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"],
                           cache=True, nopython=True)(axpy)
