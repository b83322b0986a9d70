"""`torch.compiler`: the public face of `torch.compile` (compile, reset, disable, is_compiling ...).

Every entry runs on ember.jit (docs/compile.md). Capture is replay of eager's own kernels, so the
hints PyTorch's tracer takes (`allow_in_graph`, `assume_constant_result`) change nothing here and
return their function; `disable` gives back the uncompiled callable, which then runs eagerly.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable

import ember.jit as _jit
from ember.jit.compiler import CompiledFunction, CompiledModule, paused
from ember.torch._dynamo import list_backends, reset
from ember.torch._dynamo.eval_frame import OptimizedModule

__all__ = ["compile", "reset", "disable", "allow_in_graph", "assume_constant_result", "list_backends",
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
    if not isinstance(fn, (types.FunctionType, types.MethodType)):
        return fn

    @functools.wraps(fn)
    def disabled(*args, **kwargs):
        _jit.graph_break("a call to a torch.compiler.disable()d function")  # fullgraph: Unsupported, as PyTorch's
        with paused():
            return fn(*args, **kwargs)
    return disabled


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
