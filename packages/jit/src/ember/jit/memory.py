"""Keeping a replay's memory in the process: freed pages are reused by the next replay, not faulted in again.

NOTE [ A replay's memory ]
A replayed step allocates the same buffers at every call (numpy arrays made by the kernels) and
frees them by the end of it. glibc's malloc returns the freed top of its heap to the kernel once
more than its trim threshold (a few MB after its dynamic adjustment) is free, and serves blocks
above its mmap threshold with fresh mappings, so the next replay faults its pages in again, each
zeroed by the kernel: 5,800 page faults per step of the GPT workload (about 23 MB, 5 ms of a 70 ms
step on this machine). Before its first plan runs, ember.jit raises both thresholds once
(`mallopt`, `config.retain_memory`), so freed memory stays in the heap and later replays reuse it:
a replayed step then faults in (almost) nothing. This is process-wide, as setting
`MALLOC_TRIM_THRESHOLD_`/`MALLOC_MMAP_THRESHOLD_` or loading jemalloc/tcmalloc (PyTorch's advice
for CPU training) would be; it changes no values. The intermediates that fused kernels and GEMMs
write now go into the plan's arena instead (NOTE [ The replay's arena ] in `ember.jit.arena`);
this keeps the memory of what still allocates (outputs, gradients, the other ops' results).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

__all__ = ["retain_freed_memory"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_TRIM = 1 << 28  # keep up to 256 MiB of freed heap at its top
_MMAP = 1 << 25  # blocks below 32 MiB come from the heap (glibc's own dynamic ceiling)
_done: bool | None = None


def retain_freed_memory() -> bool:
    """Raise glibc's trim and mmap thresholds once per process; True where they were set (glibc only)."""
    global _done
    if _done is not None:
        return _done
    _done = False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _done = bool(mallopt(_M_TRIM_THRESHOLD, _TRIM)) and bool(mallopt(_M_MMAP_THRESHOLD, _MMAP))
    return _done
