"""CUDA kernels of gather, scatter, scatter_add, scatter_reduce, index_select, index_add,
index_copy, index_fill, masked_fill, embedding and embedding_bag (+ backward): one dim-indexed kernel
(atomics where it accumulates) and the elementwise template. Shapes, ranks and dtypes were checked by the op's
meta step (NOTE [ The meta step ]), which also reads device index values to the host and raises for
one out of range (as the CPU does), so the kernels see valid indices only."""

from __future__ import annotations

import math

import numpy as np
from numba import types as nbt

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import elementwise as K
from ember.core.cuda.kernels import bag as KB
from ember.core.cuda.kernels import indexing as KI
from ember.core.cuda.launch_elementwise import launch
from ember.core.dispatch import get_op
from ember.core.ops import indexing as I
from ember.core.settings import preserve_format
from ember.core.tensor import Tensor, describe

__all__ = ["register", "dim_indexed"]

_ATOMIC = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _value_type(dt: dtypes.dtype):
    if dt is dtypes.bool:
        return nbt.boolean
    if not hasattr(nbt, dt.name):
        raise NotImplementedError(f"indexing a {dt.name} tensor has no CUDA kernel")
    return getattr(nbt, dt.name)


def dim_indexed(dst: Tensor, src, idx: Tensor, shape, dst_strides, src_strides, idx_strides, size: int,
                dst_ks: int, src_ks: int, *, accumulate: bool = False, alpha=1, wrap: bool = False,
                zero_missing: bool = False, mode: int | None = None) -> Tensor:
    """Run the dim-indexed kernel over `shape` (see `kernels.indexing` for the layout); `accumulate`
    means `mode=ADD`."""
    n = _numel(shape)
    if n == 0:
        return dst
    mode = (KI.ADD if accumulate else KI.SET) if mode is None else mode
    if mode != KI.SET and dst._dtype not in _ATOMIC:
        raise NotImplementedError(f"accumulating into {describe(dst)} has no CUDA kernel (atomics exist for "
                                  "float32, float64, int32 and int64)")
    use_scalar = not isinstance(src, Tensor)
    m = lu.meta((tuple(shape), tuple(dst_strides), tuple(src_strides) if not use_scalar else (0,) * len(shape),
                 tuple(idx_strides)))
    s_arr, s_off = (lu.typed(dst), 0) if use_scalar else (lu.typed(src), src._offset)
    scalar = src if use_scalar else 0
    blocks, threads = lu.grid(n)
    KI.dim_index(mode, _value_type(dst._dtype))[blocks, threads, lu.stream()](
        n, m, size, wrap, lu.typed(dst), dst._offset, dst_ks, s_arr, s_off, src_ks, scalar, use_scalar, alpha,
        lu.typed(idx), idx._offset, zero_missing)
    return dst


def _scalar_or_device(value):
    """A fill value as a Python scalar, or a CUDA 0-dim tensor read on the device (no sync)."""
    if isinstance(value, Tensor):
        return value if value._storage.device.type == "cuda" else value._np().item()
    return value


def _zero_at(strides, d: int) -> tuple[int, ...]:
    return tuple(0 if i == d else s for i, s in enumerate(strides))


def _only_at(stride: int, ndim: int, d: int) -> tuple[int, ...]:
    return tuple(stride if i == d else 0 for i in range(ndim))


def _as_1d(x: Tensor) -> Tensor:
    return x.view(1) if x.ndim == 0 else x


def _target(input: Tensor, out, preserve: bool = False) -> Tensor:
    """`input` itself in place, else a row-major copy or, with `preserve`, one laid out as `input` (the CPU's)."""
    if out is input:
        return input
    return get_op("clone")(input, memory_format=preserve_format) if preserve else get_op("clone")(input)


def _finish(t: Tensor, out, op: str) -> Tensor:
    if out is None or out is t:
        return t
    return lu.prepare_out(out, t._shape, t._dtype, t._storage.device, op).copy_(t)


def _gather(input, dim, index, *, sparse_grad=False, out=None):
    d = I._wrap_dim(input, dim)  # the meta step (I._meta_gather) checked every shape
    res = lu.prepare_out(out, index._shape, input._dtype, input._storage.device, "gather")
    x, idx, r = _as_1d(input), _as_1d(index), _as_1d(res)
    dim_indexed(r, x, idx, idx._shape, r._strides, _zero_at(x._strides, d), idx._strides, x._shape[d], 0,
                x._strides[d], zero_missing=True)
    return res


