"""A fake raw backend for the caching allocator: fake addresses, counted mallocs, manual events.

Addresses are integers in a fake address space (reused after free, like a real device's), the
capacity is configurable so tests can run out of memory, streams are plain named objects, and
events complete only when a test says so (or when the allocator synchronizes on them).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

from ember.core.cuda.allocator import RawOutOfMemory

BASE_ADDRESS = 0x7F00_0000_0000


class FakeStream:
    """An opaque, hashable stream (identity semantics, like numba's stream objects)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"FakeStream({self.name!r})"


@dataclass(eq=False)
class FakeSegment:
    address: int
    nbytes: int
    freed: bool = False


@dataclass(eq=False)
class FakeView:
    """What the fake `view` returns: which bytes of which segment a block's data covers."""

    segment: FakeSegment
    offset: int
    nbytes: int


@dataclass(eq=False)
class FakeEvent:
    stream: object
    done: bool = False


@dataclass(eq=False)
class FakeBackend:
    """A raw backend over a fake address space of `capacity` bytes."""

    capacity: int = 1 << 40
    mallocs: int = 0
    frees: int = 0
    events: list[FakeEvent] = field(default_factory=list)
    # Called at the start of every malloc: lets a test run code "inside" the allocator, like a
    # finalizer that the garbage collector starts during a raw allocation.
    on_malloc: Callable[[], None] | None = None
    _live: list[FakeSegment] = field(default_factory=list)  # by address

    @property
    def used(self) -> int:
        return sum(s.nbytes for s in self._live)

    def live_segments(self) -> list[FakeSegment]:
        return list(self._live)

    def malloc(self, nbytes: int) -> FakeSegment:
        if self.on_malloc is not None:
            self.on_malloc()
        if self.used + nbytes > self.capacity:
            raise RawOutOfMemory(f"fake device: {nbytes} bytes requested, {self.capacity - self.used} free")
        address = BASE_ADDRESS  # first fit in the address space, so addresses get reused
        for segment in self._live:
            if address + nbytes <= segment.address:
                break
            address = max(address, segment.address + segment.nbytes)
        segment = FakeSegment(address, nbytes)
        bisect.insort(self._live, segment, key=lambda s: s.address)
        self.mallocs += 1
        return segment

    def free(self, segment: FakeSegment) -> None:
        assert not segment.freed, "fake backend: segment freed twice"
        segment.freed = True
        self._live.remove(segment)
        self.frees += 1

    def address(self, segment: FakeSegment) -> int:
        return segment.address

    def total_memory(self) -> int:
        return self.capacity

    def view(self, segment: FakeSegment, offset: int, nbytes: int) -> FakeView:
        assert not segment.freed and 0 <= offset and offset + nbytes <= segment.nbytes
        return FakeView(segment, offset, nbytes)

    def record_event(self, stream: object) -> FakeEvent:
        event = FakeEvent(stream)
        self.events.append(event)
        return event

    def event_query(self, event: FakeEvent) -> bool:
        return event.done

    def event_synchronize(self, event: FakeEvent) -> None:
        event.done = True  # the host waited until the stream got there

    def complete_all(self) -> None:
        for event in self.events:
            event.done = True
