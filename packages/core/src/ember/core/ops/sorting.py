"""Sorting and selection: sort/argsort, topk, kthvalue, median, mode, quantile, cummax/cummin,
unique, and searching/counting (searchsorted, bucketize, bincount, histc, isin).

Orders follow PyTorch: NaN sorts above every number (last ascending, first descending), and equal
elements come in the order PyTorch's CPU kernels leave them (NOTE [ Order among equal elements ] in
`_sort_kernels`: `stable=True`, median and nanmedian keep the input's order; sort, topk, kthvalue
and mode do not). Each primitive returns `(values, indices)` with int64 indices along `dim`.
"""

from __future__ import annotations

import math
import numbers
from functools import cache, wraps

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import composite, declare, node_name
from ember.core.opinfo_indexing import info as _info
from ember.core.methods import attach, method, method_positions, numpy_aliases
from ember.core.ops import elementwise as ew
from ember.core.ops import memfmt, numba_nn
from ember.core.ops import shape as S
from ember.core.ops._util import _resize_out, int_param, internally, prepare_out, warn_once, wrap, write_out
from ember.core.ops.arguments import _type_name, parsed
from ember.core.ops.parser_errors import invalid_arguments, overloads, plausible
from ember.core.ops.reduce import NO_DIM, _one_dim, check_out_dtypes, required_dim, return_types
from ember.core.tensor import Tensor

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin", "unique",
           "unique_consecutive", "searchsorted", "bucketize", "bincount", "histc", "isin", "quantile", "nanquantile"]


def _argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort along `axis`; descending keeps equal elements in their original order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    idx = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(idx, axis)


def _pair(vals: np.ndarray, idx: np.ndarray, out, name: str, layout=None):
    idx = idx.astype(np.int64, copy=False)
    if out is not None:
        return write_out(out[0], vals, name, layout), write_out(out[1], idx, name, layout)
    # asarray(order='C'), not ascontiguousarray: that makes a 0-dim result (a 1-D input's max) 1-D
    return wrap(np.asarray(vals, order="C")), wrap(np.asarray(idx, order="C"))


def _pair_out_dtypes(input: Tensor, out, op: str) -> None:
    """PyTorch's refusal of `(values, indices)` out= tensors of another dtype than input's and int64, in each op's
    own words (its kernels check them separately; ember's would cast). Values are checked first, but median's and
    nanmedian's kernels check the indices first."""
    checks = list(zip(out, (input._dtype, dtypes.int64), ("values", "indices")))
    for o, want, what in checks[::-1] if op in ("median", "nanmedian") else checks:
        if o._dtype is want:
            continue
        got, name = dtypes.TORCH_NAMES[o._dtype.name], dtypes.TORCH_NAMES[want.name]
        if op in ("sort", "topk"):
            check_out_dtypes((o,), (want,))
        if op == "kthvalue":
            raise RuntimeError("output values must be of same type as input" if what == "values" else
                               "output indices must be of scalar type Long")
        if op == "mode":
            raise RuntimeError(f"expected scalar type '{name}' but got '{got}' for {what} output")
        if what == "values":  # median and nanmedian
            raise RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
                               f"but type torch.{got}Tensor does not equal torch.{name}Tensor (while checking "
                               f"arguments for median)")
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                           f"torch.{got}Tensor instead (while checking arguments for median)")


def _rows(shape: tuple[int, ...]) -> int:
    """The product of `shape` (numpy cannot infer -1 next to a zero-size dim)."""
    n = 1
    for s in shape:
        n *= s
    return n


