"""Elementwise ops: unary math, binary arithmetic with broadcasting, comparisons, logic.

Each op is declared once from a table row (name, numpy reference, dtype rule); its CPU kernel
is generated from the same row and computes in the result dtype (PyTorch's promotion, not
numpy's) without temporaries where numpy's ufunc can write straight into `out`.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare
from ember.core.ops._util import ERRSTATE, IGNORE_ALL, arr, shape_error, wrap, write_out
from ember.core.ops import numba_cpu
from ember.core.ops.complex import BINARY_REFUSING, complex_unary, refuse_complex
from ember.core.tensor import Tensor

# PyTorch computes inf and nan silently; numpy's floating-point RuntimeWarnings ("divide by zero
# encountered") from ember's own kernels are noise. The elementwise kernels switch them off
# (`silenced`); this filter catches the rest at no cost per op.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.core\.ops\.")

# dtype rules
SAME = "same"          # result keeps the input's dtype (neg, abs, floor of ints)
FLOAT = "float"        # integers and bools compute in the default float dtype (exp, sqrt)
BOOL = "bool"          # the result is bool (isnan, logical_not)


def _sigmoid(x, dtype=None, out=None):
    return np.divide(1, np.add(1, np.exp(np.negative(x, dtype=dtype), dtype=dtype), dtype=dtype), out=out,
                     dtype=dtype)


_ZEROS: dict = {}  # numpy dtype -> a read-only 0-dim zero, made once


def _relu(x, dtype=None, out=None):
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = np.zeros((), dtype=x.dtype)
        zero.flags.writeable = False
    return np.maximum(x, zero, out=out, dtype=dtype)


def _rsqrt(x, dtype=None, out=None):
    return np.reciprocal(np.sqrt(x, dtype=dtype), out=out, dtype=dtype)


def _silu(x, dtype=None, out=None):
    return np.multiply(x, _sigmoid(x, dtype), out=out, dtype=dtype)


def _erf(x, dtype=None, out=None):
    return numba_cpu.erf(x, dtype=dtype, out=out)


def _erfinv(x, dtype=None, out=None):
    return numba_cpu.erfinv(x, dtype=dtype, out=out)


def _sign(x, dtype=None, out=None):
    if x.dtype == np.bool_:
        return np.copyto(out, x) if out is not None else x.copy()
    r = np.asarray(np.sign(x, out=out, dtype=dtype))
    if r.dtype.kind == "f":
        r[np.isnan(r)] = 0  # PyTorch's sign(nan) is 0: (0 < x) - (x < 0)
    return r


def _abs(x, dtype=None, out=None):
    if x.dtype == np.bool_:
        return np.copyto(out, x) if out is not None else x.copy()
    return np.abs(x, out=out, dtype=dtype)


def _neg(x, dtype=None, out=None):
    if x.dtype == np.bool_:
        raise TypeError("Negation, the `-` operator, on a bool tensor is not supported. "
                        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(x, out=out, dtype=dtype)


def _square(x, dtype=None, out=None):
    return np.multiply(x, x, out=out, dtype=dtype)


def _frac(x, dtype=None, out=None):
    return np.subtract(x, np.trunc(x, dtype=dtype), out=out, dtype=dtype)


def _same_int(fn):
    """floor/ceil/round/trunc of an integer tensor is the tensor itself."""
    def kernel(x, dtype=None, out=None):
        if x.dtype.kind in "biu":
            if out is not None:
                np.copyto(out, x, casting="unsafe")
                return out
            return x.copy()
        return fn(x, out=out, dtype=dtype)
    return kernel


UNARY = [
    # name, numpy implementation, dtype rule
    ("neg", _neg, SAME),
    ("abs", _abs, SAME),
    ("sign", _sign, SAME),
    ("square", _square, SAME),
    ("floor", _same_int(np.floor), SAME),
    ("ceil", _same_int(np.ceil), SAME),
    ("trunc", _same_int(np.trunc), SAME),
    ("round", _same_int(np.rint), SAME),  # half to even, as PyTorch; `decimals` is composed in arith
    ("frac", _frac, FLOAT),
    ("relu", _relu, SAME),
    ("exp", np.exp, FLOAT),
    ("exp2", np.exp2, FLOAT),
    ("expm1", np.expm1, FLOAT),
    ("log", np.log, FLOAT),
    ("log1p", np.log1p, FLOAT),
    ("log2", np.log2, FLOAT),
    ("log10", np.log10, FLOAT),
    ("sqrt", np.sqrt, FLOAT),
    ("rsqrt", _rsqrt, FLOAT),
    ("reciprocal", np.reciprocal, FLOAT),
    ("sin", np.sin, FLOAT),
    ("cos", np.cos, FLOAT),
    ("tan", np.tan, FLOAT),
    ("asin", np.arcsin, FLOAT),
    ("acos", np.arccos, FLOAT),
    ("atan", np.arctan, FLOAT),
    ("sinh", np.sinh, FLOAT),
    ("cosh", np.cosh, FLOAT),
    ("tanh", np.tanh, FLOAT),
    ("asinh", np.arcsinh, FLOAT),
    ("acosh", np.arccosh, FLOAT),
    ("atanh", np.arctanh, FLOAT),
    ("sigmoid", _sigmoid, FLOAT),
    ("silu", _silu, FLOAT),
    ("erf", _erf, FLOAT),
    ("erfinv", _erfinv, FLOAT),
    ("isnan", np.isnan, BOOL),
    ("isinf", np.isinf, BOOL),
    ("isfinite", np.isfinite, BOOL),
    ("logical_not", np.logical_not, BOOL),
    ("signbit", np.signbit, BOOL),
]

# sign, floor, ceil, trunc and round are differentiable, with a zero gradient, as in PyTorch
_NOT_DIFFERENTIABLE = {"isnan", "isinf", "isfinite", "logical_not", "signbit"}


def _unary_dtype(rule: str, x: Tensor) -> dtypes.dtype:
    if rule == SAME:
        return x._dtype
    if rule == BOOL:
        return dtypes.bool
    return x._dtype if x._dtype.is_floating_point or x._dtype.is_complex else dtypes.get_default_dtype()


def _make_unary(name: str, fn, rule: str):
    op = declare(name, fn, differentiable=name not in _NOT_DIFFERENTIABLE, argnames=("input",))

    @op.register("cpu")
    def kernel(x, *, out=None):
        dt = x._dtype
        if dt.is_complex:
            return complex_unary(name, fn, x, out)
        if not (rule == SAME or (rule == FLOAT and dt.is_floating_point)):
            dt = _unary_dtype(rule, x)
        c = x._npc  # Tensor._np's cache, read inline
        a = c[1] if c is not None and c[0] is x._storage._raw else x._np()
        token = ERRSTATE.set(IGNORE_ALL)  # PyTorch makes inf and nan silently
        try:
            if rule == BOOL:
                r = fn(a) if a.dtype.kind in "fV" or name == "logical_not" else _bool_of_int(name, a)
            else:
                if out is not None and out._dtype is dt and out._shape == x._shape:
                    fn(a, out=out._np(), dtype=dt.np)
                    return out
                r = fn(a, dtype=dt.np)
        finally:
            ERRSTATE.reset(token)
        if out is not None:
            return write_out(out, r, name)
        return wrap(r)

    return op


def _bool_of_int(name: str, a):
    """isnan/isinf/isfinite/signbit of an integer array (numpy lacks some integer loops)."""
    if name == "isfinite":
        return np.ones(a.shape, dtype=np.bool_)
    if name == "signbit":
        return a < 0
    return np.zeros(a.shape, dtype=np.bool_)


for _row in UNARY:
    globals()[_row[0]] = _make_unary(_row[0], _row[1], _row[2])


# --- binary ---------------------------------------------------------------------------
def _floor_divide(a, b, dtype=None, out=None):
    return np.floor_divide(a, b, out=out, dtype=dtype)


def _trunc_divide(a, b, dtype=None, out=None):
    if np.dtype(dtype).kind == "f":
        return np.trunc(np.divide(a, b, dtype=dtype), out=out, dtype=dtype)
    q = np.floor_divide(a, b, dtype=dtype)
    fix = (np.remainder(a, b, dtype=dtype) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return np.add(q, fix, out=out, dtype=dtype, casting="unsafe")


def _pow(a, b, dtype=None, out=None):
    dt = np.dtype(dtype)
    if dt.kind not in "biu":
        return np.power(a, b, out=out, dtype=dtype)
    # integer powers: a negative exponent tensor gives 1, ±1 or 0 (the Python scalar case raises
    # in `arith.pow`); bool powers compute in int64
    x, y = np.asarray(a, np.int64), np.asarray(b, np.int64)
    neg = y < 0
    r = np.power(x, np.where(neg, 0, y))
    if neg.any():
        ones = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 == 0, 1, -1), 0))
        r = np.where(neg, ones, r)
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r.astype(dt)


# name, numpy implementation, dtype rule: "promote" (PyTorch's result_type), "float"
# (promote, then integers go to the default float), "bool" (comparisons and logic)
BINARY = [
    ("add", np.add, "promote"),
    ("sub", np.subtract, "promote"),
    ("mul", np.multiply, "promote"),
    ("div", np.true_divide, "float"),
    ("floor_divide", _floor_divide, "promote"),
    ("trunc_divide", _trunc_divide, "promote"),
    ("remainder", np.remainder, "promote"),
    ("fmod", np.fmod, "promote"),
    ("pow", _pow, "promote"),
    ("maximum", np.maximum, "promote"),
    ("minimum", np.minimum, "promote"),
    ("fmax", np.fmax, "promote"),
    ("fmin", np.fmin, "promote"),
    ("atan2", np.arctan2, "float"),
    ("hypot", np.hypot, "float"),
    ("copysign", np.copysign, "float"),
    ("xlogy", None, "float"),
    ("eq", np.equal, "bool"),
    ("ne", np.not_equal, "bool"),
    ("lt", np.less, "bool"),
    ("le", np.less_equal, "bool"),
    ("gt", np.greater, "bool"),
    ("ge", np.greater_equal, "bool"),
    ("logical_and", np.logical_and, "bool"),
    ("logical_or", np.logical_or, "bool"),
    ("logical_xor", np.logical_xor, "bool"),
    ("bitwise_and", np.bitwise_and, "promote"),
    ("bitwise_or", np.bitwise_or, "promote"),
    ("bitwise_xor", np.bitwise_xor, "promote"),
]

_BINARY_NOT_DIFFERENTIABLE = {"floor_divide", "trunc_divide", "eq", "ne", "lt", "le", "gt", "ge",
                              "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                              "bitwise_xor"}
_INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor"}


def _xlogy(a, b, dtype=None, out=None):
    a = np.asarray(a, dtype=dtype)
    r = np.where(a == 0, np.zeros((), dtype), a * np.log(np.asarray(b, dtype=dtype)))
    r = np.where(np.isnan(np.asarray(b, dtype=dtype)), np.asarray(np.nan, dtype), r)
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r.astype(dtype, copy=False)


def binary_dtype(rule: str, a, b) -> dtypes.dtype:
    """The dtype an elementwise binary op computes in (and returns, but for comparisons)."""
    dt = dtypes.result_type(a, b)
    if rule == "float" and not dt.is_floating_point and not dt.is_complex:
        return dtypes.get_default_dtype()
    return dt


class DtypeNotSupported(TypeError, RuntimeError):
    """An op given a dtype it has no kernel for: TypeError by ember's rule, RuntimeError as PyTorch raises."""


