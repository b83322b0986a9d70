"""`torch.classproperty`: a read-only property of the class itself (PyTorch keeps it in `torch._utils`)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["classproperty"]


class _ClassProperty:
    """Calls the getter with the class, whether it is read from the class or from an instance."""

    def __init__(self, fget: classmethod | staticmethod) -> None:
        self.fget = fget

    def __get__(self, instance, owner=None):
        return self.fget.__get__(instance, type(instance) if owner is None else owner)()


def classproperty(func: Callable | classmethod | staticmethod) -> _ClassProperty:
    """Decorator: `func(cls)` computed on each read of the attribute, from the class or an instance.

    >>> class A:
    ...     @classproperty
    ...     def twice(cls):
    ...         return cls.n * 2
    ...     n = 3
    >>> A.twice, A().twice
    (6, 6)
    """
    if not isinstance(func, classmethod | staticmethod):
        func = classmethod(func)
    return _ClassProperty(func)
