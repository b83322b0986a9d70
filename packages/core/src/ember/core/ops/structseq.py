"""Named tuples of results (`torch.return_types.max` ...) that print as PyTorch's structseqs print."""

from __future__ import annotations

import types
from collections import namedtuple

__all__ = ["return_type", "return_types"]

# every class `return_type` made, by name: PyTorch's `torch.return_types` (whose paths the classes print under)
return_types = types.SimpleNamespace()


def _repr(self) -> str:
    fields = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
    return f"torch.return_types.{type(self).__name__}(\n{fields})"


def _new(cls, *args, **kwargs):
    """PyTorch's structseq takes one sequence of the fields (`return_types.max((v, i))`); ember's own calls pass
    them one by one, as to a namedtuple."""
    if len(args) == 1 and not kwargs and cls.n_fields > 1:
        values = tuple(args[0])
        if len(values) != cls.n_fields:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {cls.n_fields}-sequence "
                            f"({len(values)}-sequence given)")
        return tuple.__new__(cls, values)
    return cls._namedtuple_new(cls, *args, **kwargs)


def return_type(name: str, fields: list[str]):
    """A namedtuple class `return_types.<name>` (registered there), printing one field a line and built from one
    sequence as PyTorch's structseq is (with its `n_fields`, `n_sequence_fields`, `n_unnamed_fields`)."""
    cls = namedtuple(name, fields)
    cls.__module__, cls.__repr__ = __name__, _repr  # python -m ember.torch names the module torch.return_types
    cls._namedtuple_new = cls.__new__
    cls.__new__ = _new
    cls.n_fields = cls.n_sequence_fields = len(fields)
    cls.n_unnamed_fields = 0
    setattr(return_types, name, cls)
    return cls


def __getattr__(name: str):
    """Each class by its name here too (`ember.core.ops.structseq.max`), where pickle looks for it."""
    try:
        return getattr(return_types, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
