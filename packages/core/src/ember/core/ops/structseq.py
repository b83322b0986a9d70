"""Result tuples with named fields (`torch.return_types.max` ...) as PyTorch's structseqs: a tuple subclass with
a property per field, `n_fields`, `__match_args__`, its repr and pickling, and none of a namedtuple's extras
(`_fields`, `_asdict`, `_replace`), so code testing `hasattr(r, "_fields")` takes PyTorch's branch."""

from __future__ import annotations

import numbers
import operator
import types

__all__ = ["return_type", "return_types", "is_structseq", "is_structseq_class", "rebuilt", "out_type"]

# every class `return_type` made, by name: PyTorch's `torch.return_types` (whose paths the classes print under)
return_types = types.SimpleNamespace()


class _StructSeq(tuple):
    """The base of the result classes (`is_structseq`)."""


def _repr(self) -> str:
    fields = ",\n".join(f"{f}={v!r}" for f, v in zip(type(self).__match_args__, self))
    return f"torch.return_types.{type(self).__name__}(\n{fields})"


def _reduce(self):
    return type(self), (tuple(self), {})


def _new(cls, *args, **kwargs):
    """PyTorch's structseq takes one sequence of the fields (`return_types.max((v, i))`, and an ignored dict);
    ember's own calls pass them one by one (every class has two fields or more, so the two never mix)."""
    names = cls.__match_args__
    if kwargs or len(args) != 1 and not (len(args) == 2 and isinstance(args[1], dict)):
        if args and isinstance(args[0], numbers.Number):  # ember's fields are tensors: PyTorch's refusal of a number
            raise TypeError("constructor requires a sequence")
        values = args + tuple(kwargs.pop(n) for n in names[len(args):] if n in kwargs)
        if kwargs or len(values) != cls.n_fields:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes {cls.n_fields} fields ({len(values)} given)")
    else:
        try:
            values = tuple(args[0])
        except TypeError:
            raise TypeError("constructor requires a sequence") from None
        if len(values) != cls.n_fields:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {cls.n_fields}-sequence "
                            f"({len(values)}-sequence given)")
    return tuple.__new__(cls, values)


def return_type(name: str, fields: list[str]):
    """The class `return_types.<name>` (registered there): a tuple with a property per field, printing one field
    a line, built from one sequence as PyTorch's structseq is (with `n_fields`, `n_sequence_fields`,
    `n_unnamed_fields`, `__match_args__`)."""
    body = {f: property(operator.itemgetter(i), doc=f"Alias for field number {i}") for i, f in enumerate(fields)}
    body.update(__slots__=(), __new__=_new, __repr__=_repr, __reduce__=_reduce, __match_args__=tuple(fields),
                n_fields=len(fields), n_sequence_fields=len(fields), n_unnamed_fields=0,
                __module__=__name__)  # python -m ember.torch names the module torch.return_types
    cls = type(name, (_StructSeq,), body)
    setattr(return_types, name, cls)
    return cls


def out_type(cls):
    """The class of `cls`'s results written through `out=` (`torch.return_types.linalg_eigh_out` for
    `linalg_eigh`): PyTorch's out= overloads return their own structseq, with the same fields."""
    name = f"{cls.__name__}_out"
    return getattr(return_types, name, None) or return_type(name, list(cls.__match_args__))


def is_structseq(obj) -> bool:
    """Whether `obj` is one of these result tuples."""
    return isinstance(obj, _StructSeq)


def is_structseq_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, _StructSeq)


def rebuilt(like: tuple, items) -> tuple:
    """A tuple of `like`'s class (a result tuple, a namedtuple, a plain tuple) holding `items`."""
    if isinstance(like, _StructSeq) or isinstance(like, tuple) and hasattr(like, "_fields"):
        return tuple.__new__(type(like), tuple(items))
    return type(like)(items)


def __getattr__(name: str):
    """Each class by its name here too (`ember.core.ops.structseq.max`), where pickle looks for it."""
    try:
        return getattr(return_types, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
