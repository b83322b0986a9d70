"""`torch.compiler`: the public face of `torch.compile` (compile, reset, disable, is_compiling ...).

Every entry runs on ember.jit (docs/compile.md). Capture is replay of eager's own kernels, so the
hints PyTorch's tracer takes (`allow_in_graph`, `assume_constant_result`) change nothing here and
return their function; `disable` gives back the uncompiled callable, which then runs eagerly.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable

import ember.jit as _jit
from ember.jit.compiler import CompiledFunction, CompiledModule, paused, set_force_eager
from ember.torch._dynamo import list_backends, reset
from ember.torch._dynamo.eval_frame import OptimizedModule

__all__ = ["compile", "reset", "disable", "set_stance", "allow_in_graph", "assume_constant_result", "list_backends",
           "is_compiling", "is_dynamo_compiling", "is_exporting", "cudagraph_mark_step_begin"]


def compile(*args, **kwargs):  # noqa: A001 - PyTorch's name
    """`torch.compiler.compile`: the same as `torch.compile`."""
    from ember import torch as _torch
    return _torch.compile(*args, **kwargs)


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    """`fn` run eagerly: a compiled function or module comes back as the callable it compiled; a plain
    function comes back wrapped to break a capture that calls it (it then runs eagerly at every call;
    with `fullgraph=True`, `Unsupported`, as PyTorch's). Without `fn`, a decorator."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    if isinstance(fn, OptimizedModule):
        return fn._orig_mod
    if isinstance(fn, CompiledModule):
        return fn._orig_mod
    if isinstance(fn, CompiledFunction):
        return fn.__wrapped__
    fx_backend = sys.modules.get("ember.torch._dynamo.fx_backend")
    if fx_backend is not None and isinstance(fn, fx_backend.FxCompiledFunction):
        return fn.__wrapped__
    if not isinstance(fn, (types.FunctionType, types.MethodType)):
        return fn

    @functools.wraps(fn)
    def disabled(*args, **kwargs):
        _jit.graph_break("a call to a torch.compiler.disable()d function")  # fullgraph: Unsupported, as PyTorch's
        with paused():
            return fn(*args, **kwargs)
    return disabled


_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile",
            "aot_eager_then_compile")


class set_stance:  # noqa: N801 - PyTorch's name
    """`torch.compiler.set_stance`: a call, context manager or decorator. "force_eager" runs every compiled
    function eagerly; the other stances compile as "default" does (ember's first call is eager already)."""

    def __init__(self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None) -> None:
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        if stance not in _STANCES:  # PyTorch raises this at the next compiled call
            raise RuntimeError(f"invalid torch.compile stance 'DynamoStance(stance={stance!r}, "
                               f"skip_guard_eval_unsafe={skip_guard_eval_unsafe}, backend={force_backend!r})'")
        if _jit.is_compiling():
            raise RuntimeError("attempted to set_stance in a torch.compile region")
        self.stance = stance
        self._prev = set_force_eager(stance == "force_eager")

    def __enter__(self) -> None:
        set_force_eager(self.stance == "force_eager")

    def __exit__(self, *exc) -> None:
        set_force_eager(self._prev)

    def __call__(self, fn: Callable) -> Callable:
        set_force_eager(self._prev)  # as a decorator, the stance holds only inside `fn`

        @functools.wraps(fn)
        def staged(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return staged


def allow_in_graph(fn: Callable) -> Callable:
    """A tracer hint in PyTorch; ember.jit records the ops `fn` runs, so `fn` is returned unchanged."""
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    """A tracer hint in PyTorch; ember.jit guards the Python values a plan reads, so `fn` is returned unchanged."""
    return fn


def is_compiling() -> bool:
    """True while ember.jit captures a call (the function's Python runs then; a replay runs none)."""
    return _jit.is_compiling()


def is_dynamo_compiling() -> bool:
    """The same as `is_compiling`: ember.jit is the only tracer."""
    return _jit.is_compiling()


def is_exporting() -> bool:
    """False: ember has no `torch.export`."""
    return False


def cudagraph_mark_step_begin() -> None:
    """A no-op: a replayed step's outputs are fresh tensors, never overwritten by the next replay."""