class IntegerDivisionByZero(RuntimeError, ZeroDivisionError):
    """Integer division by zero: PyTorch raises RuntimeError("ZeroDivisionError"); Python users
    catch ZeroDivisionError. Both work."""


def _check_int_div(name: str, b, dt) -> None:
    if not dt.is_floating_point:
        if np.any(np.asarray(arr(b)) == 0):
            raise IntegerDivisionByZero(f"ZeroDivisionError: {name}: integer division by zero")


def _make_binary(name: str, fn, rule: str):
    fn = fn or _xlogy
    op = declare(name, fn, differentiable=name not in _BINARY_NOT_DIFFERENTIABLE, argnames=("input", "other"))
    integer_only = name in _INTEGER_ONLY
    refuses_complex = name in BINARY_REFUSING
    divides = name in ("floor_divide", "trunc_divide", "remainder", "fmod")

    @op.register("cpu")
    def kernel(a, b, *, out=None):
        if (isinstance(a, Tensor) and isinstance(b, Tensor) and a._dtype is b._dtype and a._shape and b._shape
                and (rule != "float" or a._dtype.is_floating_point)):
            dt = a._dtype  # the common case, where binary_dtype gives the inputs' dtype at once
            c, d = a._npc, b._npc  # Tensor._np's cache, read inline
            x = c[1] if c is not None and c[0] is a._storage._raw else a._np()
            y = d[1] if d is not None and d[0] is b._storage._raw else b._np()
        elif (isinstance(a, Tensor) and a._dtype.is_floating_point and a._shape
              and (type(b) is float or type(b) is int)):
            dt = a._dtype  # a float tensor and a Python number: result_type keeps the tensor's dtype
            c = a._npc
            x = c[1] if c is not None and c[0] is a._storage._raw else a._np()
            y = b
        else:
            dt = binary_dtype(rule, a, b)
            x = a._np() if isinstance(a, Tensor) else a
            y = b._np() if isinstance(b, Tensor) else b
            if rule != "bool":
                x, y = _as_operand(x, dt), _as_operand(y, dt)
        if integer_only and dt.is_floating_point:
            raise DtypeNotSupported(f"\"{name}_cpu\" not implemented for '{dt.name}': only integer and bool "
                                    "tensors are supported")
        if refuses_complex and dt.is_complex:
            refuse_complex(name, dt)
        if divides:
            _check_int_div(name, b, dt)
        token = ERRSTATE.set(IGNORE_ALL)  # PyTorch makes inf and nan silently
        try:
            if rule == "bool":
                r = fn(x, y)
            else:
                if out is not None and out._dtype is dt and out._shape == (
                        a._shape if isinstance(a, Tensor) and isinstance(b, Tensor) and a._shape == b._shape
                        else _shape_of(a, b)):
                    fn(x, y, out=out._np(), dtype=dt.np)  # in place: x.add_(y), .grad += g
                    return out
                r = fn(x, y, dtype=dt.np)
        except ValueError as e:
            if "broadcast" in str(e):
                raise shape_error(name, a, b) from None
            raise
        finally:
            ERRSTATE.reset(token)
        if out is not None:
            if (out is a or out is b) and out._shape != np.shape(r):
                raise RuntimeError(f"{name}: output with shape {list(out._shape)} doesn't match the broadcast "
                                   f"shape {list(np.shape(r))}")
            return write_out(out, r, name)
        return wrap(r)

    return op


