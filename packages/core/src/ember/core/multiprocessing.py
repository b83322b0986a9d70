"""Tensors through multiprocessing's queues and pipes by shared memory (`torch.multiprocessing`).

NOTE [ Tensors through multiprocessing ]
`init_reductions()` registers a reducer for `Storage` with multiprocessing's `ForkingPickler`, the
pickler behind every `Queue`, `SimpleQueue`, `Pipe` and the spawn of a `Process`. Every tensor class
pickles its storage (`Tensor.__reduce_ex__`), so one reducer covers tensors, parameters and views:

* a storage already in shared memory (`share_memory_()`, a model shared for Hogwild) crosses as
  its segment's name; the process that shared it keeps it alive (NOTE [ Shared-memory storage ]);
* any other CPU storage is first moved into a new shared segment, in place, as PyTorch does, so
  the sender keeps using the very memory the receiver maps. Under the "file_descriptor" strategy
  (the default) the segment then crosses as a duplicated file descriptor
  (`multiprocessing.reduction.DupFd`), so it stays valid even if the sender drops the tensor (and
  the segment's name) before the receiver maps it; under "file_system" it crosses by name, and
  the sender must keep the tensor alive until it has been received.

A receiver of a descriptor maps it and closes it; it never unlinks anything. CUDA storages are
refused with an error saying to move them to the CPU.
"""

from __future__ import annotations

import mmap
import os
import weakref
from multiprocessing import context, reduction, util

import _posixshmem

from ember.core import dtypes, sharing
from ember.core.ops._util import named_as
from ember.core.storage import Storage
from ember.core.tensor import Tensor

__all__ = ["init_reductions", "get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy",
           "InvalidSharingStrategy", "reduce_storage", "plain_dispatch_table"]

_STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"
# storages this process received by descriptor, by segment name: one mapping per segment
_received: weakref.WeakValueDictionary[str, Storage] = weakref.WeakValueDictionary()


@named_as("AssertionError")
class InvalidSharingStrategy(AssertionError, ValueError):
    """An unknown sharing strategy: PyTorch raises `AssertionError`; `ValueError` is what it means."""


def get_all_sharing_strategies() -> set[str]:
    """The strategies `set_sharing_strategy` accepts: {"file_descriptor", "file_system"}."""
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """How storages moved into shared memory cross to another process ("file_descriptor" by default)."""
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose "file_descriptor" (pass a duplicated descriptor) or "file_system" (pass the segment's name)."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise InvalidSharingStrategy(f"invalid sharing strategy '{new_strategy}', expected one of "
                                     f"{set(_STRATEGIES)}")
    _strategy = new_strategy


def _bytes_of(storage: Storage) -> Tensor:
    # sharing's functions take a tensor and act on its whole storage; a byte view stands for the storage
    return Tensor._make(storage, 0, (storage.nbytes,), (1,), dtypes.uint8, Tensor)


def _rebuild_from_fd(name: str, fd: reduction.DupFd, nbytes: int) -> Storage:
    handle = fd.detach()  # always fetch it: the sender holds its duplicate until it is fetched
    st = _received.get(name)
    if st is not None and st.nbytes == nbytes:
        os.close(handle)
        return st
    try:
        mapping = mmap.mmap(handle, max(nbytes, 1))
    finally:
        os.close(handle)
    st = sharing.segment_storage(name, mapping, nbytes)
    _received[name] = st
    return st


def reduce_storage(storage: Storage):
    """`ForkingPickler`'s reducer for storages: shared memory by name or descriptor, never the bytes."""
    if storage.device.type != "cpu" or sharing.is_shared(_bytes_of(storage)):
        return sharing.reduce_storage(storage)
    sharing.share_memory_(_bytes_of(storage))
    if _strategy == "file_system":
        return sharing.reduce_storage(storage)
    name = storage._shared.name
    handle = _posixshmem.shm_open(name, os.O_RDWR, 0o600)
    popen = context.get_spawning_popen()
    try:
        dup = reduction.DupFd(handle)
    except BaseException:
        os.close(handle)
        raise
    if popen is None:
        os.close(handle)  # DupFd duplicated it for the resource sharer
    else:
        # a process being spawned inherits `handle` itself: close it once the launcher is gone
        util.Finalize(popen, os.close, args=(handle,))
    return _rebuild_from_fd, (name, dup, storage.nbytes)


def init_reductions() -> None:
    """Make multiprocessing's pickler send tensors through shared memory (idempotent)."""
    reduction.ForkingPickler.register(Storage, reduce_storage)


def plain_dispatch_table(table: dict) -> dict:
    """`table` without the reducer `init_reductions` registered: for picklers with their own protocol for
    storages (the DataLoader's workers, NOTE [ DataLoader worker protocol ] in ember.data)."""
    return {k: v for k, v in table.items() if v is not reduce_storage}
