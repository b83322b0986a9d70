"""Numba row passes for float32/float64 softmax, log_softmax, their backward ops and cross-entropy's
softmax, over the last dim of a row-major array: the row max, `exp(x - max)` and its sum, then the result.
float32 uses `exp32` (NOTE [ Vectorized exp32 ]) in place of numpy's float32 exp, which runs without SIMD
here (1.7 ns a value; four such passes a step made 1.8 ms of the bench's GPT); float64 libm's exp, as
numpy's here, and pays by the passes it saves.

The max and the sums run in eight lanes added pairwise at the end (a fixed order, so a call gives the
same bits every time); a multiply and an add may fuse (exp32's polynomial). Results are
within a few ulp of numpy's (float32 softmax: 8 ulp of float64; exp32 is within 2), not its bits. A NaN
reaches the row's sum and makes the row NaN, a row with +inf or all -inf is NaN too: PyTorch's results
(but `safe_softmax_rows`, whose all -inf rows are zeros).
Kernels are built on first use (never at import), cached on disk and run without the GIL.

NOTE [ Small rows: the shift in one call ]
Below the row passes' size the softmax family keeps numpy's exp, sum and log, whose bits the results have
always had; only `x - max(row)` (exact whatever computes it) runs as one small Numba loop (`small_shifted`,
`small_shifted_at`), in place of numpy's keepdims max, a broadcast subtract and an errstate block (about 4 µs of
a 10x10 softmax's 9). A row whose max is not finite (NaN, +inf, all -inf) is left to numpy's path, whose
silenced inf - inf gives PyTorch's NaN: past the shift, finite rows raise no floating-point flag.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["softmax_rows", "safe_softmax_rows", "log_softmax_rows", "softmax_backward_rows",
           "log_softmax_backward_rows", "shifted_exp_sums", "cross_entropy_grad_rows", "small_shifted",
           "small_shifted_at"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# below it numpy's passes cost a few µs: the kernels would only add their compile to a small model's cold start
_MIN_NUMEL = 16384


@cache
def _kernels():
    """(softmax, log_softmax, softmax_backward, log_softmax_backward, shifted_sums, ce_grad, safe_softmax), compiled
    on first use."""
    from ember.core.ops import _softmax_row_kernels as k

    return (k.softmax, k.log_softmax, k.softmax_backward, k.log_softmax_backward, k.shifted_sums, k.ce_grad,
            k.safe_softmax)


_INT64_END = 1 << 63


@cache
def _shift_kernels():
    """(shift, shift_at), compiled on first use."""
    from ember.core.ops import _row_shift_kernels as k

    return k.shift, k.shift_at


def _small(x: np.ndarray) -> bool:
    return 0 < x.size < _MIN_NUMEL and x.ndim >= 1 and x.dtype in _DTYPES and x.flags.c_contiguous


def small_shifted(x: np.ndarray) -> np.ndarray | None:
    """`x - max` over the last dim of a C-contiguous float32/float64 `x` below the row passes' size, a new array;
    None where it does not apply or a row max is not finite (NOTE [ Small rows: the shift in one call ])."""
    if not _small(x):
        return None
    c = x.shape[-1]
    z = np.empty(x.shape, x.dtype)
    return z if _shift_kernels()[0](x.reshape(-1, c), z.reshape(-1, c)) else None


def small_shifted_at(r: np.ndarray, t: np.ndarray, ignore_index: int):
    """(r - max, r[i, t_i] - max, whether t_i counts as r's dtype, how many count) for cross-entropy's small
    (M, C) rows and (M,) int64 targets, as `small_shifted`; None where it does not apply, a target is out of range
    or a max or a target's value is not finite (numpy's path then raises or gives the NaN)."""
    if (r.ndim != 2 or not _small(r) or t.shape != r.shape[:1] or t.dtype != np.int64
            or not -_INT64_END <= ignore_index < _INT64_END):
        return None
    z, xt, wt = np.empty(r.shape, r.dtype), np.empty(r.shape[0], r.dtype), np.empty(r.shape[0], r.dtype)
    n = _shift_kernels()[1](r, t, ignore_index, z, xt, wt)
    return None if n < 0 else (z, xt, wt, n)


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


def safe_softmax_rows(x: np.ndarray) -> np.ndarray | None:
    """`softmax_rows`, with a row whose every entry is -inf as zeros (PyTorch's _safe_softmax: a query with
    every key masked); every other row, NaN rows too, gets softmax_rows' bits. None where it does not apply."""
    return _run(6, x) if _applies(x) else None


def log_softmax_rows(x: np.ndarray) -> np.ndarray | None:
    """log_softmax over the last dim of a C-contiguous float32/float64 `x`; None where it does not apply."""
    return _run(1, x) if _applies(x) else None


def softmax_backward_rows(g: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """`(g - sum(g y)) y` over the last dim (softmax's gradient, y its result); None where it does not apply."""
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