def _scatter_any(op: str, input, dim, index, src, accumulate: bool, out):
    d = I._wrap_dim(input, dim)  # the meta step (I._meta_scatter_any) checked every shape
    t = _target(input, out)
    tt, idx = _as_1d(t), _as_1d(index)
    s = _as_1d(src) if isinstance(src, Tensor) else src
    s_strides = (s._strides if s.ndim == idx.ndim else (0,) * idx.ndim) if isinstance(s, Tensor) else ()
    dim_indexed(tt, s, idx, idx._shape, _zero_at(tt._strides, d), s_strides, idx._strides, tt._shape[d],
                tt._strides[d], 0, accumulate=accumulate)
    return _finish(t, out, op)


def _scatter(input, dim, index, src, reduce=None, *, out=None):  # `reduce` checked by the op's meta step
    if reduce == "multiply":
        raise NotImplementedError("scatter(reduce='multiply') has no CUDA kernel (there is no atomic multiply)")
    return _scatter_any("scatter", input, dim, index, src, reduce == "add", out)


def _scatter_add(input, dim, index, src, *, out=None):
    return _scatter_any("scatter_add", input, dim, index, src, True, out)


def _extreme(dt: dtypes.dtype, largest: bool):
    if dt is dtypes.bool:
        return not largest
    if dt.is_floating_point:
        return -math.inf if largest else math.inf
    info = np.iinfo(dt.np)
    return int(info.min if largest else info.max)


def _scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    modes = {"sum": KI.ADD, "mean": KI.ADD, "amax": KI.MAX, "amin": KI.MIN}
    reduce = I.REDUCE_ALIASES.get(reduce, reduce)
    if reduce == "prod":  # the other modes were checked by the op's meta step
        raise NotImplementedError("scatter_reduce(reduce='prod') has no CUDA kernel (there is no atomic multiply)")
    d = I._wrap_dim(input, dim)
    t = _target(input, out)
    tt, idx, s = _as_1d(t), _as_1d(index), _as_1d(src)
    plan = (idx._shape, _zero_at(tt._strides, d), s._strides if s.ndim == idx.ndim else (0,) * idx.ndim,
            idx._strides, tt._shape[d], tt._strides[d], 0)
    if not include_self:
        start = 0 if reduce in ("sum", "mean") else _extreme(t._dtype, reduce == "amax")
        dim_indexed(tt, start, idx, plan[0], plan[1], (), plan[3], plan[4], plan[5], 0)
    dim_indexed(tt, s, idx, *plan, mode=modes[reduce])
    if reduce == "mean":
        counts = lu.empty(tt._shape, dtypes.int64, tt._storage.device).fill_(0)
        dim_indexed(counts, 1, idx, plan[0], _zero_at(counts._strides, d), (), plan[3], plan[4], counts._strides[d],
                    0, accumulate=True)
        denom = get_op("add")(counts, int(include_self))
        q = get_op("div" if t._dtype.is_floating_point else "floor_divide")(tt, get_op("clamp")(denom, 1, None))
        get_op("where")(get_op("gt")(counts, 0), q, tt, out=tt)
    return _finish(t, out, "scatter_reduce")


def _check_vector(op: str, input: Tensor, dim, index: Tensor) -> int:
    """The wrapped dim; the meta step checked that `index` is an integer vector."""
    return I._wrap_dim(input, dim)


def _index_select(input, dim, index, *, out=None):
    d = _check_vector("index_select", input, dim, index)
    x, idx = _as_1d(input), _as_1d(index)
    shape = x._shape[:d] + (idx._shape[0],) + x._shape[d + 1:]
    res = lu.prepare_out(out, shape if input.ndim else (), input._dtype, input._storage.device, "index_select")
    r = _as_1d(res) if input.ndim else res.view(1)
    dim_indexed(r, x, idx, shape, r._strides, _zero_at(x._strides, d), _only_at(idx._strides[0], x.ndim, d),
                x._shape[d], 0, x._strides[d], zero_missing=True)
    return res


