"""CPU scatter machinery for the indexing ops: storage offsets or 3-D views of indexed elements, the Numba loops.

NOTE [ Indexing by storage offsets ]
A scatter-like CPU kernel that the (outer, dim, inner) views of NOTE [ Indexing through (outer, dim,
inner) views ] do not serve (accumulating `index_put_`, `put_`, and `scatter*`/`index_add_` on 0-dim,
conjugate or negative views, half or complex arithmetic, or dims that do not merge) first
turns its indices into the storage offsets (in elements) of the elements it writes, then one
Numba loop applies `flat[offs[i]] (op)= vals[i]` in order. Working on offsets makes strided
(non-contiguous) targets free and makes repeated indices accumulate correctly, which the
embedding backward depends on. Indices are validated on the host (`index_array`) before any
kernel runs, so a kernel never sees an offset out of its storage; the op's meta step (NOTE [ The
meta step ] in ember.core.dispatch) has checked that the values cover every offset, so it never
reads past them either.
"""

from __future__ import annotations

from functools import cache
from math import prod

import numpy as np

from ember.core import dtypes
from ember.core.ops._index_kernels import ADD, MAX, MIN, MUL, SET, bits_view, gather3, index_bounds, scatter3
from ember.core.ops._util import arr, named_as
from ember.core.tensor import Tensor

__all__ = ["SET", "ADD", "MUL", "MAX", "MIN", "IndexOutOfRangeError", "scatter_kernel", "rows_add_kernel",
           "accumulate_rows", "flat_storage", "scatter_apply", "apply_stepwise", "index_array", "grid_offsets",
           "dim_offsets", "fancy_offsets", "gather_dim", "scatter_dim"]


@cache
def scatter_kernel():
    import numba

    # flat: the 1-D typed storage; offs: int64 offsets into it; vals: one value per offset
    @numba.njit(cache=True, nogil=True)
    def scatter(flat, offs, vals, mode):
        for i in range(offs.size):
            o = offs[i]
            v = vals[i]
            if mode == ADD:
                flat[o] += v
            elif mode == MUL:
                flat[o] *= v
            elif mode == MAX:
                if v > flat[o] or v != v:
                    flat[o] = v
            elif mode == MIN:
                if v < flat[o] or v != v:
                    flat[o] = v
            else:
                flat[o] = v

    return scatter


@cache
def rows_add_kernel():
    import numba

    # flat: 1-D typed storage; rows of `row` contiguous elements start at base + idx[i] * stride0
    @numba.njit(cache=True, nogil=True)
    def rows_add(flat, base, stride0, idx, vals):
        n, row = vals.shape
        for i in range(n):
            o = base + idx[i] * stride0
            for j in range(row):
                flat[o + j] += vals[i, j]

    return rows_add


def accumulate_rows(x: Tensor, idx: np.ndarray, v) -> bool:
    """x[idx] += v for an index of dim 0 over dense rows (the embedding backward); False if not that case."""
    if x._dtype in (dtypes.float16, dtypes.bfloat16, dtypes.bool) or x.ndim < 2:
        return False
    rest = x._shape[1:]
    expected = 1
    for n, st in zip(reversed(rest), reversed(x._strides[1:]), strict=True):
        if n != 1 and st != expected:
            return False
        expected *= n
    row = expected
    vals = np.asarray(v, dtype=x._dtype.np)
    if vals.shape != idx.shape + rest:
        try:
            vals = np.broadcast_to(vals, idx.shape + rest)
        except ValueError:
            return False
    if vals.size == 0:  # nothing to add (an empty index, or rows of 0 elements)
        return True
    vals = np.ascontiguousarray(vals).reshape(-1, row)
    if vals.shape[0]:
        idx = np.ascontiguousarray(idx, np.int64).reshape(-1)
        rows_add_kernel()(flat_storage(x), x._offset, x._strides[0], idx, vals)
    return True


def flat_storage(t: Tensor) -> np.ndarray:
    """The whole CPU storage of `t` as a 1-D array of its dtype (offsets index into it)."""
    isz = t._dtype.itemsize
    data = t._storage.data
    flat = data[: data.size - data.size % isz].view(t._dtype.np)
    if t._conj:  # read only (a write into a conjugate view gets a resolved copy: NOTE [ Complex storage and conj ])
        from ember.core.tensor import _conjugated

        return _conjugated(flat)
    if t._neg:
        return np.negative(flat)
    return flat


