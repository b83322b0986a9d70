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
from ember.core.ops.parser_errors import int_like, int_tuple_error, invalid_arguments, plausible
from ember.core.tensor import Tensor

__all__ = ["parsed", "refuse_out_with_grad", "INT_ARGS", "not_an_int", "NUMPY_REDUCTIONS", "method_out_error",
           "KEEPDIM_NEEDS_DIM", "keepdim_without_dim_error", "MOMENTS", "both_unbiased_and_correction"]



def _type_name(v) -> str:
    t = type(v)
    return "Tensor" if isinstance(v, Tensor) else t.__name__ if t.__module__ == "builtins" else \
        f"{t.__module__}.{t.__name__}"


def _int(v, symint: bool = False) -> bool:
    """An int to PyTorch's parser: an int, a numpy int, an integer 0-dim tensor (of one element, any rank, for a
    `symint`); not a bool."""
    return v.__class__ is int or int_like(v, symint)


def _fits(kind: str, v) -> bool:
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "bool":
        return v.__class__ is bool
    if kind == "int" or kind == "SymInt":
        return _int(v, kind == "SymInt")
    if kind == "str":
        return isinstance(v, str)
    if kind == "Number":
        return isinstance(v, numbers.Number | np.number | np.bool_ | Tensor)
    if kind == "float":
        return isinstance(v, numbers.Real | np.number | Tensor) and not isinstance(v, bool)
    if kind == "tuple of ints":
        return _int(v, True) or isinstance(v, tuple | list) and all(_int(e, True) for e in v)
    if kind == "tuple of Tensors":  # the sequence itself (its elements' words are the op's own)
        return isinstance(v, tuple | list)
    return isinstance(v, dtypes.dtype | type)  # "torch.dtype"


_SHOWN = {"SymInt": "int"}  # the kinds the parser's words name otherwise
_KINDS = frozenset({"Tensor", "bool", "int", "SymInt", "str", "Number", "float", "tuple of ints", "torch.dtype",
                    "tuple of Tensors"})
# the plain class of each kind, which passes without a call (one int for a tuple of ints too)
_PLAIN = {"Tensor": Tensor, "bool": bool, "int": int, "SymInt": int, "str": str, "Number": float, "float": float,
          "tuple of ints": int, "tuple of Tensors": list}


def _error(op: str, name: str, kind: str, v, position: int | None) -> TypeError:
    where = "" if position is None else f" (position {position})"
    if kind == "tuple of ints" and isinstance(v, tuple | list):  # the parser's words for a bad element
        return int_tuple_error(op, name, where, v)
    return TypeError(f"{op}(): argument '{name}'{where} must be {_SHOWN.get(kind, kind)}, not {_type_name(v)}")


def _refuse_missing(op: str, order: list, n: int, kwargs: dict) -> None:
    """PyTorch's parser error for a required argument given neither by position nor by keyword: it names every
    required parameter from the first one missing on (given or not), pluralizing as its message does."""
    first = next((i for i, (p, _, required) in enumerate(order) if i >= n and required and p not in kwargs), None)
    if first is not None:
        names = [name for _, name, required in order[first:] if required]
        raise TypeError(f"{op}() missing {len(names)} required positional argument{'s' if len(names) == 1 else ''}: "
                        + ", ".join(f'"{name}"' for name in names))


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
        checked = [(i, *spec[p], _PLAIN.get(spec[p][1])) for i, p in enumerate(positional) if p in spec]
        most = None if any(v.kind is v.VAR_POSITIONAL for v in params.values()) else len(positional)
        least = sum(params[p].default is params[p].empty for p in positional)
        takes = f"from {least} to {most}" if most is not None and least < most else str(most)  # Python's words
        open_kwargs = any(v.kind is v.VAR_KEYWORD for v in params.values())
        # (parameter, ATen's name, required) in order, for PyTorch's "missing ... argument" error
        order = [(p, spec[p][0] if p in spec else p, v.default is v.empty) for p, v in params.items()
                 if v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]

        @functools.wraps(fn)
        def call(*args, **kwargs):
            n = len(args)
            if most is not None and n > most:  # Python's words, under ATen's name of the op
                raise TypeError(f"{op}() takes {takes} positional argument{'' if takes == '1' else 's'} but {n} "
                                "were given")
            if n < least:
                _refuse_missing(op, order, n, kwargs)
            for i, name, kind, optional, plain in checked:
                if i < n and (v := args[i]).__class__ is not plain and not (optional and v is None) and \
                        not _fits(kind, v):  # (the plain class of a kind costs no call: a hot op's budget)
                    raise _error(op, name, kind, v, i + 1)
            if kwargs:
                for p, v in kwargs.items():
                    s = spec.get(p)
                    if s is not None and not (s[2] and v is None) and not _fits(s[1], v):
                        raise _error(op, s[0], s[1], v, None)
                    if s is None and p not in params and not open_kwargs:  # Python's words, under ATen's name
                        raise TypeError(f"{op}() got an unexpected keyword argument '{p}'")
            return fn(*args, **kwargs)

        return call
    return deco


