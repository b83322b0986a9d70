"""`torch._dynamo`: the pieces of TorchDynamo's namespace that programs touch around `torch.compile`.

`config` reads and writes `ember.jit.config` (`torch._dynamo.config.cache_size_limit` sets ember.jit's limit),
`reset()` forgets every captured plan, `OptimizedModule` is what `torch.compile(module)` returns.
The tracer itself is `ember.jit` (docs/compile.md); its other internals are not provided.
"""

from __future__ import annotations

import sys

import ember.jit as _jit
from ember.torch._dynamo import config, exc
from ember.torch._dynamo.eval_frame import OptimizedModule

__all__ = ["OptimizedModule", "config", "exc", "reset", "explain", "list_backends", "is_compiling", "disable",
           "graph_break", "mark_dynamic", "maybe_mark_dynamic", "mark_static", "allow_in_graph"]

_BACKENDS = ("aot_eager", "cudagraphs", "eager", "inductor")


def reset() -> None:
    """Forget every plan captured so far (each compiled function captures again on its next calls), and
    every graph handed to a callable backend (it is traced again)."""
    _jit.reset()
    fx_backend = sys.modules.get("ember.torch._dynamo.fx_backend")
    if fx_backend is not None:
        fx_backend.reset()


def explain(f, *extra_args, **extra_kwargs):
    """`torch._dynamo.explain(f)(*args)`: capture `f` on the arguments and report its plans and graph breaks."""
    def inner(*args, **kwargs):
        return _jit.explain(f, *extra_args, *args, **extra_kwargs, **kwargs)
    return inner


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The backend names `torch.compile` accepts; all of them run `ember.jit`."""
    return ["cudagraphs", "inductor"] if exclude_tags else list(_BACKENDS)


def disable(fn=None, recursive: bool = True, *, reason: str | None = None, wrapping: bool = True):
    """`torch._dynamo.disable`: `torch.compiler.disable` (`fn` run eagerly; without `fn`, a decorator)."""
    from ember.torch.compiler import disable as _disable

    return _disable(fn, recursive, reason=reason)


def graph_break(msg: str = "") -> None:
    """`torch._dynamo.graph_break()`: the capture breaks here (with `fullgraph=True`, `Unsupported`)."""
    _jit.graph_break(msg)


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None) -> None:  # noqa: A002 - PyTorch's names
    """A hint that dimension `index` of `t` varies: a no-op, ember.jit's plans follow shapes (docs/compile.md)."""


def maybe_mark_dynamic(t, index) -> None:
    """A hint, as `mark_dynamic`: a no-op."""


def mark_static(t, index=None) -> None:
    """A hint that `t`'s shape stays: a no-op, ember.jit guards every tensor's shape."""


def allow_in_graph(fn):
    """A tracer hint: `fn` itself (ember.jit records the ops `fn` runs)."""
    return fn


def is_compiling() -> bool:
    """True while `ember.jit` captures a call (the function's Python runs only then)."""
    return _jit.is_compiling()


def __getattr__(name: str):
    raise AttributeError(f"module 'torch._dynamo' (ember.torch._dynamo) has no attribute '{name}': TorchDynamo's "
                         "internals are not provided by ember; torch.compile runs ember.jit (docs/compile.md)")
