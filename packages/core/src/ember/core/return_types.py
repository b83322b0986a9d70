"""PyTorch's named results (`torch.return_types.max`, ...): namedtuples that print as PyTorch's structseqs."""

from __future__ import annotations

from collections import namedtuple

from ember.core import dtypes

__all__ = ["return_type"]


def _repr(self) -> str:
    fields = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
    return f"{dtypes._repr_namespace}.return_types.{type(self).__name__}(\n{fields})"


def return_type(name: str, fields: list[str], module: str) -> type:
    """A namedtuple `return_types.{name}` of `module` whose repr is PyTorch's (one field a line)."""
    cls = namedtuple(name, fields)
    cls.__module__, cls.__qualname__ = module, f"return_types.{name}"
    cls.__repr__ = _repr
    return cls
