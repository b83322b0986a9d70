"""The BLAS at one thread for small GEMMs (a matmul below `THREADED_WORK` multiply-adds, an LSTM layer's per-step
GEMMs, per-image convolution GEMMs on worker threads): a threaded BLAS meets its threads at a barrier in every
call, which on a shared machine costs each small call a descheduled thread's wait. OpenBLAS splits a GEMM's rows
and columns among its threads, not its sums, so the one-thread bits are the threaded ones (tests/test_blas_threads).

numpy's OpenBLAS (pthreads build) is set through its own `openblas_set_num_threads`, found once through
threadpoolctl (lowering and restoring cost about 2 us; threadpoolctl's `limit()` about 11); any other BLAS goes
through threadpoolctl's limit, and only for `single_threaded` stretches (MKL sizes each GEMM's threads itself).
The first caller in lowers the BLAS to one thread and the last one out restores the count it found, so the user's
`set_num_threads` cap is kept and several user threads cannot leave it at one."""

from __future__ import annotations

import contextlib
import functools
import os
import threading

import numpy as np

__all__ = ["single_threaded", "matmul", "THREADED_WORK", "OPENBLAS_SERIAL"]

# m*n*k at and above which a GEMM keeps the BLAS's threads (about half a millisecond of one thread's work, the
# depthwise kernels' threshold too). Two threads pay from 2**21 on the 2-core machine at its quietest (a 1.6x gain
# at most, tenths of a millisecond), but on a busy one each threaded call waits for a descheduled worker, which
# cost GEMMs up to 2**27 10-30x and eager GNMT's step 8x (docs/benchmarks.md, "Stop 31: eager threading")
THREADED_WORK = 1 << 25
# OpenBLAS runs a GEMM of m*n*k at or below 65536 * GEMM_MULTITHREAD_THRESHOLD (4) on the calling thread itself
OPENBLAS_SERIAL = 1 << 18

_LOCK = threading.Lock()
_STATE: list = [None, 0, None]  # the backend (found on first use), how many callers hold the limit, its undo


class _OpenBLAS:
    """numpy's OpenBLAS (pthreads: one process-wide pool) through its own thread-count calls."""

    per_call = True  # cheap enough for one GEMM

    def __init__(self, dynlib, prefix: str, suffix: str):
        self.get = getattr(dynlib, f"{prefix}openblas_get_num_threads{suffix}")
        self.set = getattr(dynlib, f"{prefix}openblas_set_num_threads{suffix}")

    def lower(self) -> int:
        n = self.get()
        if n > 1:
            self.set(1)
        return n

    def restore(self, n: int) -> None:
        if n > 1 and self.get() == 1:  # a count above one that the user set meanwhile (set_num_threads) stays
            self.set(n)


class _Threadpoolctl:
    """Any other BLAS: threadpoolctl's limit on every BLAS it sees, for a stretch of GEMMs."""

    per_call = False

    def __init__(self, controller):
        self.controller = controller

    def lower(self):
        return self.controller.limit(limits=1, user_api="blas")

    def restore(self, undo) -> None:
        undo.restore_original_limits()


def _backend():
    """numpy's OpenBLAS when threadpoolctl finds it with a pthreads pool, else threadpoolctl's limit."""
    from threadpoolctl import OpenBLASController, ThreadpoolController

    controller = ThreadpoolController()
    blas = [c for c in controller.lib_controllers if c.user_api == "blas"]
    pkg = os.path.realpath(os.path.dirname(np.__file__))  # a wheel's BLAS is in numpy.libs (or numpy/.libs)
    mine = [c for c in blas if os.path.realpath(c.filepath).startswith((pkg + os.sep, pkg + ".libs" + os.sep))]
    mine = mine or [c for c in blas if isinstance(c, OpenBLASController)]
    if len(mine) == 1 and isinstance(mine[0], OpenBLASController) and mine[0].threading_layer == "pthreads":
        affixes = mine[0]._find_affixes()
        if affixes is not None:
            return _OpenBLAS(mine[0].dynlib, *affixes)
    return _Threadpoolctl(controller)


def _found():
    """The backend, found on first use."""
    with _LOCK:
        if _STATE[0] is None:
            _STATE[0] = _backend()
        return _STATE[0]


def _hold() -> None:
    with _LOCK:
        if _STATE[0] is None:
            _STATE[0] = _backend()
        if _STATE[1] == 0:
            _STATE[2] = _STATE[0].lower()
        _STATE[1] += 1