def scatter_apply(target: Tensor, offs: np.ndarray, vals, mode: int, stepwise: bool = False) -> None:
    """`flat[offs] (mode)= vals` in index order (see NOTE [ Indexing by storage offsets ]). Half and bfloat16 sums
    and products are taken in float32 and rounded once per element, as PyTorch's scatter kernels; `stepwise` rounds
    after every write instead, as its element loops (accumulating `index_put_` and `put_`, a 1-D `index_add_`)."""
    offs = np.ascontiguousarray(offs, dtype=np.int64).reshape(-1)
    if offs.size == 0:
        return
    flat = flat_storage(target)
    vals = np.ascontiguousarray(np.broadcast_to(np.asarray(vals), offs.shape if np.ndim(vals) == 0 else
                                                np.shape(vals))).reshape(-1)
    dt = flat.dtype
    if dt == np.bool_:
        mode = {ADD: MAX, MUL: MIN}.get(mode, mode)
    if (dt == np.float16 or dt.name == "bfloat16") and stepwise and mode in (ADD, MUL):
        apply_stepwise(flat, offs, vals.astype(dt, copy=False), mode)
        return
    if dt == np.float16 or dt.name == "bfloat16":  # Numba has no half arithmetic: accumulate in float32
        uniq, inv = np.unique(offs, return_inverse=True)
        work = flat[uniq].astype(np.float32)
        scatter_kernel()(work, inv.astype(np.int64), vals.astype(np.float32), mode)
        flat[uniq] = work.astype(dt)
        return
    if dt.kind == "c":  # the kernel compiles comparisons (MAX/MIN, which PyTorch refuses for complex)
        vals = vals.astype(dt, copy=False)
        if mode == MUL:
            np.multiply.at(flat, offs, vals)
            return  # ADD and SET: on the (real, imaginary) float pairs
        pairs = np.stack([2 * offs, 2 * offs + 1], -1).reshape(-1)
        scatter_kernel()(flat.view(flat.real.dtype), pairs, vals.view(flat.real.dtype), mode)
        return
    scatter_kernel()(flat, offs, vals.astype(dt, copy=False), mode)



def apply_stepwise(flat: np.ndarray, offs: np.ndarray, vals: np.ndarray, mode: int) -> None:
    """`flat[offs] (+ or *)= vals` in index order, rounding to flat's 16-bit type after each write: one vectorized
    pass per repeat count (the k-th write to every element in the k-th pass), as half arithmetic rounds."""
    order = np.argsort(offs, kind="stable")
    s = offs[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    rank = np.empty(offs.size, np.int64)
    rank[order] = np.arange(offs.size) - np.repeat(starts, np.diff(np.r_[starts, offs.size]))
    op = np.add if mode == ADD else np.multiply
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        o = offs[sel]
        flat[o] = op(flat[o].astype(np.float32), vals[sel].astype(np.float32)).astype(flat.dtype)


@named_as("RuntimeError")
class IndexOutOfRangeError(IndexError, RuntimeError):
    """An index out of its dimension: an IndexError, and the RuntimeError PyTorch raises for gather/scatter."""


@named_as("IndexError")
class _IndexOutOfRangeOfSelect(IndexOutOfRangeError):
    """The same for index_select/index_copy, where PyTorch raises IndexError."""



def index_array(t, size: int, dim: int, *, allow_negative: bool = True, prefix: str = "",
                message: str | None = None, copy: bool = True) -> np.ndarray:
    """Host int64 copy of index tensor `t`, bounds-checked against `size` and wrapped (`message`: the
    IndexError's whole text where PyTorch names no index, as index_select/index_add's; without `copy`,
    a view of `t`'s own int64 elements where no wrap is needed, for a caller that only reads it).

    Advanced indexing wraps negative indices (`allow_negative`) and raises a plain IndexError, as
    PyTorch; the dim ops (gather, scatter, index_*) reject negatives with `IndexOutOfRangeError`."""
    a = np.asarray(arr(t) if t._storage.device.type == "cpu" else t._host_array())
    if copy or a.dtype != np.int64:
        a = a.astype(np.int64)
    if a.size == 0:
        return a
    lo, hi = index_bounds()(a.reshape(-1))  # one pass (a copy of a strided index's elements)
    if lo >= (-size if allow_negative else 0) and hi < size:
        return np.where(a < 0, a + size, a) if lo < 0 else a
    bad = (a < (-size if allow_negative else 0)) | (a >= size)
    if message is not None:
        raise _IndexOutOfRangeOfSelect(message)
    err = IndexError if allow_negative else _IndexOutOfRangeOfSelect if prefix else IndexOutOfRangeError
    raise err(f"{prefix}index {a[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")


def _extent(a: np.ndarray, shape: tuple, d: int) -> np.ndarray:
    """`a` cut to `shape` on every dim but `d` (a view): the part a gather or scatter of that index touches."""
    if a.shape == shape or all(n == m or k == d for k, (n, m) in enumerate(zip(a.shape, shape, strict=True))):
        return a
    return a[tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(shape))]


def _split(shape: tuple, d: int) -> tuple[int, int]:
    """The (outer, inner) element counts around dim `d` (NOTE [ Indexing through (outer, dim, inner) views ])."""
    return prod(shape[:d]), prod(shape[d + 1:])


