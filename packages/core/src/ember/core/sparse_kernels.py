"""Private Numba CPU kernels of the sparse layouts: CSR times dense, and the dense-dense product sampled at
a sparsity pattern (the gradient of a sparse matrix's values).

Each kernel is built on first use by its `@cache`d getter (`import ember.core` compiles nothing), cached on
disk and run without the GIL. The launchers in `ember.core.sparse` validate every index first (the
constructors check them against the size, row pointers are built by the launcher itself): no kernel here
checks a bound.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["csr_mm", "sampled_dot", "merge_slots", "kernel_dtype"]


def _njit():
    import numba

    return numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, fastmath=False, error_model="numpy")


def kernel_dtype(dt: np.dtype) -> np.dtype:
    """The dtype a kernel computes `dt` in: Numba has no float16/bfloat16 arithmetic on the CPU."""
    return np.dtype(np.float32) if dt.itemsize == 2 and dt.kind in "fV" or dt.name == "bfloat16" else dt


@cache
def csr_mm():
    # crow (n+1,), col (nnz,), vals (nnz,): a CSR matrix (n, k); x (k, m) C-contiguous; out (n, m) zeroed.
    @_njit()
    def kernel(crow, col, vals, x, out):
        m = x.shape[1]
        for i in range(crow.shape[0] - 1):
            for p in range(crow[i], crow[i + 1]):
                v = vals[p]
                c = col[p]
                for j in range(m):
                    out[i, j] += v * x[c, j]

    return kernel


@cache
def sampled_dot():
    # rows, cols (nnz,): positions; g (n, m) and x (k, m) C-contiguous; out[p] = g[rows[p]] . x[cols[p]].
    @_njit()
    def kernel(rows, cols, g, x, out):
        m = g.shape[1]
        for p in range(rows.shape[0]):
            r = rows[p]
            c = cols[p]
            acc = out[p] * 0
            for j in range(m):
                acc += g[r, j] * x[c, j]
            out[p] = acc

    return kernel


@cache
def merge_slots():
    # lt (nt,), ls (ns,): linear indices of two COO tensors; pt (nt,), ps (ns,) get each element's output slot.
    # PyTorch's add of sparse tensors: one merge pass that takes the smaller head, both heads when equal.
    @_njit()
    def kernel(lt, ls, pt, ps):
        nt, ns = lt.shape[0], ls.shape[0]
        ti = si = r = 0
        while ti < nt or si < ns:
            take_t = si >= ns or (ti < nt and lt[ti] <= ls[si])
            take_s = ti >= nt or (si < ns and ls[si] <= lt[ti])
            if take_t:
                pt[ti] = r
                ti += 1
            if take_s:
                ps[si] = r
                si += 1
            r += 1
        return r

    return kernel


def run_csr_mm(crow: np.ndarray, col: np.ndarray, vals: np.ndarray, x: np.ndarray) -> np.ndarray:
    """`(crow, col, vals)` (n, k) @ `x` (k, m) as a new (n, m) array of `x`'s dtype."""
    dt = x.dtype
    work = kernel_dtype(dt)
    xs = np.ascontiguousarray(x, dtype=work)
    out = np.zeros((crow.shape[0] - 1, xs.shape[1]), dtype=work)
    if vals.shape[0] and xs.shape[1]:
        csr_mm()(crow, col, np.ascontiguousarray(vals, dtype=work), xs, out)
    return out.astype(dt, copy=False)


def run_sampled_dot(rows: np.ndarray, cols: np.ndarray, g: np.ndarray, x: np.ndarray) -> np.ndarray:
    """`(g @ x.T)[rows, cols]` without the dense product: one dot per stored element."""
    dt = g.dtype
    work = kernel_dtype(dt)
    out = np.zeros(rows.shape[0], dtype=work)
    if rows.shape[0]:
        sampled_dot()(rows, cols, np.ascontiguousarray(g, dtype=work), np.ascontiguousarray(x, dtype=work), out)
    return out.astype(dt, copy=False)
