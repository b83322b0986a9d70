"""Intra-op parallelism: one thread budget for ember's Numba kernels and numpy's BLAS
(PyTorch's set_num_threads), so the two pools never oversubscribe the cores."""

from __future__ import annotations

import os

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads"]

_interop_threads = os.cpu_count() or 1


def get_num_threads() -> int:
    """Threads of the parallel CPU kernels (Numba's thread pool; all cores unless set)."""
    import numba

    return numba.get_num_threads()


def set_num_threads(num: int) -> None:
    """Use `num` threads in the parallel CPU kernels and in the BLAS behind matmul and conv.

    Numba's pool is capped at NUMBA_NUM_THREADS; the BLAS (OpenBLAS, MKL, BLIS) is set through
    threadpoolctl, which talks to whichever of them numpy loaded."""
    import numba
    from threadpoolctl import threadpool_limits

    _check_count("set_num_threads", num)
    numba.set_num_threads(min(num, numba.config.NUMBA_NUM_THREADS))
    threadpool_limits(limits=num, user_api="blas")


def get_num_interop_threads() -> int:
    return _interop_threads


def set_num_interop_threads(num: int) -> None:
    """Recorded for PyTorch compatibility: ember runs one op at a time per Python thread."""
    global _interop_threads
    _check_count("set_num_interop_threads", num)
    _interop_threads = num


def _check_count(fn: str, num: object) -> None:
    """PyTorch's checks and messages: an int (not a bool), and positive."""
    if isinstance(num, bool) or not isinstance(num, int):
        raise RuntimeError(f"{fn} expects an int, but got {type(num).__name__}")
    if num < 1:
        raise RuntimeError(f"{fn} expects a positive integer")
