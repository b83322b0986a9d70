"""Numba row passes for float32/float64 softmax, log_softmax, their backward ops and cross-entropy's
softmax, over the last dim of a row-major array: the row max, `exp(x - max)` and its sum, then the result.
float32 uses `exp32` (NOTE [ Vectorized exp32 ]) in place of numpy's float32 exp, which runs without SIMD
here (1.7 ns a value; four such passes a step made 1.8 ms of the bench's GPT); float64 libm's exp, as
numpy's here, and pays by the passes it saves.

The max and the sums run in eight lanes added pairwise at the end (a fixed order, so a call gives the
same bits every time); a multiply and an add may fuse (exp32's polynomial, `g y - y s`). Results are
within a few ulp of numpy's (float32 softmax: 8 ulp of float64; exp32 is within 2), not its bits. A NaN
reaches the row's sum and makes the row NaN, a row with +inf or all -inf is NaN too: PyTorch's results.
Kernels are built on first use (never at import), cached on disk and run without the GIL.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["softmax_rows", "log_softmax_rows", "softmax_backward_rows", "log_softmax_backward_rows",
           "shifted_exp_sums", "cross_entropy_grad_rows"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# below it numpy's passes cost a few µs: the kernels would only add their compile to a small model's cold start
_MIN_NUMEL = 16384


# exp32 is 0 below this (its own cut, in vector_exp)
_ZERO_BELOW = np.float32(-103.97208)


@cache
def _kernels():
    import math

    import numba
    from numba import types
    from numba.extending import overload

    from ember.core.ops.vector_exp import exp32

    def vexp(x):
        """exp32 for float32 (vectorized), libm's exp for float64 (see the overload)."""

    @numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
    def exp32_masked(x):
        """exp32(x), with an x below exp32's cut to 0 (a masked score, -inf) computed as exp32(0) and then
        selected to 0, exp32's own value there: the same bits, without the denormal products that exp32
        makes on its way to 0 (slow on this CPU: causally masked attention rows took 1.7x as long)."""
        far = x < _ZERO_BELOW
        e = exp32(np.float32(0.0) if far else x)
        return np.float32(0.0) if far else e

    @overload(vexp, inline="always")
    def _vexp(x):
        if x == types.float32:
            return lambda x: exp32_masked(x)
        return lambda x: math.exp(x)

    # error_model="numpy": no ZeroDivisionError branch, which would keep LLVM from vectorizing the loops
    # contract: exp32's polynomial in fused multiply-adds (15% faster, no less accurate)
    jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"}, no_cfunc_wrapper=True)
    inline = numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
    U1, U2, U3, U4, U5, U6, U7 = (np.uint64(k) for k in range(1, 8))

    @inline
    def row_max(x):
        """The max of x, NaN skipped (a NaN makes the row's sum NaN instead); -inf for a row all NaN."""
        n = x.shape[0]
        m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = x.dtype.type(-np.inf)
        for k in range(n // 8):
            j = np.uint64(8 * k)  # unsigned: no negative-index fix-up between the eight loads
            m0 = x[j] if x[j] > m0 else m0
            m1 = x[j + U1] if x[j + U1] > m1 else m1
            m2 = x[j + U2] if x[j + U2] > m2 else m2
            m3 = x[j + U3] if x[j + U3] > m3 else m3
            m4 = x[j + U4] if x[j + U4] > m4 else m4
            m5 = x[j + U5] if x[j + U5] > m5 else m5
            m6 = x[j + U6] if x[j + U6] > m6 else m6
            m7 = x[j + U7] if x[j + U7] > m7 else m7
        for j in range(n - n % 8, n):
            m0 = x[j] if x[j] > m0 else m0
        return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))

    @inline
    def row_sum(x):
        """The sum of x in eight lanes, added pairwise at the end."""
        n = x.shape[0]
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = x.dtype.type(0.0)
        for k in range(n // 8):
            j = np.uint64(8 * k)
            s0 += x[j]
            s1 += x[j + U1]
            s2 += x[j + U2]
            s3 += x[j + U3]
            s4 += x[j + U4]
            s5 += x[j + U5]
            s6 += x[j + U6]
            s7 += x[j + U7]
        for j in range(n - n % 8, n):
            s0 += x[j]
        return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))

    @inline
    def exp_shifted(x, shift, o):
        """o = exp(x - shift); returns its sum."""
        for j in range(x.shape[0]):
            o[j] = vexp(x[j] - shift)
        return row_sum(o)

    @jit
    def softmax(x, o):
        for i in range(x.shape[0]):
            xi, oi = x[i], o[i]
            r = xi.dtype.type(1.0) / exp_shifted(xi, row_max(xi), oi)  # times 1/sum, as PyTorch's kernel
            for j in range(oi.shape[0]):
                oi[j] = oi[j] * r

    @jit
    def log_softmax(x, o):
        for i in range(x.shape[0]):
            xi, oi = x[i], o[i]
            m = row_max(xi)
            ls = np.log(exp_shifted(xi, m, oi))
            for j in range(oi.shape[0]):
                oi[j] = (xi[j] - m) - ls

    @jit
    def softmax_backward(g, y, o):
        for i in range(g.shape[0]):
            gi, yi, oi = g[i], y[i], o[i]
            for j in range(oi.shape[0]):
                oi[j] = gi[j] * yi[j]
            s = row_sum(oi)
            for j in range(oi.shape[0]):
                oi[j] = oi[j] - yi[j] * s

    @jit
    def log_softmax_backward(g, y, o):
        for i in range(g.shape[0]):
            gi, yi, oi = g[i], y[i], o[i]
            s = row_sum(gi)
            for j in range(oi.shape[0]):
                oi[j] = gi[j] - vexp(yi[j]) * s

    @jit
    def shifted_sums(x, shift, sums):
        scratch = np.empty(x.shape[1], x.dtype)
        for i in range(x.shape[0]):
            xi = x[i]
            shift[i] = row_max(xi)
            sums[i] = exp_shifted(xi, shift[i], scratch)

    @jit
    def ce_grad(x, coef, o):
        for i in range(x.shape[0]):
            xi, oi = x[i], o[i]
            f = -coef[i] / exp_shifted(xi, row_max(xi), oi)
            for j in range(oi.shape[0]):
                oi[j] = oi[j] * f

    return softmax, log_softmax, softmax_backward, log_softmax_backward, shifted_sums, ce_grad