def _as_1d(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


# --- sort, topk, kthvalue ----------------------------------------------------------------------
@cache
def _kernels():
    from ember.core.ops import _sort_kernels

    return _sort_kernels


def _to_last(ndim: int, dim: int) -> tuple[int, ...]:
    """The axes of a transpose that moves `dim` last (np.moveaxis's, without its 2 us of argument checks)."""
    return (*range(dim), *range(dim + 1, ndim), dim)


def _rows_last(a: np.ndarray, dim: int) -> np.ndarray:
    """A (rows, n) C-contiguous copy of `a` with `dim` last, in a dtype the kernels compare exactly."""
    m = a if dim == a.ndim - 1 else a.transpose(_to_last(a.ndim, dim))
    rows = m.reshape(_rows(m.shape[:-1]), m.shape[-1])
    if a.dtype == np.bool_:
        return np.ascontiguousarray(rows).view(np.uint8).copy()
    work = numba_nn.kernel_array(rows)
    return np.array(work, order="C") if work is rows else np.ascontiguousarray(work)


def _back(work: np.ndarray, dtype: np.dtype, dim: int, shape: tuple[int, ...]) -> np.ndarray:
    """Kernel rows (dim last) of a result of `shape` back into `dtype` (exact: they hold values of that
    dtype) with `dim` in place."""
    if dtype == np.bool_:
        work = work.view(np.bool_)
    elif work.dtype != dtype:
        work = work.astype(dtype)
    work = work.reshape(shape[:dim] + shape[dim + 1:] + (shape[dim],))
    last = len(shape) - 1
    return work if dim == last else work.transpose((*range(dim), last, *range(dim, last)))


def _take_along(a: np.ndarray, idx: np.ndarray, dim: int) -> np.ndarray:
    """np.take_along_axis(a, idx, dim) for an `idx` of `a`'s shape; a vector or matrix by one fancy index
    (numpy's function checks its arguments in Python: most of a small sort's cost)."""
    if a.ndim == 1:
        return a[idx]
    if a.ndim == 2:
        return a[np.arange(a.shape[0]).reshape(-1, 1), idx] if dim else a[idx, np.arange(a.shape[1])]
    return np.take_along_axis(a, idx, dim)


def _stable_sort_rule(x: Tensor, a: np.ndarray, dim: int, descending: bool, stable: bool) -> bool:
    """Whether PyTorch's CPU sort keeps equal elements in order: `stable=True`; a dim of stride 0 (it
    returns 0..n-1); a 1-D ascending integer sort of at least 32768 elements (fbgemm's radix sort)."""
    if stable or (x.ndim and x._strides[dim] == 0 and x._shape[dim] > 1):
        return True
    return (x.ndim == 1 and not descending and a.dtype.kind in "iu" and a.size >= 32768)


_sort = declare("sort", doc="sort(x, dim, descending, stable) -> (values, indices)")


@_sort.register("cpu")
def _sort_cpu(x, dim=-1, descending=False, stable=False, *, out=None):
    """sort(x, dim: int, descending: bool, stable: bool) -> (values, indices) along `dim`, ties in
    PyTorch's CPU order."""
    a = _as_1d(x._np())
    if _stable_sort_rule(x, a, dim, descending, stable):
        idx = _argsort(a, dim, descending)
        vals = _take_along(a, idx, dim).reshape(x._shape)
        idx = idx.reshape(x._shape)
    else:
        work = _rows_last(a, dim)
        ix = np.empty(work.shape, np.int64)
        _kernels().sort_rows(work, ix, descending)
        vals, idx = _back(work, a.dtype, dim, a.shape), _back(ix, ix.dtype, dim, a.shape)
        vals, idx = vals.reshape(x._shape), idx.reshape(x._shape)
    if out is None and len(x._shape) > 1:  # both laid out as `x` (a channels_last or transposed one), as PyTorch's
        return memfmt.preserved(vals, x), memfmt.preserved(idx.astype(np.int64, copy=False), x)
    return _pair(vals, idx, out, "sort", lambda shape: memfmt.preserved_strides(x))  # a resized `out` too


_SORT_ARGUMENTS = ("sort() received an invalid combination of arguments - got ({}), but expected one of:\n"
                   " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = "
                   "None)\n * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)\n")


def _stable_with_positionals(name: str, args: tuple, *, as_method: bool) -> TypeError:
    """PyTorch's parser refusal of `stable=` beside positional `dim`/`descending` (its overloads take `stable`
    with keywords only), worded as the method's or, for argsort, the function's: one positional names the keyword
    that failed, more trip the parser's positional count."""
    if len(args) > 1:
        low = 0 if as_method else 1
        return TypeError(f"{name}() takes from {low + 1} to {low} positional arguments but {len(args) + low} were "
                         "given")
    got = f"{'' if as_method else 'Tensor, '}{type(args[0]).__name__}, stable=bool"
    first, second = (("", "") if as_method else ("Tensor input, ", "Tensor input, "))
    out = "" if as_method else ", Tensor out = None"
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f" * ({first}*, bool stable, int dim = -1, bool descending = False{out})\n"
                     f" * ({second}int dim = -1, bool descending = False)\n"
                     "      didn't match because some of the keywords were incorrect: stable\n")


def sort(input: Tensor, *args, stable: bool | None = None, dim: int = -1, descending: bool = False, out=None):
    """`(values, indices)` of `input` sorted along `dim`; equal elements as PyTorch's CPU sort orders them
    (in their input order with `stable=True`). PyTorch's two overloads: `(dim=-1, descending=False)` positional,
    or `stable` with `dim` and `descending` by keyword only.

    >>> from ember.core import tensor
    >>> tensor([3, 1, 2]).sort()
    torch.return_types.sort(
    values=tensor([1, 2, 3]),
    indices=tensor([1, 2, 0]))
    """
    if args:
        if stable is not None or len(args) > 2:
            raise TypeError(_SORT_ARGUMENTS.format(", ".join(
                ["Tensor", *(type(a).__name__ for a in args), *(f"{k}={type(v).__name__}" for k, v in
                                                              (("stable", stable), ("out", out)) if v is not None)])))
        dim = args[0]
        if len(args) > 1:
            descending = args[1]
    rt = return_types.sort if out is None else return_types.sort_out
    if out is not None:
        _pair_out_dtypes(input, out, "sort")
    r = _sort(input, _one_dim(dim, input, "sort"), descending, bool(stable), out=None if out is None else tuple(out))
    return rt(node_name(r[0], "SortBackward0", "SortBackward1") if stable else r[0], r[1])  # PyTorch's sort.stable


def _sort_method(self, *args, stable: bool | None = None, dim: int = -1, descending: bool = False):
    """`Tensor.sort`: `sort`, with the method's words for `stable=` beside positional arguments."""
    if args and (stable is not None or len(args) > 2):
        raise _stable_with_positionals("sort", args, as_method=True)
    return sort(self, *args, stable=stable, dim=dim, descending=descending)


def _argsort_stable_check(as_method: bool):
    """PyTorch's argsort takes `stable` as a bool, not sort's `bool?`: its parser refuses `stable=None` (or another
    type) by listing both overloads, or with the one overload whose argument count fits, in that overload's words."""
    head, tail = ("", "") if as_method else ("Tensor input, ", ", Tensor out = None")
    options = [f"({head}*, bool stable, int dim = -1, bool descending = False{tail})",
               f"({head}int dim = -1, bool descending = False)"]

    def invalid(args: tuple, kwargs: dict) -> bool:
        return "stable" in kwargs and not isinstance(kwargs["stable"], bool | np.bool_)

    def deco(fn):
        @wraps(fn)
        def call(*args, **kwargs):
            if invalid(args, kwargs):
                given = args[1:] if as_method else args
                if len(plausible(options, len(given) + len(kwargs))) == 1:
                    raise TypeError(f"argsort(): argument 'stable' must be bool, not {_type_name(kwargs['stable'])}")
                raise invalid_arguments("argsort", given, kwargs, options)
            return fn(*args, **kwargs)
        return call
    return deco


@_argsort_stable_check(as_method=False)
def argsort(input: Tensor, *args, stable: bool | None = None, dim: int = -1, descending: bool = False) -> Tensor:
    """The indices that sort `input` along `dim` (ties as `sort`'s); PyTorch's overloads as `sort`'s."""
    if args and (stable is not None or len(args) > 2):
        raise _stable_with_positionals("argsort", args, as_method=False)
    return _argsort_indices(input, args, stable, dim, descending)


