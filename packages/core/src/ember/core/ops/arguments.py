"""PyTorch's argument parser's TypeError for an argument of the wrong type, for functions that declare their
parameters' kinds (`@parsed("linalg_solve", A="Tensor", B="Tensor", left="bool")`).

PyTorch words it `linalg_solve(): argument 'B' (position 2) must be Tensor, not int` when the argument came
positionally and without "(position 2)" when it came by keyword; a list of the wrong elements is "tuple of ints,
but found element of type float at pos 0" positionally, "tuple of ints, not list" by keyword. A kind ending in
"?" also takes None; `("input", "Tensor")` gives the name ATen's schema spells where ember's differs.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import sys
from collections.abc import Callable

import numpy as np

from ember.core import dtypes
from ember.core.tensor import Tensor

__all__ = ["parsed", "refuse_out_with_grad"]

_INTS = (int, np.integer, Tensor)  # a 0-d tensor is an int to PyTorch's parser; the function checks it further


def _type_name(v) -> str:
    t = type(v)
    return "Tensor" if isinstance(v, Tensor) else t.__name__ if t.__module__ == "builtins" else \
        f"{t.__module__}.{t.__name__}"


def _int(v) -> bool:
    return isinstance(v, _INTS) and not isinstance(v, bool)


def _fits(kind: str, v) -> bool:
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "bool":
        return v.__class__ is bool
    if kind == "int":
        return _int(v)
    if kind == "str":
        return isinstance(v, str)
    if kind == "Number":
        return isinstance(v, numbers.Number | np.number | np.bool_ | Tensor)
    if kind == "float":
        return isinstance(v, numbers.Real | np.number | Tensor) and not isinstance(v, bool)
    if kind == "tuple of ints":
        return _int(v) or isinstance(v, tuple | list) and all(_int(e) for e in v)
    return isinstance(v, dtypes.dtype | type)  # "torch.dtype"


_KINDS = frozenset({"Tensor", "bool", "int", "str", "Number", "float", "tuple of ints", "torch.dtype"})


def _error(op: str, name: str, kind: str, v, position: int | None) -> TypeError:
    if position is None:
        return TypeError(f"{op}(): argument '{name}' must be {kind}, not {_type_name(v)}")
    if kind == "tuple of ints" and isinstance(v, tuple | list):
        i, e = next((i, e) for i, e in enumerate(v) if not _int(e))
        return TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but found element "
                         f"of type {_type_name(e)} at pos {i}")
    return TypeError(f"{op}(): argument '{name}' (position {position}) must be {kind}, not {_type_name(v)}")


def parsed(op: str, **kinds: str | tuple[str, str]) -> Callable:
    """Decorator: check the arguments named in `kinds` (parameter -> kind, or (ATen's name, kind)) before the call,
    raising PyTorch's TypeError for one of the wrong type (see the module's docstring)."""
    def deco(fn: Callable) -> Callable:
        params = inspect.signature(fn).parameters
        positional = [p for p, v in params.items() if v.kind in (v.POSITIONAL_ONLY, v.POSITIONAL_OR_KEYWORD)]
        spec = {}
        for p, k in kinds.items():
            if p not in params:
                raise ValueError(f"{op}: '{p}' is not a parameter of {fn.__qualname__}")
            name, kind = k if isinstance(k, tuple) else (p, k)
            if kind.rstrip("?") not in _KINDS:
                raise ValueError(f"{op}: unknown argument kind {kind!r}")
            spec[p] = (name, kind.rstrip("?"), kind.endswith("?"))
        checked = [(i, *spec[p]) for i, p in enumerate(positional) if p in spec]

        @functools.wraps(fn)
        def call(*args, **kwargs):
            n = len(args)
            for i, name, kind, optional in checked:
                if i < n and not (optional and args[i] is None) and not _fits(kind, v := args[i]):
                    raise _error(op, name, kind, v, i + 1)
            if kwargs:
                for p, v in kwargs.items():
                    s = spec.get(p)
                    if s is not None and not (s[2] and v is None) and not _fits(s[1], v):
                        raise _error(op, s[0], s[1], v, None)
            return fn(*args, **kwargs)

        return call
    return deco


def refuse_out_with_grad(kernel: str, *inputs) -> None:
    """PyTorch's RuntimeError for an out= call while grad mode is on and one of `inputs` requires grad, naming
    `kernel`, the ATen op its out= form runs (`linalg_vector_norm`, `linalg_eig` ...)."""
    if sys.modules["ember.core.tensor"]._grad_mode_enabled() and any(  # autograd sets its grad mode there
            isinstance(x, Tensor) and x._requires_grad for x in inputs):
        raise RuntimeError(f"{kernel}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