def _applies(*arrays: np.ndarray) -> bool:
    x = arrays[0]
    return (x.ndim >= 1 and x.size >= _MIN_NUMEL and x.shape[-1] > 0
            and x.dtype in _DTYPES and all(a.dtype == x.dtype and a.shape == x.shape and a.flags.c_contiguous
                                           for a in arrays))


def _run(kernel: int, *arrays: np.ndarray) -> np.ndarray:
    c = arrays[0].shape[-1]
    out = np.empty(arrays[0].shape, arrays[0].dtype)
    _kernels()[kernel](*(a.reshape(-1, c) for a in arrays), out.reshape(-1, c))
    return out


def softmax_rows(x: np.ndarray) -> np.ndarray | None:
    """softmax over the last dim of a C-contiguous float32/float64 `x`, a new array; None where it does not apply."""
    return _run(0, x) if _applies(x) else None


def log_softmax_rows(x: np.ndarray) -> np.ndarray | None:
    """log_softmax over the last dim of a C-contiguous float32/float64 `x`; None where it does not apply."""
    return _run(1, x) if _applies(x) else None


def softmax_backward_rows(g: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """`g y - y sum(g y)` over the last dim (softmax's gradient, y its result); None where it does not apply."""
    return _run(2, g, y) if _applies(g, y) else None


def log_softmax_backward_rows(g: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """`g - exp(y) sum(g)` over the last dim (log_softmax's gradient, y its result); None where it does not apply."""
    return _run(3, g, y) if _applies(g, y) else None


def shifted_exp_sums(r: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(shift, sum(exp(r - shift))) per row of C-contiguous float32/float64 (M, C) rows, shift the row max (NaN
    skipped): cross-entropy's log-sum-exp without the exp array; None where it does not apply."""
    if r.ndim != 2 or not _applies(r):
        return None
    shift, sums = np.empty(r.shape[0], r.dtype), np.empty(r.shape[0], r.dtype)
    _kernels()[4](r, shift, sums)
    return shift, sums


def cross_entropy_grad_rows(r: np.ndarray, coef: np.ndarray) -> np.ndarray | None:
    """`-coef * softmax(r)` per row of C-contiguous float32/float64 (M, C) rows and an (M,) `coef` of their dtype, as
    `shifted_exp_sums`: class-index cross-entropy's gradient before its target entries; None where it does not apply."""
    if r.ndim != 2 or coef.dtype != r.dtype or coef.shape != r.shape[:1] or not _applies(r):
        return None
    out = np.empty(r.shape, r.dtype)
    _kernels()[5](r, np.ascontiguousarray(coef), out)
    return out
