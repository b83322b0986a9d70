"""Every GEMM ember runs at one BLAS thread, the large ones split by rows over ember's own workers.

numpy's OpenBLAS threads a GEMM on a pool of its own whose threads spin after each call; on a shared machine,
and beside Numba's OpenMP workers and the convolutions' workers, those pools took the cores from each other
(NOTE [ One pool of sleeping workers ] in `workers.py`), and a threaded call meets its threads at a barrier
that a descheduled one makes everyone wait at (a small GEMM's whole cost, stop 31). So `matmul` holds the BLAS
at one thread for every GEMM OpenBLAS would thread (above `OPENBLAS_SERIAL`), and at more than one thread
splits a GEMM of `SPLIT_WORK` multiply-adds or more into row (or column) blocks run on `workers.run_queue`. The
bits then depend on the shape and ember's thread count only, never on the machine's load or on the caller.

numpy's OpenBLAS (pthreads build) is set through its own `openblas_set_num_threads`, found once through
threadpoolctl (lowering and restoring cost about 2 us; threadpoolctl's `limit()` about 11); any other BLAS goes
through threadpoolctl's limit, and only for `single_threaded` stretches (MKL sizes each GEMM's threads itself).
The first caller in lowers the BLAS to one thread and the last one out restores the count it found, so the user's
`set_num_threads` cap is kept and several user threads cannot leave it at one."""

from __future__ import annotations

import contextlib
import os
import threading

import numpy as np

from ember.core.ops import workers
from ember.core.parallel import get_num_threads

__all__ = ["single_threaded", "matmul", "SPLIT_WORK", "OPENBLAS_SERIAL"]

# m*n*k from which a GEMM is split over ember's workers at more than one thread, in blocks of at least 2**21
# multiply-adds (25-35 us of one thread's work, against the workers' 3-10 us hand-off). It takes in an LSTM
# step's W_hh GEMM at h=256, batch 32 and NCF's 1024 x 128 x 64 layers
SPLIT_WORK = 1 << 23
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


def _split(a: np.ndarray, b: np.ndarray, out: np.ndarray | None, blocks: int, threads: int) -> np.ndarray:
    """`np.matmul(a, b, out=out)` as `blocks` GEMMs over blocks of the result's longer side (multiples of 8 rows or
    columns, fixed by the shape and the block count), taken by `threads` threads from one queue."""
    m, n = a.shape[-2], b.shape[-1]
    if out is None:
        out = np.empty((*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), m, n), dtype=np.result_type(a, b))
    size = max(m, n)
    step = ((size + blocks - 1) // blocks + 7) // 8 * 8  # ceil(size / blocks), rounded up to a multiple of 8
    if m >= n:
        def block(s, _):
            np.matmul(a[..., s:s + step, :], b, out=out[..., s:s + step, :])
    else:
        def block(s, _):
            np.matmul(a, b[..., s:s + step], out=out[..., s:s + step])
    workers.run_queue(block, range(0, size, step), threads)
    return out


def _blocks(work: int, m: int, n: int) -> tuple[int, int]:
    """How many blocks a GEMM of `work` multiply-adds and an (m, n) result is split into, and over how many
    threads: at ember's thread count, up to four blocks a thread (a descheduled thread's go to the others) of at
    least `SPLIT_WORK / 4` multiply-adds and 8 rows or columns each; one block inside a worker or below
    `SPLIT_WORK`."""
    if work < SPLIT_WORK or workers.in_worker():
        return 1, 1
    threads = get_num_threads()
    return (1, 1) if threads < 2 else (min(4 * threads, work // (SPLIT_WORK // 4), max(m, n) // 8), threads)


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """np.matmul(a, b) (into `out`), each GEMM at one BLAS thread, a large one split over ember's workers at more
    than one thread (numpy issues one GEMM per matrix of a batch, so the batch does not count). A GEMM into one
    of its operands is not split (a block written while another reads the operand; numpy's call copies it)."""
    sa, sb = a.shape, b.shape
    if len(sa) < 2 or len(sb) < 2:
        return np.matmul(a, b, out=out)
    work = sa[-2] * sa[-1] * sb[-1]
    if work <= OPENBLAS_SERIAL or not (_STATE[0] or _found()).per_call:
        return np.matmul(a, b, out=out)
    blocks, threads = _blocks(work, sa[-2], sb[-1])
    _hold()
    try:
        if blocks > 1 and (out is None or not (np.may_share_memory(out, a) or np.may_share_memory(out, b))):
            return _split(a, b, out, blocks, threads)
        return np.matmul(a, b, out=out)
    finally:
        _release()
