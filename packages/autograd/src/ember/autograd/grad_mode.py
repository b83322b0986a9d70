"""Grad modes, per thread: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`.

Each is a context manager and a decorator (also of generator functions). The state lives in a
`threading.local`, so a thread that starts with grad mode on is not affected by another
thread's `no_grad` (as in PyTorch). The dispatch hook reads `_state.enabled` on every op.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _GradState(threading.local):
    enabled = True      # record the graph
    inference = False   # inference_mode: no recording and no view tracking


_state = _GradState()


def is_grad_enabled() -> bool:
    """Whether ops called now record the autograd graph (per thread)."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    """Whether an `inference_mode()` block is active in this thread."""
    return _state.inference


def _set(enabled: bool, inference: bool) -> None:
    _state.enabled = enabled
    _state.inference = inference


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
        self._prev = _state.enabled
        self.mode = bool(mode)
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
            _set(False, True)
        else:
            _state.inference = False

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)

    def clone(self):
        return self.__class__(self.mode)
