"""glibc's heap thresholds for host tensor buffers, set once when ember.core is imported.

NOTE [ Host buffers and glibc's heap ]
A CPU tensor's buffer is a numpy array, which takes its memory from glibc's `malloc`. glibc serves a block of
`M_MMAP_THRESHOLD` bytes or more by its own `mmap` and gives it back to the kernel at `free`, and returns the top of
its heap to the kernel once more than `M_TRIM_THRESHOLD` bytes are free there; memory given back is faulted in and
zeroed page by page when it is used again. By default both thresholds move: a freed mmap block raises the mmap
threshold to its size and the trim threshold to twice that. A training step allocates and frees the same large
buffers every step (an `nn.LSTM(64, 128)` layer over 20 steps of batch 32 makes 3 MB of gates, workspace and
states), and whenever those free together at the heap's top more than twice the largest block, glibc trims them
and the next step faults them in again: 750 page faults and about 0.9 ms of system time in each training step of
that LSTM (PyTorch's: 17 faults), 10-15% of the step.

`tune()`, run when this module is imported (by `ember.core`), sets the two thresholds where glibc's own rule ends
for a large block (mmap at 32 MiB, its dynamic maximum on 64-bit, and trim at twice that): blocks below 32 MiB come
from the heap, and up to 64 MiB free at its top stay mapped for the next step. The cost: that much freed memory
may stay resident, and a block below 32 MiB freed inside the heap is not given back. Setting either threshold
turns glibc's moving rule off, so both are set. `EMBER_MALLOC_TUNING=0` in the environment leaves glibc's defaults;
other C libraries are left alone. ember.jit raises the trim threshold further before its first replay (NOTE [ A
replay's memory ] in `ember.jit.memory`), for the same reason; PyTorch's advice for CPU training is the same kind
of process-wide change (jemalloc or tcmalloc).
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "TUNED", "set_thresholds", "tune"]

MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: where its dynamic rule stops
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # the dynamic rule's trim threshold for that mmap threshold
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # malloc.h


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (ValueError, OSError, AttributeError):  # not a glibc system (no such confstr name)
        return False


def set_thresholds(mmap: int, trim: int) -> bool:
    """Set glibc's mmap and trim thresholds (NOTE [ Host buffers and glibc's heap ]); whether they were set (not with
    `EMBER_MALLOC_TUNING=0`, nor outside glibc)."""
    if os.environ.get("EMBER_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux") or not _glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, mmap)) & bool(mallopt(_M_TRIM_THRESHOLD, trim))


def tune() -> bool:
    """Set the thresholds ember.core starts with; whether they were set."""
    return set_thresholds(MMAP_THRESHOLD, TRIM_THRESHOLD)


TUNED = tune()