def _argsort_indices(input: Tensor, args: tuple, stable, dim, descending) -> Tensor:
    """argsort's work once its form's parser checks passed: `(dim, descending)` given by position or by keyword."""
    if args:
        dim = args[0]
        if len(args) > 1:
            descending = args[1]
    return _sort(input, _one_dim(dim, input, "argsort"), descending, bool(stable))[1]


@_argsort_stable_check(as_method=True)
def _argsort_method(self, *args, stable: bool | None = None, dim: int = -1, descending: bool = False):
    """`Tensor.argsort`: `argsort`, with the method's words for `stable=` beside positional arguments."""
    if args and (stable is not None or len(args) > 2):
        raise _stable_with_positionals("argsort", args, as_method=True)
    return _argsort_indices(self, args, stable, dim, descending)


sort, argsort = numpy_aliases(sort, "sort", function=True), numpy_aliases(argsort, "argsort", function=True)
for _name, _fn in (("sort", _sort_method), ("argsort", _argsort_method)):
    _fn.__name__, _fn.__qualname__ = _name, f"Tensor.{_name}"
    attach(_name, _fn)


@method
def msort(input: Tensor) -> Tensor:
    """`input` sorted along its first dim."""
    return _sort(input, 0, False)[0]


_topk = declare("topk", doc="topk(x, k, dim, largest, sorted) -> (values, indices)")


@_topk.meta
def _topk_meta(x, k, dim=-1, largest=True, sorted=True, *, out=None) -> None:  # noqa: A002
    n = x._shape[dim] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")


@_topk.register("cpu")
def _topk_cpu(x, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002
    """topk(x, k: int, dim: int, largest: bool, sorted: bool) -> (values, indices): the k largest
    (or smallest) along `dim`, ties (and the order when not sorted) as PyTorch's CPU kernel leaves them."""
    a = _as_1d(x._np())
    work = _rows_last(a, dim)
    ix = np.empty(work.shape, np.int64)
    _kernels().topk_rows(work, ix, k, largest, sorted)
    shape = a.shape[:dim] + (k,) + a.shape[dim + 1:]
    vals, idx = _back(work[:, :k], a.dtype, dim, shape), _back(ix[:, :k], ix.dtype, dim, shape)
    if x.ndim == 0:  # a 0-d result holds the one element whether k is 0 or 1, as PyTorch's
        vals, idx = a.reshape(()), np.zeros((), np.int64)
    return _pair(vals, idx, out, "topk")


@method
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None):  # noqa: A002
    """`(values, indices)` of the `k` largest (`largest=False`: smallest) elements along `dim`.

    >>> from ember.core import tensor
    >>> tensor([3, 1, 2]).topk(2)
    torch.return_types.topk(
    values=tensor([3, 2]),
    indices=tensor([0, 2]))
    """
    if input._dtype is dtypes.bool and input.device.type == "cpu":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    k = int_param(k, "topk", "k", 1, symint=True)
    if out is not None:
        _pair_out_dtypes(input, out, "topk")
    r = _topk(input, k, _one_dim(dim, input, "topk"), largest, sorted, out=None if out is None else tuple(out))
    return (return_types.topk if out is None else return_types.topk_out)(*r)


def _refuse_bool(input: Tensor, kernel: str) -> None:
    """PyTorch's CPU kernels of the order statistics have no bool instance."""
    if input._dtype is dtypes.bool:
        raise ew.DtypeNotSupported(f"\"{kernel}\" not implemented for 'Bool'")


_kthvalue = declare("kthvalue", doc="kthvalue(x, k, dim, keepdim) -> (values, indices)")


@_kthvalue.meta
def _kthvalue_meta(x, k, dim=-1, keepdim=False, *, out=None) -> None:
    n = x._shape[dim] if x.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")


@_kthvalue.register("cpu")
def _kthvalue_cpu(x, k, dim=-1, keepdim=False, *, out=None):
    """kthvalue(x, k: int, dim: int, keepdim: bool) -> (values, indices): the k-th smallest (1-based),
    among equal values the one PyTorch's quickselect picks."""
    a = _as_1d(x._np())
    work = _rows_last(a, dim)
    ix = np.empty(work.shape, np.int64)
    _kernels().kth_rows(work, ix, k - 1)
    shape = a.shape[:dim] + (1,) + a.shape[dim + 1:]
    vals, idx = _back(work[:, k - 1:k], a.dtype, dim, shape), _back(ix[:, k - 1:k], ix.dtype, dim, shape)
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return _pair(vals, idx, out, "kthvalue")


@method
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """`(values, indices)` of the `k`-th smallest element along `dim` (k counts from 1)."""
    _refuse_bool(input, "kthvalue_cpu")
    if out is not None:
        _pair_out_dtypes(input, out, "kthvalue")
    r = _kthvalue(input, int(k), _one_dim(dim, input, "kthvalue"), keepdim, out=None if out is None else tuple(out))
    return (return_types.kthvalue if out is None else return_types.kthvalue_out)(*r)


# --- median, mode ------------------------------------------------------------------------------
_median = declare("median", overlap=0, doc="median(x) -> Tensor")
_median_dim = declare("median_dim", doc="median_dim(x, dim, keepdim) -> (values, indices)")


def _median_along(a: np.ndarray, dim: int):
    """Lower median and its index along `dim` (keepdims; index as a stable sort orders ties); NaN wins with
    its first index. A selection, not a sort: O(n) a row."""
    work = _rows_last(a, dim)
    n = work.shape[1]
    vals, idx = np.empty(work.shape[0], work.dtype), np.empty(work.shape[0], np.int64)
    _kernels().median_rows(work, np.empty(n, work.dtype), np.empty(n, np.int64), vals, idx)
    shape = a.shape[:dim] + (1,) + a.shape[dim + 1:]
    return _back(vals, a.dtype, dim, shape), _back(idx, idx.dtype, dim, shape)


@_median.register("cpu")
def _median_cpu(x, *, out=None):
    """median(x): the lower median of all elements (NaN if any is NaN or x is empty)."""
    a = x._np().reshape(-1)
    if a.size == 0:
        r = np.full((), np.nan, a.dtype)
    else:
        r = _median_along(a, 0)[0].reshape(())
    return write_out(out, r, "median") if out is not None else wrap(r)


