"""A recurrent layer's large GEMMs in pieces beside its time steps (NOTE [ A layer's GEMMs beside its steps ]).

NOTE [ A layer's GEMMs beside its steps ]
An LSTM layer's steps run one after another, each a small GEMM and a compiled pass on one thread; its large GEMMs
(the input projection before the steps, the input and weight gradients after them in the backward) were one
threaded BLAS call each, so at two threads one core idled through every step and OpenBLAS's workers spun on.
Cut along time into chunks of about 256 GEMM columns (steps x batch), each large GEMM becomes one piece a chunk,
and one of ember's workers runs the pieces beside the steps: the projection of the chunks ahead of the step loop
in the forward, the gradients of the chunks the step loop has finished in the backward. Every piece runs once, on
whichever thread claims it first, so a worker that is busy or never starts costs the overlap, not a deadlock, and
at one thread the caller runs them all. The chunking depends only on the layer's sizes and every piece runs with
the BLAS at one thread, so the bits do not depend on the thread count; sums over chunks (a weight's gradient)
are added in chunk order."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ember.core.ops import workers

__all__ = ["chunks", "Pieces", "beside"]

_COLUMNS = 256  # GEMM columns (steps x batch) a chunk: the GEMM's speed is reached, and 32 steps of 32 make 4 chunks
_MAX_CHUNKS = 16  # a long sequence's chunks grow instead: the backward keeps a chunk's gradient products alive


def chunks(steps: int, batch: int) -> list[tuple[int, int]]:
    """The layer's chunks of time steps, `(start, end)` in time order."""
    per = max(1, _COLUMNS // max(batch, 1), -(-steps // _MAX_CHUNKS))
    return [(s, min(steps, s + per)) for s in range(0, steps, per)]


class Pieces:
    """The pieces of one layer call, taken in `order` by the caller (`get`) and, where `threaded`, by a worker
    (`helper`). `then(k, result)`, if given, runs after piece k's work in `order` (a sum over the pieces stays one
    order); with `gated`, a piece may start only once `ready(k)` was called (the caller writes its inputs). One
    piece, one thread or a call from a worker: the caller runs every piece itself, with no events made."""

    def __init__(self, work: Callable[[int], object], order: Sequence[int], gated: bool = False,
                 then: Callable[[int, object], None] | None = None) -> None:
        from ember.core.parallel import get_num_threads

        self.work, self.order, self.then = work, list(order), then
        self.threaded = len(self.order) > 1 and not workers.in_worker() and get_num_threads() > 1
        if self.threaded:
            self._claimed: set[int] = set()
            self._lock = threading.Lock()
            self._done = {k: threading.Event() for k in self.order}  # its work and its `then` ran
            self._before = dict(zip(self.order[1:], self.order))
            self._ready = {k: threading.Event() for k in self.order} if gated else None
            self._error: BaseException | None = None

    def _claim(self, k: int) -> bool:
        with self._lock:
            if k in self._claimed:
                return False
            self._claimed.add(k)
            return True

    def _run(self, k: int) -> None:
        try:
            result = self.work(k)
            if self.then is not None:
                if k in self._before:
                    self._done[self._before[k]].wait()
                self.then(k, result)
        except BaseException as e:  # re-raised by the caller's `get`
            self._error = e
        finally:
            self._done[k].set()

    def ready(self, k: int | None = None) -> None:
        """Piece k may start (every piece, with None: the caller is done or failed)."""
        if self.threaded and self._ready is not None:
            for j in self.order if k is None else (k,):
                self._ready[j].set()

    def get(self, k: int) -> None:
        """Piece k done: run here unless another thread claimed it, else waited for."""
        if not self.threaded:
            result = self.work(k)
            if self.then is not None:
                self.then(k, result)
            return
        if self._claim(k):
            self._run(k)
        else:
            self._done[k].wait()
        if self._error is not None:
            raise self._error

    def helper(self) -> None:
        """A worker's share: each piece in order, once ready, that no thread has claimed."""
        for k in self.order:
            if self._ready is not None:
                self._ready[k].wait()
            if self._error is not None:
                return
            if self._claim(k):
                self._run(k)


def beside(steps: Callable[[], None], pieces: Pieces) -> None:
    """`steps()` on this thread, with `pieces.helper` on one of ember's workers where the pieces are `threaded`;
    `steps` ends by `get`ting every piece it has not needed yet."""
    if pieces.threaded:
        workers.run_all([steps, pieces.helper])
    else:
        steps()
