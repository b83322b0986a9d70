"""Sorting and selection: sort/argsort, topk, kthvalue, median, mode, cummax/cummin, unique.

Orders follow PyTorch: NaN sorts above every number (last ascending, first descending), equal
elements keep their order (every sort here is stable), and each primitive returns
`(values, indices)` with int64 indices along `dim`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ember.core.dispatch import declare
from ember.core.methods import method
from ember.core.ops._util import wrap, write_out
from ember.core.ops.reduce import _one_dim, return_types
from ember.core.tensor import Tensor

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "mode", "cummax", "cummin", "unique"]


def _argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort along `axis`; descending keeps equal elements in their original order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    idx = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(idx, axis)


def _pair(vals: np.ndarray, idx: np.ndarray, out, name: str):
    idx = idx.astype(np.int64, copy=False)
    if out is not None:
        return write_out(out[0], vals, name), write_out(out[1], idx, name)
    return wrap(np.ascontiguousarray(vals)), wrap(np.ascontiguousarray(idx))


def _as_1d(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


# --- sort, topk, kthvalue ----------------------------------------------------------------------
_sort = declare("sort", doc="sort(x, dim, descending) -> (values, indices)")


@_sort.register("cpu")
def _sort_cpu(x, dim=-1, descending=False, *, out=None):
    """sort(x, dim: int, descending: bool) -> (values, indices): a stable sort along `dim`."""
    a = _as_1d(x._np())
    idx = _argsort(a, dim, descending)
    vals = np.take_along_axis(a, idx, dim)
    return _pair(vals.reshape(x._shape), idx.reshape(x._shape), out, "sort")


@method
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, out=None):
    """`(values, indices)` of `input` sorted along `dim`; always stable."""
    rt = return_types.sort
    return rt(*_sort(input, _one_dim(dim, input, "sort"), descending, out=None if out is None else tuple(out)))


@method
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort `input` along `dim`."""
    return _sort(input, _one_dim(dim, input, "argsort"), descending)[1]


@method
def msort(input: Tensor) -> Tensor:
    """`input` sorted along its first dim."""
    return _sort(input, 0, False)[0]


_topk = declare("topk", doc="topk(x, k, dim, largest, sorted) -> (values, indices)")


@_topk.register("cpu")
def _topk_cpu(x, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002
    """topk(x, k: int, dim: int, largest: bool, sorted: bool) -> (values, indices): the k largest
    (or smallest) along `dim`, in sorted order."""
    a = _as_1d(x._np())
    n = a.shape[dim]
    if not 0 <= k <= n:
        raise RuntimeError(f"selected index k out of range; got k={k} for a dimension of size {n}")
    idx = np.take(_argsort(a, dim, largest), np.arange(k), axis=dim)
    vals = np.take_along_axis(a, idx, dim)
    if x.ndim == 0:
        vals, idx = vals.reshape(()), idx.reshape(())
    return _pair(vals, idx, out, "topk")


@method
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None):  # noqa: A002
    """`(values, indices)` of the `k` largest (`largest=False`: smallest) elements along `dim`."""
    r = _topk(input, int(k), _one_dim(dim, input, "topk"), largest, sorted, out=None if out is None else tuple(out))
    return return_types.topk(*r)


_kthvalue = declare("kthvalue", doc="kthvalue(x, k, dim, keepdim) -> (values, indices)")


@_kthvalue.register("cpu")
def _kthvalue_cpu(x, k, dim=-1, keepdim=False, *, out=None):
    """kthvalue(x, k: int, dim: int, keepdim: bool) -> (values, indices): the k-th smallest (1-based)."""
    a = _as_1d(x._np())
    if not 1 <= k <= a.shape[dim]:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {dim}")
    idx = np.take(_argsort(a, dim, False), [k - 1], axis=dim)
    vals = np.take_along_axis(a, idx, dim)
    if not keepdim or x.ndim == 0:
        vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
    return _pair(vals, idx, out, "kthvalue")


@method
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """`(values, indices)` of the `k`-th smallest element along `dim` (k counts from 1)."""
    r = _kthvalue(input, int(k), _one_dim(dim, input, "kthvalue"), keepdim, out=None if out is None else tuple(out))
    return return_types.kthvalue(*r)


# --- median, mode ------------------------------------------------------------------------------
_median = declare("median", doc="median(x) -> Tensor")
_median_dim = declare("median_dim", doc="median_dim(x, dim, keepdim) -> (values, indices)")


