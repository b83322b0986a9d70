"""`torch.cuda.memory`: the caching allocator's statistics and controls (ember.core.cuda's functions),
and the memory-history recorder PyTorch's memory profiling guide uses (`_record_memory_history`,
`_snapshot`, `_dump_snapshot`). The snapshot is ember's (`memory_snapshot`'s segments and trace),
not the layout pytorch.org/memory_viz reads."""

from __future__ import annotations

import pickle
import sys

from ember.core.cuda import (
    empty_cache, get_allocator_backend, get_per_process_memory_fraction, list_gpu_processes, max_memory_allocated,
    max_memory_cached, max_memory_reserved, mem_get_info, memory_allocated, memory_cached, memory_reserved,
    memory_snapshot, memory_stats, memory_stats_as_nested_dict, memory_summary, record_memory_history,
    reset_accumulated_memory_stats, reset_max_memory_allocated, reset_max_memory_cached, reset_peak_memory_stats,
    set_per_process_memory_fraction,
)

__all__ = ["get_per_process_memory_fraction", "set_per_process_memory_fraction", "empty_cache", "memory_stats",
           "memory_stats_as_nested_dict", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_cached", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached", "memory_snapshot",
           "memory_summary", "list_gpu_processes", "mem_get_info", "get_allocator_backend"]


def _record_memory_history(enabled: str | None = "all", context: str | None = "all", stacks: str = "all",
                           max_entries: int = sys.maxsize, device=None, **kwargs) -> None:
    """Start (`enabled` "state" or "all") or stop (None) recording allocations and frees on `device`;
    ember records no Python stacks, so `context` and `stacks` are accepted and ignored."""
    record_memory_history(enabled is not None, max_entries, device)


def _snapshot(device=None, augment_with_fx_traces: bool = False) -> dict:
    """The allocator's segments and the recorded trace (`memory_snapshot`)."""
    return memory_snapshot(device)


def _dump_snapshot(filename: str = "dump_snapshot.pickle", augment_with_fx_traces: bool = False) -> None:
    """Pickle `_snapshot()` to `filename`."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)