# PyTorch's int arguments (its schema's names and kinds, in order after `self`) of the methods whose parser takes no
# bool or float for them, where ember's ints would take True as 1 (or 2.0 as a size): `methods.numpy_aliases` asks
# `not_an_int` on each call of
# a method named here that is given more than `self`. A name PyTorch overloads (`_METHOD_OVERLOADS`, and split) words
# its refusal "received an invalid combination of arguments" and lists the overloads (one only plausible overload by
# argument count: that overload's own words).
_I, _S, _T = "int", "SymInt", "tuple of ints"  # a SymInt takes a one-element integer tensor of any rank, an int 0-dim
INT_ARGS: dict[str, tuple[tuple[str, str], ...]] = {
    "unsqueeze": (("dim", _I),), "flatten": (("start_dim", _I), ("end_dim", _I)), "unflatten": (("dim", _I),),
    "unbind": (("dim", _I),), "select": (("dim", _I), ("index", _S)), "transpose": (("dim0", _I), ("dim1", _I)),
    "diagonal": (("offset", _I), ("dim1", _I), ("dim2", _I)), "tril": (("diagonal", _I),),
    "triu": (("diagonal", _I),), "chunk": (("chunks", _I), ("dim", _I)), "roll": (("shifts", _T), ("dims", _T)),
    "kthvalue": (("k", _S), ("dim", _I)), "topk": (("k", _S), ("dim", _I)), "softmax": (("dim", _I),),
    "log_softmax": (("dim", _I),), "cumsum": (("dim", _I),), "cumprod": (("dim", _I),), "cummax": (("dim", _I),),
    "cummin": (("dim", _I),), "argmax": (("dim", _I),), "argmin": (("dim", _I),), "gather": (("dim", _I),),
    "index_select": (("dim", _I),), "logsumexp": (("dim", _T),), "amax": (("dim", _T),), "amin": (("dim", _T),),
    "nansum": (("dim", _T),),
    # overloaded: the arguments a bool may not take
    "sum": (("dim", _T),), "mean": (("dim", _T),), "prod": (("dim", _I),), "max": (("dim", _I),),
    "min": (("dim", _I),), "all": (("dim", _T),), "any": (("dim", _T),), "squeeze": (("dim", _T),),
    "narrow": (("dim", _I), ("start", _I), ("length", _S)), "split": (("split_size", _T), ("dim", _I)),
    "repeat_interleave": (("repeats", _I), ("dim", _I)), "tensor_split": (("indices_or_sections", _T), ("dim", _I)),
    "movedim": (("source", _T), ("destination", _T)), "sort": (("dim", _I),), "argsort": (("dim", _I),),
    "unfold": (("dimension", _I), ("size", _I), ("step", _I)), "multinomial": (("num_samples", _S),),
    "histc": (("bins", _I),), "rot90": (("k", _I),), "logcumsumexp": (("dim", _I),), "diff": (("n", _I), ("dim", _I)),
}
# PyTorch's overloads of the overloaded ones, as its parser prints them for the method (`self` left out); the
# function's are the method's after "Tensor input, " with the `out=` of `_OUT` (torch.split is Python: none)
_SORT = ["(*, bool stable, int dim = -1, bool descending = False)", "(int dim = -1, bool descending = False)"]
_METHOD_OVERLOADS = {
    "sum": ["(*, torch.dtype dtype = None)", "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"],
    "mean": ["(*, torch.dtype dtype = None)", "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"],
    "prod": ["(*, torch.dtype dtype = None)", "(int dim, bool keepdim = False, *, torch.dtype dtype = None)"],
    "max": ["()", "(Tensor other)", "(int dim, bool keepdim = False)"],
    "min": ["()", "(Tensor other)", "(int dim, bool keepdim = False)"],
    "all": ["()", "(tuple of ints dim = None, bool keepdim = False)", "(int dim, bool keepdim = False)"],
    "any": ["()", "(tuple of ints dim = None, bool keepdim = False)", "(int dim, bool keepdim = False)"],
    "squeeze": ["()", "(int dim)", "(tuple of ints dim)"],
    "narrow": ["(int dim, Tensor start, int length)", "(int dim, int start, int length)"],
    "repeat_interleave": ["(Tensor repeats, int dim = None, *, int output_size = None)",
                          "(int repeats, int dim = None, *, int output_size = None)"],
    "tensor_split": ["(tuple of ints indices, int dim = 0)", "(Tensor tensor_indices_or_sections, int dim = 0)",
                     "(int sections, int dim = 0)"],
    "movedim": ["(int source, int destination)", "(tuple of ints source, tuple of ints destination)"],
    "sort": _SORT, "argsort": _SORT,
}
_T_OUT, _TS_OUT = "Tensor out = None", "tuple of Tensors out = None"
_OUT = {"sum": [None, _T_OUT], "mean": [_T_OUT, _T_OUT], "prod": [None, _T_OUT], "max": [_T_OUT, _T_OUT, _TS_OUT],
        "min": [_T_OUT, _T_OUT, _TS_OUT], "all": [_T_OUT] * 3, "any": [_T_OUT] * 3, "sort": [_TS_OUT, _TS_OUT],
        "argsort": [_T_OUT, None]}


