"""Numba passes over the rows of a matrix where numpy's loops run the short inner dimension once per row:
`matrix op row-vector` (a linear layer's bias add, `x * scale`: 1024 x 512 float32 + a 512 bias, 114
against 58 us), the sum over the leading dims (a bias's gradient: 1024 x 64, 41 against 6 us) and
`all`/`any` of bool rows over the last dim (attention's fully masked rows: 4096 rows of 64), and `mm` of an
inner dimension 1, an outer product (1024 x 1 @ 1 x 64, NCF's last layer's input gradient: numpy's broadcast
multiply 23.5 us, this pass 4.4 us), and a batch of column-major matrices laid out row-major (attention's
K^T, read with a large batch stride: numpy's copy 373 us for 64 of 32 x 64, this one 43), and a matrix's
transpose laid out row-major (an LSTM layer's W_hh^T for its backward's per-step GEMMs: 1024 x 256 float32,
numpy's copy 296 us, this one's 16 x 16 tiles 67).
Each element is the IEEE operation numpy does, in numpy's order, so the bits are numpy's.

Kernels are built on first use (never at import), cached on disk and run without the GIL.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["row_broadcast", "leading_sum", "last_dim_all_any", "outer", "row_major_batch", "transposed"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# below it numpy's loop costs a few µs at most: the passes would only add their compile (0.2 s) to a small
# model's cold start (the digits CNN's 32 x 128 linear); NCF's, GPT's and the MLP's are 64k and more
_MIN_NUMEL = 16384


@cache
def _kernel(name: str):
    import numba

    jit = numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    if name == "add":
        @jit
        def kernel(x, b, o):
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    o[i, j] = x[i, j] + b[j]
    elif name == "sub":
        @jit
        def kernel(x, b, o):
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    o[i, j] = x[i, j] - b[j]
    else:
        @jit
        def kernel(x, b, o):
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    o[i, j] = x[i, j] * b[j]
    return kernel


def row_broadcast(name: str, x: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """`x op b` ("add", "sub" or "mul") for a C-contiguous float32/float64 `x` and a C-contiguous `b` of x's
    dtype and trailing shape (a bias row; a position table against a batch), of fewer dims than x, as a new
    C-contiguous array or into the C-contiguous `out` of x's shape and dtype; None where it does not apply."""
    if (b.ndim < 1 or x.ndim <= b.ndim or x.dtype != b.dtype or x.dtype not in _DTYPES
            or x.size < _MIN_NUMEL or b.shape != x.shape[x.ndim - b.ndim:] or not x.flags.c_contiguous
            or not b.flags.c_contiguous):
        return None
    if out is None:
        out = np.empty(x.shape, x.dtype)
    elif out.shape != x.shape or out.dtype != x.dtype or not out.flags.c_contiguous:
        return None
    m = b.size
    _kernel(name)(x.reshape(-1, m), b.reshape(m), out.reshape(-1, m))
    return out


@cache
def _outer():
    import numba

    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(a, b, o):
        for i in range(a.shape[0]):
            ai = a[i]
            oi = o[i]
            for j in range(b.shape[0]):
                oi[j] = ai * b[j]

    return kernel


def outer(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """`a[:, None] * b[None, :]` of 1-D float32/float64 `a` and `b` of one dtype, as a new C-contiguous (n, m)
    array (each element the one product numpy's broadcast multiply gives); None where it does not apply."""
    if (a.ndim != 1 or b.ndim != 1 or a.dtype != b.dtype or a.dtype not in _DTYPES
            or a.shape[0] * b.shape[0] < _MIN_NUMEL):
        return None
    out = np.empty((a.shape[0], b.shape[0]), a.dtype)
    _outer()(np.ascontiguousarray(a), np.ascontiguousarray(b), out)
    return out


@cache
def _transposed_copy():
    import numba

    # x's matrices are column-major: the inner loop reads down a column (contiguous), writes across rows
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, o):
        for p in range(x.shape[0]):
            for j in range(x.shape[2]):
                for i in range(x.shape[1]):
                    o[p, i, j] = x[p, i, j]

    return kernel


