"""`torch.compile(model, backend=callable)`: the model traced by `torch.fx` and handed to the backend.

PyTorch's TorchDynamo hands a callable backend an FX `GraphModule` and the list of the graph's example
inputs, and runs what the backend returns. Here `torch.fx.symbolic_trace` makes the graph, once per
guard (the tensor inputs' shapes, dtypes, devices and `requires_grad`, the other arguments' values, grad
mode and the module's `training`). The graph's inputs are the tensors among the arguments, in order;
every other argument is a constant of the graph, as Dynamo specializes them. Where the trace fails
(a branch or loop on a tensor's value, `len` of one ...), the call runs eagerly, as a Dynamo graph break
leaves the code eager (ember does not split the function into graphs); with `fullgraph=True` it raises
`Unsupported`.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable

from ember.core.tensor import Tensor
from ember.jit import TorchDynamoException, Unsupported
from ember.jit import compiler as _jit_compiler
from ember.nn.modules.module import Module
from ember.torch.fx import GraphModule, Tracer

__all__ = ["FxCompiledFunction", "BackendCompilerFailed", "reset"]

_EAGER = object()  # the cache entry of a guard whose trace failed
_ALL: weakref.WeakSet = weakref.WeakSet()


class BackendCompilerFailed(TorchDynamoException):
    """A callable backend raised, or returned something that is not callable (PyTorch's words)."""

    def __init__(self, backend: Callable, inner: BaseException) -> None:
        self.backend_name = getattr(backend, "__name__", "?")
        self.inner_exception = inner
        super().__init__(f"backend={self.backend_name!r} raised:\n{type(inner).__name__}: {inner}")


class FxCompiledFunction:
    """`fn` (a function, or a module's call) run through `backend(gm, example_inputs)`'s compiled callable."""

    def __init__(self, fn: Callable, backend: Callable, *, fullgraph: bool = False,
                 eager: Callable | None = None) -> None:
        self._fn = fn
        self._eager = fn if eager is None else eager  # `Module.compile`'s: the class's forward, not the module's call
        self._backend = backend
        self._fullgraph = fullgraph
        self._cache: dict = {}
        functools.update_wrapper(self, fn, updated=())
        _ALL.add(self)

    def __call__(self, *args, **kwargs):
        if _jit_compiler._force_eager:  # `torch.compiler.set_stance("force_eager")`
            return self._eager(*args, **kwargs)
        key = _guard(self._fn, args, kwargs)
        entry = _EAGER if key is None else self._cache.get(key)
        if entry is None:
            entry = self._cache[key] = self._compile(args, kwargs)
        if entry is _EAGER:
            return self._eager(*args, **kwargs)
        return entry(*_tensors((args, kwargs)))

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def _compile(self, args: tuple, kwargs: dict):
        """Trace the call, hand the graph to the backend; `_EAGER` where the trace fails."""
        tracer = _ArgumentsTracer(args, kwargs)
        try:
            graph = tracer.trace(self._fn)
        except Exception as e:
            if self._fullgraph:
                raise Unsupported(f"torch.compile(fullgraph=True): {_name(self._fn)} cannot be traced into one "
                                  f"FX graph: {type(e).__name__}: {e}") from e
            return _EAGER
        gm = GraphModule(tracer.root, graph, "GraphModule")
        try:
            compiled = self._backend(gm, _tensors((args, kwargs)))
            if not callable(compiled):
                raise AssertionError("compiler_fn did not return callable")
        except Exception as e:
            raise BackendCompilerFailed(self._backend, e) from e
        return compiled

    def reset(self) -> None:
        """Forget the graphs: the next call traces again."""
        self._cache.clear()


def reset() -> None:
    """Forget the graphs of every function compiled with a callable backend (`torch._dynamo.reset()`)."""
    for c in list(_ALL):
        c.reset()


def _name(fn) -> str:
    return type(fn).__name__ if isinstance(fn, Module) else getattr(fn, "__name__", type(fn).__name__)


def _tensors(tree) -> list[Tensor]:
    """The tensors in `tree` (nested tuples, lists and dict values), depth first: the graph's inputs."""
    if isinstance(tree, Tensor):
        return [tree]
    if isinstance(tree, (tuple, list)):
        return [t for v in tree for t in _tensors(v)]
    if isinstance(tree, dict):
        return [t for v in tree.values() for t in _tensors(v)]
    return []


def _guard_of(v):
    if isinstance(v, Tensor):
        return (Tensor, tuple(v.shape), v.dtype, str(v.device), v.requires_grad)
    if isinstance(v, (tuple, list)):
        return (type(v), *map(_guard_of, v))
    if isinstance(v, dict):
        return (dict, *((k, _guard_of(x)) for k, x in v.items()))
    hash(v)  # an unhashable constant: no guard (the caller runs eagerly)
    return (type(v), v)


def _guard(fn, args: tuple, kwargs: dict):
    """What a graph is specialized to (None where an argument cannot be guarded)."""
    from ember.autograd import is_grad_enabled

    try:
        key = (_guard_of(args), _guard_of(kwargs), is_grad_enabled())
    except TypeError:
        return None
    return key + (fn.training,) if isinstance(fn, Module) else key


class _ArgumentsTracer(Tracer):
    """A Tracer whose placeholders are the call's tensors (named by their parameters); the other arguments
    are passed as they are, constants of the graph."""

    def __init__(self, args: tuple, kwargs: dict) -> None:
        super().__init__()
        self._call_args, self._call_kwargs = args, kwargs

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        args, kwargs = self._call_args, self._call_kwargs
        try:
            params = list(inspect.signature(root_fn).parameters)[1 if is_module else 0:]
        except (TypeError, ValueError):
            params = []
        names = [params[i] if i < len(params) else f"arg{i}" for i in range(len(args))]
        a = [self._placeholders(v, n) for v, n in zip(args, names)]
        kw = {k: self._placeholders(v, k) for k, v in kwargs.items()}
        if is_module:
            return lambda: root_fn(self.root, *a, **kw)
        return lambda: root_fn(*a, **kw)

    def _placeholders(self, v, name: str):
        if isinstance(v, Tensor):
            return self.create_proxy("placeholder", name, (), {})
        if isinstance(v, (tuple, list)):
            return type(v)(self._placeholders(x, f"{name}_{i}") for i, x in enumerate(v))
        if isinstance(v, dict):
            return {k: self._placeholders(x, f"{name}_{k}") for k, x in v.items()}
        return v