def _as_operand(v, dt: dtypes.dtype):
    """Cast what numpy would refuse or widen: 0-dim arrays of another dtype (uint8 + tensor(-1)) and
    Python ints outside the result's range, which wrap like PyTorch (int8 + 1000)."""
    if type(v) is np.ndarray:
        return v.astype(dt.np) if v.ndim == 0 and v.dtype != dt.np else v
    if type(v) is int and dt.np.kind in "iu" and not 0 <= v <= 127:
        return np.array(v).astype(dt.np)
    return v


def _shape_of(a, b):
    sa = a._shape if isinstance(a, Tensor) else ()
    sb = b._shape if isinstance(b, Tensor) else ()
    return sa if sa == sb or not sb else (sb if not sa else np.broadcast_shapes(sa, sb))


for _row in BINARY:
    globals()[_row[0]] = _make_binary(_row[0], _row[1] or _xlogy, _row[2])


# --- ternary ---------------------------------------------------------------------------
where = declare("where", np.where, argnames=("condition", "input", "other"))


@where.register("cpu")
def _where_cpu(condition, input, other, *, out=None):
    if isinstance(condition, Tensor) and condition._dtype is not dtypes.bool:
        raise TypeError(f"where: expected condition to be a bool tensor; got {condition._dtype.name}")
    dt = dtypes.result_type(input, other)
    try:
        r = np.where(arr(condition), arr(input), arr(other)).astype(dt.np, copy=False)
    except ValueError:
        raise shape_error("where", condition, input, other) from None
    return write_out(out, r, "where") if out is not None else wrap(r)


clamp = declare("clamp", np.clip, argnames=("input", "min", "max"))


@clamp.register("cpu")
def _clamp_cpu(input, min=None, max=None, *, out=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dt = dtypes.result_type(*(v for v in (input, min, max) if v is not None))
    x = arr(input).astype(dt.np, copy=False)
    r = x
    if min is not None:
        r = np.maximum(r, arr(min), dtype=dt.np)
    if max is not None:
        r = np.minimum(r, arr(max), dtype=dt.np)
    if r is x:
        r = x.copy()
    return write_out(out, r, "clamp") if out is not None else wrap(r)


lerp = declare("lerp", lambda a, b, w: a + w * (b - a), argnames=("input", "end", "weight"))


@lerp.register("cpu")
def _lerp_cpu(input, end, weight, *, out=None):
    dt = dtypes.result_type(input, end)
    x, y, w = arr(input), arr(end), arr(weight)
    r = np.add(x, np.multiply(w, np.subtract(y, x, dtype=dt.np), dtype=dt.np), dtype=dt.np)
    return write_out(out, r, "lerp") if out is not None else wrap(r)
