"""Host <-> device copies and pinned host memory.

A copy to the device is queued on the current stream. From pageable memory the driver stages
the bytes before the call returns, so the host array may die right after; from pinned memory
with `non_blocking=True` the copy is truly asynchronous, and the pinned storage is kept alive
by the destination tensor until it dies. A copy to the host waits for the stream (one counted
synchronization), unless it is `non_blocking` into pinned memory.
"""

from __future__ import annotations

import weakref
from collections import deque

import numpy as np
from numba import cuda

from ember.core.cuda import launch_util as lu
from ember.core.cuda import streams
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Tensor, contiguous_strides, describe

__all__ = ["to_device", "to_host", "copy_device_to_host", "pin_memory", "is_pinned"]

# Storages whose memory is page-locked; keyed weakly, so a dead storage leaves the set.
_pinned: weakref.WeakSet[Storage] = weakref.WeakSet()
# Host buffers that queued asynchronous copies still read or write, with the event marking
# the copy's end; a buffer is dropped once its event has completed.
_inflight: deque = deque()


def _hold_until_done(obj) -> None:
    while _inflight and _inflight[0][0].query():
        _inflight.popleft()
    e = streams.Event()
    e.record()
    _inflight.append((e, obj))


def _contiguous_device(t: Tensor) -> Tensor:
    if lu.is_dense(t, t._shape):
        return t
    from ember.core.cuda.launch_elementwise import copy_into

    return copy_into(lu.empty(t._shape, t._dtype, t._storage.device), t)


def _flat(t: Tensor):
    """The device array of a dense CUDA tensor's elements, 1-D."""
    n = t.numel()
    return lu.typed(t)[t._offset:t._offset + n]


def to_device(t: Tensor, dev: device, non_blocking: bool = False) -> Tensor:
    """A copy of `t` on `dev` (a contiguous tensor), queued on the current stream."""
    if t._neg:  # (a CPU view only: NOTE [ Complex storage and conj ]) its values, resolved
        from ember.core.ops.complex import resolved

        return to_device(resolved(t), dev, non_blocking)
    if t._conj:  # the copy of a conjugate view's storage keeps the bit, as PyTorch's
        from ember.core.ops.complex import physical

        r = to_device(physical(t), dev, non_blocking)
        r._conj = True
        r._npc = None  # a CPU result's cache holds the storage's elements
        return r
    if dev.type == "cpu":
        return _to_cpu(t, non_blocking)
    out = lu.empty(t._shape, t._dtype, dev)
    if t.numel() == 0:
        return out
    if t._storage.device.type == "cuda":
        src = _contiguous_device(t)
        _flat(out).copy_to_device(_flat(src), stream=lu.stream())
        return out
    host = t._np()
    if not host.flags.c_contiguous:
        host = np.ascontiguousarray(host)
    _flat(out).copy_to_device(host.reshape(-1), stream=lu.stream())
    if non_blocking and is_pinned(t):
        _hold_until_done(t._storage)
    return out


def _to_cpu(t: Tensor, non_blocking: bool) -> Tensor:
    if non_blocking:
        out = pin_memory(Tensor._wrap(np.empty(t._shape, t._dtype.np)))
        if t.numel():
            _flat(_contiguous_device(t)).copy_to_host(out._np().reshape(-1), stream=lu.stream())
            _hold_until_done(t._storage)
        return out
    return Tensor._wrap(to_host(t))


def to_host(t: Tensor) -> np.ndarray:
    """The elements of a CUDA tensor as a new numpy array (waits for the current stream)."""
    host = np.empty(t._shape, t._dtype.np)
    if t.numel():
        s = lu.stream()
        _flat(_contiguous_device(t)).copy_to_host(host.reshape(-1), stream=s)
        streams.count_sync()
        s.synchronize()
    return host


def copy_device_to_host(dst: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """`dst.copy_(src)` for a CPU `dst` and a CUDA `src` (broadcast and cast on the host)."""
    if src._conj:
        from ember.core.ops.complex import resolved

        src = resolved(src)
    if (non_blocking and is_pinned(dst) and dst._dtype is src._dtype and dst._shape == src._shape
            and lu.is_dense(dst, dst._shape)):
        if src.numel():
            _flat(_contiguous_device(src)).copy_to_host(dst._np().reshape(-1), stream=lu.stream())
            _hold_until_done(src._storage)
        return dst
    np.copyto(dst._np(), to_host(src), casting="unsafe")  # the shapes were checked by copy_'s meta step
    return dst


def pin_memory(t: Tensor, device=None) -> Tensor:
    """A copy of CPU tensor `t` in page-locked memory (self when already pinned)."""
    if t._storage.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{describe(t)}' only dense CPU tensors can be pinned")
    if not cuda.is_available():  # PyTorch's words (Numba would raise its CudaSupportError, an ImportError)
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if is_pinned(t):
        return t
    buf = cuda.pinned_array(max(t.nbytes, 1), dtype=np.uint8)
    st = Storage(buf, t.nbytes)
    _pinned.add(st)
    out = Tensor._make(st, 0, t._shape, contiguous_strides(t._shape), t._dtype)
    if t.numel():
        np.copyto(out._np(), t._np())
    return out


def is_pinned(t: Tensor, device=None) -> bool:
    """Whether `t`'s memory is page-locked host memory (made by `pin_memory`)."""
    return t._storage in _pinned
