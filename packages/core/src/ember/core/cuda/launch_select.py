"""CUDA kernels of selections built on the bitonic sort and the index kernels: kthvalue, median
(all elements, and along a dim, NaN winning with its first index as on the CPU), nanmedian, mode,
unique and unique_consecutive (one synchronization for their data-dependent size),
multinomial (inverse CDF or the exponential race over Philox draws), take and put,
searchsorted (a count of the boundaries below each value), bincount and histc (atomic adds;
their data-dependent sizes synchronize once, as in PyTorch), and the im2col/col2im ops
(F.unfold / F.fold) on the convolution kernels."""

from __future__ import annotations

import math

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import conv as KC
from ember.core.cuda.kernels import scan as KS
from ember.core.cuda.launch_conv import _im2col, _out_hw
from ember.core.cuda.launch_reduce import argfold
from ember.core.cuda.launch_sort import _sorted_rows
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor, describe

__all__ = ["register"]


def _pick(x: Tensor, dim: int, k: int, keepdim: bool, nan_first: bool, out, name: str):
    """(values, indices) of the k-th smallest (0-based) along `dim`; with `nan_first`, a row
    holding NaN gives its first NaN instead."""
    xx = x.view(1) if x.ndim == 0 else x
    _, order = _sorted_rows(xx, xx._shape[dim], dim, False, None, name)
    idx = order.narrow(dim, k, 1)
    if nan_first and x._dtype.is_floating_point:
        nan = get_op("isnan")(xx)
        first_nan = argfold(nan, (dim,), True, False, True, None, name)
        has_nan = get_op("any")(nan, (dim,), True)
        idx = get_op("where")(has_nan, first_nan, idx)
    vals = get_op("gather")(xx, dim, idx)
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    if x.ndim == 0:
        vals, idx = vals.view(()), idx.view(())
    if out is not None:
        dev = x._storage.device
        vals = lu.prepare_out(out[0], vals._shape, vals._dtype, dev, name).copy_(vals)
        idx = lu.prepare_out(out[1], idx._shape, idx._dtype, dev, name).copy_(idx)
    return vals, idx


def _kthvalue(x, k, dim=-1, keepdim=False, *, out=None):
    return _pick(x, dim if x.ndim else 0, k - 1, keepdim, False, out, "kthvalue")


