"""A plan's fused kernels compiled on a background thread while its first replays run them unfused.

NOTE [ Fused kernels compiled in the background ]
On an empty Numba cache a plan's fused kernels compile at its first replay: 1.7 s of CPU for the
10-op chain's forward, 2.7 s forward and backward, 3 s for NCF's step, on top of the eager calls
before the capture (whose kernels compile too). With `config.background_compile`, `Graph.compile`
builds the plan twice when a fused kernel still has to compile: once unfused (every op eager's
kernel, all compiled by the eager calls before the capture) and once fused. The replay starts on
the unfused plan, a thread compiles the fused kernels for the exact argument types their launches
will pass (`_arguments`: arrays of each operand's dtype and geometry, made as the launch makes them),
and the compiled function swaps the fused plan in when the thread is done, for its next call. A
warm disk cache makes the thread's work a load (milliseconds).

The swap must not change a result: it happens at whichever call follows the compile, so only plans
whose every fused group gives the unfused ops' bits are compiled this way (elementwise groups, which
call the scalar functions eager's kernels loop over, and sums over leading dims in numpy's order:
`run.exact`, set by `ember.jit.fusion`). A plan with another sum compiles at its first replay as
before. Anything else a fused replay compiles (the gathers' kernels, CUDA kernels) still compiles at
the fused plan's first call. Numba's compiler lock serializes compiles, so an eager op that must
compile meanwhile waits for the thread. A fork waits for the pending compiles first (a child would
inherit the compiler lock held by a thread it does not have), and so does interpreter exit, which
leaves the compiled kernels in the disk cache. `wait()` blocks until every swap is done.
"""

from __future__ import annotations

import os
import threading
import warnings

import numba
import numpy as np

from ember.core.tensor import Tensor

__all__ = ["kernels_to_compile", "start", "wait"]

_threads: list[threading.Thread] = []
_lock = threading.Lock()


def wait() -> None:
    """Block until every background compile has finished and its plan is swapped in."""
    while True:
        with _lock:
            _threads[:] = [t for t in _threads if t.is_alive()]
            live = list(_threads)
        if not live or threading.current_thread() in live:
            return
        for t in live:
            t.join()


os.register_at_fork(before=wait)


def _operand(b) -> Tensor:
    """A zero tensor with buffer `b`'s dtype, shape, strides and offset (its launch passes what it would)."""
    npdt = np.dtype(b.dtype.np)
    span = 1 + sum((n - 1) * s for n, s in zip(b.shape, b.strides) if n > 0)
    base = Tensor._wrap(np.zeros(b.offset + max(span, 1), npdt))
    return Tensor._make(base._storage, b.offset, tuple(b.shape), tuple(b.strides), b.dtype)


def _arguments(g, n) -> tuple:
    """The arguments fused node `n`'s kernel is called with, on zero operands of its inputs' geometry."""
    from ember.jit.fusion import _operands

    whole = n.kernel.whole
    if whole[0] == "flat":  # results and whole inputs: 1-D C arrays of the group's dtype, whatever their length
        _, _, size, npdt, _, broadcast, sv = whole
        flat = np.empty(0, npdt)
        return (size, *[flat] * len(n.outs),
                *[_operand(g.buffers[a.index])._np() if b else flat for a, b in zip(n.args, broadcast)], sv)
    ts = [_operand(g.buffers[a.index]) for a in n.args]
    _, _, dims, dt, _, prep, sv, size, red_len = whole
    n_res = len(n.outs) - (red_len is not None)
    arrays, strides = _operands(ts, prep)
    acc = (np.empty(red_len, dt),) if red_len is not None else ()
    return (*dims, *[np.empty(size, dt) for _ in range(n_res)], *arrays, sv, *strides, *acc)


def kernels_to_compile(g) -> list | None:
    """What compiles `g`'s fused kernels that are not compiled yet, as (function, arguments) calls: a kernel's
    `compile` for its launch's argument types, or a runner called on zero operands (the gathers: its result is
    dropped); None where a swap could change a result (a group that is not `exact`) or the types cannot be told."""
    from ember.jit.fusion import FusedOp
    from ember.jit.graph import OpNode

    todo = []
    for n in g.nodes:
        if not (isinstance(n, OpNode) and isinstance(n.op, FusedOp)):
            continue
        if not getattr(n.kernel, "exact", False):
            return None
        whole = getattr(n.kernel, "whole", None)
        try:
            if whole is not None:
                kern = whole[1]
                sig = tuple(numba.typeof(a) for a in _arguments(g, n))
                if sig not in kern.overloads:
                    todo.append((kern.compile, (sig,)))
            elif any(not d.signatures for d in n.kernel.dispatchers):
                todo.append((n.kernel, tuple(_operand(g.buffers[a.index]) for a in n.args)))
        except Exception:  # noqa: BLE001 - a geometry the dummies cannot make: compile at the first replay
            return None
    return todo


def start(todo: list, ready) -> None:
    """Compile `todo` (from `kernels_to_compile`) on a thread, then call `ready()` (the swap)."""
    def run() -> None:
        try:
            for fn, args in todo:
                fn(*args)
        except Exception as e:  # noqa: BLE001 - the unfused plan stays: slower, same results
            warnings.warn(f"ember.jit: compiling a plan's fused kernels failed ({type(e).__name__}: {e}); the plan "
                          "keeps running its ops unfused", RuntimeWarning, stacklevel=1)
            return
        ready()

    t = threading.Thread(target=run, name="ember.jit compile")
    with _lock:
        _threads.append(t)
    t.start()