def gather_dim(x: np.ndarray, d: int, idx: np.ndarray) -> np.ndarray | None:
    """`x` gathered along `d` at the checked int64 `idx` (of x's rank, no larger off `d`), as a new row-major
    array; None for 16-byte items."""
    out = np.empty(idx.shape, x.dtype)
    xb, ob = bits_view(x), bits_view(out)
    if xb is None:
        return None
    o, i = _split(idx.shape, d)
    xb = _extent(xb, idx.shape, d)
    gather3()(xb.reshape(o, xb.shape[d], i), idx.reshape(o, idx.shape[d], i), ob.reshape(o, idx.shape[d], i))
    return out


_ARITH = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                         np.uint16, np.uint32, np.uint64, np.bool_))


def scatter_dim(t: np.ndarray, d: int, idx: np.ndarray, src: np.ndarray, mode: int, include_self: bool = True,
                mean: bool = False) -> bool:
    """`t` (mode)= `src` at the checked int64 `idx` along `d`, in place and in index order (`src`: t's dtype and
    rank, any strides; `idx`: src's shape, or 1-D along `d` for the same index in every slice, as index_add_'s);
    False, having written nothing, where the dtype or t's strides need the offset path. `include_self` and
    `mean` are scatter_reduce's (`mode` ADD for a mean)."""
    if mode == SET:
        t, src = bits_view(t), bits_view(src)
        if t is None:
            return False
    elif t.dtype not in _ARITH:
        return False
    elif t.dtype == np.bool_:
        mode = {ADD: MAX, MUL: MIN}.get(mode, mode)
    shape = src.shape
    o, i = _split(shape, d)
    try:
        t3 = _extent(t, shape, d).reshape((o, t.shape[d], i), copy=False)
    except ValueError:  # a view whose dims do not merge
        return False
    k = shape[d]
    if idx.ndim != len(shape):  # the one index broadcast over the outer and inner dims, without a copy
        idx = np.ndarray((o, k, i), np.int64, np.ascontiguousarray(idx), 0, (0, 8, 0))
    idx, src = idx.reshape(o, k, i), src.reshape(o, k, i)
    if include_self and not mean:
        scatter3()[0](t3, idx, src, mode)
        return True
    count = np.zeros(t3.shape, np.int64)
    scatter3()[1](t3, idx, src, mode, include_self, count)
    if mean:  # the sum over the count of values (the element itself one more with include_self), as PyTorch
        scatter3()[2](t3, count, int(include_self), t.dtype.kind != "f")
    return True


def grid_offsets(shape: tuple, strides: tuple, base: int, skip: int | None = None) -> np.ndarray:
    """Storage offsets of every element of a `shape`/`strides` grid, omitting dim `skip`."""
    off = np.full((1,) * len(shape), base, np.int64)
    for d, (n, s) in enumerate(zip(shape, strides, strict=True)):
        if d != skip:
            off = off + (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return off


def dim_offsets(x: Tensor, dim: int, idx: np.ndarray, shape: tuple) -> np.ndarray:
    """Offsets into `x` of a `shape` grid whose coordinate along `dim` is `idx` (broadcast)."""
    if len(shape) < x.ndim:  # a 0-dim index into a 1-dim tensor: PyTorch takes it as one element
        return dim_offsets(x, dim, np.reshape(idx, (1,)), (1,)).reshape(shape)
    off = grid_offsets(shape, x._strides, x._offset, skip=dim) + idx * x._strides[dim]
    return np.broadcast_to(off, shape)



def fancy_offsets(x: Tensor, key: list) -> np.ndarray:
    """Storage offsets of x[key] (numpy's placement: adjacent advanced dims stay, split ones go first)."""
    adv = [d for d, k in enumerate(key) if k is not None]
    rest = [d for d, k in enumerate(key) if k is None]
    b = np.broadcast_shapes(*(key[d].shape for d in adv))
    adv_off = sum(np.broadcast_to(key[d] * x._strides[d], b) for d in adv)
    first = adv[0] if adv == list(range(adv[0], adv[-1] + 1)) else 0
    before = [d for d in rest if d < first]
    after = [d for d in rest if d not in before]
    shape = tuple(x._shape[d] for d in before) + b + tuple(x._shape[d] for d in after)
    nb, na = len(before), len(after)
    off = np.asarray(adv_off, np.int64).reshape((1,) * nb + b + (1,) * na) + x._offset
    for i, d in enumerate(before):
        off = off + (np.arange(x._shape[d], dtype=np.int64) * x._strides[d]).reshape(
            (-1,) + (1,) * (len(shape) - i - 1))
    for i, d in enumerate(after):
        off = off + (np.arange(x._shape[d], dtype=np.int64) * x._strides[d]).reshape((-1,) + (1,) * (na - i - 1))
    return np.broadcast_to(off, shape)
