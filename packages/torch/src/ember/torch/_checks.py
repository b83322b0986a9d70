"""`torch._check` and its siblings: the assertions library code (custom ops' fake kernels, shape functions)
writes to refuse bad input with PyTorch's exception types, the message built only when the check fails."""

from __future__ import annotations

from collections.abc import Callable

import ember.autograd as _ag

__all__ = ["_check", "_check_with", "_check_index", "_check_value", "_check_type", "_check_not_implemented",
           "_check_tensor_all"]

_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please report "
            "an enhancement request to PyTorch.)")


def _check_with(error_type: type[Exception], cond: bool, message: Callable[[], str] | None = None) -> None:
    """Raise `error_type(message())` unless `cond` (a Python bool) holds."""
    if not isinstance(cond, bool):
        if isinstance(cond, _ag.Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        raise error_type(_DEFAULT)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(str(message()))


def _check(cond: bool, message: Callable[[], str] | None = None) -> None:
    """A RuntimeError unless `cond`."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond: bool, message: Callable[[], str] | None = None) -> None:
    """An IndexError unless `cond`."""
    _check_with(IndexError, cond, message)


def _check_value(cond: bool, message: Callable[[], str] | None = None) -> None:
    """A ValueError unless `cond`."""
    _check_with(ValueError, cond, message)


def _check_type(cond: bool, message: Callable[[], str] | None = None) -> None:
    """A TypeError unless `cond`."""
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond: bool, message: Callable[[], str] | None = None) -> None:
    """A NotImplementedError unless `cond`."""
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all(cond, message: Callable[[], str] | None = None) -> None:
    """A RuntimeError unless every element of the bool tensor `cond` is True."""
    if not isinstance(cond, _ag.Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype != _ag.bool:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(RuntimeError, bool(cond.all()), message)
