"""`torch.overrides` (ember.core.overrides): the `__torch_function__` protocol for functions that opt into it.

A library function written against PyTorch checks `has_torch_function(args)` and, if an argument's
type defines `__torch_function__` (a tensor-like object, or a Tensor subclass that overrides it),
hands the call to `handle_torch_function`, which asks each such type in turn, subclasses first, as
PyTorch does. ember's own ops do not consult `__torch_function__` (they dispatch through ember's op
registry), so the protocol reaches exactly the functions that call these helpers or are wrapped by
`wrap_torch_function`. `DisableTorchFunction` and `DisableTorchFunctionSubclass` switch it off.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator

from ember.core.tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "wrap_torch_function", "DisableTorchFunction",
           "DisableTorchFunctionSubclass", "is_tensor_method_or_property"]

_disabled = [0]


def _overrides(obj) -> bool:
    """Whether `obj`'s type takes part in the protocol (a Tensor itself does not)."""
    tf = getattr(type(obj), "__torch_function__", None)
    return tf is not None and tf is not getattr(Tensor, "__torch_function__", None)


def has_torch_function(relevant_args: Iterable) -> bool:
    """Whether any of `relevant_args` defines `__torch_function__` (and the protocol is enabled)."""
    return not _disabled[0] and any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(obj) -> bool:
    return not _disabled[0] and _overrides(obj)


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def _overloaded(relevant_args: Iterable) -> list:
    """The arguments whose types implement the protocol, one per type, subclasses before their bases."""
    args: list = []
    types: list[type] = []
    for a in relevant_args:
        t = type(a)
        if t in types or not _overrides(a):
            continue
        at = len(args)
        for i, other in enumerate(types):
            if issubclass(t, other):
                at = i
                break
        args.insert(at, a)
        types.insert(at, t)
    return args


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Call `__torch_function__` of the overloaded arguments until one does not return NotImplemented.

    Raises:
        TypeError: every implementation returned NotImplemented.
    """
    overloaded = _overloaded(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for a in overloaded:
        result = type(a).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__qualname__", getattr(public_api, "__name__", repr(public_api)))
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                    f"{[t for t in types]}")


def is_tensor_like(inp) -> bool:
    """A Tensor, or an object whose type implements `__torch_function__`."""
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func: Callable) -> bool:
    """Whether `func` is a method or property of Tensor (PyTorch passes these with `self` first)."""
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func


def wrap_torch_function(dispatcher: Callable) -> Callable:
    """Decorator: the wrapped function hands itself to `handle_torch_function` when any argument that
    `dispatcher(*args, **kwargs)` returns implements the protocol."""
    def deco(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return deco


@contextlib.contextmanager
def _disabled_protocol() -> Iterator[None]:
    _disabled[0] += 1
    try:
        yield
    finally:
        _disabled[0] -= 1


class DisableTorchFunction:
    """Within `with DisableTorchFunction():`, `has_torch_function*` report False."""

    def __enter__(self):
        self._cm = _disabled_protocol()
        return self._cm.__enter__()

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


class DisableTorchFunctionSubclass(DisableTorchFunction):
    """As `DisableTorchFunction` (ember draws no line between subclasses and other tensor-likes)."""