def _nonempty_dim_meta(name: str):
    """The meta step of a selection along `dim`: PyTorch's IndexError for an empty `dim`, on every device."""
    def check(x, dim=-1, *args, **kwargs) -> None:
        if x.ndim and x._shape[dim] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return check


_median_dim.meta(_nonempty_dim_meta("median"))


@_median_dim.register("cpu")
def _median_dim_cpu(x, dim, keepdim=False, *, out=None):
    """median_dim(x, dim: int, keepdim: bool) -> (values, indices): the lower median along `dim`."""
    a = _as_1d(x._np())
    vals, idx = _median_along(a, dim)
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return _pair(vals, idx, out, "median")


@method
def median(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None):
    """The lower median of all elements, or `(values, indices)` along `dim`."""
    _refuse_bool(input, "median_cpu" if dim is None else "median_out")
    if dim is None:
        return _median(input, out=out)
    if out is not None:
        _pair_out_dtypes(input, out, "median")
    r = _median_dim(input, _one_dim(dim, input, "median"), keepdim, out=None if out is None else tuple(out))
    return (return_types.median if out is None else return_types.median_out)(*r)


_mode = declare("mode", doc="mode(x, dim, keepdim) -> (values, indices)")
_mode.meta(_nonempty_dim_meta("mode"))


@_mode.register("cpu")
def _mode_cpu(x, dim=-1, keepdim=False, *, out=None):
    """mode(x, dim: int, keepdim: bool) -> (values, indices): the most frequent value along `dim`
    (the smallest on ties) and the index PyTorch's CPU kernel reports for it (NaNs aside, which
    PyTorch compares with a plain `<`)."""
    a = _as_1d(x._np())
    work = _rows_last(a, dim)
    ix = np.empty(work.shape, np.int64)
    vals = np.empty(work.shape[0], work.dtype)
    idx = np.empty(work.shape[0], np.int64)
    _kernels().mode_rows(work, ix, vals, idx)
    shape = a.shape[:dim] + (1,) + a.shape[dim + 1:]
    vals, idx = _back(vals, a.dtype, dim, shape), _back(idx, idx.dtype, dim, shape)
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return _pair(vals, idx, out, "mode")


@method
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """`(values, indices)` of the most frequent value along `dim`."""
    if out is not None:
        _pair_out_dtypes(input, out, "mode")
    r = _mode(input, _one_dim(dim, input, "mode"), keepdim, out=None if out is None else tuple(out))
    return (return_types.mode if out is None else return_types.mode_out)(*r)


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
    op = declare(name, overlap=0, doc=f"{name}(x, dim) -> (values, indices)")

    @op.register("cpu")
    def kernel(x, dim, *, out=None):
        """cummax/cummin(x, dim: int) -> (values, indices): the running max/min along `dim` and
        where it was found (the latest of equal values)."""
        a = np.moveaxis(_as_1d(x._np()), dim, -1)
        rows = np.ascontiguousarray(a.reshape(_rows(a.shape[:-1]), a.shape[-1]))
        # Numba has no bool or bfloat16 arithmetic: bytes and (exact) float32 stand in
        work = rows.view(np.uint8) if rows.dtype == np.bool_ else numba_nn.kernel_array(rows)
        vals = np.empty_like(work)
        idx = np.empty(rows.shape, np.int64)
        if rows.size:
            _cum_extreme_rows()(work, vals, idx, is_max)
        vals = vals.view(rows.dtype) if rows.dtype == np.bool_ else vals.astype(rows.dtype, copy=False)
        vals = np.moveaxis(vals.reshape(a.shape), -1, dim).reshape(x._shape)
        idx = np.moveaxis(idx.reshape(a.shape), -1, dim).reshape(x._shape)
        return _pair(vals, idx, out, name)

    return op


_cummax = _make_cum_extreme("cummax", True)
_cummin = _make_cum_extreme("cummin", False)


def scan_out_dtypes(input: Tensor, out) -> None:
    """PyTorch's scans (cummax, cummin, logcumsumexp) write only into `out=` of the input's dtype (and int64
    indices): its words for another."""
    for o, want in zip(out, (input._dtype, dtypes.int64)):
        if o._dtype is not want:
            raise RuntimeError(f"expected scalar_type {dtypes.TORCH_NAMES[want.name]} but found "
                               f"{dtypes.TORCH_NAMES[o._dtype.name]}")


def _scalar_scan_dim(name: str, input: Tensor, dim) -> None:
    """PyTorch's cummax/cummin check a 0-dim input's `dim` themselves, with their own words, before the usual
    dimension wrapping (the other scans say "Dimension out of range")."""
    if not input._shape and isinstance(dim, int) and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")


@method
def cummax(input: Tensor, dim: int = NO_DIM, *, out=None):
    """`(values, indices)` of the running maximum along `dim`."""
    required_dim("cummax", dim)
    _scalar_scan_dim("cummax", input, dim)
    if out is not None:
        scan_out_dtypes(input, out)
    r = _cummax(input, _one_dim(dim, input, "cummax"), out=None if out is None else tuple(out))
    return (return_types.cummax if out is None else return_types.cummax_out)(*r)


@method
def cummin(input: Tensor, dim: int = NO_DIM, *, out=None):
    """`(values, indices)` of the running minimum along `dim`."""
    required_dim("cummin", dim)
    _scalar_scan_dim("cummin", input, dim)
    if out is not None:
        scan_out_dtypes(input, out)
    r = _cummin(input, _one_dim(dim, input, "cummin"), out=None if out is None else tuple(out))
    return (return_types.cummin if out is None else return_types.cummin_out)(*r)


# --- unique ------------------------------------------------------------------------------------
_unique = declare("unique", doc="unique(x, dim) -> (values, inverse, counts)")


