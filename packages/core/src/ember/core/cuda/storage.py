"""Device storage: a `Storage` whose bytes are a block of the device's caching allocator.

The storage holds the block through a small owner object; when the last tensor of the storage
dies, Python's refcount drops the owner, whose `__del__` hands the block back at once (paper
section 5.5). The block belongs to the stream current at allocation time; `record_stream`
tells the allocator that another stream uses it too (NOTE [ Stream safety in the allocator ]).
"""

from __future__ import annotations

from ember.core.cuda import streams
from ember.core.cuda.allocator import CachingAllocator
from ember.core.cuda.raw_backends import NumbaRawBackend
from ember.core.device import device
from ember.core.storage import Storage

__all__ = ["allocator", "device_storage", "grow_storage", "record_stream", "storage_from_array"]

_allocators: dict[int, CachingAllocator] = {}


def allocator(index: int) -> CachingAllocator:
    """The caching allocator of device `index` (made on first use)."""
    a = _allocators.get(index)
    if a is None:
        a = _allocators[index] = CachingAllocator(NumbaRawBackend(index), index)
    return a


class _BlockOwner:
    """Returns its block to the allocator when the storage holding it dies."""

    __slots__ = ("alloc", "block")

    def __init__(self, alloc: CachingAllocator, block) -> None:
        self.alloc = alloc
        self.block = block

    def __del__(self) -> None:
        self.alloc.free(self.block)


def device_storage(nbytes: int, dev: device) -> Storage:
    """A new, uninitialised storage of `nbytes` bytes on CUDA device `dev`, for the current stream."""
    alloc = allocator(dev.index or 0)
    block = alloc.malloc(nbytes, streams.allocator_key(streams.current_stream()))
    return Storage(block.data, nbytes, dev, _BlockOwner(alloc, block))


def storage_from_array(data, nbytes: int, dev: device, owner) -> Storage:
    """A storage over memory that someone else owns (`from_dlpack`); `owner` keeps it alive."""
    return Storage(data, nbytes, dev, owner)


def grow_storage(st: Storage, nbytes: int) -> None:
    """Give `st` a new block of `nbytes` bytes holding its old bytes first (for `resize_`)."""
    new = device_storage(nbytes, st.device)
    if st.nbytes:
        new.data[: st.nbytes].copy_to_device(st.data, stream=streams.current_stream()._s)
    st.data, st._block, st.nbytes = new.data, new._block, nbytes
    new._block = None


def record_stream(st: Storage, stream: streams.Stream) -> None:
    """Keep `st`'s block out of reuse until the work queued on `stream` so far is done."""
    owner = st._block
    if isinstance(owner, _BlockOwner):
        owner.alloc.record_stream(owner.block, streams.allocator_key(stream))