def _function_overload(sig: str, out: str | None) -> str:
    body = sig[1:-1]
    if out is not None:
        body = f"{body}, {out}" if "*" in body else f"{body}, *, {out}" if body else f"*, {out}"
    return f"(Tensor input{', ' + body if body else ''})"


def overload_options(op: str, function: bool) -> list[str] | None:
    """PyTorch's printed overloads of the method or function `op`, or None where not overloaded or unknown."""
    sigs = _METHOD_OVERLOADS.get(op)
    if sigs is None or not function:
        return sigs
    sigs = [_function_overload(s, o) for s, o in zip(sigs, _OUT.get(op, [None] * len(sigs)))]
    if op == "repeat_interleave":  # the function's own overload, without input
        sigs.insert(1, "(Tensor repeats, *, int output_size = None)")
    return sigs


_NOT_INTS = (bool, float, np.floating)  # what PyTorch's parser refuses for an int (Python and numpy floats, bools)
# the int arguments an overload also takes as a tensor (`x.narrow(0, torch.tensor(1), 2)`, `x.max(other)`)
_TENSOR_OVERLOADS = frozenset({("narrow", "start"), ("repeat_interleave", "repeats"),
                               ("tensor_split", "indices_or_sections"), ("max", "dim"), ("min", "dim")})


def _not_int_element(v) -> bool:
    """Whether the parser refuses `v` in a tuple of ints: a bool, a float, a tensor but a one-element integer one."""
    return isinstance(v, _NOT_INTS) or isinstance(v, Tensor) and not int_like(v)


def _not_int(v, kind: str, tensor_ok: bool = False) -> bool:
    if isinstance(v, Tensor):
        return not tensor_ok and not int_like(v, kind != _I)
    return isinstance(v, _NOT_INTS) or kind == _T and v.__class__ in (list, tuple) and any(
        _not_int_element(e) for e in v)


def not_an_int(op: str, spec: tuple[tuple[str, str], ...], args: tuple, kwargs: dict,
               function: bool = False) -> TypeError | None:
    """PyTorch's TypeError for a bool or a float given to one of `op`'s int arguments (`spec`, from `INT_ARGS`) in a
    method call
    `args` (`self` first) and `kwargs`, or None; positions count from the first argument after `self` (from `input`
    in a `function` call, whose overloaded refusal lists `Tensor` first)."""
    if op == "split" and isinstance(args[1] if len(args) > 1 else kwargs.get("split_size"),
                                    list | tuple | float | Tensor):
        return None  # sizes (a float, a tensor) go to split_with_sizes, whose parser words it (`join.split_sizes_arg`)
    for i, (name, kind) in enumerate(spec, 1):
        tensor_ok = (op, name) in _TENSOR_OVERLOADS
        if i < len(args) and _not_int(v := args[i], kind, tensor_ok):
            break
        if kwargs and name in kwargs and _not_int(v := kwargs[name], kind, tensor_ok):
            i = None
            break
    else:
        return None
    if (options := overload_options(op, function)) is not None:
        given = args[0 if function else 1:]
        if len(plausible(options, len(given) + len(kwargs))) != 1:
            return invalid_arguments(op, given, kwargs, options)
        return _error(op, name, kind, v, i + function if i is not None else None)  # that overload's own words
    if op == "split":  # Tensor.split calls split(self, split_size, dim): PyTorch's parser sees all three, by position
        given = (args[0], *(args[1:] if len(args) > 1 else (kwargs.get("split_size"),)))
        given = given + (kwargs.get("dim", 0),) * (3 - len(given))
        return invalid_arguments(op, given, {}, ["(Tensor input, int split_size, int dim = 0)",
                                                 "(Tensor input, tuple of ints split_size, int dim = 0)"])
    return _error(op, name, kind, v, i + function if i is not None else None)