@_unique.register("cpu")
def _unique_cpu(x, dim=None):
    """unique(x, dim: int | None) -> (values, inverse, counts): sorted distinct values (or slices
    along `dim`), the index of each input element (slice) in them, and how often each occurs;
    every NaN is distinct, as in PyTorch."""
    a = x._np()
    if dim is None:
        vals, inv, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inv = inv.reshape(x._shape)
    else:
        vals, inv, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim, equal_nan=False)
        inv = inv.reshape(-1)
    return wrap(vals), wrap(inv.astype(np.int64)), wrap(counts.astype(np.int64))


def _unique_dim(dim, x: Tensor, op: str) -> int:
    """`dim` wrapped; a 0-dim tensor has none to take slices along (PyTorch's IndexError, not dim 0's leniency)."""
    if isinstance(x, Tensor) and not x._shape and isinstance(dim, int):
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _one_dim(dim, x, op)


def _check_unselected_zero_dims(x: Tensor, d: int | None) -> None:
    """PyTorch's refusal of unique along a dim of an empty tensor whose emptiness lies in another dim (the slices
    along `d` would all be empty, and equal), or with several empty dims."""
    if d is None or x.numel():
        return
    if x._shape.count(0) > 1:  # PyTorch's words end in a space
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    if x._shape[d] != 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")


@method
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None):
    """The distinct elements of `input` (sorted), with the inverse indices and counts on request.

    >>> from ember.core import tensor, unique
    >>> unique(tensor([2, 1, 2]), return_counts=True)
    (tensor([1, 2]), tensor([1, 2]))
    """
    if dim is not None and (dim.__class__ is bool or not hasattr(dim, "__index__")):  # torch.unique's _VF call
        raise TypeError(f"unique_dim(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    d = None if dim is None else _unique_dim(dim, input, "unique")
    if d is not None and input._dtype.is_complex:  # PyTorch's kernel with a dim is unique_dim
        raise ew.DtypeNotSupported(f"\"unique_dim\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")
    _check_unselected_zero_dims(input, d)
    vals, inv, counts = _unique(input, d)
    if d is not None:  # PyTorch's kernel with a dim is unique_dim
        node_name(vals, "Unique2Backward0", "UniqueDimBackward0")
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals


@method
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """Collapse runs of equal consecutive elements (or slices along `dim`); inverse and counts on request."""
    d = None if dim is None else _unique_dim(dim, input, "unique_consecutive")
    _check_unselected_zero_dims(input, d)
    vals, inv, counts = _unique_consecutive(input, d)
    extra = tuple(r for r, want in ((inv, return_inverse), (counts, return_counts)) if want)
    return (vals, *extra) if extra else vals


_unique_consecutive = declare("unique_consecutive",
                              doc="unique_consecutive(x, dim) -> (values, inverse, counts)")


@_unique_consecutive.register("cpu")
def _unique_consecutive_cpu(x, dim=None):
    """unique_consecutive(x, dim: int | None) -> (values, inverse, counts)."""
    a = x._np().reshape(-1) if dim is None else np.moveaxis(x._np(), dim, 0)
    n = a.shape[0]
    rows = a.reshape(n, _rows(a.shape[1:]))
    starts = np.ones(n, bool)
    if n > 1:
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    vals = a[starts]
    inv = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), n))
    if dim is None:
        inv = inv.reshape(x._shape)
    else:
        vals = np.moveaxis(vals, 0, dim)
    return wrap(np.ascontiguousarray(vals)), wrap(inv.astype(np.int64)), wrap(counts.astype(np.int64))


# --- searching and counting ----------------------------------------------------------------------
_searchsorted = declare("searchsorted", np.searchsorted, differentiable=False,
                        doc="searchsorted(sorted_sequence, values, right, sorter, out_int32) -> Tensor",
                        info=_info("searchsorted"))


@_searchsorted.meta
def _searchsorted_meta(seq, values, right=False, sorter=None, out_int32=False) -> None:
    """Rows of values match the sequence's, and a sorter's values index a row (both kernels index by it);
    in PyTorch's order: the sorter's shape, its dtype, the rows, the non-contiguity warnings, the sorter's values."""
    if sorter is not None:
        if sorter._shape != seq._shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq._shape)}and got sorter tensor {list(sorter._shape)}")
        if sorter._dtype is not dtypes.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{dtypes.TORCH_NAMES[sorter._dtype.name]}")
    vshape = values._shape if isinstance(values, Tensor) else np.shape(values)
    if seq.ndim > 1 and (len(vshape) != seq.ndim or tuple(vshape[:-1]) != seq._shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq._shape)} and input value tensor {list(vshape)}")
    for what, t, line in (("input value", values, 32), ("boundary", seq, 38), ("sorter", sorter, 44)):
        if isinstance(t, Tensor) and not t.is_contiguous():  # PyTorch copies it, and says so once per process
            warn_once(internally(f"torch.searchsorted(): {what} tensor is non-contiguous, this will lower the "
                                 "performance due to extra data copy when converting non-contiguous tensor to "
                                 f"contiguous, please use contiguous {what} tensor if possible. This message will "
                                 "only appear once per program.", f"aten/src/ATen/native/BucketizationUtils.h:{line}"))
    if sorter is not None and sorter.numel():  # device sorters read to the host: CUDA's kernel gathers by them
        srt = np.asarray(sorter._host_array())
        if srt.min() < 0 or srt.max() >= seq._shape[-1]:
            raise RuntimeError("torch.searchsorted(): sorter index out of range")


def _nan_bound(s: np.ndarray, v: np.ndarray, right: bool) -> np.ndarray:
    """Each row's binary search with PyTorch's comparisons (`!(mid >= v)` goes right, `!(mid > v)` for right=True),
    for NaNs: numpy orders them last, while PyTorch's search sends a NaN value past the end and steps over NaN
    boundaries. s `(R, M)`, v `(R, K)`."""
    start = np.zeros(v.shape, np.int64)
    end = np.full(v.shape, s.shape[1], np.int64)
    with np.errstate(invalid="ignore"):
        while (active := start < end).any():
            mid = start + ((end - start) >> 1)
            mv = np.take_along_axis(s, np.minimum(mid, s.shape[1] - 1), axis=1)
            go = ~(mv > v) if right else ~(mv >= v)
            start = np.where(active & go, mid + 1, start)
            end = np.where(active & ~go, mid, end)
    return start


