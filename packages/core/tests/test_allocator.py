"""The caching allocator, on a fake raw backend (fake addresses, manual events); the Numba backend
under the simulator, in a subprocess."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import textwrap
import threading

import pytest
from fake_backend import FakeBackend, FakeEvent, FakeStream
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ember.core.cuda.allocator import Block, BlockState, CachingAllocator, OutOfMemoryError, Segment
from ember.core.cuda.allocator_stats import format_bytes

KiB = 1024
MiB = 1024 * KiB
SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")


@pytest.fixture
def backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def alloc(backend: FakeBackend) -> CachingAllocator:
    return CachingAllocator(backend)


def check_segments_tile(alloc: CachingAllocator) -> None:
    """Every segment is covered exactly by its blocks, and no two free blocks are neighbours."""
    for segment in alloc.snapshot()["segments"]:
        address = segment["address"]
        previous_state = None
        for block in segment["blocks"]:
            assert block["address"] == address
            assert block["size"] > 0 and block["size"] % 512 == 0
            assert not (block["state"] == previous_state == "inactive"), "free neighbours were not merged"
            address += block["size"]
            previous_state = block["state"]
        assert address == segment["address"] + segment["total_size"]


# -- sizes and pools ------------------------------------------------------------------------


@pytest.mark.parametrize("nbytes, size", [(1, 512), (511, 512), (512, 512), (513, 1024), (1000, 1024), (5000, 5120)])
def test_malloc_rounds_requests_up_to_multiples_of_512_bytes(alloc, nbytes, size):
    block = alloc.malloc(nbytes)
    assert (block.size, block.requested_size) == (size, nbytes)
    assert block.data.nbytes == nbytes and block.data.offset == block.offset
    assert alloc.memory_allocated() == size
    assert alloc.memory_stats()["requested_bytes.all.current"] == nbytes


def test_zero_byte_request_gets_a_distinct_minimum_block(alloc):
    a, b = alloc.malloc(0), alloc.malloc(0)
    assert a.size == b.size == 512 and a.requested_size == 0 and a.data.nbytes == 0
    assert a.ptr != b.ptr
    alloc.free(a)
    alloc.free(b)
    assert alloc.memory_allocated() == 0


@pytest.mark.parametrize(
    "nbytes, segment_size, pool",
    [
        (1, 2 * MiB, "small"),
        (1 * MiB, 2 * MiB, "small"),
        (1 * MiB + 1, 20 * MiB, "large"),
        (10 * MiB - 512, 20 * MiB, "large"),
        (10 * MiB - 1, 10 * MiB, "large"),  # rounds up to 10 MiB first
        (10 * MiB, 10 * MiB, "large"),
        (11 * MiB, 12 * MiB, "large"),
        (21 * MiB + 1, 22 * MiB, "large"),
    ],
)
def test_pool_and_segment_size_follow_pytorchs_rules(alloc, nbytes, segment_size, pool):
    alloc.malloc(nbytes)
    (segment,) = alloc.snapshot()["segments"]
    assert (segment["total_size"], segment["segment_type"]) == (segment_size, pool)
    stats = alloc.memory_stats()
    assert stats[f"reserved_bytes.{pool}_pool.current"] == segment_size
    other = "large" if pool == "small" else "small"
    assert stats[f"allocation.{other}_pool.current"] == 0


# -- caching --------------------------------------------------------------------------------


def test_second_iteration_of_a_training_loop_allocates_no_new_segments(alloc, backend):
    weights = [alloc.malloc(n) for n in (4 * KiB, 3 * MiB, 25 * MiB)]
    activation_sizes = (256 * KiB, 5 * MiB, 300, 12 * MiB, 64 * KiB, 700 * KiB)

    def iteration() -> None:
        activations = [alloc.malloc(n) for n in activation_sizes]
        grads = [alloc.malloc(w.requested_size) for w in weights]
        for block in reversed(activations):  # backward frees activations last-in first-out
            alloc.free(block)
        for block in grads:
            alloc.free(block)

    iteration()
    segments_after_first = backend.mallocs
    assert segments_after_first > 0
    for _ in range(3):
        hits = alloc.memory_stats()["num_cache_hits"]
        iteration()
        assert backend.mallocs == segments_after_first
        assert alloc.memory_stats()["num_cache_hits"] == hits + len(activation_sizes) + len(weights)
    assert alloc.memory_stats()["num_device_alloc"] == segments_after_first
    assert alloc.memory_allocated() == sum(w.size for w in weights)


def test_split_blocks_merge_back_into_one_block_covering_the_segment(alloc, backend):
    a, b, c = (alloc.malloc(1000) for _ in range(3))
    assert backend.mallocs == 1
    assert (b.ptr, c.ptr) == (a.ptr + 1024, a.ptr + 2048)
    assert a.segment is b.segment is c.segment and a.offset == 0

    alloc.free(b)
    (segment,) = alloc.snapshot()["segments"]
    assert [x["state"] for x in segment["blocks"]] == ["active_allocated", "inactive", "active_allocated", "inactive"]
    check_segments_tile(alloc)

    alloc.free(a)  # merges with b
    blocks = alloc.snapshot()["segments"][0]["blocks"]
    assert blocks[0] == {"address": a.ptr, "size": 2048, "requested_size": 0, "state": "inactive"}
    check_segments_tile(alloc)

    alloc.free(c)  # merges with both neighbours
    (segment,) = alloc.snapshot()["segments"]
    assert segment["blocks"] == [{"address": a.ptr, "size": 2 * MiB, "requested_size": 0, "state": "inactive"}]
    assert alloc.memory_stats()["inactive_split_bytes.all.current"] == 0


def test_small_block_is_split_while_at_least_512_bytes_remain(alloc, backend):
    a = alloc.malloc(1 * MiB)
    b = alloc.malloc(1 * MiB - 512)  # leaves exactly 512 bytes: still split
    c = alloc.malloc(512)  # takes the rest exactly
    assert backend.mallocs == 1
    assert (a.size, b.size, c.size) == (1 * MiB, 1 * MiB - 512, 512)
    assert c.ptr + c.size == a.ptr + 2 * MiB


def test_large_block_is_split_only_when_more_than_1_mib_remains(alloc, backend):
    a = alloc.malloc(2 * MiB)
    assert a.size == 2 * MiB  # 18 MiB of the 20 MiB segment remain cached
    alloc.free(a)
    b = alloc.malloc(19 * MiB)  # 1 MiB would remain: not worth a split
    assert (b.ptr, b.size, b.requested_size) == (a.ptr, 20 * MiB, 19 * MiB)
    assert backend.mallocs == 1 and alloc.memory_stats()["num_cache_hits"] == 1


def test_best_fit_takes_the_smallest_cached_block_that_fits(alloc):
    blocks = [alloc.malloc(n) for n in (4096, 512, 2048, 512, 1024, 512)]
    for i in (0, 2, 4):  # free 4096, 2048, 1024: separated by live blocks, so no merging
        alloc.free(blocks[i])
    assert alloc.malloc(1500).ptr == blocks[2].ptr
    assert alloc.malloc(1000).ptr == blocks[4].ptr


# -- streams --------------------------------------------------------------------------------


def test_block_freed_on_one_stream_is_reused_at_once_on_that_stream_only(alloc, backend):
    s1, s2 = FakeStream("s1"), FakeStream("s2")
    a = alloc.malloc(1000, stream=s1)
    alloc.free(a)
    b = alloc.malloc(1000, stream=s2)
    assert b.segment is not a.segment and b.stream is s2 and backend.mallocs == 2
    c = alloc.malloc(1000, stream=s1)
    assert c.ptr == a.ptr and c.stream is s1
    d = alloc.malloc(1000)  # the default stream is a stream of its own
    assert d.segment not in (a.segment, b.segment) and d.stream is None and backend.mallocs == 3
    assert {s["stream"] for s in alloc.snapshot()["segments"]} == {s1, s2, None}


def test_record_stream_keeps_a_freed_block_out_of_reuse_until_its_event_completes(alloc, backend):
    s1, s2 = FakeStream("s1"), FakeStream("s2")
    a = alloc.malloc(1000, stream=s1)
    a_ptr = a.ptr
    alloc.record_stream(a, s2)
    alloc.free(a)
    (event,) = backend.events
    assert event.stream is s2 and not event.done
    stats = alloc.memory_stats()
    assert stats["allocated_bytes.all.current"] == 0 and stats["active_bytes.all.current"] == 1024
    assert alloc.snapshot()["segments"][0]["blocks"][0]["state"] == "active_pending_free"

    b = alloc.malloc(1000, stream=s1)
    assert b.ptr != a_ptr  # still in use on s2
    event.done = True
    c = alloc.malloc(1000, stream=s1)
    assert c.ptr == a_ptr
    assert alloc.memory_stats()["active_bytes.all.current"] == 2048


def test_block_used_on_two_other_streams_waits_for_both_events(alloc, backend):
    s1, s2, s3 = FakeStream("s1"), FakeStream("s2"), FakeStream("s3")
    a = alloc.malloc(1000, stream=s1)
    a_ptr = a.ptr
    alloc.record_stream(a, s2)
    alloc.record_stream(a, s3)
    alloc.record_stream(a, s2)
    alloc.free(a)
    assert len(backend.events) == 2
    backend.events[0].done = True
    assert alloc.malloc(1000, stream=s1).ptr != a_ptr
    backend.events[1].done = True
    assert alloc.malloc(1000, stream=s1).ptr == a_ptr


def test_record_stream_on_the_blocks_own_stream_records_nothing(alloc, backend):
    s1 = FakeStream("s1")
    a = alloc.malloc(1000, stream=s1)
    a_ptr = a.ptr
    alloc.record_stream(a, s1)
    alloc.free(a)
    assert backend.events == []
    assert alloc.malloc(1000, stream=s1).ptr == a_ptr


def test_synchronize_and_empty_cache_wait_for_pending_frees(alloc, backend):
    s1, s2 = FakeStream("s1"), FakeStream("s2")
    a, b = alloc.malloc(1000, stream=s1), alloc.malloc(5 * MiB, stream=s1)
    for block in (a, b):
        alloc.record_stream(block, s2)
    alloc.free(a)
    alloc.synchronize()
    assert backend.events[0].done
    assert alloc.memory_stats()["active_bytes.all.current"] == b.size
    alloc.free(b)
    alloc.empty_cache()
    assert all(e.done for e in backend.events)
    assert alloc.memory_reserved() == 0 and backend.frees == 2 and backend.used == 0


# -- out of memory --------------------------------------------------------------------------


def test_out_of_memory_empties_the_cache_retries_then_raises_with_byte_counts():
    backend = FakeBackend(capacity=40 * MiB)
    alloc = CachingAllocator(backend)
    alloc.free(alloc.malloc(5 * MiB))  # a 20 MiB segment, now cached
    b = alloc.malloc(30 * MiB)  # fits only once the cached segment is gone
    stats = alloc.memory_stats()
    assert (stats["num_alloc_retries"], stats["num_device_free"], stats["num_ooms"]) == (1, 1, 0)
    assert alloc.memory_reserved() == 30 * MiB

    with pytest.raises(OutOfMemoryError) as info:
        alloc.malloc(30 * MiB)
    err = info.value
    assert isinstance(err, RuntimeError)
    message = str(err)
    assert "Tried to allocate 30.00 MiB (31457280 bytes" in message
    assert "total capacity of 40.00 MiB (41943040 bytes)" in message
    assert "30.00 MiB (31457280 bytes) allocated" in message and "(31457280 bytes) reserved" in message
    assert (err.requested_bytes, err.allocated_bytes, err.reserved_bytes, err.total_bytes) == (
        30 * MiB, 30 * MiB, 30 * MiB, 40 * MiB)
    stats = alloc.memory_stats()
    assert (stats["num_alloc_retries"], stats["num_ooms"]) == (2, 1)

    alloc.free(b)  # the allocator is still usable
    assert alloc.malloc(30 * MiB).ptr == b.ptr


def test_out_of_memory_error_survives_pickling():
    err = OutOfMemoryError("CUDA out of memory", 1, 2, 3, 4, 5)
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == str(err)
    assert (copy.requested_bytes, copy.allocated_bytes, copy.reserved_bytes, copy.total_bytes, copy.device_index) == (
        1, 2, 3, 4, 5)


# -- statistics -----------------------------------------------------------------------------


def test_allocated_and_reserved_track_current_and_peak(alloc):
    a = alloc.malloc(1000)
    b = alloc.malloc(5 * MiB)
    assert alloc.memory_allocated() == alloc.max_memory_allocated() == 1024 + 5 * MiB
    assert alloc.memory_reserved() == alloc.max_memory_reserved() == 22 * MiB
    alloc.free(b)
    assert alloc.memory_allocated() == 1024 and alloc.max_memory_allocated() == 1024 + 5 * MiB
    assert alloc.memory_reserved() == 22 * MiB
    alloc.reset_peak_memory_stats()
    assert alloc.max_memory_allocated() == 1024
    alloc.empty_cache()
    assert alloc.memory_reserved() == 2 * MiB and alloc.max_memory_reserved() == 22 * MiB

    stats = alloc.memory_stats()
    assert stats["allocation.all.current"] == 1 and stats["allocation.all.allocated"] == 2
    assert stats["allocation.all.freed"] == 1 and stats["allocation.small_pool.current"] == 1
    assert stats["segment.all.current"] == 1 and stats["segment.large_pool.freed"] == 1
    assert stats["requested_bytes.all.current"] == 1000
    assert stats["inactive_split_bytes.small_pool.current"] == 2 * MiB - 1024
    assert stats["num_device_alloc"] == 2 and stats["num_device_free"] == 1

    alloc.reset_accumulated_memory_stats()
    stats = alloc.memory_stats()
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == stats["num_device_alloc"] == 0
    assert stats["allocation.all.current"] == 1
    alloc.free(a)


def test_memory_stats_uses_pytorchs_key_names(alloc):
    stats = alloc.memory_stats()
    for name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
                 "active_bytes", "inactive_split_bytes", "requested_bytes"):
        for pool in ("all", "small_pool", "large_pool"):
            for metric in ("current", "peak", "allocated", "freed"):
                assert stats[f"{name}.{pool}.{metric}"] == 0
    for counter in ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free", "num_cache_hits"):
        assert stats[counter] == 0
    assert list(stats) == sorted(stats)


def test_memory_summary_shows_the_numbers(alloc):
    alloc.malloc(3 * MiB + 512)
    alloc.free(alloc.malloc(100))
    summary = alloc.memory_summary()
    assert "memory summary, device ID 0" in summary
    assert format_bytes(alloc.memory_allocated()) in summary  # 3.00 MiB
    assert format_bytes(alloc.memory_reserved()) in summary  # 22.00 MiB
    assert "cache hits: 0" in summary and "device mallocs: 2" in summary
    assert "| Allocations" in summary and "from small pool" in summary


# -- snapshot and trace ---------------------------------------------------------------------


def test_snapshot_describes_segments_and_blocks(alloc):
    s1 = FakeStream("s1")
    a = alloc.malloc(700)
    b = alloc.malloc(12 * MiB, stream=s1)
    segments = alloc.snapshot()["segments"]
    assert [s["address"] for s in segments] == sorted(s["address"] for s in segments)
    by_stream = {s["stream"]: s for s in segments}
    small = by_stream[None]
    assert small["segment_type"] == "small" and small["total_size"] == 2 * MiB
    assert (small["allocated_size"], small["active_size"], small["requested_size"]) == (1024, 1024, 700)
    assert small["blocks"][0] == {"address": a.ptr, "size": 1024, "requested_size": 700, "state": "active_allocated"}
    large = by_stream[s1]
    assert large["segment_type"] == "large" and large["total_size"] == 12 * MiB == b.size
    assert large["device"] == 0
    check_segments_tile(alloc)


def test_history_records_every_action_with_a_timestamp(alloc):
    assert alloc.snapshot()["trace"] == []  # off by default
    alloc.record_history(True)
    a = alloc.malloc(1000)
    alloc.free(a)
    b = alloc.malloc(1000)
    alloc.free(b)
    alloc.empty_cache()
    trace = alloc.snapshot()["trace"]
    assert [e["action"] for e in trace] == ["segment_alloc", "alloc", "free", "alloc", "free", "segment_free"]
    assert [e.get("cache_hit") for e in trace if e["action"] == "alloc"] == [False, True]
    assert trace[0]["size"] == 2 * MiB and trace[1]["size"] == 1024 and trace[1]["address"] == a.ptr
    times = [e["time_ns"] for e in trace]
    assert all(isinstance(t, int) for t in times) and times == sorted(times)

    alloc.record_history(False)
    alloc.free(alloc.malloc(1000))
    assert len(alloc.snapshot()["trace"]) == len(trace)  # kept, not extended

    alloc.record_history(True, max_entries=2)
    alloc.free(alloc.malloc(1000))
    alloc.malloc(1000)
    assert [e["action"] for e in alloc.snapshot()["trace"]] == ["free", "alloc"]


def test_history_shows_a_pending_free_completing_later(alloc, backend):
    s1, s2 = FakeStream("s1"), FakeStream("s2")
    alloc.record_history(True)
    a = alloc.malloc(1000, stream=s1)
    alloc.record_stream(a, s2)
    alloc.free(a)
    backend.complete_all()
    alloc.malloc(1000, stream=s1)
    actions = [(e["action"], e["stream"]) for e in alloc.snapshot()["trace"]]
    assert actions == [("segment_alloc", s1), ("alloc", s1), ("free_requested", s1), ("free", s1), ("alloc", s1)]


def test_history_records_the_oom():
    alloc = CachingAllocator(FakeBackend(capacity=4 * MiB))
    alloc.record_history(True)
    with pytest.raises(OutOfMemoryError):
        alloc.malloc(8 * MiB)
    assert [e["action"] for e in alloc.snapshot()["trace"]] == ["oom"]


# -- misuse and re-entrancy -----------------------------------------------------------------


def test_free_rejects_double_free_stale_and_foreign_blocks(alloc):
    a = alloc.malloc(1000)
    alloc.free(a)
    with pytest.raises(RuntimeError, match="freed twice"):
        alloc.free(a)
    b = alloc.malloc(1000)  # the same memory, a new Block: the stale `a` cannot free it
    assert b.ptr == a.ptr
    with pytest.raises(RuntimeError, match="freed twice"):
        alloc.free(a)
    assert b.state is BlockState.ALLOCATED
    with pytest.raises(RuntimeError, match="not allocated"):
        alloc.record_stream(a, FakeStream("s"))
    other = CachingAllocator(FakeBackend()).malloc(1000)
    with pytest.raises(ValueError, match="not allocated by this allocator"):
        alloc.free(other)
    with pytest.raises(TypeError, match="expected a Block"):
        alloc.free(b.data)


def test_malloc_rejects_bad_sizes(alloc):
    with pytest.raises(ValueError, match="non-negative"):
        alloc.malloc(-1)
    with pytest.raises(TypeError):
        alloc.malloc(1.5)


def test_free_from_a_finalizer_inside_malloc_is_applied_when_malloc_returns(alloc, backend):
    a = alloc.malloc(1000)

    def finalizer() -> None:  # as if the garbage collector collected a's owner mid-malloc
        backend.on_malloc = None
        alloc.free(a)

    backend.on_malloc = finalizer
    b = alloc.malloc(30 * MiB)
    assert a.state is not BlockState.ALLOCATED
    assert alloc.memory_allocated() == b.size
    check_segments_tile(alloc)


def test_free_from_a_finalizer_during_snapshot_is_applied_afterwards(alloc, backend):
    a = alloc.malloc(1000)
    alloc.record_history(True)
    real_blocks = Segment.blocks

    def blocks_with_finalizer(segment):  # as if the garbage collector ran while the snapshot is built
        alloc.free(a)
        return real_blocks(segment)

    Segment.blocks = blocks_with_finalizer
    try:
        snap = alloc.snapshot()
    finally:
        Segment.blocks = real_blocks
    assert snap["segments"][0]["blocks"][0]["state"] == "active_allocated"
    assert a.state is not BlockState.ALLOCATED and alloc.memory_allocated() == 0
    assert [e["action"] for e in alloc.snapshot()["trace"]] == ["free"]


def test_malloc_from_inside_the_allocator_is_an_error(alloc, backend):
    backend.on_malloc = lambda: alloc.malloc(10)
    with pytest.raises(RuntimeError, match="inside another allocator call"):
        alloc.malloc(1000)
    backend.on_malloc = None
    assert alloc.memory_allocated() == alloc.memory_reserved() == 0
    alloc.malloc(1000)


def test_threads_freeing_and_allocating_concurrently_keep_the_books_balanced(alloc, backend):
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        stream = FakeStream(f"t{seed}") if seed % 2 else None
        live: list[Block] = []
        try:
            for _ in range(300):
                if live and rng.random() < 0.5:
                    alloc.free(live.pop(rng.randrange(len(live))))
                else:
                    live.append(alloc.malloc(rng.choice((100, 4000, 300 * KiB, 3 * MiB)), stream))
            for block in live:
                alloc.free(block)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert alloc.memory_allocated() == 0
    assert alloc.memory_reserved() == backend.used
    check_segments_tile(alloc)
    alloc.empty_cache()
    assert backend.used == 0 and backend.mallocs == backend.frees


# -- random sequences -----------------------------------------------------------------------

SIZES = st.one_of(
    st.integers(0, 4096),
    st.integers(4097, 1 * MiB),
    st.integers(1 * MiB + 1, 10 * MiB),
    st.integers(10 * MiB, 30 * MiB),
)


class AllocatorMachine(RuleBasedStateMachine):
    """Random malloc/free/record_stream/event/empty_cache sequences on a small fake device."""

    def __init__(self) -> None:
        super().__init__()
        self.backend = FakeBackend(capacity=128 * MiB)
        self.alloc = CachingAllocator(self.backend)
        self.streams = [None, FakeStream("a"), FakeStream("b")]
        self.live: list[Block] = []
        self.uses: dict[int, set] = {}  # id(block) -> the other streams record_stream named
        # Freed blocks waiting on events: (start, end, events); no malloc may hand them out.
        self.waiting: list[tuple[int, int, list[FakeEvent]]] = []

    def _still_waiting(self) -> list[tuple[int, int, list[FakeEvent]]]:
        self.waiting = [w for w in self.waiting if not all(e.done for e in w[2])]
        return self.waiting

    @rule(nbytes=SIZES, stream=st.sampled_from([0, 1, 2]))
    def malloc(self, nbytes: int, stream: int) -> None:
        try:
            block = self.alloc.malloc(nbytes, self.streams[stream])
        except OutOfMemoryError as err:
            assert "Tried to allocate" in str(err)
            return
        assert block.stream is self.streams[stream] and block.segment.stream is block.stream
        assert block.size >= nbytes and block.size % 512 == 0 and block.requested_size == nbytes
        view = block.data
        assert (view.segment, view.offset, view.nbytes) == (block.segment.handle, block.offset, nbytes)
        for start, end, _ in self._still_waiting():
            assert block.ptr + block.size <= start or block.ptr >= end, "handed out memory still used on a stream"
        self.live.append(block)
        self.uses[id(block)] = set()

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def free(self, data: st.DataObject) -> None:
        block = self.live.pop(data.draw(st.integers(0, len(self.live) - 1)))
        start, end, n_events = block.ptr, block.ptr + block.size, len(self.backend.events)
        uses = self.uses.pop(id(block))
        self.alloc.free(block)
        events = self.backend.events[n_events:]
        assert sorted(map(id, (e.stream for e in events))) == sorted(map(id, uses)), "one event per other stream"
        if events:
            self.waiting.append((start, end, events))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), stream=st.sampled_from([0, 1, 2]))
    def record_stream(self, data: st.DataObject, stream: int) -> None:
        block = data.draw(st.sampled_from(self.live))
        self.alloc.record_stream(block, self.streams[stream])
        if self.streams[stream] is not block.stream:
            self.uses[id(block)].add(self.streams[stream])

    @precondition(lambda self: any(not e.done for e in self.backend.events))
    @rule(data=st.data())
    def complete_event(self, data: st.DataObject) -> None:
        data.draw(st.sampled_from([e for e in self.backend.events if not e.done])).done = True

    @rule()
    def empty_cache(self) -> None:
        self.alloc.empty_cache()
        assert not self._still_waiting()

    @invariant()
    def live_blocks_never_overlap(self) -> None:
        ranges = sorted([(b.ptr, b.ptr + b.size) for b in self.live] + [w[:2] for w in self._still_waiting()])
        for (_, end), (start, _) in zip(ranges, ranges[1:]):
            assert end <= start

    @invariant()
    def blocks_lie_inside_live_segments(self) -> None:
        for block in self.live:
            segment = block.segment
            assert not segment.handle.freed
            assert segment.address <= block.ptr and block.ptr + block.size <= segment.address + segment.size
            assert block.ptr == segment.address + block.offset

    @invariant()
    def bytes_add_up(self) -> None:
        snapshot, stats = self.alloc.snapshot(), self.alloc.memory_stats()
        blocks = [b for s in snapshot["segments"] for b in s["blocks"]]
        by_state = {state: sum(b["size"] for b in blocks if b["state"] == state)
                    for state in ("active_allocated", "active_pending_free", "inactive")}
        allocated = sum(b.size for b in self.live)
        assert by_state["active_allocated"] == allocated == self.alloc.memory_allocated()
        # allocated + free-cached == reserved, counting blocks that wait on events as still in use
        assert allocated + by_state["active_pending_free"] + by_state["inactive"] == self.alloc.memory_reserved()
        assert self.alloc.memory_reserved() == self.backend.used
        assert stats["active_bytes.all.current"] == allocated + by_state["active_pending_free"]
        assert stats["requested_bytes.all.current"] == sum(b.requested_size for b in self.live)
        assert stats["segment.all.current"] == len(snapshot["segments"]) == len(self.backend.live_segments())
        split_free = sum(b["size"] for s in snapshot["segments"] if len(s["blocks"]) > 1
                         for b in s["blocks"] if b["state"] == "inactive")
        assert stats["inactive_split_bytes.all.current"] == split_free
        for name in ("allocated_bytes", "reserved_bytes", "active_bytes", "inactive_split_bytes"):
            assert stats[f"{name}.all.current"] == (
                stats[f"{name}.small_pool.current"] + stats[f"{name}.large_pool.current"])
        check_segments_tile(self.alloc)


AllocatorMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
test_random_allocator_sequences_keep_invariants = AllocatorMachine.TestCase


# -- the Numba backend ----------------------------------------------------------------------


def _run_python(code: str, **env: str) -> str:
    run_env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]), **env}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=run_env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_numba_backend_serves_aliasing_views_under_the_simulator():
    pytest.importorskip("numba.cuda")
    out = _run_python(
        """
        import numpy as np
        from numba import cuda
        from ember.core.cuda.allocator import CachingAllocator
        from ember.core.cuda.raw_backends import NumbaRawBackend, SIMULATOR_TOTAL_MEMORY

        backend = NumbaRawBackend()
        alloc = CachingAllocator(backend)
        a, b = alloc.malloc(16), alloc.malloc(8)
        assert b.ptr == a.ptr + 512 and a.data.shape == (16,)
        b.data[:] = 7  # (a segment's memory is not zeroed: glibc may serve it from its heap)
        a.data.view(np.float32)[:] = 1.5  # typed views of the uint8 view alias the segment
        seg = a.segment.handle.array.copy_to_host()
        assert (seg[:16].view(np.float32) == 1.5).all() and (seg[512:520] == 7).all()
        assert backend.total_memory() == SIMULATOR_TOTAL_MEMORY

        stream = cuda.stream()
        alloc.record_stream(a, stream)
        alloc.free(a)  # the simulator's events complete at once
        assert alloc.malloc(16).ptr == a.ptr
        alloc.free(b)
        alloc.empty_cache()
        print(alloc.memory_stats()["num_device_alloc"], alloc.memory_reserved())
        """,
        NUMBA_ENABLE_CUDASIM="1",
    )
    assert out.split() == ["1", str(2 * MiB)]


def test_emm_plugin_class_is_accepted_by_numba():
    pytest.importorskip("numba.cuda")
    out = _run_python(
        """
        import ember.core.cuda.raw_backends as rb
        from numba import cuda
        cls = rb.make_emm_plugin()
        assert rb.EmberMemoryManager is cls and issubclass(cls, cuda.HostOnlyCUDAMemoryManager)
        from numba.cuda.cudadrv import driver
        driver._ensure_memory_manager()  # what a new context does: NUMBA_CUDA_MEMORY_MANAGER names us
        assert driver._memory_manager is cls
        rb.install_emm_plugin()  # numba instantiates it with context=None and checks the version
        print(cls(context=None).interface_version)
        """,
        NUMBA_ENABLE_CUDASIM="0",
        NUMBA_CUDA_MEMORY_MANAGER="ember.core.cuda.raw_backends",
    )
    assert out.split() == ["1"]
