"""The public elementwise API over the primitives: `add(alpha=)`, `div(rounding_mode=)`, the
Python operators, in-place twins, `addcmul`/`addcdiv`, and the unary ops as methods."""

from __future__ import annotations

import numbers
import sys

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import TENSOR_ITERATOR, check_overlap, composite, node_name
from ember.core.methods import attach, inplace, method, operator, reworded_forms
from ember.core.opinfo import BOOL
from ember.core.ops import elementwise as ew
from ember.core.ops import shape as S
from ember.core.ops._util import cast_error, int_value, internally, scalar_as, warn_at_caller, warn_always
from ember.core.ops.complex import ComplexNotSupported
from ember.core.ops.parser_errors import int_like, invalid_arguments, overloads, plausible
from ember.core.tensor import Tensor

__all__ = [
    "greater", "greater_equal", "less", "less_equal", "not_equal", "negative", "absolute", "fix", "arcsin", "arccos",
    "arctan", "arctan2", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "pow", "round", "float_power", "clamp", "clip", "clamp_min", "clamp_max", "addcmul", "addcdiv", "rsub", "lerp",
    "xlogy", "copysign", "fmod", "remainder",
]

# Every row of the op table is a method, and but for PyTorch's exceptions an in-place one (`x.exp_()`);
# the rows whose public function takes more arguments (`alpha=`, `rounding_mode=`, `decimals=`) are
# defined below, and attach themselves
_DEFINED_HERE = ("add", "sub", "mul", "div", "floor_divide", "pow", "round", "xlogy", "copysign", "fmod", "remainder")
_NO_METHOD = ("trunc_divide",)  # PyTorch spells it `div(rounding_mode="trunc")`
_NO_INPLACE = ("maximum", "minimum", "fmax", "fmin")  # nor predicates (`isnan`); comparisons have `eq_`
for _row in ew.UNARY + ew.BINARY:
    if _row.name in _DEFINED_HERE or _row.name in _NO_METHOD:
        continue
    attach(_row.name, getattr(ew, _row.name))
    if _row.name not in _NO_INPLACE and _row.name != "abs" and (_row.info.n_inputs > 1 or _row.info.rule != BOOL):
        inplace(getattr(ew, _row.name), _row.name + "_")


def _abs_(self: Tensor) -> Tensor:
    """`x.abs_()`; refused for a complex `x`, whose absolute value is real (as PyTorch)."""
    if self._dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return ew.abs(self, out=self)


_abs_.__name__ = _abs_.__qualname__ = "abs_"
attach("abs_", _abs_)


_LERP_METHOD = ["(Tensor end, Tensor weight)", "(Tensor end, Number weight)"]
_LERP_FUNCTION = ["(Tensor input, Tensor end, Tensor weight, *, Tensor out = None)",
                  "(Tensor input, Tensor end, Number weight, *, Tensor out = None)"]


def _lerp_invalid(args: tuple, kwargs: dict) -> bool:
    """Whether (input, end, weight), given by position or keyword, match neither of PyTorch's lerp overloads."""
    end = args[1] if len(args) > 1 else kwargs.get("end")
    weight = args[2] if len(args) > 2 else kwargs.get("weight")
    return not (isinstance(args[0] if args else kwargs.get("input"), Tensor) and isinstance(end, Tensor)
                and isinstance(weight, Tensor | numbers.Number))


@method(function_form=overloads("lerp", _LERP_FUNCTION, _lerp_invalid),
        method_form=overloads("lerp", _LERP_METHOD, _lerp_invalid, method=True))
def lerp(input, end, weight, *, out=None) -> Tensor:
    """`input + weight * (end - input)`; a tensor weight is PyTorch's second overload (LerpBackward1)."""
    r = ew.lerp(input, end, weight, out=out)
    return node_name(r, "LerpBackward0", "LerpBackward1") if isinstance(weight, Tensor) else r


def lerp_(self: Tensor, *args, **kwargs) -> Tensor:
    """`x.lerp_(end, weight)`: `lerp(x, end, weight, out=x)`; refusals name the method, as PyTorch's."""
    if _lerp_invalid((self, *args), kwargs):
        raise invalid_arguments("lerp_", args, kwargs, _LERP_METHOD)
    return lerp(self, *args, **kwargs, out=self)


attach("lerp_", lerp_)

greater, greater_equal, less, less_equal, not_equal = ew.gt, ew.ge, ew.lt, ew.le, ew.ne
for _alias, _op in (("greater", ew.gt), ("greater_equal", ew.ge), ("less", ew.lt), ("less_equal", ew.le),
                    ("not_equal", ew.ne), ("absolute", ew.abs), ("negative", ew.neg), ("arcsin", ew.asin),
                    ("arccos", ew.acos), ("arctan", ew.atan), ("arctan2", ew.atan2), ("fix", ew.trunc)):
    attach(_alias, _op)