@_searchsorted.register("cpu")
def _searchsorted_cpu(seq, values, right=False, sorter=None, out_int32=False):
    """searchsorted(sorted_sequence (*, M), values (*, K) or any shape for 1-D sequences, right: bool,
    sorter: Tensor | None, out_int32: bool): insertion indices that keep each row sorted."""
    s = seq._np()
    v = values._np() if isinstance(values, Tensor) else np.asarray(values)
    srt = None if sorter is None else sorter._np()
    side = "right" if right else "left"
    if s.shape[-1] == 0:
        r = np.zeros(v.shape, np.int64)
    elif s.dtype.kind in "fcV" and (np.isnan(s).any() or np.isnan(v).any()):
        s2 = s.reshape(-1, s.shape[-1])
        if srt is not None:
            s2 = np.take_along_axis(s2, srt.reshape(s2.shape), axis=1)
        r = _nan_bound(s2, v.reshape(s2.shape[0], -1), right).reshape(v.shape)
    elif s.ndim == 1:
        r = np.searchsorted(s, v, side=side, sorter=srt)
    else:
        s2, v2 = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
        s2srt = None if srt is None else srt.reshape(-1, s.shape[-1])
        r = np.stack([np.searchsorted(s2[i], v2[i], side=side, sorter=None if s2srt is None else s2srt[i])
                      for i in range(s2.shape[0])]).reshape(v.shape) if s2.shape[0] else np.empty(v.shape, np.int64)
    return wrap(np.asarray(r, np.int32 if out_int32 else np.int64))


def _search_out(r: Tensor, out: Tensor | None, out_int32: bool) -> Tensor:
    """`r` written to `out` (resized as PyTorch resizes outputs), whose dtype must be the one `out_int32` names."""
    if out is None:
        return r
    if out._dtype is not (dtypes.int32 if out_int32 else dtypes.int64):
        raise RuntimeError("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
                           f"dtype {dtypes.TORCH_NAMES[out._dtype.name]} and out_int32 flag is {out_int32}")
    return S.copy_(prepare_out(out, r._shape, r._dtype, r.device, "searchsorted"), r)


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None, out: Tensor | None = None) -> Tensor:
    """Indices where `input` would be inserted into the innermost dim of `sorted_sequence` to keep it sorted."""
    if sorted_sequence._dtype is dtypes.bool and dtypes.result_type(input, sorted_sequence) is dtypes.bool:
        _refuse_bool(sorted_sequence, "searchsorted_out_cpu")  # the kernel runs in the common dtype
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if (not isinstance(input, Tensor) or input.ndim == 0) and sorted_sequence.ndim != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                           f"dimension is 1, but we got boundaries tensor dim({sorted_sequence.ndim}) and input "
                           "value's dim(0) numel(1)")
    if sorted_sequence.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    return _search_out(_searchsorted(sorted_sequence, input, right, sorter, out_int32), out, out_int32)


@method
def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False,
              out: Tensor | None = None) -> Tensor:
    """The index of the bucket of each element: boundaries[i-1] < x <= boundaries[i] (`right=True`: < and <=
    swap sides)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    if boundaries._dtype is dtypes.bool and dtypes.result_type(input, boundaries) is dtypes.bool:
        _refuse_bool(boundaries, "searchsorted_out_cpu")  # the kernel runs in the common dtype
    return _search_out(_searchsorted(boundaries, input, right, None, out_int32), out, out_int32)


_bincount = declare("bincount", np.bincount, doc="bincount(x, weights, minlength) -> Tensor",
                    info=_info("bincount"))


@_bincount.meta
def _bincount_meta(x, weights=None, minlength=0):
    """Every check of both kernels; values too (read to the host from a device, as the composite must
    to size its result): no negatives."""
    if x._dtype.is_floating_point or x._dtype is dtypes.bool or x._dtype.is_complex:
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{dtypes.TORCH_NAMES[x._dtype.name]}\'')
    if x.ndim != 1 or (x.numel() and int(np.min(x._host_array())) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and weights._shape != x._shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is not None:  # PyTorch casts the weights to double: a complex weight loses its imaginary part
        from ember.core.ops._util import warn_complex_to_real

        warn_complex_to_real(weights._dtype, dtypes.float64)


@_bincount.register("cpu")
def _bincount_cpu(x, weights=None, minlength=0):
    """bincount(x (n,) non-negative ints, weights (n,) | None, minlength: int): int64 counts, or sums of
    weights (float32 for float32 weights, float64 otherwise)."""
    a = x._np()
    if weights is None:
        return wrap(np.bincount(a, minlength=minlength).astype(np.int64))
    dt = np.float32 if weights._dtype is dtypes.float32 else np.float64
    return wrap(np.bincount(a, weights._np().real.astype(np.float64), minlength).astype(dt))


@method(method_form=method_positions)
@parsed("bincount", input="Tensor", weights="Tensor?", minlength="int")
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each non-negative integer occurs in `input` (or the sum of its `weights`)."""
    return _bincount(input, weights, minlength)


_histc = declare("histc", differentiable=False, overlap=0, doc="histc(x, bins, min, max) -> Tensor")


@_histc.meta
def _histc_meta(x, bins=100, min=0, max=0, *, out=None) -> None:  # noqa: A002 - PyTorch's names
    """The argument checks of every device; the data's range (min == max) is checked by `_histc_range`."""
    if not x._dtype.is_floating_point:  # PyTorch's kernels: the range of bools, the data's range of complex
        kernel = "linspace_cpu" if x._dtype is dtypes.bool else (
            "aminmax_cpu" if x._dtype.is_complex and float(min) == float(max) else "histogram_cpu")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[x._dtype.name]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if float(min) > float(max):
        raise RuntimeError("torch.histc: max must be larger than min")
    if float(min) != float(max):
        _histc_range(float(min), float(max))