def row_major_batch(x: np.ndarray) -> np.ndarray | None:
    """A C-contiguous copy of a 3-D float32/float64 `x` whose matrices are column-major (`strides[-2]` one
    element), whatever its batch stride; None where it does not apply."""
    if x.ndim != 3 or x.dtype not in _DTYPES or x.strides[1] != x.itemsize or x.size < _MIN_NUMEL:
        return None
    out = np.empty(x.shape, x.dtype)
    _transposed_copy()(x, out)
    return out


@cache
def _tiled_transpose():
    import numba

    # o (C, R) = x (R, C)^T, x C-contiguous: whole 16 x 16 tiles first (fixed trip counts, which LLVM unrolls into
    # vector shuffles; a tile of either array stays in L1), then the edge rows and columns
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, o):
        rows, cols = x.shape
        r16, c16 = rows - rows % 16, cols - cols % 16
        for i0 in range(0, r16, 16):
            for j0 in range(0, c16, 16):
                for j in range(16):
                    oj = o[j0 + j]
                    for i in range(16):
                        oj[i0 + i] = x[i0 + i, j0 + j]
        for i in range(r16, rows):
            for j in range(cols):
                o[j, i] = x[i, j]
        for j in range(c16, cols):
            for i in range(r16):
                o[j, i] = x[i, j]

    return kernel


def transposed(x: np.ndarray) -> np.ndarray:
    """`x.T` of a 2-D array as a new C-contiguous array: by the tiled pass for float32/float64 matrices of
    `_MIN_NUMEL` elements and more, else numpy's copy."""
    if x.ndim != 2 or x.dtype not in _DTYPES or x.size < _MIN_NUMEL:
        return np.ascontiguousarray(x.T)
    out = np.empty(x.shape[::-1], x.dtype)
    _tiled_transpose()(np.ascontiguousarray(x), out)
    return out


@cache
def _column_sum():
    import numba

    # numpy's order for a reduction over the outer dim: from its identity 0 (so -0.0 columns give +0.0),
    # one row after another; not pairwise, which numpy uses only along the contiguous dim
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, o):
        for j in range(x.shape[1]):
            o[j] = 0.0
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                o[j] += x[i, j]

    return kernel


def leading_sum(x: np.ndarray, k: int) -> np.ndarray | None:
    """The sum of a float32/float64 `x` over its first `k` dims (x.shape[k:] stays, at least two elements: a
    single column is numpy's pairwise sum), as numpy's `add.reduce`; None where it does not apply. `x` is
    C-contiguous, or becomes so with its first `k` dims ordered by stride (a transposed batch of rows, as
    GPT's bias gradients under seq-first attention): numpy then reduces in memory order, and so does the pass."""
    if x.dtype not in _DTYPES or x.size < _MIN_NUMEL or not 0 < k < x.ndim:
        return None
    if not x.flags.c_contiguous:
        x = x.transpose(sorted(range(k), key=lambda i: -x.strides[i]) + list(range(k, x.ndim)))
        if not x.flags.c_contiguous:
            return None
    tail = x.shape[k:]
    m = 1
    for n in tail:
        m *= n
    if m < 2:
        return None
    out = np.empty(tail, x.dtype)
    _column_sum()(x.reshape(-1, m), out.reshape(m))
    return out


@cache
def _rows_all_any():
    import numba

    # x: (rows, n) uint8 (a bool array's bytes), C-contiguous; o: (rows,) bool. every: all, else any
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
    def kernel(x, every, o):
        for i in range(x.shape[0]):
            r = every
            for j in range(x.shape[1]):
                if (x[i, j] != 0) != every:
                    r = not every
                    break
            o[i] = r

    return kernel


def last_dim_all_any(x: np.ndarray, every: bool, keepdims: bool) -> np.ndarray | None:
    """`np.all` (`every`) or `np.any` of a C-contiguous bool `x` (2 dims or more) over its last dim, which
    numpy reduces one short row at a time (4096 rows of 64: 117 us); None where it does not apply."""
    if x.dtype != np.bool_ or x.ndim < 2 or x.size < _MIN_NUMEL or not x.flags.c_contiguous or x.shape[-1] == 0:
        return None
    out = np.empty(x.shape[:-1] + ((1,) if keepdims else ()), np.bool_)
    _rows_all_any()(x.reshape(-1, x.shape[-1]).view(np.uint8), every, out.reshape(-1))
    return out