def _index_source(op: str, input, dim, index, source, accumulate: bool, alpha, out):
    d = _check_vector(op, input, dim, index)
    t = _target(input, out)
    tt, idx, s = _as_1d(t), _as_1d(index), _as_1d(source)
    want = tt._shape[:d] + (idx._shape[0],) + tt._shape[d + 1:]
    if s._shape != want:  # a 0-dim self or source: the meta step matched the element counts
        s = s.reshape(want)
    dim_indexed(tt, s, idx, want, _zero_at(tt._strides, d), s._strides, _only_at(idx._strides[0], tt.ndim, d),
                tt._shape[d], tt._strides[d], 0, accumulate=accumulate, alpha=alpha)
    return _finish(t, out, op)


def _index_add(input, dim, index, source, *, alpha=1, out=None):
    return _index_source("index_add", input, dim, index, source, True, alpha, out)


def _index_copy(input, dim, index, source, *, out=None):
    return _index_source("index_copy", input, dim, index, source, False, 1, out)


def _index_fill(input, dim, index, value, *, out=None):
    d = _check_vector("index_fill", input, dim, index)
    t = _target(input, out, preserve=True)
    tt, idx = _as_1d(t), _as_1d(index)
    shape = tt._shape[:d] + (idx._shape[0],) + tt._shape[d + 1:]
    v = _scalar_or_device(value)
    v_strides = (0,) * tt.ndim if isinstance(v, Tensor) else ()
    dim_indexed(tt, v.view(1) if isinstance(v, Tensor) else v, idx, shape, _zero_at(tt._strides, d), v_strides,
                _only_at(idx._strides[0], tt.ndim, d), tt._shape[d], tt._strides[d], 0, wrap=True)
    return _finish(t, out, "index_fill")


def _masked_fill(input, mask, value, *, out=None):
    shape = tuple(np.broadcast_shapes(mask._shape, input._shape))  # the meta step checked it, and in place
    res = input if out is input else lu.prepare_out(out, shape, input._dtype, input._storage.device, "masked_fill")
    ct = lu.compute_type(input._dtype)
    return launch(K.OTHER["where"], (mask, value, input), res, (None, ct, ct))


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    idx = indices.reshape(-1)
    n, dim = idx._shape[0], weight._shape[1]
    out = lu.empty((n, dim), weight._dtype, weight._storage.device)
    dim_indexed(out, weight, idx, (n, dim), out._strides, (0, weight._strides[1]), (idx._strides[0], 0),
                weight._shape[0], 0, weight._strides[0], zero_missing=True)
    return out.view(indices._shape + (dim,))


def _embedding_backward(grad, indices, num_weights, padding_idx=-1, scale_grad_by_freq=False):
    idx = indices.reshape(-1)
    n = idx._shape[0]
    g = grad.reshape(n, grad._shape[-1])  # D given: no indices leave -1 undefined
    dev = grad._storage.device
    out = lu.empty((num_weights, g._shape[1]), grad._dtype, dev).fill_(0)
    dim_indexed(out, g, idx, g._shape, (0, out._strides[1]), g._strides, (idx._strides[0], 0), num_weights,
                out._strides[0], 0, accumulate=True)
    if scale_grad_by_freq:
        counts = lu.empty((num_weights,), grad._dtype, dev).fill_(0)
        dim_indexed(counts, 1, idx, (n,), (0,), (), idx._strides, num_weights, counts._strides[0], 0,
                    accumulate=True)
        out = get_op("div")(out, get_op("clamp")(counts, 1, None).unsqueeze(1), out=out)
    if 0 <= padding_idx < num_weights:
        out[padding_idx].fill_(0)
    return out


_BAG_MODES = {"sum": KB.SUM, "mean": KB.MEAN, "max": KB.MAX}


def _bag_args(indices: Tensor, offsets: Tensor, include_last_offset: bool, per_sample_weights, like: Tensor):
    idx = indices.reshape(-1).contiguous()
    off = offsets.reshape(-1).contiguous()
    nbags = off._shape[0] - 1 if include_last_offset else off._shape[0]
    psw = per_sample_weights.contiguous() if per_sample_weights is not None else None
    return (max(nbags, 0), off._shape[0], idx._shape[0], lu.typed(idx)[idx._offset:], lu.typed(off)[off._offset:],
            lu.typed(psw)[psw._offset:] if psw is not None else lu.typed(like)[:1], psw is not None)