def _histc_range(lo: float, hi: float, n: int = 0) -> tuple[float, float]:
    """The histogram's range from `[lo, hi]` (given, or the min and max of `n` data elements): a single point
    widens by one on each side; PyTorch's error for an infinite or NaN end. The vectorized min/max PyTorch
    takes over more than one element yields x86's default NaN, which its message prints as `-nan`."""
    if n > 1 and (math.isnan(lo) or math.isnan(hi)):
        lo = hi = -math.nan
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_signed_g(lo)}, {_signed_g(hi)}] is not finite")
    return lo, hi


def _signed_g(v: float) -> str:
    """`v` as C's `%g` prints it: a NaN with its sign bit set is `-nan`."""
    return "-nan" if math.isnan(v) and math.copysign(1.0, v) < 0 else f"{v:g}"


@_histc.register("cpu")
def _histc_cpu(x, bins=100, min=0, max=0, *, out=None):  # noqa: A002 - PyTorch's names
    """histc(x, bins: int, min: float, max: float): equal-width counts over [min, max] (the data's range
    when min == max); elements outside are ignored; x's float dtype."""
    a = x._np().reshape(-1)
    lo, hi = float(min), float(max)
    n = 0
    if lo == hi and a.size:
        lo, hi, n = float(a.min()), float(a.max()), a.size
    lo, hi = _histc_range(lo, hi, n)
    finite = a[np.isfinite(a)]
    counts = np.histogram(finite.astype(np.float64), bins=bins, range=(lo, hi))[0]
    r = counts.astype(x._dtype.np)
    return write_out(out, r, "histc") if out is not None else wrap(r)


@method
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out=None) -> Tensor:  # noqa: A002
    """A histogram of `input` in `bins` equal-width bins over [min, max]."""
    return _histc(input, int(bins), min, max, out=out)


_isin = declare("isin", np.isin, differentiable=False, doc="isin(elements, test_elements, invert) -> Tensor")


@_isin.register("cpu")
def _isin_cpu(elements, test_elements, invert=False):
    """isin(elements, test_elements, invert: bool): whether each element occurs in test_elements (bool)."""
    e = elements._np() if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._np() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return wrap(np.asarray(np.isin(e, t, invert=invert)))


def _isin_signature_error(*args) -> TypeError:
    """PyTorch's parser refusal of `isin` operands matching none of its overloads (two numbers, a list ...)."""
    got = ", ".join(_type_name(v) for v in args)
    kw = "*, bool assume_unique = False, bool invert = False, Tensor out = None"
    return TypeError(f"isin() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f" * (Tensor elements, Tensor test_elements, {kw})\n"
                     f" * (Number element, Tensor test_elements, {kw})\n"
                     f" * (Tensor elements, Number test_element, {kw})\n")


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Elementwise membership of `elements` in `test_elements` (either may be a scalar)."""
    if not (isinstance(elements, (Tensor, numbers.Number)) and isinstance(test_elements, (Tensor, numbers.Number))
            and (isinstance(elements, Tensor) or isinstance(test_elements, Tensor))):
        raise _isin_signature_error(elements, test_elements)
    if any(v._dtype is dtypes.bool if isinstance(v, Tensor) else isinstance(v, bool)
           for v in (elements, test_elements)):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    return _isin(elements, test_elements, invert)


# --- nanmedian, quantile ---------------------------------------------------------------------------
_nanmedian = declare("nanmedian", overlap=0, doc="nanmedian(x) -> Tensor")
_nanmedian_dim = declare("nanmedian_dim", doc="nanmedian_dim(x, dim, keepdim) -> (values, indices)")
_nanmedian_dim.meta(_nonempty_dim_meta("median"))  # PyTorch names median() for nanmedian too


def _nanmedian_along(a: np.ndarray, dim: int):
    """Lower median of the non-NaN values along `dim` and its index (keepdims); NaN when all are NaN, at the index
    PyTorch's nth_element leaves first (not the first: its comparator orders no NaN before another)."""
    order = _argsort(a, dim, False)
    nan_count = np.isnan(a).sum(axis=dim, keepdims=True) if a.dtype.kind in "fV" else \
        np.zeros(np.take(a, [0], axis=dim).shape, np.int64)
    pos = np.maximum(a.shape[dim] - nan_count - 1, 0) // 2
    idx = np.take_along_axis(order, pos, dim)
    all_nan = nan_count == a.shape[dim]
    if a.shape[dim] > 3 and all_nan.any():
        idx = np.where(all_nan, _kernels().first_of_equal(a.shape[dim]), idx)
    return np.take_along_axis(a, idx, dim), idx


@_nanmedian.register("cpu")
def _nanmedian_cpu(x, *, out=None):
    """nanmedian(x): the lower median of the non-NaN elements (NaN if there are none)."""
    a = x._np().reshape(-1)
    r = np.full((), np.nan, a.dtype) if a.size == 0 else _nanmedian_along(a, 0)[0].reshape(())
    return write_out(out, r, "nanmedian") if out is not None else wrap(r)


@_nanmedian_dim.register("cpu")
def _nanmedian_dim_cpu(x, dim, keepdim=False, *, out=None):
    """nanmedian_dim(x, dim: int, keepdim: bool) -> (values, indices), ignoring NaN."""
    a = _as_1d(x._np())
    vals, idx = _nanmedian_along(a, dim)
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return _pair(vals, idx, out, "nanmedian")


