"""DataLoader: batches of a dataset, in sampler order, loaded in-process or by worker processes.

The worker side and the shared-memory hand-off are described in NOTE [ DataLoader worker
protocol ] (`ember.data.worker`); this module is the main-process side of it.
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
import multiprocessing as mp
import multiprocessing.context
import os
import pickle
import queue
import secrets
import signal
import subprocess
import sys
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic

from ember.core import sharing
from ember.data.collate import default_collate, default_convert
from ember.data.dataset import _T_co, Dataset, IterableDataset
from ember.data.fetch import make_fetcher
from ember.data.pin_memory import NO_ACCELERATOR_WARNING, PinMemoryThread, cuda_available, pin_memory
from ember.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, draw_seed
from ember.data.worker import (
    MP_STATUS_CHECK_INTERVAL, RESUMED, ExceptionWrapper, IterableEnd, WorkerSpec, get_worker_info, worker_loop,
)

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]


class _DatasetKind:
    """PyTorch's dataset kinds, as `DataLoader._dataset_kind` reports them."""

    Map = 0
    Iterable = 1

_JOIN_S = 2.0  # how long shutdown waits for a worker to exit before terminating it
_REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")  # run by path: no imports


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: `None` forever (the dataset decides when to stop)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class DataLoader(Generic[_T_co]):
    """Batches of `dataset`: sampling, collation, and optionally worker processes and pinned memory.

    Args:
        dataset: a map-style `Dataset` (or anything with `__getitem__`/`__len__`) or an `IterableDataset`.
        batch_size: samples per batch; None disables automatic batching.
        shuffle: reshuffle the keys each epoch (a `RandomSampler` over `generator`).
        sampler, batch_sampler: the order of keys, or of lists of keys.
        num_workers: worker processes (0 loads in the main process).
        collate_fn: merges a list of samples into a batch (`default_collate`, or `default_convert`
            without automatic batching).
        pin_memory: put batches in pinned memory (needs CUDA; a no-op with a warning otherwise).
        drop_last: drop the last, incomplete batch.
        timeout: seconds to wait for one batch from the workers (0: forever).
        worker_init_fn: called as `worker_init_fn(worker_id)` in each worker after seeding.
        multiprocessing_context: a start method name ("fork", "spawn", "forkserver") or context.
        generator: the `ember.core.Generator` of the shuffling and of the workers' base seed.
        prefetch_factor: batches in flight per worker (2 when `num_workers > 0`).
        persistent_workers: keep the workers (and their segment pools) alive across epochs.
        in_order: return batches in sampler order (else as soon as they arrive).

    Raises:
        ValueError: arguments PyTorch rejects (`batch_size=0`, `sampler` with `shuffle`, ...).

    Examples:
        >>> import ember.core as E
        >>> from ember.data import TensorDataset
        >>> [b[0].tolist() for b in DataLoader(TensorDataset(E.arange(5)), batch_size=2)]
        [[0, 1], [2, 3], [4]]
    """

    __initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device  # pinned memory serves the one CUDA device there is
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self._is_iterable = isinstance(dataset, IterableDataset)
        self._IterableDataset_len_called = None  # what len(dataset) said when len(loader) was asked (PyTorch's name)
        if self._is_iterable:
            if isinstance(dataset, IterableDataset) and shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterator: _BaseDataLoaderIter | None = None
        self.__initialized = True
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self) -> None:
        """Warn, as PyTorch does, when `num_workers` exceeds the CPUs this process may run on (its affinity
        mask where the system has one): more workers than that only contend, and can stall loading."""
        if not self.num_workers:
            return
        has_affinity = hasattr(os, "sched_getaffinity")
        usable = len(os.sched_getaffinity(0)) if has_affinity else os.cpu_count()
        if usable is not None and self.num_workers <= usable:
            return
        if usable is None:
            suggestion = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            unchecked = "" if has_affinity else " (`cpuset` is not taken into account)"
            suggestion = (f"Our suggested max number of worker in current system is {usable}{unchecked}, which is "
                          "smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {suggestion} "
                      "Please be aware that excessive worker creation might get DataLoader running slow or even "
                      "freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
                      stacklevel=3)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = mp.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = mp.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _dataset_kind(self) -> int:
        """PyTorch's `_DatasetKind`: 0 for a map-style dataset, 1 for an IterableDataset."""
        return int(self._is_iterable)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self) -> _BaseDataLoaderIter:
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self) -> _BaseDataLoaderIter:
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None or self._iterator._workers.closed:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._is_iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    """One pass over a DataLoader. It keeps no reference to the loader (no cycle with a persistent
    loader, so dropping the loader frees the workers at once)."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        self._pin_memory = loader.pin_memory and cuda_available()
        if loader.pin_memory and not self._pin_memory:
            warnings.warn(NO_ACCELERATOR_WARNING, stacklevel=3)
        self._base_seed = draw_seed(loader.generator)
        self._sampler_iter = iter(self._index_sampler)
        self._num_workers = loader.num_workers
        self._num_yielded = 0
        self._len_called = loader._IterableDataset_len_called

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._is_iterable and self._len_called is not None and self._num_yielded > self._len_called:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._len_called}(when accessing "
                   f"len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """`num_workers=0`: fetch and collate in the calling thread."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._fetcher = make_fetcher(self._dataset, self._is_iterable, self._auto_collation, self._collate_fn,
                                     self._drop_last)

    def _next_data(self):
        data = self._fetcher.fetch(self._next_index())
        return pin_memory(data) if self._pin_memory else data


