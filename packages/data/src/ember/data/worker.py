"""DataLoader worker processes: the loop each runs, its shared-memory pool, and how faults travel.

NOTE [ DataLoader worker protocol ]
Processes and queues. The main process starts `num_workers` processes (fork, spawn or
forkserver). Each worker has its own index queue (main -> worker) and all share one result
queue (worker -> main). On the index queue the main process sends

* `("task", idx, index)`: fetch and collate the batch numbered `idx` (keys `index`);
* `("free", name)`: the main process no longer maps segment `name`; reuse it;
* `("resume",)`: a new epoch of persistent workers (a fresh iterator of an iterable dataset),
  acknowledged with `(worker_id, RESUMED, None)`;
* `None`: exit.

A worker answers each task with `(worker_id, idx, payload)`, where `payload` is the pickled
batch, an `ExceptionWrapper` (the exception, where it happened and which keys, with the
original traceback as text), or `IterableEnd` (its copy of an iterable dataset is exhausted).
The worker pickles the payload itself (`dumps_batch`), so that it knows exactly which of its
segments a batch carries before the queue's feeder thread sends the bytes.

Zero-copy batches. In a worker, `default_collate` stacks tensors into `empty_shared`, which
takes memory from the worker's `SegmentPool`: POSIX shared-memory segments named
`<loader prefix>w<worker id>_...`, created on demand and kept mapped. A tensor over a shared
storage pickles as a handle (`ember.core.sharing`), so the main process receives a segment name
and maps it: the bytes are written once, by the worker, and never copied. Large tensors made
outside the pool (by a custom `collate_fn`) are copied into it while the batch is pickled; small
ones travel as bytes, a view with only its own elements. The main process hooks
every mapping of its loader's prefix (`sharing.on_attach`); when the mapping dies (the batch,
and every numpy view of it, is gone) a finalizer queues `("free", name)` for the worker that
owns the segment. Finalizers only append to a deque (they may run in the middle of any code,
where taking a queue's lock could deadlock); the main process sends the queued frees the next
time it sends a task. A worker reuses a segment only when the main process has freed it (or it
never left the worker) and the worker itself holds no view of it, so a batch is never
overwritten while anyone can see it.

Order and prefetch. Tasks are numbered in sampler order and handed out round-robin to the
workers still active; `prefetch_factor * num_workers` tasks are in flight; results that arrive
early wait in a reorder buffer, so batches come out in sampler order (unless `in_order=False`).

Release. Workers unlink every segment of their pool when they exit (mappings in the main
process stay valid: unlinking removes only the name). The main process shuts the workers down
when iteration ends, when the iterator or loader is garbage-collected (`weakref.finalize`, which
also runs at interpreter exit), on KeyboardInterrupt, and when it sees a worker die; after
joining them it unlinks whatever is left under the loader's prefix (a worker killed by a
signal cannot clean up after itself), so no segment outlives the loader.

Faults. While waiting for a result the main process polls the result queue every
`MP_STATUS_CHECK_INTERVAL` seconds and checks that every worker is alive, so a worker killed
by a signal is reported within a fraction of a second instead of hanging; `timeout=` bounds the
whole wait. Workers ignore SIGINT (Ctrl-C is the main process's to handle) and exit when their
parent process disappears.

A dead parent. The main process can die without running any finalizer (SIGKILL, the OOM
killer), and then nobody but the workers knows their segments. An idle worker notices at its
next poll of the index queue, but a worker stuck in `__getitem__` (a hung read, a deadlock)
never polls. So each worker also runs a daemon watchdog thread that checks `os.getppid()` every
`_WORKER_POLL_S` seconds; once the parent is gone it unlinks every segment under the worker's
prefix (listed in /dev/shm, so one created a moment ago is not missed) and ends the process with
`os._exit`, whatever its main thread is doing. Segments the main process had already received
need nothing more: it is dead, and unlinking the name frees the memory when the last mapping
goes. The watchdog cannot run in a worker stuck in native code that never releases the GIL, and
a worker killed at the same moment (a whole process group) cleans nothing. For those, each
iterator also starts a reaper (`ember.data.reaper`): a tiny process in its own session that holds
the read end of a pipe from the main process and learns the workers' pids through it. When the
pipe closes without a final `done` (the main process died), it SIGKILLs the workers and unlinks
every segment under the loader's prefix. A forked worker closes its inherited copy of the pipe's
write end first thing, so only the main process keeps it open.

Seeds. Worker `i` seeds Python's `random`, ember's default generator (with
`base_seed + i`) and numpy's global generator (from `(i, base_seed)`), where `base_seed` is
drawn from the loader's `generator` once per iterator, hence per epoch.
"""

