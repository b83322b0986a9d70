"""CUDA kernels of sort and topk: the bitonic sort of `kernels.sort`, in shared memory for rows of
up to `MAX_SORT` elements and stage by stage in global memory for longer ones."""

from __future__ import annotations

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import sort as KS
from ember.core.dispatch import get_op
from ember.core.ops import memfmt
from ember.core.tensor import Tensor

__all__ = ["register", "MAX_SORT"]

MAX_SORT = 64 if lu.SIMULATOR else 2048
_T = lu.REDUCE_THREADS


def _sorted_rows(x: Tensor, k: int, dim: int, descending: bool, out, name: str):
    xx = x.view(1) if x.ndim == 0 else x
    n = xx._shape[dim]
    shape = xx._shape[:dim] + (k,) + xx._shape[dim + 1:]
    dev = x._storage.device
    perm = memfmt.dim_order(x, None) if name == "sort" and out is None else None
    if perm is not None:  # sort's values and indices are laid out as `x` (channels_last, transposed), as the CPU's
        vals, idx = (memfmt.restride(lu.empty(memfmt.permuted_shape(shape, perm), dt, dev), perm, like=x)
                     for dt in (x._dtype, dtypes.int64))
    else:  # a resized `out` of sort takes `x`'s layout too
        layout = (lambda s: memfmt.preserved_strides(x)) if name == "sort" else None
        vals = lu.prepare_out(out[0] if out is not None else None, shape, x._dtype, dev, name, layout)
        idx = lu.prepare_out(out[1] if out is not None else None, shape, dtypes.int64, dev, name, layout)
    kept = tuple(d for d in range(xx.ndim) if d != dim)
    rshape = tuple(xx._shape[d] for d in kept)
    nrows = 1
    for s in rshape:
        nrows *= s
    if nrows and k:
        size = 1
        while size < n:
            size *= 2
        km = lu.meta((rshape, tuple(vals._strides[d] for d in kept), tuple(xx._strides[d] for d in kept),
                      tuple(idx._strides[d] for d in kept)))
        rm = lu.meta(((xx._strides[dim], vals._strides[dim], idx._strides[dim]),))
        if n <= MAX_SORT:
            kern = KS.sort(max(size, 2), lu.compute_type(x._dtype), _T)
            kern[lu.grid(nrows, 1)[0], _T, lu.stream()](nrows, n, km, rm, lu.typed(vals), vals._offset,
                                                        lu.typed(idx), idx._offset, lu.typed(xx), xx._offset,
                                                        descending, k)
        else:
            _global_sort(xx, n, size, nrows, k, km, rm, vals, idx, descending)
    if x.ndim == 0:
        return vals.view(()), idx.view(())
    return vals, idx


def _global_sort(x: Tensor, n: int, size: int, nrows: int, k: int, km, rm, vals: Tensor, idx: Tensor,
                 descending: bool) -> None:
    """The bitonic network in global memory: one launch per stage, log2(size)^2 / 2 of them."""
    acc = dtypes.float64 if x._dtype is dtypes.float64 else (dtypes.float32 if x._dtype.is_floating_point
                                                              else dtypes.int64)
    dev = x._storage.device
    total = nrows * size
    keys = lu.empty((total,), acc, dev)
    slots = lu.empty((total,), dtypes.int64, dev)
    blocks, threads = lu.grid(total)
    s = lu.stream()
    KS.global_load(lu.compute_type(acc))[blocks, threads, s](total, size, n, km, rm, lu.typed(x), x._offset,
                                                             lu.typed(keys), lu.typed(slots))
    step = KS.global_step()
    kk = 2
    while kk <= size:
        jj = kk // 2
        while jj > 0:
            step[blocks, threads, s](total, size, n, kk, jj, lu.typed(keys), lu.typed(slots), descending)
            jj //= 2
        kk *= 2
    out_total = nrows * k
    ob, ot = lu.grid(out_total)
    KS.global_store()[ob, ot, s](out_total, size, k, km, rm, lu.typed(keys), lu.typed(slots), lu.typed(vals),
                                 vals._offset, lu.typed(idx), idx._offset)


def _sort(x, dim=-1, descending=False, stable=False, *, out=None):
    n = x._shape[dim] if x.ndim else 1
    return _sorted_rows(x, n, dim if x.ndim else 0, descending, out, "sort")


def _topk(x, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - PyTorch's name
    return _sorted_rows(x, k, dim if x.ndim else 0, largest, out, "topk")


def register() -> None:
    get_op("sort").register("cuda")(_sort)
    get_op("topk").register("cuda")(_topk)


def ptx_cases():
    from numba import types as T

    m, i, b = T.int64[:, ::1], T.int64, T.boolean
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("int64", T.int64[::1], T.int64)):
        yield (f"global_load[{label}]", KS.global_load_function(acc),
               (i, i, i, m, m, arr, i, T.Array(acc, 1, "C"), T.int64[::1]))
        yield (f"global_store[{label}]", KS.global_store_function(),
               (i, i, i, m, m, T.Array(acc, 1, "C"), T.int64[::1], arr, i, T.int64[::1], i))
    yield ("global_step[float64]", KS.global_step_function(), (i, i, i, i, i, T.float64[::1], T.int64[::1], b))
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                            ("int64", T.int64[::1], T.int64), ("float16", T.float16[::1], T.float32)):
        yield (f"bitonic_sort[{label}, 1024]", KS.sort_function(1024, acc, _T),
               (i, i, m, m, arr, i, T.int64[::1], i, arr, i, b, i))
