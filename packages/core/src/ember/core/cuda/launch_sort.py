"""CUDA kernels of sort and topk: the shared-memory bitonic sort of `kernels.sort`, for rows of up
to `MAX_SORT` elements (longer rows would need a multi-block merge sort, which is not written)."""

from __future__ import annotations

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import sort as KS
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor, describe

__all__ = ["register", "MAX_SORT"]

MAX_SORT = 256 if lu.SIMULATOR else 2048
_T = lu.REDUCE_THREADS


def _sorted_rows(x: Tensor, k: int, dim: int, descending: bool, out, name: str):
    xx = x.view(1) if x.ndim == 0 else x
    n = xx._shape[dim]
    if n > MAX_SORT:
        raise NotImplementedError(f"{name}: CUDA sorts rows of at most {MAX_SORT} elements; got {n} along dim "
                                  f"{dim} of {describe(x)}")
    shape = xx._shape[:dim] + (k,) + xx._shape[dim + 1:]
    dev = x._storage.device
    vals = lu.prepare_out(out[0] if out is not None else None, shape, x._dtype, dev, name)
    idx = lu.prepare_out(out[1] if out is not None else None, shape, dtypes.int64, dev, name)
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
        kern = KS.sort(max(size, 2), lu.compute_type(x._dtype), _T)
        kern[lu.grid(nrows, 1)[0], _T, lu.stream()](nrows, n, km, rm, lu.typed(vals), vals._offset, lu.typed(idx),
                                                    idx._offset, lu.typed(xx), xx._offset, descending, k)
    if x.ndim == 0:
        return vals.view(()), idx.view(())
    return vals, idx


def _sort(x, dim=-1, descending=False, *, out=None):
    n = x._shape[dim] if x.ndim else 1
    return _sorted_rows(x, n, dim if x.ndim else 0, descending, out, "sort")


def _topk(x, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - PyTorch's name
    n = x._shape[dim] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"selected index k out of range; got k={k} for a dimension of size {n}")
    return _sorted_rows(x, k, dim if x.ndim else 0, largest, out, "topk")


def register() -> None:
    get_op("sort").register("cuda")(_sort)
    get_op("topk").register("cuda")(_topk)


def ptx_cases():
    from numba import types as T

    m, i, b = T.int64[:, ::1], T.int64, T.boolean
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                            ("int64", T.int64[::1], T.int64), ("float16", T.float16[::1], T.float32)):
        yield (f"bitonic_sort[{label}, 1024]", KS.sort_function(1024, acc, _T),
               (i, i, m, m, arr, i, T.int64[::1], i, arr, i, b, i))
