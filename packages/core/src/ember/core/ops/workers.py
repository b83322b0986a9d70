"""ember's own CPU worker threads, for the work it splits itself: the image chunks of the per-image convolutions
(each with the BLAS at one thread), the pieces of skinny GEMMs, and the elementwise passes of a compiled optimizer
step.

NOTE [ One pool of sleeping workers ]
The workers are plain threads that sleep on a queue when idle (they never spin, unlike OpenBLAS's pool and
Numba's OpenMP workers, which on a shared 2-core machine took the cores from each other). The caller runs a
piece itself and takes back any piece no worker has started by the time it gets there, and `run_queue` hands
out pieces one at a time, so a descheduled worker's share goes to the others, and nested use (a worker
splitting again) cannot deadlock. Waking a sleeping worker costs tens of microseconds, so only pieces of a
millisecond or more are worth splitting: GEMMs split by rows here measured 1.45-1.8x a thread's speed at two
threads where OpenBLAS's own threads reach 2x, and a 2^23 multiply-add GEMM slower than one thread
(docs/benchmarks.md, "Stop 47"), so large GEMMs stay with the BLAS's threads (`blas_threads`) but for
skinny ones, whose pieces repack little (NOTE [ Skinny GEMMs on ember's workers ]).
"""

from __future__ import annotations

import contextvars
import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait

__all__ = ["run_all", "run_queue", "spread", "in_worker"]

_POOL: list = [None, 0, 0]  # the executor, its most workers, and the process that made it (made on first use)
_LOCK = threading.Lock()
_LOCAL = threading.local()


def _mark_worker() -> None:
    _LOCAL.worker = True


def in_worker() -> bool:
    """Whether the calling thread is one of ember's workers (which run their piece whole rather than split it)."""
    return getattr(_LOCAL, "worker", False)


def _executor(workers: int) -> ThreadPoolExecutor:
    """The process's pool with room for `workers` threads: made on first use, larger when more are asked for,
    and again in a forked child (which has the parent's object but none of its threads)."""
    with _LOCK:
        pid = os.getpid()
        if _POOL[2] != pid or _POOL[1] < workers:
            if _POOL[0] is not None and _POOL[2] == pid:
                _POOL[0].shutdown(wait=False)
            _POOL[:] = [ThreadPoolExecutor(workers, thread_name_prefix="ember-worker", initializer=_mark_worker),
                        workers, pid]
        return _POOL[0]


def run_all(calls: Sequence[Callable]) -> list:
    """`[call() for call in calls]`, the first on the calling thread and each other on a worker thread (in the
    caller's context: numpy's error state, ember's modes), the caller running any that no worker has started.
    The first exception is raised once every started call has finished (none still writes into the results)."""
    if len(calls) <= 1:
        return [c() for c in calls]
    pool = _executor(len(calls) - 1)
    futures = [pool.submit(contextvars.copy_context().run, c) for c in calls[1:]]
    results = []
    try:
        results.append(calls[0]())
        for call, f in zip(calls[1:], futures):
            results.append(call() if f.cancel() else f.result())
    except BaseException:
        for f in futures:
            f.cancel()
        wait(futures)
        raise
    return results


def run_queue(fn: Callable, items: Sequence, threads: int, scratch: Callable | None = None) -> list:
    """`[fn(item, buffer) for item in items]` on `threads` threads (the caller one of them), each taking the next
    item until none is left, so a descheduled thread's share goes to the others; `buffer` is each thread's own
    `scratch()` (None without one). Results in item order."""
    results = [None] * len(items)
    order = iter(range(len(items)))
    lock = threading.Lock()

    def loop() -> None:
        buf = scratch() if scratch is not None else None
        while True:
            with lock:
                i = next(order, None)
            if i is None:
                return
            results[i] = fn(items[i], buf)

    run_all([loop] * max(1, min(threads, len(items))))
    return results


def _run_calls(kernel: Callable, calls: list) -> None:
    for args in calls:
        kernel(*args)


def spread(kernel: Callable, calls: Sequence[tuple], arrays: int, min_size: int) -> None:
    """`kernel(*args)` for every `args` of `calls`, whose first `arrays` arguments are flat arrays of one length
    (or empty ones, passed as they are) that `kernel` updates element by element. At more than one thread and
    `min_size` elements or more in all, the elements of all calls are cut into one contiguous range a thread, each
    run as `kernel` on the slices it covers: every element is computed alone, so the bits are one thread's."""
    from ember.core.parallel import get_num_threads

    sizes = [args[0].shape[0] for args in calls]
    total = sum(sizes)
    threads = 1 if in_worker() else min(get_num_threads(), total // max(min_size // 2, 1))
    if threads <= 1 or total < min_size:
        _run_calls(kernel, calls)
        return
    per = -(-total // threads)
    bins: list[list] = [[] for _ in range(threads)]
    start = 0  # the first element of the current call among all calls'
    for args, n in zip(calls, sizes):
        s = 0
        while s < n:
            b = (start + s) // per
            e = min(n, (b + 1) * per - start)
            bins[b].append(args if (s, e) == (0, n) else
                           tuple(a[s:e] if i < arrays and a.shape[0] == n else a for i, a in enumerate(args)))
            s = e
        start += n
    run_all([functools.partial(_run_calls, kernel, b) for b in bins if b])
