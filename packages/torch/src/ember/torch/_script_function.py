"""What `torch.jit.script(function)` returns: the function, run eagerly, behind TorchScript's calling convention.

A scripted function has a schema (`smape(Tensor pred, Tensor target, float eps=1e-08) -> Tensor`, an
unannotated argument being a Tensor) and checks each call against it before running, with PyTorch's
messages: an argument of the wrong type, too many, a missing or an unknown keyword raises RuntimeError.
"""

from __future__ import annotations

import inspect
import numbers
import types
import typing

import numpy as np

from ember.core.tensor import Tensor

_PYBIND = ("Unable to cast Python instance of type {} to C++ type '?' (#define PYBIND11_DETAILED_ERROR_MESSAGES or "
           "compile in debug mode for details)")
_SCALARS = {int: "int", float: "float", bool: "bool", str: "str"}
_UNIONS = (typing.Union, types.UnionType)  # `Optional[T]` and `T | None`


class _Unsupported(Exception):
    """An annotation TorchScript's schema cannot spell here: the function is returned unwrapped."""


def _names(tp) -> tuple[str, str]:
    """`tp` as the schema spells it (`float[]`, `Tensor?`) and as the type error names it (`List[float]`)."""
    if tp is inspect.Parameter.empty or tp is Tensor:
        return "Tensor", "Tensor"
    if tp in _SCALARS:
        return _SCALARS[tp], _SCALARS[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is list and len(args) == 1:
        s, e = _names(args[0])
        return f"{s}[]", f"List[{e}]"
    if origin in _UNIONS and len(args) == 2 and type(None) in args:
        s, e = _names(args[0] if args[1] is type(None) else args[1])
        return f"{s}?", f"Optional[{e}]"
    if origin is tuple and args and Ellipsis not in args:
        parts = [_names(a) for a in args]
        return "(" + ", ".join(p[0] for p in parts) + ")", "Tuple[" + ", ".join(p[1] for p in parts) + "]"
    if origin is dict and len(args) == 2:
        (ks, ke), (vs, ve) = _names(args[0]), _names(args[1])
        return f"Dict({ks}, {vs})", f"Dict[{ke}, {ve}]"
    raise _Unsupported(tp)


def _cast_error(value, tp) -> str | None:
    """Why `value` cannot be passed as `tp` (PyTorch's "Cast error details"), or None when it can."""
    if tp is inspect.Parameter.empty or tp is Tensor:
        return None if value is None or isinstance(value, Tensor) else f"Unable to cast {value} to Tensor"
    if tp in _SCALARS:
        if tp is str:
            ok = isinstance(value, str)
        elif isinstance(value, Tensor | int | np.integer | np.bool_):
            ok = True
        else:  # a float (numpy's too) passes only as a float
            ok = tp is float and isinstance(value, numbers.Real)
        return None if ok else _PYBIND.format(type(value))
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in _UNIONS:
        return None if value is None else _cast_error(value, args[0] if args[1] is type(None) else args[1])
    if origin is list:
        if not isinstance(value, list | tuple):
            return _PYBIND.format(type(value))
        error = next((e for e in (_cast_error(v, args[0]) for v in value) if e is not None), None)
        if error is not None and args[0] is Tensor:  # a Tensor[] is cast whole: the list is what failed
            return _PYBIND.format(type(value))
        return error
    if origin is tuple:
        if not isinstance(value, list | tuple) or len(value) != len(args):
            return _PYBIND.format(type(value))
        return next((e for e in (_cast_error(v, a) for v, a in zip(value, args)) if e is not None), None)
    if not isinstance(value, dict):
        return _PYBIND.format(type(value))
    errors = (_cast_error(k, args[0]) or _cast_error(v, args[1]) for k, v in value.items())
    return next((e for e in errors if e is not None), None)


def _default(value) -> str:
    """A default as the schema prints it: C++'s doubles (`1.`, `1e-08`), strings in double quotes."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        text = repr(value)
        return text[:-1] if text.endswith(".0") else text
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_default(v) for v in value) + ")"
    return repr(value)


class FunctionSchema:
    """A scripted function's signature as TorchScript prints it."""

    def __init__(self, name: str, arguments: list, returns: str):
        self.name, self.overload_name, self.arguments, self._returns = name, "", arguments, returns

    def __str__(self) -> str:
        args = [f"{s} {p.name}" + ("" if p.default is inspect.Parameter.empty else f"={_default(p.default)}")
                for p, s, _, _ in self.arguments]
        return f"{self.name}({', '.join(args)}) -> {self._returns}"

    __repr__ = __str__


class ScriptFunction:
    """A function `torch.jit.script` compiled in PyTorch; ember checks each call against its schema and runs it."""

    __name__ = "ScriptFunction"  # PyTorch's scripted function answers its class's name
    __module__, __qualname__ = "torch.jit", "torch.jit.ScriptFunction"  # its class prints so

    def __init__(self, fn, schema: FunctionSchema):
        self._fn, self.schema = fn, schema
        self.name = fn.__name__
        self.qualified_name = f"__torch__.{fn.__name__}"
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        schema, name = self.schema, self.name
        if len(args) > len(schema.arguments):
            raise RuntimeError(f"{name}() expected at most {len(schema.arguments)} argument(s) but received "
                               f"{len(args) + len(kwargs)} argument(s). Declaration: {schema}")
        known = {p.name for p, _, _, _ in schema.arguments}
        for k in kwargs:
            if k not in known:
                raise RuntimeError(f"Unknown keyword argument '{k}' for operator '{name}'. Schema: {schema}")
        for i, (p, _, expected, tp) in enumerate(schema.arguments):
            if i < len(args):
                value = args[i]
            elif p.name in kwargs:
                value = kwargs[p.name]
            elif p.default is not inspect.Parameter.empty:
                continue
            else:
                raise RuntimeError(f"{name}() is missing value for argument '{p.name}'. Declaration: {schema}")
            detail = _cast_error(value, tp)
            if detail is not None:
                raise RuntimeError(f"{name}() Expected a value of type '{expected}' for argument '{p.name}' but "
                                   f"instead found type '{type(value).__name__}'.\nPosition: {i}\nValue: {value!r}"
                                   f"\nDeclaration: {schema}\nCast error details: {detail}")
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<torch.jit.ScriptFunction object at {hex(id(self))}>"


def script_function(fn):
    """`fn` behind its TorchScript schema, or `fn` itself where its signature has no schema (`*args`, an
    annotation TorchScript lacks)."""
    try:
        hints = typing.get_type_hints(fn)
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            return fn
        arguments = [(p, *_names(hints.get(p.name, p.annotation)), hints.get(p.name, p.annotation)) for p in params]
        ret = hints.get("return", inspect.Parameter.empty)
        returns = "NoneType" if ret is type(None) else _names(ret)[0]
        if typing.get_origin(ret) is tuple:
            returns = f"({returns})"
    except (_Unsupported, NameError, TypeError, ValueError):
        return fn
    return ScriptFunction(fn, FunctionSchema(fn.__name__, arguments, returns))