from __future__ import annotations

import io
import os
import pickle
import queue
import random
import signal
import sys
import threading
import time
import traceback
import weakref
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from ember.core import Tensor, manual_seed, sharing
from ember.core.multiprocessing import plain_dispatch_table
from ember.core.storage import Storage
from ember.core.tensor import contiguous_strides
from ember.data.fetch import make_fetcher

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper", "IterableEnd", "SegmentPool", "WorkerSpec",
           "empty_shared", "dumps_batch", "worker_loop", "RESUMED", "MP_STATUS_CHECK_INTERVAL"]

MP_STATUS_CHECK_INTERVAL = 0.2  # seconds between the main process's liveness checks
_WORKER_POLL_S = 0.5  # how often an idle worker checks that its parent still exists
_MIN_FREE_SEGMENTS = 4  # a worker keeps this many freed segments, plus two batches' worth; unlinks the rest
_SHARE_ABOVE_NBYTES = 1 << 17  # below this, sending the bytes costs less than mapping a segment
RESUMED = -1

_worker_info: WorkerInfo | None = None
_pool: SegmentPool | None = None


class WorkerInfo:
    """What `get_worker_info()` returns in a worker: `id`, `num_workers`, `seed` and its `dataset` copy."""

    __initialized = False

    def __init__(self, **kwargs: Any) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key: str, val: Any) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


def get_worker_info() -> WorkerInfo | None:
    """This worker's `WorkerInfo` in a DataLoader worker process; None in the main process."""
    return _worker_info


class KeyErrorMessage(str):
    """A KeyError's message printed as is (KeyError would show the repr, newlines escaped)."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in a worker, sent to the main process with its traceback as text."""

    def __init__(self, exc_info=None, where: str = "in background", detail: str = "") -> None:
        exc_type, exc, tb = exc_info if exc_info is not None else sys.exc_info()
        try:
            pickle.dumps(exc_type)
        except Exception:
            exc_type = RuntimeError  # a class the main process could not import
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb)) + detail
        self.where = where

    def reraise(self):
        """Raise the exception again, here, as `exc_type` when it takes a message (else RuntimeError)."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class IterableEnd:
    """A worker's copy of an iterable dataset is exhausted."""

    worker_id: int


