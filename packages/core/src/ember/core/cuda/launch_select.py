"""CUDA kernels of selections built on the bitonic sort and the index kernels: mode (a scan over
each sorted row), multinomial (inverse CDF or the exponential race over Philox draws), and the
im2col/col2im ops (F.unfold / F.fold) on the convolution kernels. kthvalue, median, nanmedian,
unique, searchsorted, bincount and histc run everywhere on one composite
(`ember.core.ops.sorting_composite`), take and put on `ember.core.ops.composite_kernels`."""

from __future__ import annotations


from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import conv as KC
from ember.core.cuda.kernels import scan as KS
from ember.core.cuda.launch_conv import _im2col, _out_hw
from ember.core.cuda.launch_sort import _sorted_rows
from ember.core.dispatch import get_op

__all__ = ["register"]


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
        hits = op("searchsorted")(cdf, u, True)
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
    for name, fn in (("im2col", _im2col_op), ("col2im", _col2im_op), ("multinomial", _multinomial),
                     ("mode", _mode)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    """The mode scan; everything else here runs on the sort, index and convolution kernels."""
    from numba import types as T

    i = T.int64
    for label, arr in (("float32", T.float32[::1]), ("int64", T.int64[::1]), ("bool", T.boolean[::1])):
        yield (f"mode[{label}]", KS.mode_function(), (i, i, arr, T.int64[::1], arr, T.int64[::1]))
