"""Grad modes, per thread: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`.

Each is a context manager and a decorator (also of generator functions). The state lives in two
context variables, so a thread (which starts in a fresh context) begins with grad mode on and is
not affected by another thread's `no_grad`, as in PyTorch; an asyncio task keeps its own too.
A context variable reads in ~40 ns where a `threading.local` attribute takes ~200 ns, and the
dispatch hook reads it on every op: hot paths use `_enabled.get()` / `_enabled.set()` directly,
everything else the attribute view `_state.enabled` / `_state.inference`.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled", "is_multithreading_enabled",
           "is_view_replay_enabled"]


_enabled: ContextVar[bool] = ContextVar("ember_grad_enabled", default=True)      # record the graph
_inference: ContextVar[bool] = ContextVar("ember_inference_mode", default=False)  # no view tracking either
# Grad mode set inside inference_mode (enable_grad there): PyTorch reports it, but records nothing while inference
# mode is on, so `_enabled` stays False and this holds what `is_grad_enabled()` says
_grad_in_inference: ContextVar[bool] = ContextVar("ember_grad_in_inference", default=False)


class _GradState:
    """`_state.enabled` and `_state.inference`: read and set the context variables as attributes."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return _enabled.get() or _grad_in_inference.get()

    @enabled.setter
    def enabled(self, value: bool) -> None:
        if _inference.get():
            _grad_in_inference.set(value)
        else:
            _enabled.set(value)

    @property
    def inference(self) -> bool:
        return _inference.get()

    @inference.setter
    def inference(self, value: bool) -> None:
        _inference.set(value)


_state = _GradState()


def is_grad_enabled() -> bool:
    """Whether grad mode is on (per thread): ops record the autograd graph then, but inside `inference_mode()`."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    """Whether an `inference_mode()` block is active in this thread."""
    return _state.inference


def _set(enabled: bool, inference: bool) -> None:
    """Set grad mode and inference mode (what `_state` reads back)."""
    _inference.set(inference)
    _enabled.set(enabled and not inference)
    _grad_in_inference.set(enabled and inference)


class _DecoratorContextManager:
    """A context manager that also decorates functions and generator functions."""

    def __call__(self, func: Callable) -> Callable:
        if inspect.isclass(func):
            raise RuntimeError("grad mode decorators do not support classes")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def _wrap_generator(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    request = gen.send(None)
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:
                        with self.clone():
                            request = gen.throw(e)
                    else:
                        with self.clone():
                            request = gen.send(response)
            except StopIteration as e:
                return e.value
        return wrapper

    def clone(self):
        return self.__class__()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc: Any) -> None:
        raise NotImplementedError


class no_grad(_DecoratorContextManager):
    """Disable graph recording in this thread: results of ops don't require grad.

    Example:
        >>> from ember.autograd import ones
        >>> x = ones(2, requires_grad=True)
        >>> with no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __new__(cls, orig_func: Callable | None = None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = False

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)


class enable_grad(_DecoratorContextManager):
    """Enable graph recording inside a `no_grad` block (per thread)."""

    def __new__(cls, orig_func: Callable | None = None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = True

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to `mode` now (a plain call) or for a `with` block / decorated function."""

    def __init__(self, mode: bool) -> None:
        if mode.__class__ is not bool:  # PyTorch's argument parser takes a bool only (not 1, None or a tensor)
            cls = type(mode)
            name = f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {name}")
        self._prev = _state.enabled
        self.mode = mode
        _state.enabled = self.mode

    def __call__(self, func: Callable) -> Callable:
        _state.enabled = self._prev
        return super().__call__(func)

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        _state.enabled = self._prev

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self) -> str:  # PyTorch's str and repr (torch.typename of the object)
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    __str__ = __repr__


_active_inference = 0  # inference_mode() blocks open in all threads
_active_lock = threading.Lock()


def _inference_blocks(delta: int) -> None:
    """Count the open inference_mode() blocks; while any is open, every new tensor passes through the
    autograd layer's `_mark_new` (it marks those made in this thread's mode), else through nothing."""
    global _active_inference
    from ember.autograd.record import _mark_new

    core_tensor = sys.modules["ember.core.tensor"]  # (the attribute ember.core.tensor is the function tensor())
    with _active_lock:
        _active_inference += delta
        core_tensor._on_make = _mark_new if _active_inference else None


class inference_mode(_DecoratorContextManager):
    """Like `no_grad`, and views made inside are not tracked either (cheapest mode)."""

    def __new__(cls, mode: bool | Callable = True):
        if callable(mode) and not isinstance(mode, bool):
            return cls(True)(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.inference)
        if self.mode:
            _inference_blocks(1)
            _set(False, True)
        else:  # PyTorch's InferenceMode(false) turns grad mode on
            _set(True, False)

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)
        if self.mode:
            _inference_blocks(-1)

    def clone(self):
        return self.__class__(self.mode)


_multithreading = True


def is_multithreading_enabled() -> bool:
    """The flag `set_multithreading_enabled` sets (True by default, as PyTorch's)."""
    return _multithreading


class set_multithreading_enabled(_DecoratorContextManager):
    """Set the flag now (a plain call) or for a block, as PyTorch's. It is recorded only: ember's engine
    always runs a backward on the calling thread, as PyTorch's does with the flag off."""

    def __init__(self, mode: bool) -> None:
        global _multithreading
        self.prev, self.mode = _multithreading, mode
        _multithreading = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        global _multithreading
        _multithreading = self.prev

    def clone(self) -> set_multithreading_enabled:
        return self.__class__(self.mode)


def is_view_replay_enabled() -> bool:
    """False: views of a view are not rebuilt by replaying view ops (PyTorch's default)."""
    return False


def refuse_grad(fn: str, **inputs: Any) -> None:
    """PyTorch's RuntimeError for a tensor that requires grad, while grad mode is on, passed as an argument the op
    `fn` declares non-differentiable (a loss's class weights, fake quantization's scale); checked in keyword order."""
    if not _enabled.get():
        return
    for name, t in inputs.items():
        if getattr(t, "requires_grad", False):
            raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{name}'. "
                               "This input cannot have requires_grad True.")