def _release() -> None:
    with _LOCK:
        _STATE[1] -= 1
        if _STATE[1] == 0:
            undo, _STATE[2] = _STATE[2], None
            _STATE[0].restore(undo)


@contextlib.contextmanager
def single_threaded():
    """The BLAS at one thread while any caller in the process needs it: the first call in sets the limit and
    the last one out restores it, so calls from several user threads cannot leave it at one thread."""
    _hold()
    try:
        yield
    finally:
        _release()


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """np.matmul(a, b) (into `out`), at one BLAS thread when each of its GEMMs is small (numpy issues one per
    matrix of a batch, and each meets the threads at its own barrier, so the batch does not count). Every GEMM of
    one shape runs at one thread count, so its bits do not depend on the caller (OpenBLAS 0.3.31, numpy 2.4's,
    gives float32 other bits at one thread than at two)."""
    sa, sb = a.shape, b.shape
    if len(sa) < 2 or len(sb) < 2:
        return np.matmul(a, b, out=out)
    work = sa[-2] * sa[-1] * sb[-1]
    if work >= THREADED_WORK and len(sa) == len(sb) == 2 and _skinny(sa[0], sa[1], sb[1]) and \
            (out is None or not (np.may_share_memory(out, a) or np.may_share_memory(out, b))):
        return _skinny_matmul(a, b, out)
    if work <= OPENBLAS_SERIAL or work >= THREADED_WORK or not (_STATE[0] or _found()).per_call:
        return np.matmul(a, b, out=out)
    _hold()
    try:
        return np.matmul(a, b, out=out)
    finally:
        _release()


# NOTE [ Skinny GEMMs on ember's workers ]
# A large GEMM with one side at least 8 times the others (LeNet's 64 x 9216 x 128 layer, forward and backward) is
# split on ember's own workers (`workers.run_all`) rather than threaded by OpenBLAS: OpenBLAS's pthreads worker
# spins for about 0.1 s after each threaded call (2^28 cycles), holding a core through the convolutions' worker
# threads and Numba's kernels that follow (docs/benchmarks.md, "Stop 47"). The long side splits with little
# repeated packing (the other operand is small): the shared dimension k in two halves whose products are summed,
# always (at one thread too, so the bits do not depend on the thread count), the result's rows or columns in one
# piece a thread at multiples of 16 (each column keeps the one-thread bits). Other large GEMMs (GPT's, the LSTM
# projections) stay on OpenBLAS's threads, whose shared packing ember's blocks measured slower than.
def _skinny(m: int, k: int, n: int) -> bool:
    """Whether an (m, k) x (k, n) GEMM is skinny: its longest side at least 8 times the next one."""
    if m >= k and m >= n:
        return m >= 8 * max(k, n)
    if k >= n:
        return k >= 8 * max(m, n)
    return n >= 8 * max(m, k)


def _skinny_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """`np.matmul(a, b, out=out)` of a skinny 2-D GEMM, in pieces on ember's workers (NOTE [ Skinny GEMMs on
    ember's workers ]), each at one BLAS thread."""
    from ember.core.ops import workers
    from ember.core.parallel import get_num_threads

    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    if out is None:
        out = np.empty((m, n), np.result_type(a, b))
    threads = 1 if workers.in_worker() else get_num_threads()
    _hold()
    try:
        if k >= m and k >= n:
            half = (k // 2 + 15) // 16 * 16
            rest = np.empty_like(out)
            calls = [functools.partial(np.matmul, a[:, :half], b[:half], out=out),
                     functools.partial(np.matmul, a[:, half:], b[half:], out=rest)]
            if threads > 1:
                workers.run_all(calls)
            else:
                for call in calls:
                    call()
            np.add(out, rest, out=out)
        elif threads > 1:
            size = max(m, n)
            per = (-(-size // threads) + 15) // 16 * 16  # ceil(size / threads), up to a multiple of 16
            if n > m:
                calls = [functools.partial(np.matmul, a, b[:, s:s + per], out=out[:, s:s + per])
                         for s in range(0, n, per)]
            else:
                calls = [functools.partial(np.matmul, a[s:s + per], b, out=out[s:s + per]) for s in range(0, m, per)]
            workers.run_all(calls)
        else:
            np.matmul(a, b, out=out)
    finally:
        _release()
    return out
