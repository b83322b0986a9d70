"""What the caching allocator reports: PyTorch's counters and names, the summary, the snapshot.

Kept apart from the allocator's logic so that `allocator.py` reads as the algorithm alone. The
names match `torch.cuda.memory_stats()` (`allocated_bytes.all.current` ...) and the snapshot's
fields PyTorch's `memory._snapshot()`, so tools written against PyTorch read ember's unchanged.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ember.core.cuda.allocator import Segment

__all__ = ["Stat", "StatArray", "MemoryStats", "format_bytes", "format_summary", "build_snapshot"]

# The per-pool statistics, in the order memory_stats() and memory_summary() list them.
ARRAY_NAMES = (
    "allocation",
    "segment",
    "active",
    "inactive_split",
    "allocated_bytes",
    "reserved_bytes",
    "active_bytes",
    "inactive_split_bytes",
    "requested_bytes",
)
COUNTER_NAMES = ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free", "num_cache_hits")
POOLS = ("all", "small_pool", "large_pool")
METRICS = ("current", "peak", "allocated", "freed")


class Stat:
    """One quantity: its current value, its peak, and the running totals added and removed."""

    __slots__ = METRICS

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0
        self.allocated = 0
        self.freed = 0

    def reset_peak(self) -> None:
        self.peak = self.current

    def reset_accumulated(self) -> None:
        self.allocated = 0
        self.freed = 0


class StatArray:
    """A `Stat` for all memory and one for each pool; every update goes to `all` and one pool."""

    __slots__ = POOLS

    def __init__(self) -> None:
        self.all = Stat()
        self.small_pool = Stat()
        self.large_pool = Stat()

    # Several of these run per malloc, so they update the two stats in place.
    def increase(self, is_small: bool, amount: int) -> None:
        for stat in (self.all, self.small_pool if is_small else self.large_pool):
            stat.current += amount
            stat.allocated += amount
            if stat.current > stat.peak:
                stat.peak = stat.current

    def decrease(self, is_small: bool, amount: int) -> None:
        for stat in (self.all, self.small_pool if is_small else self.large_pool):
            stat.current -= amount
            stat.freed += amount

    def stats(self) -> tuple[Stat, Stat, Stat]:
        return (self.all, self.small_pool, self.large_pool)


class MemoryStats:
    """Every statistic of one allocator; the allocator mutates it under its own lock.

    - allocation / allocated_bytes: blocks handed out and not yet freed by the caller.
    - active / active_bytes: allocated blocks plus freed ones still waiting on other streams.
    - inactive_split / inactive_split_bytes: cached free blocks inside a segment that is split,
      so they cannot be returned to the device ("non-releasable").
    - segment / reserved_bytes: raw device allocations the allocator holds.
    - requested_bytes: what callers asked for, before rounding.
    - num_device_alloc / num_device_free: raw mallocs and frees; num_cache_hits: mallocs served
      from the cache; num_alloc_retries: raw mallocs that failed and were retried after emptying
      the cache; num_ooms: requests that failed even then.
    """

    __slots__ = ARRAY_NAMES + COUNTER_NAMES

    def __init__(self) -> None:
        for name in ARRAY_NAMES:
            setattr(self, name, StatArray())
        self.reset_counters()

    def reset_counters(self) -> None:
        for name in COUNTER_NAMES:
            setattr(self, name, 0)

    def reset_peak(self) -> None:
        for name in ARRAY_NAMES:
            for stat in getattr(self, name).stats():
                stat.reset_peak()

    def reset_accumulated(self) -> None:
        """Zero the running totals and the event counters (current and peak values stay)."""
        for name in ARRAY_NAMES:
            for stat in getattr(self, name).stats():
                stat.reset_accumulated()
        self.reset_counters()

    def as_dict(self) -> OrderedDict[str, int]:
        """The flat `name.pool.metric -> value` mapping of `torch.cuda.memory_stats()`, key-sorted."""
        flat: dict[str, int] = {}
        for name in ARRAY_NAMES:
            array = getattr(self, name)
            for pool in POOLS:
                stat = getattr(array, pool)
                for metric in METRICS:
                    flat[f"{name}.{pool}.{metric}"] = getattr(stat, metric)
        for name in COUNTER_NAMES:
            flat[name] = getattr(self, name)
        return OrderedDict(sorted(flat.items()))


def format_bytes(nbytes: int) -> str:
    """A byte count in binary units with two decimals, as PyTorch's OOM message writes it.

    Example:
        >>> format_bytes(0), format_bytes(1536), format_bytes(2 * 1024**3)
        ('0 bytes', '1.50 KiB', '2.00 GiB')
    """
    if abs(nbytes) < 1024:
        return f"{nbytes} bytes"
    value = float(nbytes)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if abs(value) < 1024 or unit == "TiB":
            break
    return f"{value:.2f} {unit}"


# (label, statistic, is it in bytes) for each group of rows of memory_summary().
_SUMMARY_ROWS = (
    ("Allocated memory", "allocated_bytes", True),
    ("Active memory", "active_bytes", True),
    ("Requested memory", "requested_bytes", True),
    ("GPU reserved memory", "reserved_bytes", True),
    ("Non-releasable memory", "inactive_split_bytes", True),
    ("Allocations", "allocation", False),
    ("Active allocs", "active", False),
    ("GPU reserved segments", "segment", False),
    ("Non-releasable allocs", "inactive_split", False),
)


_FROM_LARGE, _FROM_SMALL = "      from large pool", "      from small pool"


def format_summary(stats: Mapping[str, int], device_index: int, total_memory: int) -> str:
    """A table of `stats` (as `MemoryStats.as_dict()` gives them) laid out like PyTorch's summary."""
    columns = ("Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed")
    label_width, cell_width = 23, 12

    def row(label: str, cells: tuple[str, ...]) -> str:
        return f"| {label:<{label_width}} |" + "".join(f" {c:>{cell_width}} |" for c in cells)

    width = len(row("", columns))
    thick, thin = "|" + "=" * (width - 2) + "|", "|" + "-" * (width - 2) + "|"

    def centred(*parts: str) -> str:
        inner = width - 2 - (len(parts) - 1)
        cell = inner // len(parts)
        cells = [p.center(cell) for p in parts]
        cells[-1] = parts[-1].center(inner - cell * (len(parts) - 1))
        return "|" + "|".join(cells) + "|"

    lines = [
        thick,
        centred(f"ember CUDA memory summary, device ID {device_index}"),
        thin,
        centred(f"CUDA OOMs: {stats['num_ooms']}", f"device malloc retries: {stats['num_alloc_retries']}"),
        centred(f"device mallocs: {stats['num_device_alloc']}", f"device frees: {stats['num_device_free']}"),
        centred(f"cache hits: {stats['num_cache_hits']}", f"device capacity: {format_bytes(total_memory)}"),
        thick,
        row("Metric", columns),
        thin,
    ]
    for label, name, in_bytes in _SUMMARY_ROWS:
        fmt = format_bytes if in_bytes else str
        for pool, pool_label in (("all", label), ("large_pool", _FROM_LARGE), ("small_pool", _FROM_SMALL)):
            lines.append(row(pool_label, tuple(fmt(stats[f"{name}.{pool}.{m}"]) for m in METRICS)))
        lines.append(thin)
    lines[-1] = thick
    return "\n".join(lines)


def build_snapshot(segments: Iterable[Segment], trace: Iterable[tuple], device_index: int) -> dict[str, list[dict]]:
    """`CachingAllocator.snapshot()`'s plain-dict form of its segments and its trace tuples."""
    segment_dicts = []
    for segment in segments:
        blocks = [
            {"address": b.ptr, "size": b.size, "requested_size": b.requested_size, "state": b.state.value}
            for b in segment.blocks()
        ]
        segment_dicts.append({
            "device": device_index,
            "address": segment.address,
            "total_size": segment.size,
            "allocated_size": sum(b["size"] for b in blocks if b["state"] == "active_allocated"),
            "active_size": sum(b["size"] for b in blocks if b["state"] != "inactive"),
            "requested_size": sum(b["requested_size"] for b in blocks),
            "stream": segment.stream,
            "segment_type": "small" if segment.is_small else "large",
            "blocks": blocks,
        })
    entries: list[dict[str, Any]] = []
    for time_ns, action, address, size, stream, cache_hit in trace:
        entry = {"action": action, "address": address, "size": size, "stream": stream, "time_ns": time_ns}
        if action == "alloc":
            entry["cache_hit"] = cache_hit
        entries.append(entry)
    return {"segments": segment_dicts, "trace": entries}