def _median(x, *, out=None):
    if x.numel() == 0:
        r = lu.empty((), x._dtype, x._storage.device).fill_(math.nan)
    else:
        r = _pick(x.reshape(-1), 0, (x.numel() - 1) // 2, False, True, None, "median")[0]
    return r if out is None else lu.prepare_out(out, (), r._dtype, r._storage.device, "median").copy_(r)


def _median_dim(x, dim, keepdim=False, *, out=None):
    n = x._shape[dim] if x.ndim else 1
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    return _pick(x, dim if x.ndim else 0, (n - 1) // 2, keepdim, True, out, "median")


def _nanmedian_pick(x: Tensor, dim: int, keepdim: bool, out, name: str):
    xx = x.view(1) if x.ndim == 0 else x
    n = xx._shape[dim]
    _, order = _sorted_rows(xx, n, dim, False, None, name)
    nan_count = get_op("sum")(get_op("isnan")(xx), (dim,), True, dtypes.int64)
    pos = get_op("floor_divide")(get_op("clamp")(get_op("sub")(n - 1, nan_count), 0, None), 2)
    idx = get_op("gather")(order, dim, pos)
    vals = get_op("gather")(xx, dim, idx)
    if not keepdim or x.ndim == 0:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    if x.ndim == 0:
        vals, idx = vals.view(()), idx.view(())
    if out is not None:
        dev = x._storage.device
        vals = lu.prepare_out(out[0], vals._shape, vals._dtype, dev, name).copy_(vals)
        idx = lu.prepare_out(out[1], idx._shape, idx._dtype, dev, name).copy_(idx)
    return vals, idx


def _nanmedian(x, *, out=None):
    if x.numel() == 0:
        r = lu.empty((), x._dtype, x._storage.device).fill_(math.nan)
    else:
        r = _nanmedian_pick(x.reshape(-1), 0, False, None, "nanmedian")[0]
    return r if out is None else lu.prepare_out(out, (), r._dtype, r._storage.device, "nanmedian").copy_(r)


def _nanmedian_dim(x, dim, keepdim=False, *, out=None):
    if x.ndim and x._shape[dim] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {dim} to have non-zero size.")
    return _nanmedian_pick(x, dim if x.ndim else 0, keepdim, out, "nanmedian")


def _multinomial(input, num_samples, replacement=False, *, generator=None):
    """Inverse CDF (with replacement) or the exponential race (without), as the CPU kernel, on
    Philox draws; the CPU's validation of the weights would synchronize and is left out."""
    rows = input.reshape(-1, input._shape[-1])
    n, c = rows._shape
    dev = input._storage.device
    op = get_op
    p = op("to_dtype")(rows, dtypes.float64)
    if replacement:
        cdf = op("cumsum")(p, 1, None)
        cdf = op("div")(cdf, cdf.narrow(1, c - 1, 1))
        u = op("uniform_")(lu.empty((n, num_samples), dtypes.float64, dev), 0.0, 1.0, generator=generator)
        hits = _searchsorted(cdf, u, True)
        positive = op("gt")(p, 0)
        last = op("sub")(c - 1, op("argmax")(op("flip")(positive, (1,)), 1, True))
        out = op("minimum")(hits, last)
    else:
        e = op("exponential_")(lu.empty((n, c), dtypes.float64, dev), 1.0, generator=generator)
        keys = op("div")(e, p)
        out = _sorted_rows(keys, num_samples, 1, False, None, "multinomial")[1]
    return out.reshape(input._shape[:-1] + (num_samples,))


def _mode(x, dim=-1, keepdim=False, *, out=None):
    xx = x.view(1) if x.ndim == 0 else x
    d = dim if x.ndim else 0
    n = xx._shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    moved = xx.movedim(d, -1)
    sv, so = _sorted_rows(moved, n, moved.ndim - 1, False, None, "mode")
    sv, so = sv.contiguous(), so.contiguous()
    lead = moved._shape[:-1]
    nrows = sv.numel() // n
    dev = x._storage.device
    vals = lu.empty(lead, x._dtype, dev)
    idx = lu.empty(lead, dtypes.int64, dev)
    if nrows:
        blocks, threads = lu.grid(nrows)
        KS.mode()[blocks, threads, lu.stream()](nrows, n, lu.typed(sv), lu.typed(so), lu.typed(vals), lu.typed(idx))
    if keepdim and x.ndim:
        vals, idx = vals.unsqueeze(d), idx.unsqueeze(d)
    if x.ndim == 0:
        vals, idx = vals.view(()), idx.view(())
    if out is not None:
        vals = lu.prepare_out(out[0], vals._shape, vals._dtype, dev, "mode").copy_(vals)
        idx = lu.prepare_out(out[1], idx._shape, idx._dtype, dev, "mode").copy_(idx)
    return vals, idx


def _unique_consecutive(x, dim=None):
    """Runs of equal elements (slices along `dim`): a run starts where a row differs from the one
    before; the number of runs is data-dependent, so `nonzero` synchronizes once."""
    op = get_op
    a = x.reshape(-1) if dim is None else x.movedim(dim, 0)
    n = a._shape[0]
    rows = a.reshape(n, -1)
    dev = x._storage.device
    starts = lu.empty((n,), dtypes.bool, dev).fill_(True)
    if n > 1 and rows._shape[1]:
        op("any")(op("ne")(rows[1:], rows[:-1]), (1,), False, out=starts[1:])
    inv = op("sub")(op("cumsum")(starts, 0, dtypes.int64), 1)
    first = op("nonzero")(starts).reshape(-1)
    vals = op("index_select")(a, 0, first)
    end = lu.empty((1,), dtypes.int64, dev).fill_(n)
    counts = op("sub")(op("cat")([first[1:], end], 0), first)
    if dim is None:
        inv = inv.view(x._shape)
    else:
        vals = vals.movedim(0, dim).contiguous()
    return vals, inv, counts


def _unique(x, dim=None):
    if dim is not None:
        raise NotImplementedError("unique(dim=...) has no CUDA kernel (it sorts slices lexicographically); "
                                  "flattened unique (dim=None) runs on the device")
    flat = x.reshape(-1)
    n = flat._shape[0]
    sv, so = _sorted_rows(flat, n, 0, False, None, "unique")
    vals, inv_sorted, counts = _unique_consecutive(sv)
    inv = lu.empty((n,), dtypes.int64, x._storage.device)
    if n:
        get_op("scatter")(inv, 0, so, inv_sorted, out=inv)
    return vals, inv.view(x._shape), counts


def _check_long(op: str, index: Tensor) -> None:
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{op}(): Expected dtype int64 for index; got {describe(index)}")


def _take(input, index, *, out=None):
    _check_long("take", index)
    r = get_op("index")(input.reshape(-1), (index,))
    return r if out is None else lu.prepare_out(out, r._shape, r._dtype, r._storage.device, "take").copy_(r)


def _put(input, index, source, accumulate=False, *, out=None):
    t = input if out is input else get_op("clone")(input)
    dense = lu.is_dense(t, t._shape)
    flat = t.view(-1) if dense else get_op("clone")(t).view(-1)
    get_op("index_put_")(flat, (index.reshape(-1),), source.reshape(-1), accumulate)
    if not dense:
        t.copy_(flat.view(t._shape))
    if out is None or out is t:
        return t
    return lu.prepare_out(out, t._shape, t._dtype, t._storage.device, "put").copy_(t)


def _im2col_op(input, kernel_size, dilation, padding, stride):
    return _im2col(input, kernel_size[0], kernel_size[1], stride, padding, dilation)


def _col2im_op(input, output_size, kernel_size, dilation, padding, stride):
    x = input if lu.is_dense(input, input._shape) else get_op("clone")(input)
    (kh, kw), (h, w) = kernel_size, output_size
    n, ck = x._shape[:2]
    c = ck // (kh * kw)
    ho, wo = _out_hw(h, w, kh, kw, stride, padding, dilation)
    out = lu.empty((n, c, h, w), x._dtype, x._storage.device)
    total = out.numel()
    if total:
        geom = lu.meta(((c, h, w, kh, kw, ho, wo, *stride, *padding, *dilation),))[0]
        blocks, threads = lu.grid(total)
        KC.col2im(lu.compute_type(x._dtype))[blocks, threads, lu.stream()](
            total, geom, lu.typed(x)[x._offset:], lu.typed(out))
    return out


def _searchsorted(seq, values, right=False, sorter=None, out_int32=False):
    if sorter is not None:
        seq = get_op("gather")(seq, seq.ndim - 1, sorter)
    if not isinstance(values, Tensor):
        from ember.core.creation import tensor

        values = tensor(values, dtype=seq._dtype, device=seq._storage.device)
    bounds, v = seq.unsqueeze(-2) if seq.ndim > 1 else seq, values.unsqueeze(-1)
    below = get_op("le" if right else "lt")(bounds, v)
    if v._dtype.is_floating_point:  # a NaN value sorts after every number (and, right, after NaN bounds), as the CPU
        nan_v = get_op("isnan")(v)
        past = nan_v if right else get_op("logical_and")(nan_v, get_op("logical_not")(get_op("isnan")(bounds)))
        below = get_op("logical_or")(below, past)
    dt = dtypes.int32 if out_int32 else dtypes.int64
    return get_op("sum")(below, (below.ndim - 1,), False, dt)


def _bincount(x, weights=None, minlength=0):
    if x.ndim != 1 or x._dtype.is_floating_point or x._dtype is dtypes.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    n = x.numel()
    if n and int(get_op("amin")(x, (0,), False).item()) < 0:  # an index_add would skip them silently
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    size = max(int(get_op("amax")(x, (0,), False).item()) + 1 if n else 0, minlength)
    dev = x._storage.device
    if weights is None:
        counts = lu.empty((size,), dtypes.int64, dev).fill_(0)
        vals = lu.empty((n,), dtypes.int64, dev).fill_(1)
    else:
        if weights._shape != x._shape:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        dt = dtypes.float32 if weights._dtype is dtypes.float32 else dtypes.float64
        counts = lu.empty((size,), dt, dev).fill_(0)
        vals = weights if weights._dtype is dt else get_op("to_dtype")(weights, dt)
    idx = x if x._dtype in (dtypes.int64, dtypes.int32) else get_op("to_dtype")(x, dtypes.int64)  # uint8, int16 ...
    return get_op("index_add")(counts, 0, idx, vals, out=counts) if n else counts


def _histc(x, bins=100, min=0, max=0, *, out=None):
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"\"histogram_cpu\" not implemented for '{x._dtype.name}'")
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0")
    flat = x.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and flat.numel():
        finite = get_op("isfinite")(flat)
        lo = float(get_op("amin")(get_op("where")(finite, flat, math.inf), (0,), False).item())
        hi = float(get_op("amax")(get_op("where")(finite, flat, -math.inf), (0,), False).item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    op = get_op
    pos = op("floor")(op("mul")(op("sub")(op("to_dtype")(flat, dtypes.float64), lo), bins / (hi - lo)))
    pos = op("where")(op("eq")(flat, hi), bins - 1, pos)
    inside = op("logical_and")(op("logical_and")(op("ge")(flat, lo), op("le")(flat, hi)), op("isfinite")(flat))
    idx = op("to_dtype")(op("clamp")(pos, 0, bins - 1), dtypes.int64)
    counts = lu.empty((bins,), dtypes.float64, x._storage.device).fill_(0)
    op("index_add")(counts, 0, idx, op("to_dtype")(inside, dtypes.float64), out=counts)
    r = op("to_dtype")(counts, x._dtype)
    return r if out is None else lu.prepare_out(out, r._shape, r._dtype, r._storage.device, "histc").copy_(r)


def register() -> None:
    for name, fn in (("kthvalue", _kthvalue), ("median", _median), ("median_dim", _median_dim), ("take", _take),
                     ("put", _put), ("im2col", _im2col_op), ("col2im", _col2im_op), ("searchsorted", _searchsorted),
                     ("bincount", _bincount), ("histc", _histc), ("nanmedian", _nanmedian),
                     ("nanmedian_dim", _nanmedian_dim), ("multinomial", _multinomial), ("mode", _mode),
                     ("unique", _unique), ("unique_consecutive", _unique_consecutive)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    """The mode scan; everything else here runs on the sort, index and convolution kernels."""
    from numba import types as T

    i = T.int64
    for label, arr in (("float32", T.float32[::1]), ("int64", T.int64[::1]), ("bool", T.boolean[::1])):
        yield (f"mode[{label}]", KS.mode_function(), (i, i, arr, T.int64[::1], arr, T.int64[::1]))
