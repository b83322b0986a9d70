"""What every CUDA launcher needs: typed device views of tensors, launch shapes, cached
shape/stride metadata on the device, output allocation and `out=` handling.

Metadata (shapes and strides) travels to the device as small int64 arrays; they are cached by
value, so a training loop that repeats its shapes uploads each one once.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from numba import cuda
from numba import types as nbt

from ember.core import dtypes
from ember.core.cuda import streams
from ember.core.ops._util import prepare_out
from ember.core.tensor import Tensor, contiguous_strides

__all__ = ["stream", "typed", "meta", "grid", "empty", "prepare_out", "compute_type", "SIMULATOR",
           "THREADS", "REDUCE_THREADS", "is_dense"]

SIMULATOR = streams.SIMULATOR
# The simulator runs one OS thread per CUDA thread: keep launches small there.
THREADS = 32 if SIMULATOR else 256
# Block size of the reductions (a power of two: their shared-memory tree halves it).
REDUCE_THREADS = 8 if SIMULATOR else 256
_MAX_BLOCKS = 4 if SIMULATOR else 8192

_meta_cache: OrderedDict[tuple, object] = OrderedDict()
_META_CACHE_SIZE = 4096


def stream():
    """The numba stream that kernels launch on now."""
    return streams.current_stream()._s


def typed(t: Tensor):
    """The flat device array of `t`'s storage, typed as `t`'s dtype (index it with offsets)."""
    data = t._storage.data
    extra = data.size % t._dtype.itemsize  # a view(dtype) to wider elements may leave a tail of bytes
    return (data[: data.size - extra] if extra else data).view(t._dtype.np)


def meta(rows: tuple[tuple[int, ...], ...]):
    """`rows` (shape, then strides of each operand) as a cached int64 device array."""
    arr = _meta_cache.get(rows)
    if arr is None:
        host = np.array(rows, dtype=np.int64).reshape(len(rows), -1)
        if host.shape[1] == 0:
            host = np.zeros((len(rows), 1), np.int64)
            host[0, 0] = 1
        arr = cuda.to_device(host, stream=stream())
        _meta_cache[rows] = arr
        if len(_meta_cache) > _META_CACHE_SIZE:
            _meta_cache.popitem(last=False)
    else:
        _meta_cache.move_to_end(rows)
    return arr


def grid(n: int, threads: int = THREADS) -> tuple[int, int]:
    """(blocks, threads) for a grid-stride loop over `n` items."""
    blocks = max(1, min(_MAX_BLOCKS, -(-n // threads)))
    return blocks, threads


def empty(shape: tuple[int, ...], dtype: dtypes.dtype, dev) -> Tensor:
    from ember.core.creation import new_empty

    return new_empty(tuple(shape), dtype, dev)


def is_dense(t: Tensor, shape: tuple[int, ...]) -> bool:
    """Whether `t` has `shape` and row-major contiguous strides (flat index = element index)."""
    return t._shape == shape and (t.numel() <= 1 or t._strides == contiguous_strides(shape))


def compute_type(dt: dtypes.dtype):
    """The numba type kernels compute in for a result of `dt` (half computes in float32, as PyTorch)."""
    if dt is dtypes.float64:
        return nbt.float64
    if dt.is_floating_point:
        return nbt.float32
    return nbt.int64

