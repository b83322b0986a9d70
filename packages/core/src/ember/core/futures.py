"""`torch.futures`: a `Future` holds the result of asynchronous work (a collective, a callback
chain) once it is done.

A future may carry a `drive` function that makes its work progress (MPI progresses a request only
inside MPI calls): `done()` drives it without blocking, `wait()` drives it to completion. Callbacks
added with `then`/`add_done_callback` run in the thread that completes the future.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """The eventual value of asynchronous work (PyTorch's `torch.futures.Future`)."""

    def __init__(self, *, devices=None, drive: Callable[[bool], None] | None = None) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._value = None
        self._exc: BaseException | None = None
        self._callbacks: list[Callable[[Future], None]] = []
        self._drive = drive

    def done(self) -> bool:
        """Whether the value (or an error) is set; makes the work progress without blocking."""
        if not self._event.is_set() and self._drive is not None:
            self._drive(False)
        return self._event.is_set()

    def wait(self):
        """Block until done and return the value (raise the error the work ended with)."""
        if not self._event.is_set():
            if self._drive is not None:
                self._drive(True)
            self._event.wait()
        if self._exc is not None:
            raise self._exc
        return self._value

    def value(self):
        """The value of a done future (raise its error); a future not yet done raises RuntimeError."""
        if not self._event.is_set():
            raise RuntimeError("Future.value(): the future is not completed yet; call wait() first")
        if self._exc is not None:
            raise self._exc
        return self._value

    def set_result(self, result) -> None:
        """Complete the future with `result` and run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Complete the future with the error `result`: `wait()` and `value()` raise it."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception; got {type(result).__name__}")
        self._complete(None, result)

    def _complete(self, value, exc: BaseException | None) -> None:
        with self._lock:
            if self._event.is_set():
                raise RuntimeError("Future can only be marked completed once")
            self._value, self._exc = value, exc
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def add_done_callback(self, callback: Callable[[Future], None]) -> None:
        """Run `callback(self)` when done (at once when already done)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback: Callable[[Future], object]) -> Future:
        """A new future holding `callback(self)` once this one is done (or the error it raised)."""
        child = Future(drive=lambda block: self._wait_quietly() if block else self.done())

        def run(parent: Future) -> None:
            try:
                result = callback(parent)
            except BaseException as e:  # noqa: BLE001 - the child future carries it
                child.set_exception(e)
            else:
                child.set_result(result)

        self.add_done_callback(run)
        return child

    def _wait_quietly(self) -> None:
        """Complete this future; its error belongs to whoever reads its value."""
        try:
            self.wait()
        except BaseException:  # noqa: BLE001, S110 - callbacks see it through value()
            pass

    def __repr__(self) -> str:
        return f"Future(done={self._event.is_set()})"


def collect_all(futures: Iterable[Future]) -> Future:
    """A future done when every one of `futures` is, holding the list of them."""
    futures = list(futures)
    out = Future(drive=lambda block: [f._wait_quietly() for f in futures] if block else
                 all(f.done() for f in futures))
    left = [len(futures)]
    lock = threading.Lock()

    def one(_: Future) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            out.set_result(futures)

    if not futures:
        out.set_result([])
    for f in futures:
        f.add_done_callback(one)
    return out


def wait_all(futures: Iterable[Future]) -> list:
    """Wait for every future and return their values (raise the first error)."""
    return [f.wait() for f in list(futures)]
