"""The caching device allocator: device memory is requested once and reused from a cache.

A raw device malloc is slow and a raw free synchronizes the whole device, so a training loop
that asked the device for every activation would spend its time in the driver. The allocator
asks the raw backend for big segments, carves blocks out of them, and keeps freed blocks in
per-stream pools for the next request; after the first iteration of a loop every request is a
cache hit. The sizing rules are PyTorch's (c10/cuda/CUDACachingAllocator.cpp); the raw backend
is injected (like CuPy's memory pool), so the logic runs in tests on fake pointers.

Example (a host-memory stand-in for the raw backend, to show the protocol):
    >>> import numpy as np
    >>> class HostBackend:
    ...     def malloc(self, nbytes): return np.zeros(nbytes, np.uint8)
    ...     def free(self, segment): pass
    ...     def address(self, segment): return segment.ctypes.data
    ...     def total_memory(self): return 1 << 30
    ...     def view(self, segment, offset, nbytes): return segment[offset:offset + nbytes]
    ...     def record_event(self, stream): return None
    ...     def event_query(self, event): return True
    ...     def event_synchronize(self, event): pass
    >>> alloc = CachingAllocator(HostBackend())
    >>> a = alloc.malloc(1000)
    >>> a.size, a.requested_size, a.data.nbytes, alloc.memory_reserved()
    (1024, 1000, 1000, 2097152)
    >>> alloc.free(a)
    >>> b = alloc.malloc(600)                 # the same memory, without a device malloc
    >>> b.ptr == a.ptr, alloc.memory_stats()["num_cache_hits"]
    (True, 1)
"""

from __future__ import annotations

import bisect
import enum
import operator
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Hashable, Iterator
from typing import Any, Protocol

from ember.core.cuda.allocator_stats import MemoryStats, build_snapshot, format_bytes, format_summary

__all__ = [
    "RawBackend",
    "RawOutOfMemory",
    "OutOfMemoryError",
    "BlockState",
    "Block",
    "Segment",
    "CachingAllocator",
]

# NOTE [ Stream safety in the allocator ]
#
# CUDA work is asynchronous: when the host frees a block, kernels queued earlier on a stream may
# still be reading or writing it. Handing that memory to a new owner is safe only if the new
# owner's work is ordered after the old work. Work on one stream runs in issue order, so:
#
# * Every block belongs to the stream it was allocated on (`Block.stream`), and there is one
#   pair of free lists (small, large) per stream. A block freed on stream S goes back to S's
#   pool at once and is reused at once, but only by requests on S, whose kernels queue behind
#   everything already issued on S. Best fit never looks at another stream's pool, and a
#   segment belongs to the stream that caused its raw malloc, so split and merged blocks never
#   cross a stream either. A block is never handed to a request on another stream.
#
# * A tensor whose memory is used on a second stream (a copy stream, a data-loading stream)
#   must say so: `record_stream(block, stream)` adds the stream to the block's uses. On `free`,
#   such a block is not returned to its pool; instead an event is recorded on each of those
#   streams (after the work already queued there) and the block waits in a per-stream pending
#   list ("active_pending_free"). Each malloc queries the oldest events (a stream completes its
#   events in order, so the scan of a stream stops at its first incomplete event); when all the
#   events of a block have completed, it is returned to its own stream's pool and merged.
#   `synchronize()` and `empty_cache()` wait for every pending event instead of polling.
#
# * Freeing without `record_stream` after using a block on another stream is a user error the
#   allocator cannot detect (PyTorch has the same contract): the block would be reused on its
#   own stream while the other stream may still be using it.
#
# * Returning a segment to the device is safe at any time: a raw free (cudaFree) synchronizes
#   the device, and only segments whose memory is entirely free and not pending are released.
#
# Re-entrancy: Python may run a finalizer (a Storage dying in a garbage-collection cycle, a
# Numba memory pointer's weakref callback) in the middle of an allocator call, on the same
# thread, while the allocator's state is half-updated. The lock is re-entrant, and `free`
# called from inside another allocator call is queued and applied when the outer call ends.

KiB = 1024
MiB = 1024 * KiB

