"""Keeping a replay's memory in the process: freed pages are reused by the next replay, not faulted in again.

NOTE [ A replay's memory ]
A replayed step allocates the same buffers at every call (numpy arrays made by the kernels) and
frees them by the end of it. glibc's malloc returns the freed top of its heap to the kernel once
more than its trim threshold (a few MB after its dynamic adjustment) is free, and serves blocks
above its mmap threshold with fresh mappings, so the next replay faults its pages in again, each
zeroed by the kernel: 5,800 page faults per step of the GPT workload (about 23 MB, 5 ms of a 70 ms
step on this machine). ember.core sets both thresholds at import (NOTE [ Host buffers and glibc's
heap ] in `ember.core.host_heap`); before its first plan runs, ember.jit raises the trim threshold
further once (`host_heap.set_thresholds`, `config.retain_memory`), so freed memory stays in the heap
and later replays reuse it:
a replayed step then faults in (almost) nothing. This is process-wide, as setting
`MALLOC_TRIM_THRESHOLD_`/`MALLOC_MMAP_THRESHOLD_` or loading jemalloc/tcmalloc (PyTorch's advice
for CPU training) would be; it changes no values. The intermediates that fused kernels and GEMMs
write now go into the plan's arena instead (NOTE [ The replay's arena ] in `ember.jit.arena`);
this keeps the memory of what still allocates (outputs, gradients, the other ops' results).
"""

from __future__ import annotations

from ember.core import host_heap

__all__ = ["retain_freed_memory"]

_TRIM = 1 << 28  # keep up to 256 MiB of freed heap at its top (ember.core keeps 64 MiB)
_done: bool | None = None


def retain_freed_memory() -> bool:
    """Raise glibc's trim threshold above ember.core's once per process (`host_heap.set_thresholds`, which also
    honours `EMBER_MALLOC_TUNING=0`); True where the thresholds were set (glibc only)."""
    global _done
    if _done is None:
        _done = host_heap.set_thresholds(host_heap.MMAP_THRESHOLD, _TRIM)
    return _done