class SegmentPool:
    """A worker's shared-memory segments: mapped once, lent to the main process, reused when freed.

    See NOTE [ DataLoader worker protocol ]. `_maps` holds every segment's mapping, `_free` the
    reusable ones; `_views` a weak reference to this process's own storage buffer over each
    segment, so a segment still seen here is never reused.
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._maps: dict[str, Any] = {}
        self._free: list[str] = []
        self._views: dict[str, weakref.ref] = {}
        self._fresh: list[str] = []  # allocated during the current batch
        self._local: list[str] = []  # never sent: free once this process drops them
        self._most_per_batch = 0

    def empty(self, shape: tuple[int, ...], dtype) -> Tensor:
        """An uninitialised contiguous tensor over a pooled segment (the best fit, or a new one)."""
        numel = 1
        for n in shape:
            numel *= n
        nbytes = numel * dtype.itemsize
        fits = [n for n in self._free if nbytes <= len(self._maps[n]) <= 2 * nbytes + 4096]
        if fits:
            name = min(fits, key=lambda n: len(self._maps[n]))
            self._free.remove(name)
        else:
            name = sharing.new_segment_name(self.prefix)
            self._maps[name] = sharing.create_segment(name, nbytes)
        st = sharing.segment_storage(name, self._maps[name], nbytes)
        self._views[name] = weakref.ref(st.data)
        self._fresh.append(name)
        return Tensor._make(st, 0, tuple(shape), contiguous_strides(tuple(shape)), dtype)

    def settle(self, sent: set[str]) -> None:
        """After a batch is pickled: segments it did not carry come back once unseen here."""
        self._most_per_batch = max(self._most_per_batch, len(self._fresh))
        self._local.extend(n for n in self._fresh if n not in sent)
        self._fresh = []
        local, self._local = self._local, []
        for name in local:
            self.release(name)

    def release(self, name: str) -> None:
        """The main process freed `name` (or it was never sent): reuse it when this process lets go."""
        if name not in self._maps:
            return
        if self._views[name]() is not None:
            self._local.append(name)
        elif len(self._free) < _MIN_FREE_SEGMENTS + 2 * self._most_per_batch:
            self._free.append(name)
        else:
            del self._maps[name], self._views[name]
            sharing.unlink_segment(name)

    def close(self) -> None:
        """Unlink every segment (mappings elsewhere stay valid until they die)."""
        for name in self._maps:
            sharing.unlink_segment(name)
        self._maps.clear()
        self._free.clear()


def empty_shared(shape: tuple[int, ...], dtype) -> Tensor | None:
    """In a worker, an uninitialised tensor in the worker's shared-memory pool; None elsewhere."""
    return None if _pool is None else _pool.empty(shape, dtype)


class _BatchPickler(ForkingPickler):
    """Pickles a batch; notes the shared segments it carries. With a `pool`, a large tensor that is
    not in shared memory yet (a custom `collate_fn`'s) is copied into the pool so that it, too,
    crosses as a handle; a small view of a larger storage sends only its own elements."""

    def __init__(self, file, sent: set[str], pool: SegmentPool | None) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        # this protocol decides itself which storages cross as handles (not torch.multiprocessing's reducer)
        self.dispatch_table = plain_dispatch_table(self.dispatch_table)
        self._sent = sent
        self._pool = pool

    def reducer_override(self, obj):
        if isinstance(obj, Storage):  # a torch-facing UntypedStorage too
            if obj._shared is not None:
                self._sent.add(obj._shared.name)
        elif type(obj) is Tensor and obj._storage.device.type == "cpu" and not sharing.is_shared(obj):
            return self._reduce_unshared(obj)
        return NotImplemented

    def _reduce_unshared(self, t: Tensor):
        if self._pool is not None and t.nbytes >= _SHARE_ABOVE_NBYTES:
            moved = self._pool.empty(t._shape, t._dtype)
        elif t._storage.nbytes > t.nbytes:
            moved = Tensor._make(Storage.cpu(t.nbytes), 0, t._shape, contiguous_strides(t._shape), t._dtype)
        else:
            return NotImplemented
        strides = _dense_strides(t)
        if strides is not None and strides != moved._strides:  # a permuted layout (channels_last ...) stays one
            moved = Tensor._make(moved._storage, 0, t._shape, strides, t._dtype)
        np.copyto(moved._np(), t._np())
        moved._requires_grad = t._requires_grad
        moved.__dict__.update(t.__dict__)
        return sharing.reduce_tensor(moved)


def _dense_strides(t: Tensor) -> tuple[int, ...] | None:
    """`t`'s strides if its elements tile `numel` consecutive slots in some order of its dimensions (a permuted
    contiguous tensor, as `x.permute(0, 2, 3, 1)` or channels_last), else None."""
    expected = 1
    for d in sorted(range(len(t._shape)), key=lambda d: t._strides[d]):
        if t._shape[d] == 1:
            continue
        if t._strides[d] != expected:
            return None
        expected *= t._shape[d]
    return t._strides