negative, absolute, fix = ew.neg, ew.abs, ew.trunc
arcsin, arccos, arctan, arctan2 = ew.asin, ew.acos, ew.atan, ew.atan2


_REDUCED = (dtypes.bfloat16, dtypes.float16)


def _alpha_operand(input, other, alpha, out, op):
    """`op(input, other, alpha=alpha)` after PyTorch's checks of `alpha` against the result dtype
    (`alpha_check`): one kernel and one node, as PyTorch's (ember.core.ops.axpy); for a bool result,
    `alpha * other` is `other` or False (a product by an integer would promote it)."""
    dt = dtypes.result_type(input, other)
    if isinstance(alpha, bool) and dt is not dtypes.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not (dt.is_floating_point or dt.is_complex) and not isinstance(alpha, int | np.integer):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not dt.is_complex and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    if dt is dtypes.bool:
        other = other if alpha else (ew.mul(other, False) if isinstance(other, Tensor) else False)
        return op(input, other, out=out)
    return op(input, other, alpha=alpha) if out is None else op(input, other, alpha=alpha, out=out)


def _sparse_form(name: str, input, other, alpha, out):
    """`torch.add/sub/mul/div` with a sparse operand, which the dense kernel refused (NOTE [ Sparse tensors beside
    the dense path ]: the dispatch checks nothing, only the error path looks): the sparse tensor's method, or the
    operator's answer for a dense `input` (`d + s` and `d - s` dense, `d * s` sparse). Called in the `except`
    block: anything else re-raises the refusal."""
    from ember.core.sparse import is_sparse_operand

    if not is_sparse_operand(input, other) or out is not None and type(input) is not Tensor:
        raise
    if name == "div" and type(input) is Tensor:  # a sparse divisor: PyTorch's refusal
        return other.__rtruediv__(input)
    if out is not None:  # dense.add_(sparse), sub_, mul_, out=: a dense result written there
        return _dense_out_sparse(name, input, other, alpha, out)
    if type(input) is not Tensor:  # the sparse one (add(sparse, dense) raises PyTorch's error there)
        return getattr(input, name)(other, alpha=alpha) if name in ("add", "sub") else getattr(input, name)(other)
    if name == "mul":
        return other * input
    scaled = other if alpha == 1 else other * alpha
    return input + scaled if name == "add" else input - scaled


def _dense_out_sparse(name: str, input: Tensor, other, alpha, out: Tensor) -> Tensor:
    """`dense.add_(sparse)` / `sub_` / `mul_` / `out=` as PyTorch's: the sum without broadcasting (a plain
    in-place add writes only the stored elements), or the product with the dense form; PyTorch's error for a result
    dtype that `out` cannot hold."""
    from ember.core.sparse import _check_dense_size, add_sparse_

    dt = dtypes.result_type(input, other)
    if not dtypes.can_cast(dt, out._dtype):
        raise RuntimeError(f"Can't convert result type {dtypes.TORCH_NAMES[dt.name]} to output "
                           f"{dtypes.TORCH_NAMES[out._dtype.name]} in {name} operation")
    if name == "mul":
        return ew.mul(input, other.to_dense(), out=out)
    _check_dense_size(input, other)
    alpha = alpha if name == "add" else -alpha
    if out is input and not input.requires_grad:
        return add_sparse_(input, other, alpha=alpha)
    return _alpha_operand(input, other.to_dense(), alpha, out, ew.add)


_legacy_warned = [False]  # PyTorch warns of the deprecated overloads once per process, whichever comes first


def _legacy_scalar(name: str, kw: str, input, first, legacy: tuple, given, out, operands=("other",)):
    """PyTorch's deprecated overloads with the scalar first, as 0.4-era code calls them (`p.data.add_(-lr, grad)`,
    `exp_avg_sq.addcmul_(1 - beta2, grad, grad)`): the arguments as `(*operands, scalar)`, with PyTorch's warning
    the first time any of them is used in the process."""
    inplace_ = out is input
    fn = name + "_" if inplace_ else name
    if len(legacy) != len(operands) or isinstance(first, Tensor) or given != 1:
        got = ", ".join(type(a).__name__ for a in (first, *legacy))
        raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got})")
    if warn_always[0] or not _legacy_warned[0]:
        _legacy_warned[0] = True
        ts = ", ".join(f"Tensor {o}" for o in operands)
        old, new = f"Number {kw}, {ts}", f"{ts}, *, Number {kw} = 1"
        if not inplace_:
            old, new = f"Tensor input, {old}, *, Tensor out = None", f"Tensor input, {new}, Tensor out = None"
        warn_at_caller(internally(f"This overload of {fn} is deprecated:\n\t{fn}({old})\nConsider using one of the "
                                  f"following signatures instead:\n\t{fn}({new})",
                                  "torch/csrc/utils/python_arg_parser.cpp:1841"))
    return (*legacy, first)