# the methods numpy's reductions call with its keywords (`np.sum(t)`: `t.sum(axis=None, dtype=None, out=None)`), which
# PyTorch's methods refuse: they take no `out=` (their function forms do)
NUMPY_REDUCTIONS = frozenset({"sum", "mean", "prod", "max", "min", "std", "var", "any", "all"})


def method_out_error(op: str, kwargs: dict) -> TypeError:
    """PyTorch's TypeError for the method `op` of `NUMPY_REDUCTIONS` given `out=` (numpy's reductions pass it): an
    unexpected `axis` where numpy gave one (sum, mean; max, min, prod for a number), `dim` None where max, min, prod
    take an int, else the overloads matched none (PyTorch's parser's words: `parser_errors`)."""
    axis = kwargs.get("axis", 0)
    if "axis" in kwargs and (op in ("sum", "mean") or op in ("max", "min", "prod") and kwargs.keys() <= {
            "axis", "dtype", "out"}):
        if op in ("sum", "mean") or axis is not None:
            return TypeError(f"{op}() got an unexpected keyword argument 'axis'")
        return TypeError(f"{op}(): argument 'dim' must be int, not NoneType")
    options = overload_options(op, False) or [o.format("") for o in _MOMENT_OVERLOADS]
    fits = plausible(options, len(kwargs))
    if len(fits) == 1:  # that overload's own words: the first keyword it does not take
        names = {p.split(" = ")[0].rsplit(" ", 1)[-1] for p in fits[0][1:-1].split(", ")}
        return TypeError(f"{op}() got an unexpected keyword argument '{next(k for k in kwargs if k not in names)}'")
    return invalid_arguments(op, (), kwargs, options)


# the reductions whose overloads take `keepdim` (True or False) only beside a `dim` (`x.sum(keepdim=True)` matches
# none of them; `x.sum(None, keepdim=True)` does); median's and nanmedian's one overload with keepdim needs its dim
KEEPDIM_NEEDS_DIM = frozenset({"sum", "mean", "prod", "max", "min", "median", "nanmedian"})


def keepdim_without_dim_error(op: str, kwargs: dict, method: bool, args: tuple = ()) -> TypeError:
    """PyTorch's TypeError for `keepdim=` given to `op` (of `KEEPDIM_NEEDS_DIM`) without a `dim`, the
    keywords as its parser lists them (a method's after no positional argument, a function's after `Tensor`)."""
    if op in ("median", "nanmedian"):
        return TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return invalid_arguments(op, () if method else args, kwargs, overload_options(op, not method))


# var, std, var_mean, std_mean: PyTorch's overloads take `unbiased` or `correction`, never both
MOMENTS = frozenset({"var", "std", "var_mean", "std_mean"})
_MOMENT_OVERLOADS = ["(tuple of ints dim, bool unbiased = True, bool keepdim = False{})",
                     "(tuple of ints dim = None, *, Number correction = None, bool keepdim = False{})",
                     "(bool unbiased = True)"]


def both_unbiased_and_correction(op: str, args: tuple, kwargs: dict, method: bool) -> TypeError | None:
    """PyTorch's TypeError for `op` (of `MOMENTS`) given `correction=` and an `unbiased` (by keyword, after `dim`, or
    a bool in dim's place) in the call `args` (`self`/`input` first) and `kwargs`, or None; its parser lists the
    three overloads, a function's with `Tensor input` first (and std's and var's with `out`)."""
    if "correction" not in kwargs or not ("unbiased" in kwargs or len(args) >= 3
                                          or len(args) == 2 and args[1].__class__ is bool):
        return None
    out = ", *, Tensor out = None" if not method and op in ("var", "std") else ""
    options = [o.format(out.replace(", *", "") if "*" in o else out) for o in _MOMENT_OVERLOADS]
    if not method:
        options = ["(Tensor input, " + o[1:] for o in options]
    return invalid_arguments(op, args[1:] if method else args, kwargs, options)


def refuse_out_with_grad(kernel: str, *inputs) -> None:
    """PyTorch's RuntimeError for an out= call while grad mode is on and one of `inputs` requires grad, naming
    `kernel`, the ATen op its out= form runs (`linalg_vector_norm`, `linalg_eig` ...)."""
    if sys.modules["ember.core.tensor"]._grad_mode_enabled() and any(  # autograd sets its grad mode there
            isinstance(x, Tensor) and x._requires_grad for x in inputs):
        raise RuntimeError(f"{kernel}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