def dumps_batch(obj: Any, sent: set[str], pool: SegmentPool | None = None) -> bytes:
    """Pickle `obj` for the result queue, adding to `sent` the segments it refers to (see `_BatchPickler`)."""
    buf = io.BytesIO()
    _BatchPickler(buf, sent, pool).dump(obj)
    return buf.getvalue()


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker process needs, in one picklable object."""

    worker_id: int
    num_workers: int
    dataset: Any
    is_iterable: bool
    auto_collation: bool
    collate_fn: Any
    drop_last: bool
    base_seed: int
    init_fn: Any
    shm_prefix: str
    index_queue: Any
    result_queue: Any
    done_event: Any
    close_fd: int | None = None  # a descriptor a forked worker inherited and must not hold (the reaper's pipe)


def _seed(spec: WorkerSpec) -> int:
    seed = spec.base_seed + spec.worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(np.random.SeedSequence([spec.worker_id, spec.base_seed]).generate_state(4))
    return seed


def _fetch_result(fetcher, spec: WorkerSpec, index) -> Any:
    try:
        return fetcher.fetch(index)
    except StopIteration:
        if spec.is_iterable:
            return IterableEnd(spec.worker_id)
        return ExceptionWrapper(where=f"in DataLoader worker process {spec.worker_id}",
                                detail=f"(while fetching index {index!r})\n")
    except Exception:
        return ExceptionWrapper(where=f"in DataLoader worker process {spec.worker_id}",
                                detail=f"(while fetching index {index!r})\n")


def _payload(data: Any, spec: WorkerSpec, pool: SegmentPool) -> bytes:
    sent: set[str] = set()
    try:
        payload = dumps_batch(data, sent, pool)
    except Exception:
        sent.clear()
        payload = dumps_batch(ExceptionWrapper(where=f"in DataLoader worker process {spec.worker_id}",
                                               detail="(while sending the batch to the main process)\n"), sent)
    pool.settle(sent)
    return payload


def _watch_parent(parent: int, prefix: str) -> None:
    """The watchdog thread: when the parent process is gone, unlink this worker's segments and exit at
    once, even while the main thread hangs in user code (NOTE [ DataLoader worker protocol ], A dead parent)."""
    while os.getppid() == parent:
        time.sleep(_WORKER_POLL_S)
    sharing.unlink_prefixed(prefix)
    os._exit(1)


def worker_loop(spec: WorkerSpec) -> None:
    """The body of a worker process (NOTE [ DataLoader worker protocol ])."""
    global _worker_info, _pool
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if spec.close_fd is not None:
        try:
            os.close(spec.close_fd)
        except OSError:
            pass
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent, spec.shm_prefix), name="ember-parent-watchdog",
                     daemon=True).start()
    pool = _pool = SegmentPool(spec.shm_prefix)
    init_error = None
    try:
        seed = _seed(spec)
        _worker_info = WorkerInfo(id=spec.worker_id, num_workers=spec.num_workers, seed=seed, dataset=spec.dataset)
        if spec.init_fn is not None:
            spec.init_fn(spec.worker_id)
        fetcher = make_fetcher(spec.dataset, spec.is_iterable, spec.auto_collation, spec.collate_fn, spec.drop_last)
    except Exception:
        init_error = ExceptionWrapper(where=f"in DataLoader worker process {spec.worker_id}")
    try:
        while os.getppid() == parent:
            try:
                msg = spec.index_queue.get(timeout=_WORKER_POLL_S)
            except queue.Empty:
                continue
            if msg is None:
                break
            if msg[0] == "free":
                pool.release(msg[1])
                continue
            if msg[0] == "resume":
                if init_error is None:
                    fetcher = make_fetcher(spec.dataset, spec.is_iterable, spec.auto_collation, spec.collate_fn,
                                           spec.drop_last)
                spec.result_queue.put((spec.worker_id, RESUMED, None))
                continue
            _, idx, index = msg
            if spec.done_event.is_set():
                continue
            data = init_error if init_error is not None else _fetch_result(fetcher, spec, index)
            spec.result_queue.put((spec.worker_id, idx, _payload(data, spec, pool)))
            del data
    except KeyboardInterrupt:
        pass
    finally:
        pool.close()
        if spec.done_event.is_set() or os.getppid() != parent:
            spec.result_queue.cancel_join_thread()
            spec.result_queue.close()