_PY_NUMBERS = (bool, int, float, complex)


def _wrapped_number(input, other):
    """A Python number `input` beside a Python number `other` as a tensor: PyTorch's parser lets add, sub, mul, div
    and floor_divide take numbers for both (`torch.sub(2, 1)` is tensor(1), `torch.mul(2.5, 2)` a float32 one)."""
    if type(input) in _PY_NUMBERS and type(other) in _PY_NUMBERS:
        from ember.core.creation import tensor

        return tensor(input)
    return input


@method
def add(input, other, *legacy, alpha=1, out=None) -> Tensor:
    """`input + alpha * other`, broadcasting; `add(input, alpha, other)` is PyTorch's deprecated overload."""
    if legacy:
        other, alpha = _legacy_scalar("add", "alpha", input, other, legacy, alpha, out)
    input = _wrapped_number(input, other)
    try:
        if alpha != 1 or alpha.__class__ is not int:  # PyTorch checks any other alpha (a numpy bool too)
            return _alpha_operand(input, other, alpha, out, ew.add)
        return ew.add(input, other) if out is None else ew.add(input, other, out=out)
    except NotImplementedError:
        return _sparse_form("add", input, other, alpha, out)


def refuse_bool_subtraction(input, other) -> None:
    """PyTorch's refusal of a subtraction with a bool operand (a Python bool is wrapped into a bool tensor, so
    `x - True` is refused too); `dist` and other composites of a difference check it first."""
    a_bool = input.__class__ is bool or isinstance(input, Tensor) and input._dtype is dtypes.bool
    b_bool = other.__class__ is bool or isinstance(other, Tensor) and other._dtype is dtypes.bool
    if a_bool and b_bool:
        raise ew.BoolOperatorError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                                   "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise ew.BoolOperatorError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                                   "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
                                   "instead.")


@method
def sub(input, other, *legacy, alpha=1, out=None) -> Tensor:
    """`input - alpha * other`, broadcasting; `sub(input, alpha, other)` is PyTorch's deprecated overload."""
    if legacy:
        other, alpha = _legacy_scalar("sub", "alpha", input, other, legacy, alpha, out)
    refuse_bool_subtraction(input, other)
    input = _wrapped_number(input, other)
    try:
        if alpha != 1 or alpha.__class__ is not int:  # PyTorch checks any other alpha (a numpy bool too)
            return _alpha_operand(input, other, alpha, out, ew.sub)
        return ew.sub(input, other, out=out)
    except NotImplementedError:
        return _sparse_form("sub", input, other, alpha, out)


subtract = sub
attach("subtract", sub)


@method
def mul(input, other, *, out=None) -> Tensor:
    input = _wrapped_number(input, other)
    try:
        return ew.mul(input, other) if out is None else ew.mul(input, other, out=out)
    except NotImplementedError:
        return _sparse_form("mul", input, other, 1, out)


multiply = mul
attach("multiply", mul)


@method
def div(input, other, *, rounding_mode: str | None = None, out=None) -> Tensor:
    """True division, or `rounding_mode="trunc"`/`"floor"` division."""
    input = _wrapped_number(input, other)
    if rounding_mode is None:
        try:
            return ew.div(input, other) if out is None else ew.div(input, other, out=out)
        except NotImplementedError:
            return _sparse_form("div", input, other, 1, out)
    if rounding_mode == "floor":
        return ew.floor_divide(input, other, out=out)
    if rounding_mode == "trunc":
        return ew.trunc_divide(input, other, out=out)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


divide = true_divide = div
attach("divide", div)
attach("true_divide", div)


@method
def floor_divide(input, other, *, out=None) -> Tensor:
    """`input // other`: PyTorch records a `NotImplemented` node whose backward raises (the zero gradient is
    `div(rounding_mode="floor")`'s)."""
    input = _wrapped_number(input, other)
    return node_name(ew.floor_divide(input, other, out=out), "DivBackward2", "NotImplemented",
                     refuse="derivative for aten::floor_divide is not implemented")


@method
def pow(input, exponent, *, out=None) -> Tensor:  # noqa: A001
    """`input ** exponent`; an integer tensor to a negative Python integer power raises, as in PyTorch."""
    if isinstance(input, Tensor) and type(exponent) is int and exponent >= 0 and not input._dtype.is_floating_point:
        if exponent >= 1 << 63:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        int_value(input, exponent)  # the exponent converts to the input's dtype, checked
    if (isinstance(input, Tensor) and isinstance(exponent, Tensor) and input._dtype is dtypes.bool
            and exponent._dtype is dtypes.bool):  # pow(Tensor, Tensor) has no bool kernel; a bool Scalar is fine
        raise ew.DtypeNotSupported("\"pow\" not implemented for 'Bool'")
    r = ew.pow(input, exponent, out=out)
    if not isinstance(input, Tensor):  # PyTorch's overloads: pow(Tensor, Scalar), (Tensor, Tensor), (Scalar, Tensor)
        return node_name(r, "PowBackward0", "PowBackward2")
    return node_name(r, "PowBackward0", "PowBackward1") if isinstance(exponent, Tensor) else r


_NO_DECIMALS = object()  # round's default: PyTorch's overloads refuse an explicit `decimals=None`


def _bad_decimals(decimals) -> bool:
    """Whether the parser refuses `decimals` (an int: a numpy int or an integer 0-dim tensor passes too)."""
    return decimals is not _NO_DECIMALS and decimals.__class__ is not int and not int_like(decimals, symint=False)


def _round_refusal(args: tuple, decimals, out, inplace: bool) -> TypeError:
    """PyTorch's parser errors for `round`'s arguments: a positional `decimals` or one that is no int, worded for
    the function form or (`inplace`: `x.round_(...)`, which calls with `out=x`) the method form."""
    if inplace and len(args) == 1:
        return TypeError("round_() takes from 1 to 0 positional arguments but 1 were given")
    if not inplace and (len(args) >= 2 or args and out is not None):
        return TypeError(f"round() takes from 2 to 1 positional arguments but {len(args) + 1} were given")
    if not args and (inplace or out is not None):
        return TypeError(f"round{'_' if inplace else ''}(): argument 'decimals' must be int, not "
                         f"{type(decimals).__name__}")
    given = [type(a).__name__ for a in args] + ([] if decimals is _NO_DECIMALS else
                                                [f"decimals={type(decimals).__name__}"])
    return TypeError(f"round() received an invalid combination of arguments - got (Tensor, {', '.join(given)}), "
                     "but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
                     " * (Tensor input, *, int decimals, Tensor out = None)\n")


_ROUND_FUNCTION = ["(Tensor input, *, Tensor out = None)", "(Tensor input, *, int decimals, Tensor out = None)"]
_ROUND_METHOD = ["()", "(*, int decimals)"]


def _round_unknown_keyword(name: str, args: tuple, kwargs: dict, options: list[str]) -> TypeError:
    """PyTorch's parser on a keyword `round` does not take: with one plausible overload (the one with `decimals`)
    that overload's words, a missing `decimals` first; else every overload listed."""
    if len(plausible(options, len(args) + len(kwargs))) != 1:
        return invalid_arguments(name, args, kwargs, options)
    if "decimals" not in kwargs:
        return TypeError(f'{name}() missing 1 required positional arguments: "decimals"')
    bad = next(k for k in kwargs if k not in ("decimals", "out", "input"))
    return TypeError(f"{name}() got an unexpected keyword argument '{bad}'")


def _round_method(fn):
    """`x.round(...)`: PyTorch's method parser takes no positional argument and an int `decimals` only."""
    def round(self, *args, **kwargs):  # noqa: A001
        if kwargs.keys() - {"decimals"}:
            raise _round_unknown_keyword("round", args, kwargs, _ROUND_METHOD)
        if len(args) == 1:
            raise TypeError("round() takes from 1 to 0 positional arguments but 1 were given")
        if args:
            kinds = [type(a).__name__ for a in args]
            marked = ", ".join([f"!{kinds[0]}!", *kinds[1:]])
            raise TypeError(f"round() received an invalid combination of arguments - got ({', '.join(kinds)}), but "
                            "expected one of:\n * ()\n * (*, int decimals)\n      didn't match because some of the "
                            f"arguments have invalid types: ({marked})\n")
        if not args and _bad_decimals(kwargs.get("decimals", _NO_DECIMALS)):
            raise TypeError(f"round(): argument 'decimals' must be int, not {type(kwargs['decimals']).__name__}")
        return fn(self, *args, **kwargs)

    return round


@method(method_form=_round_method)
def round(input, *args, decimals: int = _NO_DECIMALS, out=None, **kwargs) -> Tensor:  # noqa: A001
    """Round half to even; with `decimals`, `round(x * 10**d) / 10**d` (`round(x / 10**-d) * 10**-d` for d < 0)
    as PyTorch (whose overload with `decimals` has no integer kernel, even for 0). `decimals` is keyword-only:
    a positional one, one that is no int, or another keyword gets PyTorch's parser error for the form called."""
    if kwargs:
        inplace = out is input and isinstance(input, Tensor)
        given = kwargs | ({} if decimals is _NO_DECIMALS else {"decimals": decimals})
        if inplace:
            raise _round_unknown_keyword("round_", args, given, _ROUND_METHOD)
        raise _round_unknown_keyword("round", (input, *args), given | ({} if out is None else {"out": out}),
                                     _ROUND_FUNCTION)
    if args or decimals is None or _bad_decimals(decimals):
        raise _round_refusal(args, decimals, out, out is input and isinstance(input, Tensor))
    decimals = None if decimals is _NO_DECIMALS else int(decimals)
    if decimals is not None and isinstance(input, Tensor) and not (input._dtype.is_floating_point or (
            input._dtype.is_complex and not decimals)):
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise ew.DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")
    if decimals is None:
        return ew.round(input, out=out)
    ew.same_dtype_out(input, out)
    # PyTorch's `round.decimals` is one node, RoundBackward1 (zero gradient): the outer step here takes its name;
    # in place (`round_`), every step writes `input`
    inner = input if out is input else None
    if (out is not None and inner is None and isinstance(input, Tensor) and input._requires_grad
            and sys.modules["ember.core.tensor"]._grad_mode_enabled()):  # autograd sets its grad mode there
        raise RuntimeError("round(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")
    if not decimals:
        return node_name(ew.round(input, out=out), "RoundBackward0", "RoundBackward1")
    if decimals < 0:  # PyTorch divides by 10**-decimals (exact), not multiplies by its inexact inverse
        scale = 10.0 ** -decimals
        return node_name(ew.mul(ew.round(ew.div(input, scale, out=inner), out=inner), scale, out=out),
                         "MulBackward0", "RoundBackward1")
    scale = 10.0 ** decimals
    return node_name(ew.div(ew.round(ew.mul(input, scale, out=inner), out=inner), scale, out=out),
                     "DivBackward0", "RoundBackward1")


@method
def float_power(input, exponent, *, out=None) -> Tensor:
    if out is not None:  # PyTorch's check: the destination must already be double (complex double)
        cplx = any(isinstance(v, complex) or isinstance(v, Tensor) and v._dtype.is_complex for v in (input, exponent))
        want = dtypes.complex128 if cplx else dtypes.float64
        if out._dtype is not want:
            what = "base given to float_power_" if out is input else "output given to float_power"
            raise RuntimeError(f"the {what} has dtype {dtypes.TORCH_NAMES[out._dtype.name]} but the operation's "
                               f"result requires dtype {dtypes.TORCH_NAMES[want.name]}")
        ew._check_read_write_out(out, (input, exponent))
    r = ew.pow(_as_float64(input), _as_float64(exponent), out=out)
    if not isinstance(input, Tensor):  # pow's overloads name the node, as in `pow`
        return node_name(r, "PowBackward0", "PowBackward2")
    return node_name(r, "PowBackward0", "PowBackward1") if isinstance(exponent, Tensor) else r


def _as_float64(x):
    """float64, or complex128 for complex operands (float_power computes in double precision)."""
    if isinstance(x, Tensor):
        return x.to(dtypes.complex128 if x._dtype.is_complex else dtypes.float64)
    return complex(x) if isinstance(x, complex) else float(x)


_NUMBER_BOUNDS = frozenset({int, float, type(None)})  # bounds a float tensor takes as they are, checked for range


_CLAMP_METHOD = ["(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"]
_CLAMP_FUNCTION = ["(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
                   "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)"]


class _MixedBounds(TypeError):
    """A tensor bound beside a number bound, which neither of PyTorch's overloads takes; the public forms
    (`reworded_forms`) reword it as the parser's error for the arguments they were given."""


def clamp(input, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002
    """Limit every element to [min, max] (either bound may be None, a number or a tensor, but not one of each:
    PyTorch's two signatures take two tensors or two numbers)."""
    if (min.__class__ in _NUMBER_BOUNDS and max.__class__ in _NUMBER_BOUNDS and out is None
            and input.__class__ is Tensor and input._dtype.is_floating_point):  # what `_bound` leaves: its checks
        dt = input._dtype
        return ew.clamp(input, min if min is None else scalar_as(dt, min), max if max is None else scalar_as(dt, max))
    if isinstance(min, Tensor) != isinstance(max, Tensor) and min is not None and max is not None:
        min, max = _number_bound(min), _number_bound(max)
    if not all(v is None or isinstance(v, (Tensor, numbers.Number)) for v in (min, max)):
        raise _MixedBounds("clamp: a bound that is neither a tensor nor a number")  # `min="0"`: no overload
    min, max = _clamp_bounds("clamp", input, min, max, out)
    r = ew.clamp(input, _bound(input, min), _bound(input, max), out=out)
    return node_name(r, "ClampBackward1", "ClampBackward0") if isinstance(min, Tensor) or isinstance(max, Tensor) else r


def _clamp_bounds(fn: str, input, min, max, out):  # noqa: A002
    """PyTorch's refusals before clamp's kernel, returning the bounds: one tensor bound of a complex result is
    maximum's/minimum's (a complex input of `clamp` itself excepted); a Python complex bound converts to a float
    input's double (real part only) and is refused for the others; bool bounds of a bool input have no kernel."""
    if min is None and max is None:  # before any dtype's refusal, as PyTorch
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if not isinstance(input, Tensor):
        return min, max
    tensors = [v for v in (min, max) if isinstance(v, Tensor)]
    if len(tensors) == 1 and (min is None or max is None) and (fn != "clamp" or not input._dtype.is_complex):
        dt = dtypes.result_type(input, tensors[0])
        if dt.is_complex:
            if out is input and not dtypes.can_cast(dt, input._dtype):
                raise cast_error(dt, input._dtype)
            kernel = "maximum_cpu" if min is not None else "minimum_cpu"
            raise ew.DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")
    if tensors:
        if len(tensors) == 2 and dtypes.result_type(input, *tensors) is dtypes.bool:  # one bound goes to max/min
            device = "cuda" if input.device.type == "cuda" else "cpu"
            raise ew.DtypeNotSupported(f"\"clamp_{device}\" not implemented for 'Bool'")
        return min, max
    bounds = []
    for v in (min, max):
        if isinstance(v, complex):
            if not input._dtype.is_floating_point:
                raise ComplexNotSupported("clamp is not supported for complex types")
            if v.imag:
                raise RuntimeError("value cannot be converted to type double without overflow")
            v = v.real
        bounds.append(v)
    if input._dtype is dtypes.bool and all(v is None or isinstance(v, bool) for v in bounds):
        kernel = {"clamp": "clamp_scalar_cpu"}.get(fn) if min is not None and max is not None else (
            "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
        raise ew.DtypeNotSupported(f"\"{kernel}\" not implemented for 'Bool'")
    return tuple(bounds)


def _number_bound(v):
    """A tensor bound beside a number bound: PyTorch's parser takes a 0-dim tensor that does not require grad as a
    Number (`clamp(x, torch.tensor(0.1), 0.9)` is clamp's Number overload); any other tensor matches no overload."""
    if not isinstance(v, Tensor):
        return v
    if v.ndim or v.requires_grad:
        raise _MixedBounds("clamp: one tensor bound and one number bound")
    return v.item()


_clamp = clamp
clamp = reworded_forms(_clamp, "clamp", _MixedBounds, _CLAMP_FUNCTION, _CLAMP_METHOD)
clip = reworded_forms(_clamp, "clip", _MixedBounds, _CLAMP_FUNCTION, _CLAMP_METHOD)


def _one_bound(name: str, v) -> None:
    """clamp_min's/clamp_max's overloads take a Tensor or a Number (None, a str, a list match neither)."""
    if not isinstance(v, Tensor | numbers.Number):
        raise _MixedBounds(f"{name}: a bound that is neither a tensor nor a number")


def _clamp_min(input, min, *, out=None) -> Tensor:  # noqa: A002
    _one_bound("clamp_min", min)
    min, _ = _clamp_bounds("clamp_min", input, min, None, out)
    r = ew.clamp(input, _bound(input, min), None, out=out)
    return node_name(r, "ClampBackward1", f"ClampMinBackward{int(isinstance(min, Tensor))}")


def _clamp_max(input, max, *, out=None) -> Tensor:  # noqa: A002
    _one_bound("clamp_max", max)
    _, max = _clamp_bounds("clamp_max", input, None, max, out)
    r = ew.clamp(input, None, _bound(input, max), out=out)
    return node_name(r, "ClampBackward1", f"ClampMaxBackward{int(isinstance(max, Tensor))}")


clamp_min = reworded_forms(_clamp_min, "clamp_min", _MixedBounds,
                           [f"(Tensor input, {k} min, *, Tensor out = None)" for k in ("Tensor", "Number")],
                           ["(Tensor min)", "(Number min)"])
clamp_max = reworded_forms(_clamp_max, "clamp_max", _MixedBounds,
                           [f"(Tensor input, {k} max, *, Tensor out = None)" for k in ("Tensor", "Number")],
                           ["(Tensor max)", "(Number max)"])


_NUMPY_NUMBERS = (np.integer, np.floating)  # for isinstance: an inline `|` builds a Union object per call


def _bound(input, v):
    """A Python number bound as PyTorch converts it to the input's dtype: checked (a float beyond a float input's
    range overflows), and an int wrapped for unsigned dtypes (uint8's `clamp_min(-1)` is `clamp_min(255)`); a numpy
    int or float scalar is that Python number, as to PyTorch."""
    if isinstance(v, _NUMPY_NUMBERS):
        v = v.item()
    if isinstance(input, Tensor) and (type(v) is int or type(v) is float and input._dtype.is_floating_point):
        return int_value(input, v)
    return v


def _scalar_value(value, *operands):
    """addcmul/addcdiv's `value` as PyTorch converts it to the operands' integer result dtype: checked, and a
    float truncated (`addcmul(ints, value=2.5)` scales by 2)."""
    if type(value) in (int, float) and all(isinstance(t, Tensor) for t in operands):
        dt = dtypes.result_type(*operands)
        if not (dt.is_floating_point or dt.is_complex or dt is dtypes.bool):
            return int(scalar_as(dt, value))
    return value


def _check_tensors(op: str, *operands) -> None:
    """PyTorch's TypeError for a non-tensor among addcmul/addcdiv's (input, tensor1, tensor2)."""
    for pos, (arg, v) in enumerate(zip(("input", "tensor1", "tensor2"), operands), 1):
        if not isinstance(v, Tensor):
            raise ew.not_a_tensor(op, arg, pos, v)


@method
@composite("addcmul", one_node=True)
def addcmul(input, tensor1, tensor2, *legacy, value=1, out=None) -> Tensor:
    """`input + value * tensor1 * tensor2` (bfloat16/float16 operands: in float32, rounded once, as PyTorch);
    `addcmul(input, value, tensor1, tensor2)` is PyTorch's deprecated overload."""
    if legacy:
        tensor1, tensor2, value = _legacy_scalar("addcmul", "value", input, tensor1, (tensor2, *legacy), value, out,
                                                 ("tensor1", "tensor2"))
    _check_tensors("addcmul", input, tensor1, tensor2)
    value = _scalar_value(value, input, tensor1, tensor2)
    if out is not None:  # the product is a fresh tensor: `add` below cannot see tensor1 and tensor2 overlap `out`
        check_overlap(TENSOR_ITERATOR, out, (tensor1, tensor2))
    if (isinstance(input, Tensor) and (dt := input._dtype) in _REDUCED and getattr(tensor1, "_dtype", None) is dt
            and getattr(tensor2, "_dtype", None) is dt and (out is None or out._dtype is dt)):
        f32, f64 = dtypes.float32, dtypes.float64  # float64: the exact product and one rounding of PyTorch's fma
        scaled = S.to_dtype(ew.mul(S.to_dtype(tensor1, f32), value), f64)
        r = S.to_dtype(ew.add(S.to_dtype(input, f64), ew.mul(scaled, S.to_dtype(tensor2, f64))), f32)
        return S.to_dtype(r, dt) if out is None else S.copy_(out, r)
    prod = ew.mul(tensor1 if value == 1 else ew.mul(tensor1, value), tensor2)  # PyTorch's order: (value * t1) * t2
    return node_name(ew.add(input, prod, out=out), "AddBackward0", "AddcmulBackward0")


_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


@method
@composite("addcdiv", one_node=True)
def addcdiv(input, tensor1, tensor2, *legacy, value=1, out=None) -> Tensor:
    """`input + value * tensor1 / tensor2`; `addcdiv(input, value, tensor1, tensor2)` is PyTorch's deprecated
    overload."""
    if legacy:
        tensor1, tensor2, value = _legacy_scalar("addcdiv", "value", input, tensor1, (tensor2, *legacy), value, out,
                                                 ("tensor1", "tensor2"))
    _check_tensors("addcdiv", input, tensor1, tensor2)
    value = _scalar_value(value, input, tensor1, tensor2)
    if all(isinstance(t, Tensor) and not (t._dtype.is_floating_point or t._dtype.is_complex)
           for t in (tensor1, tensor2)):
        raise RuntimeError(_ADDCDIV_INTEGER)
    if out is not None:
        check_overlap(TENSOR_ITERATOR, out, (tensor1, tensor2))
    if (isinstance(input, Tensor) and (dt := input._dtype) in _REDUCED and getattr(tensor1, "_dtype", None) is dt
            and getattr(tensor2, "_dtype", None) is dt and (out is None or out._dtype is dt)):
        f32 = dtypes.float32  # PyTorch's reduced-float kernel: `self + value * t1 / t2` in float32, rounded once
        q = ew.div(ew.mul(S.to_dtype(tensor1, f32), value), S.to_dtype(tensor2, f32))
        r = ew.add(S.to_dtype(input, f32), q)
        return S.to_dtype(r, dt) if out is None else S.copy_(out, r)
    q = ew.div(tensor1 if value == 1 else ew.mul(tensor1, value), tensor2)  # PyTorch's order: (value * t1) / t2
    return node_name(ew.add(input, q, out=out), "AddBackward0", "AddcdivBackward0")


@method
def xlogy(input, other, *, out=None) -> Tensor:
    """`input * log(other)`, 0 where input is 0; PyTorch's overloads name the node: (Tensor, Tensor)
    XlogyBackward0, (Scalar, Tensor) XlogyBackward1, (Tensor, Scalar) XlogyBackward2."""
    r = ew.xlogy(input, other, out=out)
    if not isinstance(input, Tensor):
        return node_name(r, "XlogyBackward0", "XlogyBackward1")
    return r if isinstance(other, Tensor) else node_name(r, "XlogyBackward0", "XlogyBackward2")


@method
def copysign(input, other, *, out=None) -> Tensor:
    """|input| with the sign of other; PyTorch's overloads name the node: (Tensor, Tensor) CopysignBackward0,
    (Tensor, Scalar) CopysignBackward1."""
    r = ew.copysign(input, other, out=out)
    return r if isinstance(other, Tensor) else node_name(r, "CopysignBackward0", "CopysignBackward1")


@method
def fmod(input, other, *, out=None) -> Tensor:
    """C's fmod (the sign of input); (Tensor, Scalar) is PyTorch's FmodBackward0, (Tensor, Tensor) FmodBackward1."""
    r = ew.fmod(input, other, out=out)
    return node_name(r, "FmodBackward0", "FmodBackward1") if isinstance(other, Tensor) else r


@method
def remainder(input, other, *, out=None) -> Tensor:
    """Python's modulus (the sign of other); (Tensor, Scalar) is PyTorch's RemainderBackward0, (Tensor, Tensor)
    RemainderBackward1, and (Scalar, Tensor) has no derivative: its `NotImplemented` node refuses backward."""
    r = ew.remainder(input, other, out=out)
    if not isinstance(input, Tensor):
        return node_name(r, "RemainderBackward0", "NotImplemented",
                         refuse="derivative for aten::remainder is not implemented")
    return node_name(r, "RemainderBackward0", "RemainderBackward1") if isinstance(other, Tensor) else r


@method
def rsub(input, other, *, alpha=1) -> Tensor:
    r = sub(other, input, alpha=alpha)  # PyTorch's overloads: rsub(Tensor, Tensor), rsub(Tensor, Scalar)
    return node_name(r, "SubBackward0", "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1")


for _fn in (add, sub, mul, div, pow, round, addcmul, addcdiv, floor_divide, float_power,
            xlogy, copysign, fmod, remainder):
    inplace(_fn)
inplace(sub, "subtract_")
inplace(mul, "multiply_")
inplace(div, "divide_")
inplace(div, "true_divide_")


_OPERATORS = {
    "add": add, "sub": sub, "mul": mul, "truediv": div, "floordiv": floor_divide, "mod": remainder,
    "pow": pow, "and": ew.bitwise_and, "or": ew.bitwise_or, "xor": ew.bitwise_xor,
}
# `a + b` calls the primitive itself where the public function only adds defaults (alpha=1, out=None)
_DIRECT = {"add": ew.add, "mul": ew.mul, "truediv": ew.div}


def _rdiv(self, other):
    """`2 / x` as PyTorch's `__rdiv__`: `x.reciprocal() * 2` (its values and its MulBackward0 graph)."""
    if isinstance(other, Tensor) or self._dtype.is_complex and self.device.type == "cuda":  # no CUDA complex reciprocal
        return ew.div(other, self)
    return ew.mul(ew.reciprocal(self), other)


# PyTorch's `2 * x` and `1 + x` are `x.mul(2)` and `x.add(1)`: the number is `other`, last in next_functions
_REFLECTED = {"add": lambda self, other: ew.add(other, self) if isinstance(other, Tensor) else ew.add(self, other),
              "mul": lambda self, other: ew.mul(other, self) if isinstance(other, Tensor) else ew.mul(self, other),
              "sub": rsub, "truediv": _rdiv}
for _name, _fn in _OPERATORS.items():
    _call = _DIRECT.get(_name)
    _fwd = _fn if _call is None else _call
    attach(f"__{_name}__", operator(_fwd))
    # `1 - x`: RsubBackward1
    attach(f"__r{_name}__", operator(_REFLECTED[_name]) if _name in _REFLECTED else operator(_fwd, "reflected"))
    attach(f"__i{_name}__", operator(_fn, "inplace"))
for _name, _fn in (("eq", ew.eq), ("ne", ew.ne), ("lt", ew.lt), ("le", ew.le), ("gt", ew.gt), ("ge", ew.ge)):
    # only `==` takes an array: `t != array` is refused by both sides, so Python answers True, as with PyTorch
    attach(f"__{_name}__", operator(_fn, arrays=_name == "eq"))
Tensor.__eq__.__name__ = "__eq__"  # `x == 1` reaches `__torch_function__` as `Tensor.__eq__`, the rest as `ne`, `lt`...
attach("__neg__", lambda self: ew.neg(self))
attach("__pos__", lambda self: self)
attach("__abs__", lambda self: ew.abs(self))


def _invert(self: Tensor) -> Tensor:
    """`~t`: PyTorch's Python operator refuses floating and complex tensors itself, with a TypeError."""
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    if self._dtype in dtypes.UNSIGNED_WIDE:  # PyTorch's CPU kernel has no uint16/32/64 instance
        raise ew.DtypeNotSupported(f"\"bitwise_not_cpu\" not implemented for '{dtypes.TORCH_NAMES[self._dtype.name]}'")
    return ew.logical_not(self) if self._dtype is dtypes.bool else ew.bitwise_xor(self, -1)


attach("__invert__", _invert)