def _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                   scale_grad_by_freq=False):
    w = weight.contiguous()
    v, d = w._shape
    nbags, nb_off, m, idx, off, psw, has_psw = _bag_args(indices, offsets, include_last_offset, per_sample_weights, w)
    dev = w._storage.device
    out = lu.empty((nbags, d), w._dtype, dev)
    argmax = lu.empty((nbags, d), dtypes.int64, dev)
    count = lu.empty((nbags,), dtypes.int64, dev)
    if nbags * d:
        blocks, threads = lu.grid(nbags * d)
        KB.bag(lu.compute_type(w._dtype))[blocks, threads, lu.stream()](
            nbags, d, nb_off, m, v, lu.typed(w)[w._offset:], idx, off, psw, has_psw, lu.typed(out), lu.typed(argmax),
            lu.typed(count), _BAG_MODES[mode], int(padding_idx))
    elif nbags:
        count.fill_(0)
    return out, count, argmax


def _embedding_bag_backward(grad, indices, offsets, bag_size, max_indices, num_weights, mode, per_sample_weights,
                            include_last_offset, padding_idx):
    g = grad.contiguous()
    d = g._shape[1]
    nbags, nb_off, m, idx, off, psw, has_psw = _bag_args(indices, offsets, include_last_offset, per_sample_weights, g)
    acc_dt = g._dtype if g._dtype in (dtypes.float32, dtypes.float64) else dtypes.float32
    out = lu.empty((num_weights, d), acc_dt, g._storage.device).fill_(0)
    if nbags * d:
        am, cnt = max_indices.contiguous(), bag_size.contiguous()
        blocks, threads = lu.grid(nbags * d)
        KB.bag_backward(lu.compute_type(acc_dt))[blocks, threads, lu.stream()](
            nbags, d, nb_off, m, num_weights, lu.typed(g)[g._offset:], idx, off, psw, has_psw,
            lu.typed(am)[am._offset:], lu.typed(cnt)[cnt._offset:], lu.typed(out), _BAG_MODES[mode], int(padding_idx))
    return out if acc_dt is g._dtype else get_op("to_dtype")(out, g._dtype)


def register() -> None:
    for name, fn in (("gather", _gather), ("scatter", _scatter), ("scatter_add", _scatter_add),
                     ("scatter_reduce", _scatter_reduce),
                     ("index_select", _index_select), ("index_add", _index_add), ("index_copy", _index_copy),
                     ("index_fill", _index_fill), ("masked_fill", _masked_fill), ("embedding", _embedding),
                     ("embedding_backward", _embedding_backward), ("embedding_bag", _embedding_bag),
                     ("embedding_bag_backward", _embedding_bag_backward)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    m, i, b = T.int64[:, ::1], T.int64, T.boolean
    for mode, mname in ((KI.SET, ""), (KI.ADD, ", add"), (KI.MAX, ", max"), (KI.MIN, ", min")):
        for label, arr, vt in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                               ("int64", T.int64[::1], T.int64), ("int32", T.int32[::1], T.int32)):
            yield (f"dim_index[{label}{mname}]", KI.dim_index_function(mode, vt),
                   (i, m, i, b, arr, i, i, arr, i, i, T.float64, b, i, T.int64[::1], i, b))
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64)):
        yield (f"embedding_bag[{label}]", KB.bag_function(acc),
               (i, i, i, i, i, arr, T.int64[::1], T.int64[::1], arr, b, arr, T.int64[::1], T.int64[::1], i, i))
        yield (f"embedding_bag_backward[{label}]", KB.bag_backward_function(acc),
               (i, i, i, i, i, arr, T.int64[::1], T.int64[::1], arr, b, T.int64[::1], T.int64[::1], arr, i, i))
    for label, arr, vt in (("float16", T.float16[::1], T.float16), ("bool", T.boolean[::1], T.boolean)):
        yield (f"dim_index[{label}]", KI.dim_index_function(KI.SET, vt),
               (i, m, i, b, arr, i, i, arr, i, i, T.int64, b, i, T.int32[::1], i, b))