_MIN_BLOCK_SIZE = 512  # every block is a multiple of this
_SMALL_SIZE = 1 * MiB  # the largest request served from the small pool
_SMALL_BUFFER = 2 * MiB  # the segment size of the small pool
_LARGE_BUFFER = 20 * MiB  # the segment size for requests of 1-10 MiB
_MIN_LARGE_ALLOC = 10 * MiB  # from here on, a request gets a segment of its own...
_ROUND_LARGE = 2 * MiB  # ... rounded up to a multiple of this


def _round_size(nbytes: int) -> int:
    """The block size for a request: a multiple of 512 bytes, at least 512 (also for 0 bytes)."""
    if nbytes < _MIN_BLOCK_SIZE:
        return _MIN_BLOCK_SIZE
    return -(-nbytes // _MIN_BLOCK_SIZE) * _MIN_BLOCK_SIZE


def _segment_size(size: int) -> int:
    """The raw allocation made when no cached block fits a block of `size` bytes."""
    if size <= _SMALL_SIZE:
        return _SMALL_BUFFER
    if size < _MIN_LARGE_ALLOC:
        return _LARGE_BUFFER
    return -(-size // _ROUND_LARGE) * _ROUND_LARGE


def _should_split(block_size: int, size: int, is_small: bool) -> bool:
    """Whether serving `size` from a free block of `block_size` leaves a remainder worth caching."""
    remaining = block_size - size
    return remaining >= _MIN_BLOCK_SIZE if is_small else remaining > _SMALL_SIZE


class RawBackend(Protocol):
    """The device memory and events the allocator is built on (Numba-CUDA in production).

    Segments and events are opaque to the allocator; streams are the caller's hashable stream
    objects, `None` meaning the default stream.
    """

    def malloc(self, nbytes: int) -> Any:
        """A new segment of `nbytes` bytes; raises `RawOutOfMemory` when the device is full."""

    def free(self, segment: Any) -> None:
        """Give a segment back to the device; the allocator never touches it again."""

    def address(self, segment: Any) -> int:
        """The segment's device address."""

    def total_memory(self) -> int:
        """The device's capacity in bytes."""

    def view(self, segment: Any, offset: int, nbytes: int) -> Any:
        """The object a Storage holds for bytes `[offset, offset + nbytes)` of the segment."""

    def record_event(self, stream: Hashable | None) -> Any:
        """An event recorded on `stream` now: it completes when the work queued so far does."""

    def event_query(self, event: Any) -> bool:
        """Whether the event has completed (does not block)."""

    def event_synchronize(self, event: Any) -> None:
        """Block the host until the event has completed."""


class RawOutOfMemory(MemoryError):
    """Raised by a raw backend when the device cannot hold a new segment."""


class OutOfMemoryError(RuntimeError):
    """A request failed even after the cache was emptied; the message carries the byte counts."""

    def __init__(
        self,
        message: str,
        requested_bytes: int = 0,
        allocated_bytes: int = 0,
        reserved_bytes: int = 0,
        total_bytes: int = 0,
        device_index: int = 0,
    ) -> None:
        super().__init__(message)
        self.requested_bytes = requested_bytes
        self.allocated_bytes = allocated_bytes
        self.reserved_bytes = reserved_bytes
        self.total_bytes = total_bytes
        self.device_index = device_index

    def __reduce__(self):
        # Keep the byte counts when the error crosses a process boundary (DataLoader workers).
        return (type(self), (str(self), self.requested_bytes, self.allocated_bytes, self.reserved_bytes,
                             self.total_bytes, self.device_index))


class BlockState(enum.Enum):
    """Where a block is in its life; the values are the state names of `snapshot()`."""

    ALLOCATED = "active_allocated"  # owned by a caller
    PENDING_FREE = "active_pending_free"  # freed, waiting for events on other streams
    FREE = "inactive"  # cached in its stream's pool
    RETIRED = "retired"  # merged away or replaced; the object no longer describes memory


class Segment:
    """One raw allocation: its backend handle, address range, stream and pool."""

    __slots__ = ("handle", "address", "size", "stream", "is_small", "head")

    def __init__(self, handle: Any, address: int, size: int, stream: Hashable | None, is_small: bool) -> None:
        self.handle = handle
        self.address = address
        self.size = size
        self.stream = stream
        self.is_small = is_small
        self.head: Block | None = None  # the block at offset 0; blocks are linked by _prev/_next

    def blocks(self) -> Iterator[Block]:
        """The segment's blocks in address order; they tile it exactly."""
        block = self.head
        while block is not None:
            yield block
            block = block._next

    def __repr__(self) -> str:
        pool = "small" if self.is_small else "large"
        return f"Segment(address={self.address:#x}, size={self.size}, stream={self.stream!r}, pool={pool})"


class Block:
    """A piece of a segment: what `CachingAllocator.malloc` returns and `free` takes back.

    `ptr` is the device address, `size` the rounded size (a multiple of 512), `requested_size`
    what the caller asked for, `data` the backend's view of the requested bytes (None once
    freed), `offset` the position inside `segment`, `stream` the stream it belongs to.
    """

    __slots__ = (
        "ptr", "size", "requested_size", "stream", "segment", "offset", "data", "state",
        "_prev", "_next", "_stream_uses", "_event_count", "_counted_split",
    )

    def __init__(self, segment: Segment, offset: int, size: int, state: BlockState) -> None:
        self.segment = segment
        self.offset = offset
        self.ptr = segment.address + offset
        self.size = size
        self.requested_size = 0
        self.stream = segment.stream
        self.data: Any = None
        self.state = state
        self._prev: Block | None = None
        self._next: Block | None = None
        self._stream_uses: set[Hashable | None] = set()
        self._event_count = 0
        self._counted_split = False  # whether it counts in inactive_split while cached

    @property
    def is_split(self) -> bool:
        return self._prev is not None or self._next is not None

    def __repr__(self) -> str:
        return (f"Block(ptr={self.ptr:#x}, size={self.size}, requested_size={self.requested_size}, "
                f"stream={self.stream!r}, state={self.state.name})")


class _FreeList:
    """The cached blocks of one (stream, pool), ordered by (size, address) for best fit."""

    __slots__ = ("keys", "blocks")

    def __init__(self) -> None:
        self.keys: list[tuple[int, int]] = []
        self.blocks: dict[int, Block] = {}

    def insert(self, block: Block) -> None:
        bisect.insort(self.keys, (block.size, block.ptr))
        self.blocks[block.ptr] = block

    def remove(self, block: Block) -> None:
        i = bisect.bisect_left(self.keys, (block.size, block.ptr))
        assert self.keys[i] == (block.size, block.ptr), "allocator: free list out of sync"
        del self.keys[i]
        del self.blocks[block.ptr]

    def best_fit(self, size: int) -> Block | None:
        i = bisect.bisect_left(self.keys, (size, -1))
        return self.blocks[self.keys[i][1]] if i < len(self.keys) else None


_DEFAULT_MAX_ENTRIES = 100_000


class CachingAllocator:
    """PyTorch's caching allocator for one device, over an injected raw backend.

    Requests are rounded up to multiples of 512 bytes. Requests up to 1 MiB come from the small
    pool (2 MiB segments), 1-10 MiB from 20 MiB segments, larger ones get their own segment
    rounded up to 2 MiB. A cached block is split to fit a smaller request (a small one when at
    least 512 bytes remain, a large one when more than 1 MiB remains); freed neighbours merge.
    Pools are per stream: see NOTE [ Stream safety in the allocator ]. A zero-byte request gets
    a real 512-byte block (a unique address, a zero-length `data` view), like any tiny request.

    Args:
        raw_backend: the device memory and events (see `RawBackend`).
        device_index: the device, for messages and snapshots.
    """

    def __init__(self, raw_backend: RawBackend, device_index: int = 0) -> None:
        self._backend = raw_backend
        self.device_index = device_index
        self._lock = threading.RLock()
        self._busy = False  # an operation is running; a free from inside it is deferred
        self._deferred_frees: list[Block] = []
        self._free_lists: dict[tuple[Hashable | None, bool], _FreeList] = {}
        self._segments: dict[int, Segment] = {}
        self._pending: dict[Hashable | None, deque[tuple[Any, Block]]] = {}
        self._stats = MemoryStats()
        self._trace: deque[tuple] = deque(maxlen=_DEFAULT_MAX_ENTRIES)
        self._recording = False
        self._fraction = 1.0  # of the device's total memory this allocator may reserve

    # -- public operations ----------------------------------------------------------------

    def malloc(self, nbytes: int, stream: Hashable | None = None) -> Block:
        """A block of at least `nbytes` bytes for use on `stream` (None: the default stream).

        Raises:
            OutOfMemoryError: the device cannot hold the request even after the cache is emptied.
        """
        nbytes = operator.index(nbytes)
        if nbytes < 0:
            raise ValueError(f"CachingAllocator.malloc: nbytes must be non-negative; got {nbytes}")
        with self._lock:
            self._begin("malloc")
            try:
                return self._malloc(nbytes, stream)
            finally:
                self._end()

    def free(self, block: Block) -> None:
        """Return a block to the cache (after the events of `record_stream`, if any)."""
        with self._lock:
            self._check_allocated(block, "free")
            if self._busy:  # a finalizer running inside another call: apply it when that call ends
                if any(b is block for b in self._deferred_frees):
                    raise RuntimeError(f"CachingAllocator.free: {block!r} is already being freed (freed twice?)")
                self._deferred_frees.append(block)
                return
            self._begin("free")
            try:
                self._free(block)
            finally:
                self._end()

    def record_stream(self, block: Block, stream: Hashable | None) -> None:
        """Mark `block` as used on `stream`: on free, it is reused only after that work is done."""
        with self._lock:
            self._check_allocated(block, "record_stream")
            if stream != block.stream:
                block._stream_uses.add(stream)

    def synchronize(self) -> None:
        """Wait for the events of every pending free and return those blocks to their pools."""
        with self._lock:
            self._begin("synchronize")
            try:
                self._synchronize_pending()
            finally:
                self._end()

    def empty_cache(self) -> None:
        """Give every unused segment back to the device (pending frees are waited for first)."""
        with self._lock:
            self._begin("empty_cache")
            try:
                self._release_cached()
            finally:
                self._end()

    def set_memory_fraction(self, fraction: float) -> None:
        """Cap the reserved memory at `fraction` of the device's total: a request past it empties the
        cache and, still past it, raises OutOfMemoryError (`torch.cuda.set_per_process_memory_fraction`)."""
        self._fraction = fraction

    def memory_fraction(self) -> float:
        return self._fraction

    # -- statistics -------------------------------------------------------------------------

    def memory_allocated(self) -> int:
        """Bytes in blocks handed out and not yet freed."""
        with self._lock:
            return self._stats.allocated_bytes.all.current

    def max_memory_allocated(self) -> int:
        """The peak of `memory_allocated()` since creation or `reset_peak_memory_stats()`."""
        with self._lock:
            return self._stats.allocated_bytes.all.peak

    def memory_reserved(self) -> int:
        """Bytes held from the device: allocated, pending, and cached."""
        with self._lock:
            return self._stats.reserved_bytes.all.current

    def max_memory_reserved(self) -> int:
        """The peak of `memory_reserved()` since creation or `reset_peak_memory_stats()`."""
        with self._lock:
            return self._stats.reserved_bytes.all.peak

    def memory_stats(self) -> OrderedDict[str, int]:
        """Every statistic under `torch.cuda.memory_stats()`'s names (see `MemoryStats`)."""
        with self._lock:
            return self._stats.as_dict()

    def reset_peak_memory_stats(self) -> None:
        """Set every peak to its current value."""
        with self._lock:
            self._stats.reset_peak()

    def reset_accumulated_memory_stats(self) -> None:
        """Zero the running totals (`*.allocated`, `*.freed`) and the `num_*` counters."""
        with self._lock:
            self._stats.reset_accumulated()

    def memory_summary(self) -> str:
        """A readable table of `memory_stats()`, laid out like `torch.cuda.memory_summary()`."""
        stats = self.memory_stats()
        return format_summary(stats, self.device_index, self._backend.total_memory())

    def record_history(self, enabled: bool = True, max_entries: int = _DEFAULT_MAX_ENTRIES) -> None:
        """Start (with an empty trace keeping the newest `max_entries` actions) or stop tracing.

        Stopping keeps the trace for `snapshot()` until tracing starts again.
        """
        if max_entries < 1:
            raise ValueError(f"CachingAllocator.record_history: max_entries must be positive; got {max_entries}")
        with self._lock:
            if enabled:
                self._trace = deque(maxlen=max_entries)
            self._recording = enabled

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """The segments with their blocks, and the trace of `record_history`.

        Returns:
            `{"segments": [...], "trace": [...]}`. A segment is a dict with `device`, `address`,
            `total_size`, `allocated_size`, `active_size`, `requested_size`, `stream`,
            `segment_type` ("small"/"large") and `blocks` (`address`, `size`, `requested_size`,
            `state`: "active_allocated", "active_pending_free" or "inactive"), by address. A
            trace entry has `action` ("segment_alloc", "alloc", "free_requested" (waiting for
            other streams), "free", "segment_free", "oom"), `address`, `size`, `stream`,
            `time_ns` (`time.perf_counter_ns()`) and, for "alloc", `cache_hit`.
        """
        with self._lock:
            # Defer frees from finalizers that run while the dicts are built (they would mutate
            # the lists being walked); a snapshot taken inside another call just reads.
            outer_call = self._busy
            self._busy = True
            try:
                segments = [self._segments[address] for address in sorted(self._segments)]
                return build_snapshot(segments, self._trace, self.device_index)
            finally:
                if not outer_call:
                    self._end()

    def __repr__(self) -> str:
        return (f"CachingAllocator(device_index={self.device_index}, allocated={self.memory_allocated()}, "
                f"reserved={self.memory_reserved()})")

    # -- internals (all run under the lock) -------------------------------------------------

    def _begin(self, name: str) -> None:
        """Start a state-changing call (the lock is held); frees from inside it will be deferred."""
        if self._busy:
            raise RuntimeError(
                f"CachingAllocator.{name}: called from inside another allocator call on the same "
                "thread (a finalizer or raw-backend callback); only free may be called there")
        self._busy = True

    def _end(self) -> None:
        """Finish a state-changing call: apply the frees deferred while it ran."""
        try:
            self._drain_deferred_frees()
        finally:
            self._busy = False

    def _drain_deferred_frees(self) -> None:
        while self._deferred_frees:
            self._free(self._deferred_frees.pop(0))

    def _malloc(self, nbytes: int, stream: Hashable | None) -> Block:
        """Best fit from the stream's pool, else a new segment; then split off what is not needed."""
        self._process_events()
        size = _round_size(nbytes)
        is_small = size <= _SMALL_SIZE
        free_list = self._free_lists.get((stream, is_small))
        source = free_list.best_fit(size) if free_list is not None else None
        cache_hit = source is not None
        if source is None:
            source = self._new_segment(size, nbytes, stream, is_small)
        data = self._backend.view(source.segment.handle, source.offset, nbytes)
        self._remove_free(source)
        if cache_hit:
            self._stats.num_cache_hits += 1
        block = self._carve(source, size)
        block.requested_size = nbytes
        block.data = data
        stats = self._stats
        stats.allocation.increase(is_small, 1)
        stats.allocated_bytes.increase(is_small, block.size)
        stats.active.increase(is_small, 1)
        stats.active_bytes.increase(is_small, block.size)
        stats.requested_bytes.increase(is_small, nbytes)
        self._record("alloc", block.ptr, block.size, stream, cache_hit)
        return block

    def _check_allocated(self, block: Block, op: str) -> None:
        if not isinstance(block, Block):
            raise TypeError(f"CachingAllocator.{op}: expected a Block; got {type(block).__name__}")
        if block.state is not BlockState.ALLOCATED:
            raise RuntimeError(f"CachingAllocator.{op}: {block!r} is not allocated (freed twice?)")
        if self._segments.get(block.segment.address) is not block.segment:
            raise ValueError(f"CachingAllocator.{op}: {block!r} was not allocated by this allocator")

    def _new_segment(self, size: int, nbytes: int, stream: Hashable | None, is_small: bool) -> Block:
        """A raw malloc for `size` (emptying the cache and retrying once on OOM), cached as one free block."""
        segment_size = _segment_size(size)
        try:
            handle = self._raw_malloc(segment_size)
        except RawOutOfMemory:
            self._stats.num_alloc_retries += 1
            self._release_cached()
            try:
                handle = self._raw_malloc(segment_size)
            except RawOutOfMemory as exc:
                self._stats.num_ooms += 1
                self._record("oom", 0, segment_size, stream)
                raise self._out_of_memory(nbytes, segment_size) from exc
        segment = Segment(handle, self._backend.address(handle), segment_size, stream, is_small)
        self._segments[segment.address] = segment
        block = Block(segment, 0, segment_size, BlockState.FREE)
        segment.head = block
        self._stats.segment.increase(is_small, 1)
        self._stats.reserved_bytes.increase(is_small, segment_size)
        self._stats.num_device_alloc += 1
        self._record("segment_alloc", segment.address, segment_size, stream)
        self._insert_free(block)
        return block

    def _raw_malloc(self, segment_size: int):
        """The backend's malloc, refused (RawOutOfMemory) past the memory fraction."""
        if self._fraction < 1.0:
            reserved = self._stats.reserved_bytes.all.current
            if reserved + segment_size > self._fraction * self._backend.total_memory():
                raise RawOutOfMemory(f"past the memory fraction {self._fraction}")
        return self._backend.malloc(segment_size)

    def _out_of_memory(self, nbytes: int, segment_size: int) -> OutOfMemoryError:
        total = self._backend.total_memory()
        allocated = self._stats.allocated_bytes.all.current
        reserved = self._stats.reserved_bytes.all.current
        message = (
            f"CUDA out of memory. Tried to allocate {format_bytes(nbytes)} ({nbytes} bytes, as a "
            f"{format_bytes(segment_size)} segment) on device {self.device_index}. The device has a total "
            f"capacity of {format_bytes(total)} ({total} bytes); ember has {format_bytes(allocated)} "
            f"({allocated} bytes) allocated and {format_bytes(reserved)} ({reserved} bytes) reserved, "
            f"{format_bytes(reserved - allocated)} ({reserved - allocated} bytes) of which is reserved but "
            "unallocated (free space inside segments that still hold live blocks). Free tensors you no "
            "longer need or reduce the batch size."
        )
        if self._fraction < 1.0:
            message += (f" The allocator is limited to {self._fraction} of the device's memory "
                        f"({format_bytes(int(self._fraction * total))}) by set_per_process_memory_fraction.")
        return OutOfMemoryError(message, nbytes, allocated, reserved, total, self.device_index)

    def _carve(self, source: Block, size: int) -> Block:
        """Replace the free block `source` by an allocated block of `size` and, if worth it, a free rest.

        The caller gets a new Block object every time, so a stale reference to a block freed
        earlier is never mistaken for a live one (its state stays FREE or RETIRED).
        """
        segment = source.segment
        split = _should_split(source.size, size, segment.is_small)
        block = Block(segment, source.offset, size if split else source.size, BlockState.ALLOCATED)
        self._replace(source, block)
        if split:
            rest = Block(segment, source.offset + size, source.size - size, BlockState.FREE)
            rest._prev, rest._next = block, block._next
            if block._next is not None:
                block._next._prev = rest
            block._next = rest
            self._insert_free(rest)
        source.state = BlockState.RETIRED
        return block

    @staticmethod
    def _replace(old: Block, new: Block) -> None:
        """Put `new` where `old` is in its segment's list of blocks."""
        new._prev, new._next = old._prev, old._next
        if old._prev is not None:
            old._prev._next = new
        else:
            old.segment.head = new
        if old._next is not None:
            old._next._prev = new
        old._prev = old._next = None

    def _free(self, block: Block) -> None:
        """The caller is done with `block`: cache it now, or after events on the streams it was used on."""
        is_small = block.segment.is_small
        uses = block._stream_uses
        events = [(stream, self._backend.record_event(stream)) for stream in uses]
        stats = self._stats
        stats.allocation.decrease(is_small, 1)
        stats.allocated_bytes.decrease(is_small, block.size)
        stats.requested_bytes.decrease(is_small, block.requested_size)
        block.data = None
        block._stream_uses = set()
        if not events:
            self._release_block(block)
            return
        block.state = BlockState.PENDING_FREE
        block._event_count = len(events)
        for stream, event in events:
            self._pending.setdefault(stream, deque()).append((event, block))
        self._record("free_requested", block.ptr, block.size, block.stream)

    def _release_block(self, block: Block) -> None:
        """Return a block nobody uses any more to its stream's pool, merged with free neighbours."""
        is_small = block.segment.is_small
        self._stats.active.decrease(is_small, 1)
        self._stats.active_bytes.decrease(is_small, block.size)
        self._record("free", block.ptr, block.size, block.stream)
        block.state = BlockState.FREE
        block.requested_size = 0
        prev = block._prev
        if prev is not None and prev.state is BlockState.FREE:
            self._remove_free(prev)
            block.offset, block.ptr, block.size = prev.offset, prev.ptr, block.size + prev.size
            self._unlink(prev)
        nxt = block._next
        if nxt is not None and nxt.state is BlockState.FREE:
            self._remove_free(nxt)
            block.size += nxt.size
            self._unlink(nxt)
        self._insert_free(block)

    @staticmethod
    def _unlink(block: Block) -> None:
        """Drop a block that a neighbour has absorbed from its segment's list."""
        if block._prev is not None:
            block._prev._next = block._next
        else:
            block.segment.head = block._next
        if block._next is not None:
            block._next._prev = block._prev
        block._prev = block._next = None
        block.state = BlockState.RETIRED

    def _insert_free(self, block: Block) -> None:
        key = (block.stream, block.segment.is_small)
        free_list = self._free_lists.get(key)
        if free_list is None:
            free_list = self._free_lists[key] = _FreeList()
        free_list.insert(block)
        # A block's split status only changes through merges, which take it out of the list first.
        block._counted_split = block.is_split
        if block._counted_split:
            self._stats.inactive_split.increase(key[1], 1)
            self._stats.inactive_split_bytes.increase(key[1], block.size)

    def _remove_free(self, block: Block) -> None:
        key = (block.stream, block.segment.is_small)
        free_list = self._free_lists[key]
        free_list.remove(block)
        if not free_list.keys:  # do not keep a dead stream alive through an empty pool
            del self._free_lists[key]
        if block._counted_split:
            self._stats.inactive_split.decrease(key[1], 1)
            self._stats.inactive_split_bytes.decrease(key[1], block.size)
            block._counted_split = False

    def _process_events(self) -> None:
        """Return the blocks whose events have all completed to their pools, without blocking."""
        for stream in list(self._pending):
            queue = self._pending[stream]
            while queue and self._backend.event_query(queue[0][0]):
                self._event_done(queue.popleft()[1])
            if not queue:
                del self._pending[stream]

    def _synchronize_pending(self) -> None:
        for stream in list(self._pending):
            queue = self._pending.pop(stream)
            while queue:
                event, block = queue.popleft()
                self._backend.event_synchronize(event)
                self._event_done(block)

    def _event_done(self, block: Block) -> None:
        block._event_count -= 1
        if block._event_count == 0:
            self._release_block(block)

    def _release_cached(self) -> None:
        """Free every segment that is one unused block (after waiting for the pending frees)."""
        self._drain_deferred_frees()
        self._synchronize_pending()
        unused = [a for a, s in self._segments.items() if s.head.state is BlockState.FREE and s.head._next is None]
        for address in unused:
            segment = self._segments.pop(address)
            block = segment.head
            self._remove_free(block)
            block.state = BlockState.RETIRED
            segment.head = None
            handle, segment.handle = segment.handle, None
            self._backend.free(handle)
            self._stats.segment.decrease(segment.is_small, 1)
            self._stats.reserved_bytes.decrease(segment.is_small, segment.size)
            self._stats.num_device_free += 1
            self._record("segment_free", address, segment.size, segment.stream)

    def _record(self, action: str, address: int, size: int, stream: Hashable | None, cache_hit: bool = False) -> None:
        if self._recording:
            self._trace.append((time.perf_counter_ns(), action, address, size, stream, cache_hit))