def _median_along(a: np.ndarray, dim: int):
    """Lower median and its index along `dim` (keepdims); NaN wins with its first index."""
    n = a.shape[dim]
    idx = np.take(_argsort(a, dim, False), [(n - 1) // 2], axis=dim)
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        has_nan = nan.any(axis=dim, keepdims=True)
        idx = np.where(has_nan, np.argmax(nan, axis=dim, keepdims=True), idx)
    return np.take_along_axis(a, idx, dim), idx


@_median.register("cpu")
def _median_cpu(x, *, out=None):
    """median(x): the lower median of all elements (NaN if any is NaN or x is empty)."""
    a = x._np().reshape(-1)
    if a.size == 0:
        r = np.full((), np.nan, a.dtype)
    else:
        r = _median_along(a, 0)[0].reshape(())
    return write_out(out, r, "median") if out is not None else wrap(r)


@_median_dim.register("cpu")
def _median_dim_cpu(x, dim, keepdim=False, *, out=None):
    """median_dim(x, dim: int, keepdim: bool) -> (values, indices): the lower median along `dim`."""
    a = _as_1d(x._np())
    if a.shape[dim] == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    vals, idx = _median_along(a, dim)
    if not keepdim or x.ndim == 0:
        vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
    return _pair(vals, idx, out, "median")


@method
def median(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None):
    """The lower median of all elements, or `(values, indices)` along `dim`."""
    if dim is None:
        return _median(input, out=out)
    r = _median_dim(input, _one_dim(dim, input, "median"), keepdim, out=None if out is None else tuple(out))
    return return_types.median(*r)


@cache
def _mode_rows():
    import numba

    @numba.njit(cache=True, nogil=True)
    def mode_rows(a, vals, idx):
        # a: (rows, n) C-contiguous, n >= 1; most frequent value per row, smallest on ties,
        # with the index of its last occurrence
        for r in range(a.shape[0]):
            order = np.argsort(a[r], kind="mergesort")
            best_count, best_start, best_end = 0, 0, 0
            start = 0
            n = a.shape[1]
            for i in range(1, n + 1):
                if i == n or a[r, order[i]] != a[r, order[start]]:
                    if i - start > best_count:
                        best_count, best_start, best_end = i - start, start, i
                    start = i
            vals[r] = a[r, order[best_start]]
            last = order[best_start]
            for j in range(best_start, best_end):
                if order[j] > last:
                    last = order[j]
            idx[r] = last

    return mode_rows


_mode = declare("mode", doc="mode(x, dim, keepdim) -> (values, indices)")


@_mode.register("cpu")
def _mode_cpu(x, dim=-1, keepdim=False, *, out=None):
    """mode(x, dim: int, keepdim: bool) -> (values, indices): the most frequent value along `dim`
    (the smallest on ties) and the index of its last occurrence."""
    a = np.moveaxis(_as_1d(x._np()), dim, -1)
    if a.shape[-1] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    rows = np.ascontiguousarray(a.reshape(-1, a.shape[-1]))
    work = rows.view(np.uint8) if rows.dtype == np.bool_ else rows
    vals = np.empty(rows.shape[0], work.dtype)
    idx = np.empty(rows.shape[0], np.int64)
    _mode_rows()(work, vals, idx)
    vals = vals.view(rows.dtype).reshape(a.shape[:-1] + (1,))
    idx = idx.reshape(a.shape[:-1] + (1,))
    vals, idx = np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    if not keepdim or x.ndim == 0:
        vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
    return _pair(vals, idx, out, "mode")


@method
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """`(values, indices)` of the most frequent value along `dim`."""
    r = _mode(input, _one_dim(dim, input, "mode"), keepdim, out=None if out is None else tuple(out))
    return return_types.mode(*r)


# --- cummax, cummin ------------------------------------------------------------------------------
@cache
def _cum_extreme_rows():
    import numba

    @numba.njit(cache=True, nogil=True)
    def cum_extreme_rows(a, vals, idx, is_max):
        # a: (rows, n) C-contiguous; PyTorch's rule: a NaN or a new extreme-or-equal takes over
        for r in range(a.shape[0]):
            best = a[r, 0]
            at = 0
            for i in range(a.shape[1]):
                v = a[r, i]
                if v != v or (best == best and (v >= best if is_max else v <= best)):
                    best = v
                    at = i
                vals[r, i] = best
                idx[r, i] = at

    return cum_extreme_rows


def _make_cum_extreme(name: str, is_max: bool):
    op = declare(name, doc=f"{name}(x, dim) -> (values, indices)")

    @op.register("cpu")
    def kernel(x, dim, *, out=None):
        """cummax/cummin(x, dim: int) -> (values, indices): the running max/min along `dim` and
        where it was found (the latest of equal values)."""
        a = np.moveaxis(_as_1d(x._np()), dim, -1)
        rows = np.ascontiguousarray(a.reshape(-1, a.shape[-1]))
        work = rows.view(np.uint8) if rows.dtype == np.bool_ else rows
        vals = np.empty_like(work)
        idx = np.empty(rows.shape, np.int64)
        if rows.size:
            _cum_extreme_rows()(work, vals, idx, is_max)
        vals = np.moveaxis(vals.view(rows.dtype).reshape(a.shape), -1, dim).reshape(x._shape)
        idx = np.moveaxis(idx.reshape(a.shape), -1, dim).reshape(x._shape)
        return _pair(vals, idx, out, name)

    return op


_cummax = _make_cum_extreme("cummax", True)
_cummin = _make_cum_extreme("cummin", False)


@method
def cummax(input: Tensor, dim: int, *, out=None):
    """`(values, indices)` of the running maximum along `dim`."""
    r = _cummax(input, _one_dim(dim, input, "cummax"), out=None if out is None else tuple(out))
    return return_types.cummax(*r)


@method
def cummin(input: Tensor, dim: int, *, out=None):
    """`(values, indices)` of the running minimum along `dim`."""
    r = _cummin(input, _one_dim(dim, input, "cummin"), out=None if out is None else tuple(out))
    return return_types.cummin(*r)


# --- unique ------------------------------------------------------------------------------------
_unique = declare("unique", differentiable=False, doc="unique(x, dim) -> (values, inverse, counts)")


@_unique.register("cpu")
def _unique_cpu(x, dim=None):
    """unique(x, dim: int | None) -> (values, inverse, counts): sorted distinct values (or slices
    along `dim`), the index of each input element (slice) in them, and how often each occurs."""
    a = x._np()
    if dim is None:
        vals, inv, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(x._shape)
    else:
        vals, inv, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
        inv = inv.reshape(-1)
    return wrap(vals), wrap(inv.astype(np.int64)), wrap(counts.astype(np.int64))


@method
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None):
    """The distinct elements of `input` (sorted), with the inverse indices and counts on request."""
    d = None if dim is None else _one_dim(dim, input, "unique")
    vals, inv, counts = _unique(input, d)
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals
