"""Attaching ops to `Tensor` as methods and operators: the one place the class grows.

NOTE [ Attaching methods ]
Every method, operator and property that is not in `Tensor`'s class body is set by `attach`, and
by nothing else: `@method` (a public function `fn(input, ...)` that is also `Tensor.<name>`) and
`inplace(fn)` (`x.fn_(...)`, which is `fn(x, ..., out=x)`) are two spellings over it. An `Op` is
attached as its plain-function twin `op.method`, which binds in C without a Python frame. A name
is attached once: attaching another value under a name already set raises, so no module's
import order decides what `x.where(...)` means. A layer above that deliberately redefines a
core method (autograd's `requires_grad`, `to` that tracks the graph) says so with `replace=True`.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable

import numpy as np

from ember.core import overrides as _overrides
from ember.core.dispatch import Op
from ember.core.ops.arguments import (
    INT_ARGS, KEEPDIM_NEEDS_DIM, MOMENTS, NUMPY_REDUCTIONS, both_unbiased_and_correction,
    keepdim_without_dim_error, method_out_error, not_an_int,
)
from ember.core.overrides import _SKIP, _relevant, handle_torch_function, has_torch_function
from ember.core.tensor import Tensor

__all__ = ["method", "inplace", "attach", "numpy_aliases", "operator", "reworded_forms"]

_NDARRAY = np.ndarray


def numpy_aliases(fn: Callable, name: str | None = None, *, as_method: bool = False,
                  function: bool = False) -> Callable:
    """`fn` also accepting numpy's `axis=`/`keepdims=` for `dim=`/`keepdim=`, as PyTorch does, and refusing a bool
    or a float for an int argument of the method `name` as PyTorch's parser (`arguments.INT_ARGS`); `fn` itself when it
    has neither to do. `as_method`: the method form of a reduction numpy calls with its keywords (`np.sum(t)` calls
    `t.sum(axis=None, dtype=None, out=None)`), whose `out=` PyTorch's method refuses (`arguments.NUMPY_REDUCTIONS`)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    ints = INT_ARGS.get(name or "")
    if "dim" not in params and "keepdim" not in params and ints is None:
        return fn
    op = name
    stop = len(ints) + 1 if ints is not None else 1  # the int arguments' positions end here (`self` is 0)
    # the classes that may hide a non-int: lists too where a kind is "tuple of ints" (their items are checked then)
    suspect = (_NOT_INT_OR_SEQ if any(kind == "tuple of ints" for _, kind in ints) else _NOT_INT) if ints is not None \
        else None

    @functools.wraps(fn)
    def aliased(*args, **kwargs):
        # a reduction hands a tensor-like (a subclass, ScalarTensor ...) its public call: one class test for a Tensor
        if args and args[0].__class__ is not Tensor and args[0].__class__ not in _SKIP and has_torch_function(args):
            return handle_torch_function(aliased, _relevant(args, kwargs), *args, **kwargs)
        if kwargs:
            if as_method and "out" in kwargs:
                raise method_out_error(op, kwargs)
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
            if "keepdim" in kwargs and len(args) == 1 and "dim" not in kwargs and op in KEEPDIM_NEEDS_DIM:
                raise keepdim_without_dim_error(op, kwargs, as_method, args)  # no overload takes keepdim alone
            if op in MOMENTS and (e := both_unbiased_and_correction(op, args, kwargs, as_method)) is not None:
                raise e
            if len(kwargs) == 1 and kwargs.get("dim").__class__ is str:  # a named dim (ember has none): PyTorch's words
                try:
                    return fn(*args, **kwargs)
                except TypeError as e:
                    raise _keyword_dim_words(e) from None
        if ints is not None:  # an int argument that may be a bool, float or tensor (`not_an_int` says): one class
            for v in args[1:stop]:  # test each, and a sequence's items' classes in C (`split([3, 7])` makes no call)
                if (c := v.__class__) in suspect and (c in _NOT_INT or not _NOT_INT.isdisjoint(map(type, v))):
                    _refuse_not_int(op, ints, args, kwargs, function)
            if kwargs:
                for v in kwargs.values():
                    if (c := v.__class__) in suspect and (c in _NOT_INT or not _NOT_INT.isdisjoint(map(type, v))):
                        _refuse_not_int(op, ints, args, kwargs, function)
        return fn(*args, **kwargs)
    aliased._int_args = ints  # `attach` wraps a method of INT_ARGS attached without `@method` (`not_an_int`)
    return aliased


# what may not be an int: bools, floats, a tensor (the parser takes one-element integer tensors only); a tensor is
# in both sets, so `c in _NOT_INT` hands it to `not_an_int` without iterating it
_NOT_INT = frozenset({bool, float, np.float16, np.float32, np.float64, Tensor})
_NOT_INT_OR_SEQ = _NOT_INT | {list, tuple}


def _refuse_not_int(op: str, ints: tuple, args: tuple, kwargs: dict, function: bool = False) -> None:
    if (e := not_an_int(op, ints, args, kwargs, function)) is not None:
        raise e


def _keyword_dim_words(e: TypeError) -> TypeError:
    """A reduction's TypeError for a string `dim` (worded for a positional one) as PyTorch's parser words a
    keyword `dim="b"`: `got (dim=str, )`, the keyword named where an overload takes no dim, no position."""
    msg = str(e).replace(" - got (str), but", " - got (dim=str, ), but")
    msg = msg.replace("some of the arguments have invalid types: (!str!)", "some of the keywords were incorrect: dim")
    msg = msg.replace(" * (tuple of ints dim)\n      didn't match because some of the keywords were incorrect: dim",
                      " * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: "
                      "(!dim=str!, )")  # count_nonzero's overload that takes no default
    # torch.unique hands `dim` to _VF.unique_dim positionally, so its words keep the position
    return TypeError(re.sub(r"^(?!unique_dim)(\w+\(\): argument 'dim') \(position \d+\)", r"\1", msg))


def attach(name: str, fn, *, replace: bool = False) -> None:
    """Set `Tensor.<name>` (a function, property or descriptor); the extension point for layers above.
    An `Op` is set as its plain-function twin (`op.method`), which binds without a Python frame.

    Raises:
        RuntimeError: `name` is already attached to another value and `replace` is False.
    """
    value = fn.method if isinstance(fn, Op) else fn
    if name in INT_ARGS and inspect.isfunction(value) and getattr(value, "_int_args", None) is None:
        value = numpy_aliases(value, name)
    old = Tensor.__dict__.get(name)
    if old is not None and old is not value and not replace:
        raise RuntimeError(f"Tensor.{name} is attached twice (was {old!r}, now {value!r}); attach each name once, "
                           "or pass replace=True where a layer above redefines it on purpose")
    if getattr(value, "__name__", None) == "<lambda>":  # `func.__name__` as `__torch_function__` sees it
        value.__name__, value.__qualname__ = name, f"Tensor.{name}"
    setattr(Tensor, name, value)
    _overrides.on_attach(name)  # subclasses defined before wrap it for `__torch_function__`


def method(fn: Callable | None = None, *, name: str | None = None, also: tuple[str, ...] = (),
           function_form: Callable | None = None, method_form: Callable | None = None):
    """Decorator: make the public function `fn(input, ...)` also the method `Tensor.<name>`
    (accepting numpy's `axis=`/`keepdims=` spellings where it takes `dim`/`keepdim`). `function_form` and
    `method_form` wrap one form only (a parser error worded for that form, as PyTorch's)."""
    def deco(f):
        first = name or f.__name__
        g = numpy_aliases(f, first, function=first != "split")  # torch.split is PyTorch's Python function
        m = numpy_aliases(f, first, as_method=True) if first in NUMPY_REDUCTIONS else \
            numpy_aliases(f, first) if first in INT_ARGS else g
        if method_form is not None:
            m = method_form(m)
        if function_form is not None:
            g = function_form(g)
        for n in (first, *also):
            attach(n, m)
        return g
    return deco(fn) if fn is not None else deco


def inplace(fn: Callable, name: str | None = None) -> Callable:
    """The in-place method `x.<fn>_(...)`: `fn(x, ..., out=x)`, which bumps x's version. `fn`'s "must be Tensor"
    error names the method and counts positions after `self`, as PyTorch's parser does (`p.add_(p.grad)` with no
    grad: "add_(): argument 'other' (position 1)")."""
    def method_(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs, out=self)
        except TypeError as e:
            renamed = _as_method_error(e, base, method_.__name__)
            if renamed is None:
                raise
            raise renamed from None

    base = getattr(fn, "__name__", None) or fn.name
    method_.__name__ = name or base + "_"
    method_.__doc__ = f"In-place version of `{base}`."
    attach(method_.__name__, method_)
    return method_


def reworded_forms(fn: Callable, name: str, refusal: type[Exception], function_options: list[str],
                   method_options: list[str]) -> Callable:
    """`torch.<name>` over `fn(input, ...)`, attaching `Tensor.<name>` and `Tensor.<name>_` (`fn(x, ..., out=x)`):
    each turns `refusal`, which `fn` raises for arguments no overload of PyTorch's takes, into the parser's
    TypeError for that form and the arguments as given (the method forms list `method_options`). `fn` checks after
    its own fast path, so a valid call pays one frame here; the frames live in this module, where vmap's write
    check looks through method shims."""
    from ember.core.ops.parser_errors import invalid_arguments

    def function(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except refusal:
            raise invalid_arguments(name, args, kwargs, function_options) from None

    def method_(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except refusal:
            raise invalid_arguments(name, args, kwargs, method_options) from None

    def inplace_(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs, out=self)
        except refusal:
            raise invalid_arguments(name + "_", args, kwargs, method_options) from None

    for f, f_name in ((function, name), (method_, name), (inplace_, name + "_")):
        functools.update_wrapper(f, fn)
        f.__name__ = f.__qualname__ = f_name
    inplace_.__doc__ = f"In-place version of `{name}`."
    attach(name, method_)
    attach(name + "_", inplace_)
    return function


_NOT_A_TENSOR = re.compile(r"(\w+)\(\): argument '(\w+)' (?:\(position (\d+)\) )?(must be .*)", re.S)


def _as_method_error(e: TypeError, function: str, method_name: str) -> TypeError | None:
    """The function's "argument 'other' (position 2) must be Tensor" (or another kind) as its method words it, or
    None."""
    m = _NOT_A_TENSOR.fullmatch(str(e)) if type(e) is TypeError else None
    if m is None or m[1] != function or m[3] is not None and int(m[3]) < 2:
        return None
    where = "" if m[3] is None else f"(position {int(m[3]) - 1}) "  # (a keyword argument's has no position)
    return TypeError(f"{method_name}(): argument '{m[2]}' {where}{m[4]}")


def method_positions(fn: Callable) -> Callable:
    """`fn`'s method form, whose parser errors count positions after `self` as PyTorch's method parser does
    (`a.dot([1.0])`: "dot(): argument 'tensor' (position 1) must be Tensor, not list"); for `method(method_form=)`."""
    @functools.wraps(fn)
    def method_(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            renamed = _as_method_error(e, fn.__name__, fn.__name__)
            if renamed is None:
                raise
            raise renamed from None

    return method_


def operator(fn: Callable, form: str = "plain", *, arrays: bool = False) -> Callable:
    """`fn` as a binary operator dunder: NotImplemented where `other` is no Tensor and `fn` refuses it with a
    plain TypeError, as PyTorch's operators do, so Python falls back (`t == None` is False, `None in [t]` works,
    `t + None` raises "unsupported operand type(s)"); ember's errors that are also RuntimeErrors (PyTorch raises
    those) propagate. `form` is "plain" (`fn(self, other)`), "reflected" (`fn(other, self)`) or "inplace"
    (`fn(self, other, out=self)`): the dunder makes that call itself, one frame over `fn` as before. A numpy
    array is no operand either, as in PyTorch: numpy computes `t * a` itself and wraps its result back into a
    tensor (`Tensor.__array_wrap__`), so `float32 * float64 array` is float64. `arrays`: the operator takes a
    numpy array as a tensor (PyTorch's `t == array` is a bool tensor)."""
    refused = type(None) if arrays else _NDARRAY
    if form == "reflected":
        def op(self, other):
            if other is None or other.__class__ is refused:
                return NotImplemented
            try:
                return fn(other, self)
            except TypeError as e:
                return _refused(other, e)
    elif form == "inplace":
        def op(self, other):
            if other is None or other.__class__ is refused:
                return NotImplemented
            try:
                return fn(self, other, out=self)
            except TypeError as e:
                return _refused(other, e)
    else:
        def op(self, other):
            if other is None or other.__class__ is refused:
                return NotImplemented
            try:
                return fn(self, other)
            except TypeError as e:
                return _refused(other, e)
    op.__name__ = op.__qualname__ = getattr(fn, "__name__", "op")
    return op


def _refused(other, e: TypeError):
    """An operator's TypeError: NotImplemented for a non-tensor operand (Python tries the other side), else `e`."""
    if isinstance(other, Tensor) or isinstance(e, RuntimeError):
        raise e
    return NotImplemented


def seal_readonly() -> None:
    """Give each read-only Tensor property a setter that refuses in PyTorch's words ("attribute 'shape' of
    'torch._C.TensorBase' objects is not writable") rather than Python's "property ... has no setter"; called once
    each layer has attached its properties."""
    for name, value in list(Tensor.__dict__.items()):
        if type(value) is property and value.fset is None:
            def refuse(self, _value, name=name):
                raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")

            setattr(Tensor, name, property(value.fget, refuse, value.fdel, value.__doc__))
