"""CUDA kernels of `index` and `index_put_` (the primitives of `x[idx]` and `x[idx] = v`) with up to
three index tensors, plus nonzero and masked_select, whose result size depends on the data and
so synchronizes once (as PyTorch's do)."""

from __future__ import annotations

import numpy as np

from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import advindex as KA
from ember.core.cuda.launch_indexing import _ATOMIC, _value_type
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor, describe

__all__ = ["register"]

_MAX_INDICES = 3


def _bstrides(t: Tensor, shape) -> tuple[int, ...]:
    lead = len(shape) - t.ndim
    return (0,) * lead + tuple(0 if n == 1 else s for n, s in zip(t._shape, t._strides, strict=True))


def _plan(x: Tensor, indices):
    """(result shape, x strides per result dim, per-index strides per result dim, index dims); the
    op's meta step (`_index_result_shape`) checked the indices' number, dtypes and shapes."""
    entries = list(indices) + [None] * (x.ndim - len(indices))
    adv = [d for d, t in enumerate(entries) if t is not None]
    if len(adv) > _MAX_INDICES:
        raise NotImplementedError(f"index: CUDA indexing takes at most {_MAX_INDICES} index tensors; got {len(adv)}")
    b = tuple(np.broadcast_shapes(*(entries[d]._shape for d in adv)))
    rest = [d for d in range(x.ndim) if entries[d] is None]
    first = adv[0] if adv == list(range(adv[0], adv[-1] + 1)) else 0
    before = [d for d in rest if d < first]
    after = [d for d in rest if d not in before]
    shape = tuple(x._shape[d] for d in before) + b + tuple(x._shape[d] for d in after)
    nb = len(before)
    xs = tuple(x._strides[d] for d in before) + (0,) * len(b) + tuple(x._strides[d] for d in after)
    ks = []
    for d in adv:
        s = _bstrides(entries[d], b)
        ks.append((0,) * nb + s + (0,) * len(after))
    return shape, xs, ks, [entries[d] for d in adv], adv


def _launch(x: Tensor, a: Tensor, a_strides, plan, put: bool, accumulate: bool) -> None:
    shape, xs, ks, idx, adv = plan
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return
    zeros = (0,) * len(shape)
    rows = (shape, tuple(a_strides), xs, *ks, *([zeros] * (_MAX_INDICES - len(ks))))
    kinfo = [(x._strides[d], x._shape[d], t._offset) for d, t in zip(adv, idx, strict=True)]
    kinfo += [(0, 1, 0)] * (_MAX_INDICES - len(kinfo))
    arrays = [lu.typed(t) for t in idx]
    arrays += [arrays[0]] * (_MAX_INDICES - len(arrays))
    blocks, threads = lu.grid(n)
    KA.adv_index(put, accumulate, _value_type(x._dtype))[blocks, threads, lu.stream()](
        n, lu.meta(tuple(tuple(r) for r in rows)), lu.meta(tuple(kinfo)), len(idx), lu.typed(a), a._offset,
        lu.typed(x), x._offset, *arrays)


def _index(x, indices):
    plan = _plan(x, indices)
    out = lu.empty(plan[0], x._dtype, x._storage.device)
    _launch(x, out, out._strides, plan, False, False)
    return out


def _index_put(x, indices, values, accumulate=False):
    plan = _plan(x, indices)  # the meta step (I._meta_index_put) checked the values' shape
    if accumulate and x._dtype not in _ATOMIC:
        raise NotImplementedError(f"index_put_(accumulate=True) into {describe(x)} has no CUDA kernel")
    v = values if values._dtype is x._dtype else get_op("to_dtype")(values, x._dtype)
    _launch(x, v, _bstrides(v, plan[0]), plan, True, accumulate)
    return x


def _nonzero(x, *, out=None):
    from ember.core.creation import from_numpy

    r = from_numpy(np.argwhere(x._host_array()).astype(np.int64)).to(x._storage.device)
    return r if out is None else lu.prepare_out(out, r._shape, r._dtype, r._storage.device, "nonzero").copy_(r)


def _masked_select(input, mask, *, out=None):
    shape = tuple(np.broadcast_shapes(input._shape, mask._shape))
    if not shape:  # 0-dim: as the 1-element vector
        input, mask, shape = input.view(1), mask.view(1), (1,)
    idx = _nonzero(mask.expand(shape))
    r = _index(input.expand(shape), tuple(idx.unbind(1))) if idx._shape[0] else lu.empty((0,), input._dtype,
                                                                                           input._storage.device)
    return r if out is None else lu.prepare_out(out, r._shape, r._dtype, r._storage.device, "masked_select").copy_(r)


def register() -> None:
    for name, fn in (("index", _index), ("index_put_", _index_put), ("nonzero", _nonzero),
                     ("masked_select", _masked_select)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    m, i = T.int64[:, ::1], T.int64
    for put, acc in ((False, False), (True, False), (True, True)):
        for label, arr, vt in (("float32", T.float32[::1], T.float32), ("int64", T.int64[::1], T.int64)):
            yield (f"adv_index[{label}{', put' if put else ''}{', add' if acc else ''}]",
                   KA.adv_index_function(put, acc, vt), (i, m, m, i, arr, i, arr, i, T.int64[::1], T.int64[::1],
                                                         T.int32[::1]))
