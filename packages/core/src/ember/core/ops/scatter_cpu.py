"""CPU scatter machinery for the indexing ops: storage offsets of indexed elements and the Numba loops.

NOTE [ Indexing by storage offsets ]
Every scatter-like CPU kernel (accumulating `index_put_`, `scatter*`, `index_add_`, `put_`) first
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

import numpy as np

from ember.core import dtypes
from ember.core.ops._util import arr, named_as
from ember.core.tensor import Tensor

__all__ = ["SET", "ADD", "MUL", "MAX", "MIN", "IndexOutOfRangeError", "scatter_kernel", "rows_add_kernel",
           "accumulate_rows", "flat_storage", "scatter_apply", "index_array", "grid_offsets", "dim_offsets",
           "fancy_offsets"]

SET, ADD, MUL, MAX, MIN = 0, 1, 2, 3, 4


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
    try:
        vals = np.broadcast_to(np.asarray(v, dtype=x._dtype.np), idx.shape + rest)
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


def scatter_apply(target: Tensor, offs: np.ndarray, vals, mode: int) -> None:
    """`flat[offs] (mode)= vals` in index order (see NOTE [ Indexing by storage offsets ])."""
    offs = np.ascontiguousarray(offs, dtype=np.int64).reshape(-1)
    if offs.size == 0:
        return
    flat = flat_storage(target)
    vals = np.ascontiguousarray(np.broadcast_to(np.asarray(vals), offs.shape if np.ndim(vals) == 0 else
                                                np.shape(vals))).reshape(-1)
    dt = flat.dtype
    if dt == np.bool_:
        mode = {ADD: MAX, MUL: MIN}.get(mode, mode)
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



@named_as("RuntimeError")
class IndexOutOfRangeError(IndexError, RuntimeError):
    """An index out of its dimension: an IndexError, and the RuntimeError PyTorch raises for gather/scatter."""


@named_as("IndexError")
class _IndexOutOfRangeOfSelect(IndexOutOfRangeError):
    """The same for index_select/index_copy, where PyTorch raises IndexError."""



def index_array(t, size: int, dim: int, *, allow_negative: bool = True, prefix: str = "",
                message: str | None = None) -> np.ndarray:
    """Host int64 copy of index tensor `t`, bounds-checked against `size` and wrapped (`message`: the
    IndexError's whole text where PyTorch names no index, as index_select/index_add's).

    Advanced indexing wraps negative indices (`allow_negative`) and raises a plain IndexError, as
    PyTorch; the dim ops (gather, scatter, index_*) reject negatives with `IndexOutOfRangeError`."""
    a = np.asarray(arr(t) if t._storage.device.type == "cpu" else t._host_array()).astype(np.int64)
    lo = -size if allow_negative else 0
    bad = (a < lo) | (a >= size)
    if bad.any():
        if message is not None:
            raise _IndexOutOfRangeOfSelect(message)
        err = IndexError if allow_negative else _IndexOutOfRangeOfSelect if prefix else IndexOutOfRangeError
        raise err(f"{prefix}index {a[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")
    return np.where(a < 0, a + size, a) if allow_negative else a



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
