"""The BLAS at one thread for a stretch of small GEMMs (per-image convolution GEMMs on worker threads, an LSTM
layer's per-step GEMMs): a threaded BLAS meets its threads at a barrier in every call, which on a shared machine
cost each small call a descheduled thread's wait. OpenBLAS splits a GEMM's rows and columns among its threads,
not its sums, so the one-thread bits are the threaded ones (checked on the LSTM layer's shapes)."""

from __future__ import annotations

import contextlib
import threading

__all__ = ["single_threaded"]

_BLAS: list = [None, 0, None]  # threadpoolctl's controller (made on first use), how many calls hold the limit, its undo
_BLAS_LOCK = threading.Lock()


@contextlib.contextmanager
def single_threaded():
    """The BLAS at one thread while any caller in the process needs it: the first call in sets the limit and
    the last one out restores it, so calls from several user threads cannot leave it at one thread."""
    with _BLAS_LOCK:
        if _BLAS[0] is None:
            from threadpoolctl import ThreadpoolController

            _BLAS[0] = ThreadpoolController()
        if _BLAS[1] == 0:
            _BLAS[2] = _BLAS[0].limit(limits=1, user_api="blas")
        _BLAS[1] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS[1] -= 1
            if _BLAS[1] == 0:
                _BLAS[2].restore_original_limits()
                _BLAS[2] = None