@method
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None):
    """The lower median ignoring NaN, of everything or `(values, indices)` along `dim`."""
    _refuse_bool(input, "median_cpu" if dim is None else "median_out")
    if dim is None:
        return _nanmedian(input, out=out)
    if out is not None:
        _pair_out_dtypes(input, out, "nanmedian")
    r = _nanmedian_dim(input, _one_dim(dim, input, "nanmedian"), keepdim, out=None if out is None else tuple(out))
    return (return_types.nanmedian if out is None else return_types.nanmedian_out)(*r)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool, op: str) -> Tensor:
    """Quantiles from the sorted values: gather the two neighbours of each rank and interpolate
    (composite, so it differentiates through sort, gather and lerp)."""
    from ember.core.ops.indexing import gather
    from ember.core.ops.join import stack
    from ember.core.ops.layout import narrow, reshape

    # PyTorch's messages say quantile() for nanquantile too
    if not input._dtype.is_floating_point or input._dtype.itemsize == 2:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q._dtype is not input._dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        qs, scalar_q = [float(v) for v in q._host_array().reshape(-1)], q.ndim == 0
    elif isinstance(q, numbers.Real):
        qs, scalar_q = [float(q)], True
    else:  # PyTorch's parser takes a float or a Tensor only (a list of quantiles too is refused)
        raise TypeError(f"{op}() received an invalid combination of arguments - got (Tensor, {type(q).__name__}), but "
                        f"expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str "
                        f"interpolation = \"linear\", Tensor out = None)\n * (Tensor input, float q, int dim = None, "
                        f"bool keepdim = False, *, str interpolation = \"linear\", Tensor out = None)\n")
    if any(not 0 <= v <= 1 for v in qs):  # PyTorch names a scalar q (as C++ prints a double), not a tensor's
        raise RuntimeError("quantile() q values must be in the range [0, 1]" if isinstance(q, Tensor) else
                           f"quantile() q must be in the range [0, 1] but got {qs[0]:g}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    x = reshape(input, (-1,)) if dim is None else input
    d = 0 if dim is None else _one_dim(dim, input, op)
    if x.ndim and x._shape[d] > 2**24:  # PyTorch's limit on the length sorted (the reduced dim), whatever the memory
        raise RuntimeError("quantile() input tensor is too large")
    x = reshape(x, (1,)) if x.ndim == 0 else x
    srt = _sort(x, d, False)[0]
    a = srt._host_array()
    n = a.shape[d]
    nan_count = np.isnan(a).sum(axis=d, keepdims=True)
    # the last usable rank: NaN-free count - 1 (nanquantile), or n - 1 where a NaN must win (quantile)
    last = np.where(nan_count == n, n - 1, n - 1 - nan_count) if ignore_nan else np.full(nan_count.shape, n - 1)
    has_nan = nan_count > 0

    def on_device(arr: np.ndarray) -> Tensor:
        t = wrap(arr)
        return t if input.device.type == "cpu" else t.to(input.device)

    results = []
    for v in qs or [0.0]:  # an empty 1-D q: one quantile's shape, narrowed to none below
        rank = np.asarray(v, a.dtype) * last.astype(a.dtype)  # in the input's dtype, as PyTorch's ranks
        if not ignore_nan:
            rank = np.where(has_nan, n - 1, rank)
        lo, hi = np.floor(rank).astype(np.int64), np.ceil(rank).astype(np.int64)
        if interpolation == "nearest":
            lo = hi = np.round(rank).astype(np.int64)
        elif interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        vlo = gather(srt, d, on_device(lo))
        if interpolation in ("linear", "midpoint"):  # PyTorch lerps at an exact rank too: an infinite value is nan
            frac = rank - lo if interpolation == "linear" else np.full(np.shape(rank), 0.5)
            vlo = node_name(ew.lerp(vlo, gather(srt, d, on_device(hi)), on_device(np.asarray(frac, a.dtype))),
                            "LerpBackward0", "LerpBackward1")  # PyTorch's weight is a tensor
        if not keepdim:
            vlo = reshape(vlo, tuple(s for i, s in enumerate(vlo._shape) if i != d))
        elif dim is None:
            vlo = reshape(vlo, (1,) * input.ndim)
        results.append(vlo)
    # PyTorch computes the quantiles along a last dim and moves it to the front: a 1-D q gives a permuted view
    r = results[0] if scalar_q else S.permute(stack(results, -1), (results[0].ndim,) + tuple(range(results[0].ndim)))
    if not qs:
        r = narrow(r, 0, 0, 0)
    # PyTorch's quantile ends with a squeeze whatever the arguments: its node names every result
    fn = getattr(r, "_grad_fn", None)
    return node_name(r, type(fn).__name__, "SqueezeBackward4") if fn is not None else r


def _quantile_out(r: Tensor, out: Tensor | None) -> Tensor:
    """`r` written into `out=` as PyTorch's quantile writes it: its dtype must be input's; resized (with
    the warning) when its shape differs; a copy, so an input that requires grad gives `out` a CopyBackwards."""
    if out is None:
        return r
    if out._dtype is not r._dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    if out._shape != r._shape:
        _resize_out(out, r._shape, None)
    return S.copy_(out, r)


def _q_overloads(op: str, as_method: bool):
    """PyTorch's parser refusal of a q that is neither a float nor a tensor, worded for the function or the method."""
    head, tail = ("", "") if as_method else ("Tensor input, ", ", Tensor out = None")
    options = [f"({head}{k} q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\"{tail})"
               for k in ("Tensor", "float")]

    def invalid(args: tuple, kwargs: dict) -> bool:
        bound = {**dict(zip(("input", "q", "dim", "keepdim"), args)), **kwargs}
        dim = bound.get("dim")
        return (not isinstance(bound.get("q", 0.0), Tensor | numbers.Real)
                or not (dim is None or isinstance(dim, Tensor) or (isinstance(dim, numbers.Integral)
                                                                    and not isinstance(dim, bool)))
                or not isinstance(bound.get("keepdim", False), bool | np.bool_)
                or not isinstance(bound.get("interpolation", "linear"), str))
    return overloads(op, options, invalid, method=as_method)


@method(function_form=_q_overloads("quantile", False), method_form=_q_overloads("quantile", True))
@composite("quantile")
def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """The `q`-th quantiles (a float or a 1-D tensor in [0, 1]) over `dim` or everything; NaN propagates.

    >>> from ember.core import quantile, tensor
    >>> quantile(tensor([1.0, 2.0, 3.0, 4.0]), 0.5)
    tensor(2.5000)
    """
    return _quantile_out(_quantile(input, q, dim, keepdim, interpolation, False, "quantile"), out)


@method(function_form=_q_overloads("nanquantile", False), method_form=_q_overloads("nanquantile", True))
@composite("nanquantile")
def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """Like `quantile`, ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile_out(_quantile(input, q, dim, keepdim, interpolation, True, "nanquantile"), out)
