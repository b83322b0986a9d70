"""Named tuples of results (`torch.return_types.max` ...) that print as PyTorch's structseqs print."""

from __future__ import annotations

from collections import namedtuple

__all__: list[str] = []


def _repr(self) -> str:
    fields = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
    return f"torch.return_types.{type(self).__name__}(\n{fields})"


def return_type(name: str, fields: list[str], module: str):
    """A namedtuple class `return_types.<name>` of `module`, printing one field a line as PyTorch does."""
    cls = namedtuple(name, fields)
    cls.__module__, cls.__qualname__, cls.__repr__ = module, f"return_types.{name}", _repr
    return cls