def _free_on_unmap(freed: collections.deque, worker_id: int, name: str, mapping) -> None:
    """`sharing.on_attach` hook: when the main process's mapping of a batch segment dies, queue a free."""
    weakref.finalize(mapping, freed.append, (worker_id, name))


class _Workers:
    """The processes, queues and shared segments of one multi-process iterator.

    It holds no reference to the iterator, so `weakref.finalize(iterator, workers.shutdown)` runs
    when the iterator is collected (or at interpreter exit) and releases everything.
    """

    def __init__(self, loader: DataLoader, base_seed: int, collate_fn: Callable, auto_collation: bool) -> None:
        ctx = loader.multiprocessing_context or mp.get_context()
        self.prefix = f"{sharing.SHM_PREFIX}{os.getpid()}_L{secrets.token_hex(3)}_"
        self.freed: collections.deque = collections.deque()
        self.result_queue = ctx.Queue()
        self.done_event = ctx.Event()
        self.index_queues: list = []
        self.processes: list = []
        self.closed = False
        self._unhooks = []
        self._reaper = _start_reaper(self.prefix)
        # a forked worker inherits the reaper's pipe, which would keep it open after the main process died
        self._inherited_fd = self._reaper.stdin.fileno() if ctx.get_start_method() == "fork" else None
        try:
            self._start(ctx, loader, base_seed, collate_fn, auto_collation)
        except BaseException:
            self.shutdown()  # e.g. spawn could not pickle the dataset: stop the workers already started
            raise

    def _start(self, ctx, loader: DataLoader, base_seed: int, collate_fn: Callable, auto_collation: bool) -> None:
        for wid in range(loader.num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            spec = WorkerSpec(worker_id=wid, num_workers=loader.num_workers, dataset=loader.dataset,
                              is_iterable=loader._is_iterable, auto_collation=auto_collation, collate_fn=collate_fn,
                              drop_last=loader.drop_last, base_seed=base_seed, init_fn=loader.worker_init_fn,
                              shm_prefix=f"{self.prefix}w{wid}_", index_queue=index_queue,
                              result_queue=self.result_queue, done_event=self.done_event,
                              close_fd=self._inherited_fd)
            self._unhooks.append(sharing.on_attach(spec.shm_prefix, functools.partial(_free_on_unmap, self.freed, wid)))
            proc = ctx.Process(target=worker_loop, args=(spec,), daemon=True)
            self.index_queues.append(index_queue)
            self.processes.append(proc)
            proc.start()
            self._tell_reaper(str(proc.pid))

    def _tell_reaper(self, line: str) -> None:
        try:
            self._reaper.stdin.write(line.encode() + b"\n")
            self._reaper.stdin.flush()
        except (BrokenPipeError, ValueError):  # the reaper is gone: the workers' watchdogs remain
            pass

    def send(self, worker_id: int, msg: tuple) -> None:
        """Send `msg` to a worker, after the frees that finalizers queued since the last send."""
        while self.freed:
            wid, name = self.freed.popleft()
            self.index_queues[wid].put(("free", name))
        self.index_queues[worker_id].put(msg)

    def dead(self) -> list:
        """Workers that exited (or were killed) while they should be running."""
        return [p for p in self.processes if p.exitcode is not None]

    def shutdown(self) -> None:
        """Stop and join every worker, close the queues, and unlink every segment under the prefix."""
        if self.closed:
            return
        self.closed = True
        for unhook in self._unhooks:
            unhook()
        self.done_event.set()
        for q in self.index_queues:
            q.put(None)
        deadline = time.monotonic() + _JOIN_S
        for p in self.processes:
            if p.pid is None:
                continue  # never started
            p.join(max(deadline - time.monotonic(), 0.0))
            if p.exitcode is None:
                p.terminate()
                p.join()
        for q in [*self.index_queues, self.result_queue]:
            q.cancel_join_thread()
            q.close()
        self._unlink_leftovers()
        self._tell_reaper("done")
        try:
            self._reaper.stdin.close()
            self._reaper.wait(_JOIN_S)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            pass

    def _unlink_leftovers(self) -> None:
        # Segments of workers that could not clean up (killed by a signal); see the NOTE.
        sharing.unlink_prefixed(self.prefix)


def _start_reaper(prefix: str) -> subprocess.Popen:
    """The iterator's reaper process (`ember.data.reaper`), in a session of its own so that a Ctrl-C
    meant for the program does not end it before the program has cleaned up."""
    return subprocess.Popen([sys.executable, "-I", "-S", _REAPER, prefix], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """`num_workers > 0`: NOTE [ DataLoader worker protocol ], main-process side."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if loader.prefetch_factor <= 0:  # nothing would ever be requested: an empty epoch without this
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        self._workers = _Workers(loader, self._base_seed, self._collate_fn, self._auto_collation)
        self._pin_thread = PinMemoryThread(self._workers.result_queue) if self._pin_memory else None
        self._finalizer = weakref.finalize(self, _shutdown, self._workers, self._pin_thread)
        self._start_epoch()

    def _start_epoch(self) -> None:
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict[int, tuple] = {}
        self._outstanding = 0
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        for _ in range(self._prefetch):
            self._try_put_index()

    def _reset(self, loader: DataLoader) -> None:
        """A new epoch of persistent workers: resume them, dropping what the last epoch left in flight."""
        super()._reset(loader)
        for wid in range(self._num_workers):
            self._workers.send(wid, ("resume",))
        waiting = self._num_workers
        while waiting:
            _, idx, _ = self._get_data()
            waiting -= idx == RESUMED
        self._start_epoch()

    def _try_put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._active[wid]:
                break
        else:
            return
        self._workers.send(wid, ("task", self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._outstanding += 1
        self._send_idx += 1

    def _get_data(self) -> tuple[int, int, Any]:
        """The next `(worker_id, idx, data)`; polls worker liveness so a dead worker never hangs us."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        source = self._pin_thread.out if self._pin_thread is not None else self._workers.result_queue
        while True:
            wait = MP_STATUS_CHECK_INTERVAL
            if deadline is not None:
                wait = max(min(wait, deadline - time.monotonic()), 0.0)
            try:
                wid, idx, payload = source.get(timeout=wait)
            except queue.Empty:
                dead = self._workers.dead()
                if dead:
                    self._shutdown()
                    pids = ", ".join(str(p.pid) for p in dead)
                    why = "; ".join(_exit_reason(self._workers.processes.index(p), p.exitcode) for p in dead)
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly ({why})") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
                continue
            if self._pin_thread is None and payload is not None:
                payload = pickle.loads(payload)
            return wid, idx, payload

    def _next_data(self):
        try:
            return self._next_batch()
        except KeyboardInterrupt:
            self._shutdown()
            raise

    def _next_batch(self):
        if self._workers.closed:
            raise StopIteration
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._active[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process(data)
            wid, idx, data = self._get_data()
            if idx == RESUMED:
                continue
            self._outstanding -= 1
            if isinstance(data, IterableEnd):
                self._active[wid] = False
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if self._in_order:
                    self._task_info[idx] += (data,)
                    continue
                del self._task_info[idx]
                return self._process(data)
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown(self) -> None:
        self._finalizer()


def _exit_reason(worker_id: int, exitcode: int) -> str:
    if exitcode >= 0:
        return f"worker {worker_id}: exit code {exitcode}"
    name = signal.Signals(-exitcode).name if -exitcode in signal.valid_signals() else str(-exitcode)
    hint = ", which may mean that /dev/shm is too small" if -exitcode == signal.SIGBUS else ""
    return f"worker {worker_id}: killed by signal {name}{hint}"


def _shutdown(workers: _Workers, pin_thread: PinMemoryThread | None) -> None:
    if pin_thread is not None:
        pin_thread.stop()
    workers.shutdown()
