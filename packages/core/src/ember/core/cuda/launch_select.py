"""CUDA kernels of selections built on the bitonic sort and the index kernels: kthvalue, median
(all elements, and along a dim, NaN winning with its first index as on the CPU), take and put,
and the im2col/col2im ops (F.unfold / F.fold) on the convolution kernels."""

from __future__ import annotations

import math

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import conv as KC
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
    n = x._shape[dim] if x.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {dim}")
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


def _check_long(op: str, index: Tensor) -> None:
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{op}(): Expected dtype int64 for index; got {describe(index)}")


def _take(input, index, *, out=None):
    _check_long("take", index)
    r = get_op("index")(input.reshape(-1), (index,))
    return r if out is None else lu.prepare_out(out, r._shape, r._dtype, r._storage.device, "take").copy_(r)


def _put(input, index, source, accumulate=False, *, out=None):
    _check_long("put", index)
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements; got "
                           f"{describe(source)} and {describe(index)}")
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


def register() -> None:
    for name, fn in (("kthvalue", _kthvalue), ("median", _median), ("median_dim", _median_dim), ("take", _take),
                     ("put", _put), ("im2col", _im2col_op), ("col2im", _col2im_op)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    """No kernels of its own: the sort, index and convolution launchers' kernels run these ops."""
    return iter(())
