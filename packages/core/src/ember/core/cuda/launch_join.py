"""CUDA kernels of cat, flip, tril/triu and cumsum/cumprod: copies on the elementwise template
(flip reads through negative strides) and a row scan."""

from __future__ import annotations

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import elementwise as K
from ember.core.cuda.kernels import scan as KS
from ember.core.cuda.launch_elementwise import copy_into, launch
from ember.core.dispatch import get_op
from ember.core.ops import reduce as R
from ember.core.tensor import Tensor

__all__ = ["register"]


def _cat(tensors, dim, *, out=None):
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        dt = dtypes.promote_types(dt, t._dtype)
    ref = tensors[0]
    shape = list(ref._shape)
    shape[dim] = sum(t._shape[dim] for t in tensors)
    res = lu.prepare_out(out, tuple(shape), dt, ref._storage.device, "cat")
    start = 0
    for t in tensors:
        n = t._shape[dim]
        if n:
            copy_into(res.narrow(dim, start, n), t)
        start += n
    return res


def _flip(input, dims):
    res = lu.empty(input._shape, input._dtype, input._storage.device)
    offset = input._offset
    strides = list(input._strides)
    for d in dims:
        if input._shape[d]:
            offset += (input._shape[d] - 1) * strides[d]
        strides[d] = -strides[d]
    # a private operand with negative strides: the kernel's offset arithmetic reads it backwards
    reversed_view = Tensor._make(input._storage, offset, input._shape, tuple(strides), input._dtype)
    return launch(K.OTHER["identity"], (reversed_view,), res, (None,))


def _make_tri(name: str, lower: bool):
    def kernel(input, diagonal=0, *, out=None):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        from ember.core.creation import arange

        m, n = input._shape[-2:]
        dev = input._storage.device
        rows = arange(m, device=dev).view(m, 1)
        cols = arange(n, device=dev).view(1, n)
        diff = get_op("sub")(cols, rows)
        keep = get_op("le")(diff, diagonal) if lower else get_op("ge")(diff, diagonal)
        res = input if out is input else lu.prepare_out(out, input._shape, input._dtype, dev, name)
        ct = lu.compute_type(input._dtype)
        return launch(K.OTHER["where"], (keep, input, 0), res, (None, ct, ct))
    return kernel


def _make_scan(name: str, multiply: bool):
    def kernel(x, dim, dtype=None, *, out=None):
        dt = R._int_to_long(x, dtype)
        res = lu.prepare_out(out, x._shape, dt, x._storage.device, name)
        xx, rr = (x.view(1), res.view(1)) if x.ndim == 0 else (x, res)
        kept = tuple(d for d in range(xx.ndim) if d != dim)
        shape = tuple(xx._shape[d] for d in kept)
        nrows = 1
        for s in shape:
            nrows *= s
        if nrows == 0 or xx._shape[dim] == 0:
            return res
        km = lu.meta((shape, tuple(rr._strides[d] for d in kept), tuple(xx._strides[d] for d in kept)))
        rm = lu.meta(((xx._strides[dim], rr._strides[dim]),))
        blocks, threads = lu.grid(nrows)
        KS.scan(multiply, lu.compute_type(dt))[blocks, threads, lu.stream()](
            nrows, xx._shape[dim], km, rm, lu.typed(rr), rr._offset, lu.typed(xx), xx._offset)
        return res
    return kernel


def register() -> None:
    for name, fn in (("cat", _cat), ("flip", _flip), ("tril", _make_tri("tril", True)),
                     ("triu", _make_tri("triu", False)), ("cumsum", _make_scan("cumsum", False)),
                     ("cumprod", _make_scan("cumprod", True))):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    m, i = T.int64[:, ::1], T.int64
    for mult in (False, True):
        for label, xa, oa, acc in (("float32", T.float32[::1], T.float32[::1], T.float32),
                                   ("int32->int64", T.int32[::1], T.int64[::1], T.int64)):
            yield (f"{'cumprod' if mult else 'cumsum'}[{label}]", KS.scan_function(mult, acc),
                   (i, i, m, m, oa, i, xa, i))
