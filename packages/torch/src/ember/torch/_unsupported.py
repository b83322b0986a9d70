"""Functions of PyTorch's modules that ember does not provide: they exist (so modules import) and raise
an error naming what is unsupported and why."""

from __future__ import annotations

from collections.abc import Callable


class UnsupportedError(NotImplementedError):
    """A PyTorch feature ember does not implement (see docs/porting.md)."""


def unsupported(qualname: str, why: str) -> Callable:
    """A function named `qualname` that raises `UnsupportedError` with `why`."""

    def refuse(*args, **kwargs):
        raise UnsupportedError(f"{qualname} is not supported by ember: {why}; see docs/porting.md")

    refuse.__name__ = qualname.rsplit(".", 1)[-1]
    refuse.__qualname__ = refuse.__name__
    refuse.__doc__ = f"Not supported by ember: {why}."
    return refuse
