"""CUDA kernels of cat, flip, tril/triu, diag_embed and the scans (cumsum, cumprod, logcumsumexp,
cummax, cummin): copies on the elementwise template (flip reads through negative strides) and
row scans."""

from __future__ import annotations

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import elementwise as K
from ember.core.cuda.kernels import scan as KS
from ember.core.cuda.launch_elementwise import copy_into, launch
from ember.core.dispatch import get_op
from ember.core.ops import memfmt
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
    perm = memfmt.cat_order(tensors) if ref.ndim in (4, 5) else None
    if perm is None or out is not None:  # a resized `out` takes the layout of a new result
        res = lu.prepare_out(out, tuple(shape), dt, ref._storage.device, "cat",
                             lambda s: memfmt.strides_in(s, perm))
    else:  # every input channels_last: so is the result, as the CPU's
        res = memfmt.restride(lu.empty(memfmt.permuted_shape(shape, perm), dt, ref._storage.device), perm)
    start = 0
    for t in tensors:
        n = t._shape[dim]
        if n:
            copy_into(res.narrow(dim, start, n), t)
        start += n
    return res


def _flip(input, dims):
    perm = memfmt.dim_order(input, None)  # laid out as `input` (a channels_last or transposed one), as the CPU's
    if perm is None:
        res = lu.empty(input._shape, input._dtype, input._storage.device)
    else:
        res = memfmt.restride(lu.empty(memfmt.permuted_shape(input._shape, perm), input._dtype,
                                       input._storage.device), perm, like=input)
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


def _rows_plan(x: Tensor, res: tuple[Tensor, ...], dim: int):
    """(nrows, km, rm) of a row scan along `dim` of `x` writing `res` (tensors of x's shape)."""
    kept = tuple(d for d in range(x.ndim) if d != dim)
    shape = tuple(x._shape[d] for d in kept)
    nrows = 1
    for s in shape:
        nrows *= s
    rows = [shape, tuple(res[0]._strides[d] for d in kept), tuple(x._strides[d] for d in kept)]
    rows += [tuple(r._strides[d] for d in kept) for r in res[1:]]
    km = lu.meta(tuple(rows))
    rm = lu.meta(((x._strides[dim], *(r._strides[dim] for r in res)),))
    return nrows, km, rm


def _make_scan(name: str, mode: int):
    def kernel(x, dim, dtype=None, *, out=None):
        if mode == KS.LOGSUMEXP:
            if not x._dtype.is_floating_point:
                raise NotImplementedError("\"logcumsumexp_out_cpu\" not implemented for "
                                   f"'{dtypes.TORCH_NAMES[x._dtype.name]}'")
            dt = x._dtype
        else:
            dt = R._int_to_long(x, dtype)
        res = lu.prepare_out(out, x._shape, dt, x._storage.device, name)
        xx, rr = (x.view(1), res.view(1)) if x.ndim == 0 else (x, res)
        nrows, km, rm = _rows_plan(xx, (rr,), dim)
        if nrows == 0 or xx._shape[dim] == 0:
            return res
        blocks, threads = lu.grid(nrows)
        KS.scan(mode, lu.compute_type(dt))[blocks, threads, lu.stream()](
            nrows, xx._shape[dim], km, rm, lu.typed(rr), rr._offset, lu.typed(xx), xx._offset)
        return res
    return kernel


def _make_extreme_scan(name: str, is_max: bool):
    def kernel(x, dim, *, out=None):
        dev = x._storage.device
        vals = lu.prepare_out(out[0] if out is not None else None, x._shape, x._dtype, dev, name)
        idx = lu.prepare_out(out[1] if out is not None else None, x._shape, dtypes.int64, dev, name)
        xx, vv, ii = (x.view(1), vals.view(1), idx.view(1)) if x.ndim == 0 else (x, vals, idx)
        nrows, km, rm = _rows_plan(xx, (vv, ii), dim)
        if nrows and xx._shape[dim]:
            blocks, threads = lu.grid(nrows)
            KS.extreme_scan(is_max, lu.compute_type(x._dtype))[blocks, threads, lu.stream()](
                nrows, xx._shape[dim], km, rm, lu.typed(vv), vv._offset, lu.typed(ii), ii._offset, lu.typed(xx),
                xx._offset)
        return vals, idx
    return kernel


def _diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input._shape[-1]
    m = n + abs(offset)
    nd = input.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    rest = [s for s in input._shape[:-1]]
    shape = [0] * nd
    it = iter(rest)
    for d in range(nd):
        shape[d] = m if d in (d1, d2) else next(it)
    out = lu.empty(tuple(shape), input._dtype, input._storage.device).fill_(0)
    diag = out.diagonal(offset, d1, d2)
    copy_into(diag, input)
    return out


def register() -> None:
    for name, fn in (("cat", _cat), ("flip", _flip), ("tril", _make_tri("tril", True)),
                     ("triu", _make_tri("triu", False)), ("cumsum", _make_scan("cumsum", KS.SUM)),
                     ("cumprod", _make_scan("cumprod", KS.PROD)),
                     ("logcumsumexp", _make_scan("logcumsumexp", KS.LOGSUMEXP)),
                     ("cummax", _make_extreme_scan("cummax", True)), ("cummin", _make_extreme_scan("cummin", False)),
                     ("diag_embed", _diag_embed)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    m, i = T.int64[:, ::1], T.int64
    for mode, name in ((KS.SUM, "cumsum"), (KS.PROD, "cumprod"), (KS.LOGSUMEXP, "logcumsumexp")):
        for label, xa, oa, acc in (("float32", T.float32[::1], T.float32[::1], T.float32),
                                   ("int32->int64", T.int32[::1], T.int64[::1], T.int64)):
            if mode == KS.LOGSUMEXP and acc is T.int64:
                continue
            yield (f"{name}[{label}]", KS.scan_function(mode, acc), (i, i, m, m, oa, i, xa, i))
    for is_max in (True, False):
        for label, arr, acc in (("float32", T.float32[::1], T.float32), ("int64", T.int64[::1], T.int64)):
            yield (f"{'cummax' if is_max else 'cummin'}[{label}]", KS.extreme_scan_function(is_max, acc),
                   (i, i, m, m, arr, i, T.int64[::1], i, arr, i))
