"""Attaching ops to `Tensor` as methods and operators: the one place the class grows.

A public function whose first parameter is `input` becomes a method by `@method`; its in-place
twin (`add_`) by `inplace(...)`. The layers above attach their own methods (autograd's
`backward`) through `attach`, without core knowing what they are.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from ember.core.dispatch import Op
from ember.core.tensor import Tensor

__all__ = ["method", "inplace", "attach", "numpy_aliases"]


def numpy_aliases(fn: Callable) -> Callable:
    """`fn` also accepting numpy's `axis=`/`keepdims=` for `dim=`/`keepdim=`, as PyTorch does;
    `fn` itself when it has neither parameter."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    if "dim" not in params and "keepdim" not in params:
        return fn

    @functools.wraps(fn)
    def aliased(*args, **kwargs):
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return aliased


def attach(name: str, fn) -> None:
    """Set `Tensor.<name>` (a function, property or descriptor); the extension point for layers above.
    An `Op` is set as its plain-function twin (`op.method`), which binds without a Python frame."""
    setattr(Tensor, name, fn.method if isinstance(fn, Op) else fn)


def method(fn: Callable | None = None, *, name: str | None = None, also: tuple[str, ...] = ()):
    """Decorator: make the public function `fn(input, ...)` also the method `Tensor.<name>`
    (accepting numpy's `axis=`/`keepdims=` spellings where it takes `dim`/`keepdim`)."""
    def deco(f):
        f = numpy_aliases(f)
        for n in (name or f.__name__, *also):
            setattr(Tensor, n, f)
        return f
    return deco(fn) if fn is not None else deco


def inplace(fn: Callable, name: str | None = None) -> Callable:
    """The in-place method `x.<fn>_(...)`: `fn(x, ..., out=x)`, which bumps x's version."""
    def method_(self, *args, **kwargs):
        return fn(self, *args, **kwargs, out=self)

    base = getattr(fn, "__name__", None) or fn.name
    method_.__name__ = name or base + "_"
    method_.__doc__ = f"In-place version of `{base}`."
    setattr(Tensor, method_.__name__, method_)
    return method_
