"""The sorting family for every device without a kernel of its own: compositions of sort, gather,
cumsum, index_add ... registered once as `"any"` kernels (NOTE [ Composite kernels ] in
`ember.core.dispatch`). The CPU keeps its numpy kernels, which are faster there; CUDA runs these,
on its own primitives, with the CPU's values: NaN sorts last, equal elements keep their order (a
stable sort: kthvalue's index among ties may differ from the CPU's quickselect), a
row holding NaN has NaN as its median (at its first NaN), and `out=` is resized as PyTorch does.
Argument checks live in each op's meta step (ops/sorting.py), above both."""

from __future__ import annotations

import math

from ember.core import dtypes
from ember.core.creation import new_empty, tensor
from ember.core.dispatch import get_op
from ember.core.ops._util import prepare_out
from ember.core.ops.sorting import _histc_range
from ember.core.tensor import Tensor

__all__: list[str] = []  # kernels only: the public functions are in ember.core.ops.sorting

_sort, _gather, _isnan, _any, _argmax, _where = (get_op(n) for n in ("sort", "gather", "isnan", "any", "argmax",
                                                                      "where"))
_sum, _sub, _clamp, _floor_divide, _cumsum = (get_op(n) for n in ("sum", "sub", "clamp", "floor_divide", "cumsum"))
_nonzero, _index_select, _cat, _ne, _scatter = (get_op(n) for n in ("nonzero", "index_select", "cat", "ne",
                                                                      "scatter"))
_to_dtype, _index_add, _amin, _amax, _isfinite = (get_op(n) for n in ("to_dtype", "index_add", "amin", "amax",
                                                                       "isfinite"))


def _finish(x: Tensor, dim: int, vals: Tensor, idx: Tensor, keepdim: bool, out, name: str):
    """(values, indices) picked along `dim` with a kept size-1 dim: squeezed, 0-dim like `x`, into `out`."""
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    if x.ndim == 0:
        vals, idx = vals.view(()), idx.view(())
    if out is not None:
        dev = x._storage.device
        vals = prepare_out(out[0], vals._shape, vals._dtype, dev, name).copy_(vals)
        idx = prepare_out(out[1], idx._shape, idx._dtype, dev, name).copy_(idx)
    return vals, idx


def _pick(x: Tensor, dim: int, k: int, keepdim: bool, nan_first: bool, out, name: str):
    """(values, indices) of the k-th smallest (0-based) along `dim`; with `nan_first`, a row
    holding NaN gives its first NaN instead."""
    xx = x.view(1) if x.ndim == 0 else x
    idx = _sort(xx, dim, False, True)[1].narrow(dim, k, 1)
    if nan_first and x._dtype.is_floating_point:
        nan = _isnan(xx)
        idx = _where(_any(nan, (dim,), True), _argmax(nan, dim, True), idx)
    return _finish(x, dim, _gather(xx, dim, idx), idx, keepdim, out, name)


def _kthvalue(x, k, dim=-1, keepdim=False, *, out=None):
    return _pick(x, dim if x.ndim else 0, k - 1, keepdim, False, out, "kthvalue")


def _all_of(pick, x: Tensor, out, name: str) -> Tensor:
    """`pick` over every element; NaN for an empty `x`."""
    if x.numel() == 0:
        r = new_empty((), x._dtype, x._storage.device).fill_(math.nan)
    else:
        r = pick(x.reshape(-1), 0, False, None, name)[0]
    return r if out is None else prepare_out(out, (), r._dtype, r._storage.device, name).copy_(r)


