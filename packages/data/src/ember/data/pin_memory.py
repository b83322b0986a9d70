"""`pin_memory=True`: batches copied into page-locked host memory, on a background thread with workers."""

from __future__ import annotations

import collections.abc
import pickle
import queue
import threading
from typing import Any

from ember.core import Tensor
from ember.data.worker import ExceptionWrapper

__all__ = ["cuda_available", "pin_memory", "PinMemoryThread", "NO_ACCELERATOR_WARNING"]

NO_ACCELERATOR_WARNING = ("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.")
_POLL_S = 0.1


def cuda_available() -> bool:
    """Whether ember's CUDA backend has a device to pin memory for."""
    from ember.core import cuda

    return cuda.is_available()


def pin_memory(data: Any) -> Any:
    """`data` with every tensor (and every object with a `pin_memory()` method) pinned, containers kept."""
    if isinstance(data, Tensor) or (hasattr(data, "pin_memory") and not isinstance(data, type)):
        return data.pin_memory()
    if isinstance(data, str | bytes):
        return data
    if isinstance(data, collections.abc.Mapping):
        pinned = {k: pin_memory(v) for k, v in data.items()}
        try:
            return type(data)(pinned)
        except TypeError:
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_memory(v) for v in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(v) for v in data)
    if isinstance(data, collections.abc.Sequence):
        pinned = [pin_memory(v) for v in data]
        try:
            return type(data)(pinned)
        except TypeError:
            return pinned
    return data


class PinMemoryThread:
    """Reads `(worker_id, idx, payload)` from the workers' result queue, unpickles and pins the
    batch, and puts `(worker_id, idx, batch)` on `out`, where the iterator reads it instead."""

    def __init__(self, result_queue) -> None:
        self.out: queue.Queue = queue.Queue()
        self._source = result_queue
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ember-pin-memory", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                wid, idx, payload = self._source.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            except (OSError, ValueError, EOFError):
                return  # the queue was closed under us: the iterator is shutting down
            try:
                data = pin_memory(pickle.loads(payload)) if payload is not None else None
            except Exception:
                data = ExceptionWrapper(where="in pin memory thread")  # re-raised by the iterator
            self.out.put((wid, idx, data))

    def stop(self) -> None:
        """Stop and join the thread (it notices within `_POLL_S` seconds)."""
        self._stop.set()
        if threading.current_thread() is not self._thread:  # a finalizer may run on this very thread
            self._thread.join()
