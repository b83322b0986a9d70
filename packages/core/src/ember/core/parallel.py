"""Intra-op parallelism: how many threads ember's Numba kernels use (PyTorch's set_num_threads)."""

from __future__ import annotations

import os

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads"]

_interop_threads = os.cpu_count() or 1


def get_num_threads() -> int:
    """Threads of the parallel CPU kernels (Numba's thread pool; all cores unless set)."""
    import numba

    return numba.get_num_threads()


def set_num_threads(num: int) -> None:
    """Use `num` threads in the parallel CPU kernels (at most Numba's NUMBA_NUM_THREADS)."""
    import numba

    if not isinstance(num, int) or num < 1:
        raise ValueError(f"set_num_threads expects a positive integer; got {num!r}")
    numba.set_num_threads(min(num, numba.config.NUMBA_NUM_THREADS))


def get_num_interop_threads() -> int:
    return _interop_threads


def set_num_interop_threads(num: int) -> None:
    """Recorded for PyTorch compatibility: ember runs one op at a time per Python thread."""
    global _interop_threads
    if not isinstance(num, int) or num < 1:
        raise ValueError(f"set_num_interop_threads expects a positive integer; got {num!r}")
    _interop_threads = num