def _lower_median(x: Tensor, dim: int, keepdim: bool, out, name: str):
    return _pick(x, dim, ((x._shape[dim] if x.ndim else 1) - 1) // 2, keepdim, True, out, name)


def _median(x, *, out=None):
    return _all_of(_lower_median, x, out, "median")


def _median_dim(x, dim, keepdim=False, *, out=None):
    return _lower_median(x, dim if x.ndim else 0, keepdim, out, "median")


def _nan_lower_median(x: Tensor, dim: int, keepdim: bool, out, name: str):
    """The lower median of each row's non-NaN values (they sort first) and its index."""
    xx = x.view(1) if x.ndim == 0 else x
    order = _sort(xx, dim, False, True)[1]
    nan_count = _sum(_isnan(xx), (dim,), True, dtypes.int64)
    idx = _gather(order, dim, _floor_divide(_clamp(_sub(xx._shape[dim] - 1, nan_count), 0, None), 2))
    n = xx._shape[dim]
    if n > 3:  # an all-NaN row: the index PyTorch's nth_element leaves first, as the CPU kernel names it
        from ember.core.ops._sort_kernels import first_of_equal

        first = tensor(first_of_equal(n), dtype=dtypes.int64, device=xx._storage.device)
        idx = _where(_ne(nan_count, n), idx, first)
    return _finish(x, dim, _gather(xx, dim, idx), idx, keepdim, out, name)


def _nanmedian(x, *, out=None):
    return _all_of(_nan_lower_median, x, out, "nanmedian")


def _nanmedian_dim(x, dim, keepdim=False, *, out=None):
    return _nan_lower_median(x, dim if x.ndim else 0, keepdim, out, "nanmedian")


def _unique_consecutive(x, dim=None):
    """Runs of equal elements (slices along `dim`): a run starts where a row differs from the one
    before (NaN differs from NaN); the number of runs is data-dependent, so `nonzero` synchronizes once."""
    a = x.reshape(-1) if dim is None else x.movedim(dim, 0)
    n = a._shape[0]
    rows = a.reshape(n, -1)
    dev = x._storage.device
    starts = new_empty((n,), dtypes.bool, dev).fill_(True)
    if n > 1 and rows._shape[1]:
        _any(_ne(rows[1:], rows[:-1]), (1,), False, out=starts[1:])
    inv = _sub(_cumsum(starts, 0, dtypes.int64), 1)
    first = _nonzero(starts).reshape(-1)
    vals = _index_select(a, 0, first)
    end = new_empty((1,), dtypes.int64, dev).fill_(n)
    counts = _sub(_cat([first[1:], end], 0), first)
    if dim is None:
        inv = inv.view(x._shape)
    else:
        vals = vals.movedim(0, dim).contiguous()
    return vals, inv, counts


def _unique(x, dim=None):
    """The runs of the sorted elements; each element's run is scattered back to its position."""
    if dim is not None:
        raise NotImplementedError(f"unique(dim=...) runs on the CPU only (it sorts slices lexicographically); "
                                  f"flattened unique (dim=None) runs on {x._storage.device.type}")
    flat = x.reshape(-1)
    sv, so = _sort(flat, 0, False, True)
    vals, inv_sorted, counts = _unique_consecutive(sv)
    inv = new_empty(flat._shape, dtypes.int64, x._storage.device)
    if flat.numel():
        _scatter(inv, 0, so, inv_sorted, out=inv)
    return vals, inv.view(x._shape), counts


def _searchsorted(seq, values, right=False, sorter=None, out_int32=False):
    """Each row's binary search, every row at once, with PyTorch's comparisons (`!(mid >= v)` steps right, `!(mid > v)`
    for right=True): a NaN value lands past the end and NaN boundaries are stepped over, as on the CPU."""
    if sorter is not None:
        seq = _gather(seq, seq.ndim - 1, sorter)
    if not isinstance(values, Tensor):
        values = tensor(values, dtype=seq._dtype, device=seq._storage.device)
    m = seq._shape[-1]
    rows = seq.reshape(math.prod(seq._shape[:-1]), m)
    v = values.reshape(rows._shape[0], values.numel() // max(rows._shape[0], 1))
    start = new_empty(v._shape, dtypes.int64, v._storage.device).fill_(0)
    end = new_empty(v._shape, dtypes.int64, v._storage.device).fill_(m)
    for _ in range(m.bit_length()):
        active = get_op("lt")(start, end)
        mid = start + _floor_divide(end - start, 2)
        mv = _gather(rows, 1, _clamp(mid, None, m - 1))
        go = get_op("logical_not")(get_op("gt" if right else "ge")(mv, v))
        start = _where(get_op("logical_and")(active, go), mid + 1, start)
        end = _where(get_op("logical_and")(active, get_op("logical_not")(go)), mid, end)
    out = start.reshape(values._shape)
    return _to_dtype(out, dtypes.int32) if out_int32 else out


def _bincount(x, weights=None, minlength=0):
    """An index_add of ones (or the weights) at each value; the meta step read the values for negatives."""
    n = x.numel()
    size = max(int(_amax(x, (0,), False).item()) + 1 if n else 0, minlength)
    dev = x._storage.device
    if weights is None:
        counts = new_empty((size,), dtypes.int64, dev).fill_(0)
        vals = new_empty((n,), dtypes.int64, dev).fill_(1)
    else:
        dt = dtypes.float32 if weights._dtype is dtypes.float32 else dtypes.float64
        counts = new_empty((size,), dt, dev).fill_(0)
        vals = weights if weights._dtype is dt else _to_dtype(weights, dt)
    idx = x if x._dtype in (dtypes.int64, dtypes.int32) else _to_dtype(x, dtypes.int64)  # uint8, int16 ...
    return _index_add(counts, 0, idx, vals, out=counts) if n else counts


def _histc(x, bins=100, min=0, max=0, *, out=None):  # noqa: A002 - PyTorch's names
    """Each finite element's bin (the top edge in the last bin), counted by an index_add of ones."""
    flat = x.reshape(-1)
    lo, hi = float(min), float(max)
    n = 0
    if lo == hi and flat.numel():  # the data's range, NaN and infinities included, as the CPU kernel
        lo, hi, n = float(_amin(flat, (0,), False).item()), float(_amax(flat, (0,), False).item()), flat.numel()
    lo, hi = _histc_range(lo, hi, n)
    op = get_op
    pos = op("floor")(op("mul")(_sub(_to_dtype(flat, dtypes.float64), lo), bins / (hi - lo)))
    pos = _where(op("eq")(flat, hi), bins - 1, pos)
    inside = op("logical_and")(op("logical_and")(op("ge")(flat, lo), op("le")(flat, hi)), _isfinite(flat))
    # NaN and infinite elements count nothing: bin 0 keeps their (zero) weight in range for index_add
    idx = _to_dtype(_where(inside, _clamp(pos, 0, bins - 1), 0), dtypes.int64)
    counts = new_empty((bins,), dtypes.float64, x._storage.device).fill_(0)
    _index_add(counts, 0, idx, _to_dtype(inside, dtypes.float64), out=counts)
    r = _to_dtype(counts, x._dtype)
    return r if out is None else prepare_out(out, r._shape, r._dtype, r._storage.device, "histc").copy_(r)


for _name, _kernel in (("kthvalue", _kthvalue), ("median", _median), ("median_dim", _median_dim),
                       ("nanmedian", _nanmedian), ("nanmedian_dim", _nanmedian_dim), ("unique", _unique),
                       ("unique_consecutive", _unique_consecutive), ("searchsorted", _searchsorted),
                       ("bincount", _bincount), ("histc", _histc)):
    get_op(_name).register("any")(_kernel)
