"""Elementwise functions of PyTorch's long tail, composed of the elementwise primitives (so each
runs on every device and differentiates through them): logaddexp, nan_to_num, deg2rad, bit
shifts, gcd/lcm, frexp, ldexp, nextafter, heaviside, the infinity predicates, and the in-place
function forms PyTorch exports at the top level (`torch.exp_(x)`).
"""

from __future__ import annotations

import math
import numbers

from ember.core import dispatch as _dispatch
from ember.core import dtypes
from ember.core.creation import full
from ember.core.dispatch import node_name
from ember.core.methods import attach, inplace, method, method_positions, operator
from ember.core.ops import elementwise as ew
from ember.core.ops import shape as S
from ember.core.ops._util import _CPP_TYPE_NAMES, broadcast_shapes, cast_error, named_as
from ember.core.ops.arguments import parsed
from ember.core.ops.structseq import out_type, return_type
from ember.core.settings import finfo
from ember.core.tensor import Tensor

__all__ = ["logaddexp", "logaddexp2", "nan_to_num", "nan_to_num_", "deg2rad", "deg2rad_", "rad2deg", "rad2deg_",
           "bitwise_left_shift", "bitwise_right_shift", "bitwise_not", "gcd", "gcd_", "lcm", "lcm_", "frexp",
           "ldexp", "ldexp_", "nextafter", "heaviside", "isposinf", "isneginf", "positive",
           "arccosh", "arcsinh", "arctanh", "arccosh_", "arcsinh_", "arctanh_", "DtypeNotImplemented"]



@named_as("NotImplementedError")
class DtypeNotImplemented(NotImplementedError, TypeError):
    """An op with no kernel for a dtype: NotImplementedError as PyTorch raises, TypeError by ember's rule."""



def not_implemented_for(kernel: str, dt: dtypes.dtype) -> DtypeNotImplemented:
    """PyTorch's refusal of a dtype its kernel `kernel` has no instance for: `"kernel" not implemented for 'Long'`."""
    return DtypeNotImplemented(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES.get(dt.name, dt.name)}'")


def _refuse(op: str, x) -> None:
    """PyTorch's NotImplementedError for an op without a CPU kernel for `x`'s dtype (`x`: a tensor, number or dtype)."""
    dt = x if isinstance(x, dtypes.dtype) else x._dtype if isinstance(x, Tensor) else dtypes.result_type(x)
    raise DtypeNotImplemented(f"\"{op}_cpu\" not implemented for '{dtypes.TORCH_NAMES.get(dt.name, dt.name)}'")


def _no_complex(input, message: str) -> None:
    """PyTorch's RuntimeError for a composite it refuses complex input to (deg2rad, isposinf ...)."""
    if isinstance(input, Tensor) and input._dtype.is_complex:
        raise RuntimeError(message)


def _into(out: Tensor | None, r: Tensor, op: str, inputs: tuple = ()) -> Tensor:
    """`r`, or `r` copied into `out` (resized as PyTorch resizes; a category downcast raises); an `out` that is one
    of `inputs` (the in-place form) is never resized, as PyTorch's TensorIterator."""
    if out is None:
        return r
    if out._shape != r._shape and any(out is t for t in inputs):
        raise RuntimeError(f"output with shape {list(out._shape)} doesn't match the broadcast shape {list(r._shape)}")
    if not dtypes.can_cast(r._dtype, out._dtype):
        raise cast_error(r._dtype, out._dtype)
    if out._shape != r._shape:
        S.resize_(out, r._shape)
    return S.copy_(out, r)


def _float(x):
    """x in the dtype an integer-to-float op computes in (a tensor's float or complex dtype, else the default)."""
    if isinstance(x, Tensor) and not (x._dtype.is_floating_point or x._dtype.is_complex):
        return S.to_dtype(x, dtypes.get_default_dtype())
    return x


# --- logarithmic sums -------------------------------------------------------------------------
def _logaddexp(input, other, log1p_of_exp, op: str):
    if op == "logaddexp" and any(isinstance(x, Tensor) and x._dtype.is_complex for x in (input, other)):
        return _logaddexp_complex(input, other)
    dt = dtypes.result_type(input, other)  # an integer operand beside a float one computes in the float dtype
    if not dt.is_floating_point:
        _refuse(op, dt)
    # float16/bfloat16 compute in float32 and round once, as PyTorch's kernel (each step rounded: 12% of bfloat16
    # results an ulp off)
    wide = dtypes.float32 if dt in (dtypes.float16, dtypes.bfloat16) else dt
    input, other = (S.to_dtype(x, wide) if isinstance(x, Tensor) and x._dtype is not wide else x
                    for x in (input, other))
    m = ew.maximum(input, other)
    r = ew.add(m, log1p_of_exp(ew.neg(ew.abs(ew.sub(input, other)))))
    # equal infinities: the difference is nan, the sum is the infinity itself
    r = ew.where(ew.logical_and(ew.isinf(m), ew.eq(input, other)), m, r)
    made = "WhereBackward0"
    if wide is not dt:
        r, made = S.to_dtype(r, dt), "ToCopyBackward0"
    return node_name(r, made, "LogaddexpBackward0" if op == "logaddexp" else "Logaddexp2Backward0")


def _re(x):
    return x.real if isinstance(x, Tensor) and x._dtype.is_complex else x


def _logaddexp_complex(x, y):
    """PyTorch's complex logaddexp: log1p(exp(min - max)) + max, min and max by real part; equal infinite real
    parts give the -inf operand itself (its phase is kept) or log(exp(x) + exp(y)); a NaN part gives nan+nanj."""
    x_min = ew.lt(_re(x), _re(y))
    mn, mx = ew.where(x_min, x, y), ew.where(x_min, y, x)
    mnr, mxr = mn.real, mx.real
    r = ew.add(ew.log1p(ew.exp(ew.sub(mn, mx))), mx)
    same_inf = ew.logical_and(ew.isinf(mnr), ew.eq(mnr, mxr))
    r = ew.where(same_inf, ew.where(ew.lt(mnr, 0), mn, ew.log(ew.add(ew.exp(mn), ew.exp(mx)))), r)
    nan = full((), complex(math.nan, math.nan), dtype=r._dtype, device=r.device)
    return ew.where(ew.logical_or(ew.isnan(x), ew.isnan(y)), nan, r)


@method(method_form=method_positions)
@parsed("logaddexp", input="Tensor", other="Tensor", out="Tensor?")  # no Number overload: PyTorch's TypeError
def logaddexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`log(exp(input) + exp(other))` without overflow, elementwise.

    >>> from ember.core import logaddexp, tensor
    >>> logaddexp(tensor([0.0, -1000.0]), tensor([0.0, -1000.0]))
    tensor([ 6.9315e-01, -9.9931e+02])
    """
    return _into(out, _logaddexp(input, other, lambda d: ew.log1p(ew.exp(d)), "logaddexp"), "logaddexp")


@method(method_form=method_positions)
@parsed("logaddexp2", input="Tensor", other="Tensor", out="Tensor?")  # no Number overload: PyTorch's TypeError
def logaddexp2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`log2(2**input + 2**other)` without overflow, elementwise."""
    return _into(out, _logaddexp(input, other, lambda d: ew.div(ew.log1p(ew.exp2(d)), math.log(2.0)),
                                 "logaddexp2"), "logaddexp2")


# --- cleaning and conversions -----------------------------------------------------------------
@method
def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None, *,
               out: Tensor | None = None) -> Tensor:
    """NaN to `nan`, +inf to `posinf`, -inf to `neginf` (the dtype's largest and lowest by default);
    integer and bool tensors come back unchanged (copied)."""
    for name, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if not (v is None or isinstance(v, numbers.Real | Tensor)):
            raise TypeError(f"nan_to_num(): argument '{name}' must be float, not {v.__class__.__name__}")
    if input._dtype is dtypes.complex32:
        raise DtypeNotImplemented("\"nan_to_num\" not implemented for 'ComplexHalf'")
    if out is not None and out._dtype is not input._dtype:
        names = dtypes.TORCH_NAMES
        raise RuntimeError(f"nan_to_num: dtype of out: {names[out._dtype.name]} should be same as input: "
                           f"{names[input._dtype.name]}")
    if input._dtype.is_complex:  # the real and imaginary parts each, with the part dtype's limits
        from ember.core.ops import complex as C

        parts = (nan_to_num(C.real(input), nan, posinf, neginf), nan_to_num(C.imag(input), nan, posinf, neginf))
        return _into(out, C.complex(*parts), "nan_to_num")
    if not input._dtype.is_floating_point:
        return _into(out, S.clone(input), "nan_to_num")
    info = finfo(input._dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    # each `where` keeps input's dtype: a Python number beside a tensor does not promote it
    r = ew.where(ew.isnan(input), nan, input)
    r = ew.where(ew.logical_and(ew.isinf(input), ew.gt(input, 0)), hi, r)
    r = ew.where(ew.logical_and(ew.isinf(input), ew.lt(input, 0)), lo, r)
    return _into(out, node_name(r, "WhereBackward0", "NanToNumBackward0"), "nan_to_num")


@method
def deg2rad(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Degrees to radians; integers compute in the default float dtype."""
    _no_complex(input, "deg2rad is not supported for complex tensors.")
    r = node_name(ew.mul(_float(input), math.pi / 180.0), "MulBackward0", "Deg2RadBackward0")
    return _into(out, r, "deg2rad")


@method
def rad2deg(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Radians to degrees; integers compute in the default float dtype."""
    _no_complex(input, "rad2deg is not supported for complex tensors.")
    r = node_name(ew.mul(_float(input), 180.0 / math.pi), "MulBackward0", "Rad2DegBackward0")
    return _into(out, r, "rad2deg")


@method
def ldexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`input * 2**other` in the promoted floating dtype (integers compute in the default float dtype). An integer
    exponent scales exactly, as C's ldexp: 0.75 * 2**128 stays finite in float32 and 0 * 2**1000 is 0, where a
    float pow(2, other) would overflow first; a floating exponent multiplies by pow(2, other)."""
    ew.check_tensors("ldexp", input, other)
    skip = _dispatch._SKIP
    if (out is None and _dispatch.untracked and (input._requires_grad or other._requires_grad)
            and input.__class__ in skip and other.__class__ in skip
            and not (input._conj or input._neg or other._conj or other._neg)):
        # PyTorch's one LdexpBackward0 (NOTE [ One node computed outside dispatch ] in ember.autograd.record)
        a, b = (Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype) for t in (input, other))
        return _dispatch.record("ldexp", (input, other), ldexp(a, b))
    if other._dtype is dtypes.bool:  # PyTorch's integer-exponent kernel has no bool loop
        raise DtypeNotImplemented("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    dt = dtypes.promote_types(input._dtype, other._dtype)
    if not (dt.is_floating_point or dt.is_complex):
        dt = dtypes.get_default_dtype()
    x = input if input._dtype is dt else S.to_dtype(input, dt)
    if other._dtype.is_floating_point or other._dtype.is_complex:
        e = other if other._dtype is dt else S.to_dtype(other, dt)
        return _into(out, ew.mul(x, ew.pow(2.0, e)), "ldexp", (input, other))
    return _into(out, _exact_ldexp(x, other, dt), "ldexp", (input, other))


def _exact_ldexp(x: Tensor, e: Tensor, dt: dtypes.dtype) -> Tensor:
    """x * 2**e for an integer e, in float64 (complex128) by four powers of two of one sign, each finite and
    normal: the partial products move monotonically toward the result, so they are exact until the last rounding
    (|e| beyond 2200 already takes every float to 0 or inf)."""
    wide = dtypes.complex128 if dt.is_complex else dtypes.float64
    r = x if x._dtype is wide else S.to_dtype(x, wide)
    rest = ew.clamp(S.to_dtype(e, dtypes.float64), -2200.0, 2200.0)
    for parts in (4, 3, 2, 1):
        step = ew.trunc(ew.div(rest, float(parts)))
        r = ew.mul(r, ew.pow(2.0, step))
        rest = ew.sub(rest, step)
    return r if dt is wide else S.to_dtype(r, dt)


_Frexp = return_type("frexp", ["mantissa", "exponent"])


@method
def frexp(input: Tensor, *, out=None):
    """`(mantissa, exponent)` with `input = mantissa * 2**exponent`, |mantissa| in [0.5, 1) (0, inf and
    nan keep exponent 0); exponent is int32."""
    if not input._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if out is not None:
        names = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
                 **_CPP_TYPE_NAMES}
        if out[0]._dtype is not input._dtype:
            raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {names[input._dtype.name]} but got "
                               f"{names.get(out[0]._dtype.name, out[0]._dtype.name)}")
        if out[1]._dtype is not dtypes.int32:
            raise RuntimeError("torch.frexp() expects exponent to have int dtype but got "
                               f"{names.get(out[1]._dtype.name, out[1]._dtype.name)}")
    x = S.to_dtype(input, dtypes.float64)  # float64 holds 2**e of every float32/16 exponent, subnormals too
    special = ew.logical_or(ew.eq(x, 0), ew.logical_not(ew.isfinite(x)))
    a = ew.where(special, 1.0, ew.abs(x))
    e = ew.add(ew.floor(ew.log2(a)), 1.0)
    m = ew.div(a, ew.pow(2.0, e))
    # log2 may round across a power of two: one step fixes the mantissa into [0.5, 1)
    big, small = ew.ge(m, 1.0), ew.lt(m, 0.5)
    e = ew.add(e, ew.sub(S.to_dtype(big, dtypes.float64), S.to_dtype(small, dtypes.float64)))
    m = ew.where(big, ew.mul(m, 0.5), ew.where(small, ew.mul(m, 2.0), m))
    mantissa = S.to_dtype(ew.where(special, x, ew.mul(ew.sign(x), m)), input._dtype)
    exponent = S.to_dtype(ew.where(special, 0.0, e), dtypes.int32)
    if out is not None:
        return out_type(_Frexp)(_into(out[0], mantissa, "frexp"), _into(out[1], exponent, "frexp"))
    return _Frexp(mantissa, exponent)


_BITS_INT = {dtypes.float16: dtypes.int16, dtypes.bfloat16: dtypes.int16, dtypes.float32: dtypes.int32,
             dtypes.float64: dtypes.int64}


@method
def nextafter(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The next floating-point value after `input` towards `other`, elementwise."""
    ew.check_tensors("nextafter", input, other)
    dt = dtypes.result_type(input, other)
    if not dt.is_floating_point:
        _refuse("nextafter", input)
    ref = input if isinstance(input, Tensor) else other
    x, y = (v if isinstance(v, Tensor) else full((), v, dtype=dt, device=ref.device) for v in (input, other))
    x, y = (S.to_dtype(v, dt) if v._dtype is not dt else v for v in (x, y))
    shape = broadcast_shapes(x._shape, y._shape)
    x, y = S.expand(x, shape), S.expand(y, shape)  # (x * 0 + y would turn an infinite x into NaN)
    bits = S.view_dtype(x.contiguous(), _BITS_INT[dt])
    # away from zero is +1 on the bit pattern (sign-magnitude), towards zero -1
    step = ew.where(ew.eq(ew.gt(y, x), ew.gt(x, 0)), 1, -1)
    moved = S.view_dtype(ew.add(bits, S.to_dtype(step, bits._dtype)), dt)
    tiny = ew.copysign(S.view_dtype(ew.add(ew.mul(bits, 0), 1), dt), y)
    r = ew.where(ew.eq(x, 0), tiny, moved)
    r = ew.where(ew.eq(x, y), y, r)
    r = ew.where(ew.logical_or(ew.isnan(x), ew.isnan(y)), math.nan, r)
    return _into(out, r, "nextafter", (input, other))


@method
def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The step function: 0 below zero, `values` at zero, 1 above (no derivative: backward raises, as PyTorch's)."""
    _no_complex(input, "heaviside is not yet implemented for complex tensors.")
    _no_complex(values, "heaviside is not yet implemented for complex tensors.")
    if isinstance(values, Tensor) and values._dtype is not input._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    r = ew.where(ew.eq(input, 0), values, S.to_dtype(ew.gt(input, 0), input._dtype))
    r = S.to_dtype(r, input._dtype) if r._dtype is not input._dtype else r
    if input._requires_grad or isinstance(values, Tensor) and values._requires_grad:
        # PyTorch records a `NotImplemented` node whose backward raises: a `where` that keeps `r` and has `input`
        # as an edge stands for it (the step itself carries no history of `input`)
        keep = full(r._shape, True, dtype=dtypes.bool, device=r.device)
        r = node_name(ew.where(keep, r, input), "WhereBackward0", "NotImplemented",
                      refuse="derivative for aten::heaviside is not implemented")
        if out is input:
            return node_name(_into(out, r, "heaviside", (input, values)), "CopyBackwards", "NotImplemented",
                             refuse="derivative for aten::heaviside_ is not implemented")
    return _into(out, r, "heaviside", (input, values))


# --- predicates --------------------------------------------------------------------------------
@method
def isposinf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """True where the element is +inf."""
    _no_complex(input, "isposinf does not support complex inputs.")
    r = ew.logical_and(ew.isinf(input), ew.gt(input, 0)) if input._dtype.is_floating_point else ew.ne(input, input)
    return _into(out, r, "isposinf")


@method
def isneginf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """True where the element is -inf."""
    _no_complex(input, "isneginf does not support complex inputs.")
    r = ew.logical_and(ew.isinf(input), ew.lt(input, 0)) if input._dtype.is_floating_point else ew.ne(input, input)
    return _into(out, r, "isneginf")


@method
def positive(input: Tensor) -> Tensor:
    """The tensor itself (`+x`); bool tensors are refused as in PyTorch."""
    if input._dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# --- bits ---------------------------------------------------------------------------------------
def _int_operands(op: str, input, other, out: Tensor | None = None):
    """The integer dtype `op` computes in; an `out` it cannot be cast to is refused first, as PyTorch's
    TensorIterator does, then floats, complex and (but for the bitwise ops) bool."""
    dt = dtypes.result_type(input, other)
    if out is not None and not dtypes.can_cast(dt, out._dtype):
        raise cast_error(dt, out._dtype)
    if dt.is_floating_point or dt.is_complex or (
            (dt is dtypes.bool or dt in dtypes.UNSIGNED_WIDE) and op in ("gcd", "lcm", "lshift", "rshift")):
        _refuse(op, input if isinstance(input, Tensor) and input._dtype is dt else other)  # uint16+: only &, |, ^
    return dt


def _shift_amount(other, dt, like: Tensor) -> Tensor:
    """The shift as a tensor of the computing dtype (a Python int becomes a 0-dim one, wrapped into it)."""
    if not isinstance(other, Tensor):
        return full((), _wrapped(other, dt), dtype=dt, device=like.device)
    return S.to_dtype(other, dt) if other._dtype is not dt else other


def _wrapped(v, dt):
    """A Python int as the shift kernels read it in `dt`: modulo 2**bits, two's complement when signed
    (`uint8 >> 300` shifts by 44, `int8 >> 200` by -56)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or dt is dtypes.bool:
        return v
    bits = dt.itemsize * 8
    v = int(v) % (1 << bits)
    return v - (1 << bits) if dt.is_signed and v >= 1 << (bits - 1) else v


@method
def bitwise_left_shift(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """`input << other` in the promoted integer dtype, wrapping; a shift past the width or a negative
    one gives 0, as in PyTorch."""
    dt = _int_operands("lshift", input, other, out)
    if not isinstance(input, Tensor):
        input = _scalar_like(input, other)
    bits = dt.itemsize * 8
    s = _shift_amount(other, dt, input if isinstance(input, Tensor) else other)
    ok = ew.logical_and(ew.ge(s, 0), ew.lt(s, bits))
    # the product by 2**s wraps modulo 2**bits exactly as the shift does
    r = ew.mul(input, ew.pow(_two(dt, input, other), ew.where(ok, s, 0)))
    r = ew.where(ok, r, 0)
    return _into(out, S.to_dtype(r, dt) if r._dtype is not dt else r, "bitwise_left_shift", (input, other))


@method
def bitwise_right_shift(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """`input >> other`, arithmetic (sign-filling) for signed dtypes; a shift past the width or a negative
    one fills with the sign (0 for unsigned dtypes), as in PyTorch."""
    dt = _int_operands("rshift", input, other, out)
    if not isinstance(input, Tensor):
        input = _scalar_like(input, other)
    bits = dt.itemsize * 8
    top = bits - 1 if dt.is_signed else bits  # 2**top must not overflow the dtype
    s = _shift_amount(other, dt, input if isinstance(input, Tensor) else other)
    small = ew.logical_and(ew.ge(s, 0), ew.lt(s, top))
    # floor division by 2**s is the arithmetic shift
    r = ew.floor_divide(input, ew.pow(_two(dt, input, other), ew.where(small, s, 0)))
    fill = ew.where(ew.lt(input, 0), -1, 0) if dt.is_signed else ew.mul(input, 0)
    r = ew.where(small, r, fill)
    return _into(out, S.to_dtype(r, dt) if r._dtype is not dt else r, "bitwise_right_shift", (input, other))


def _two(dt, input, other):
    """2 as a 0-dim tensor of `dt` on the operands' device (a Python 2 would promote a bool/uint8 shift)."""
    ref = input if isinstance(input, Tensor) else other
    from ember.core.creation import tensor

    return tensor(2, dtype=dt, device=ref.device)


@method
def bitwise_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`~input`: logical not of a bool tensor, the bit complement of an integer one."""
    ew.same_dtype_out(input, out)
    if input._dtype.is_floating_point or input._dtype.is_complex or input._dtype in dtypes.UNSIGNED_WIDE:
        _refuse("bitwise_not", input)
    r = ew.logical_not(input) if input._dtype is dtypes.bool else ew.bitwise_xor(input, -1)
    return _into(out, r, "bitwise_not")


def _euclid(a: Tensor, b: Tensor) -> Tensor:
    a, b = ew.abs(a), ew.abs(b)
    while bool(ew.ne(b, 0).any()):
        nz = ew.ne(b, 0)
        a, b = ew.where(nz, b, a), ew.where(nz, ew.remainder(a, ew.where(nz, b, 1)), 0)
    return a


@method
def gcd(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The greatest common divisor, elementwise, of integer tensors (non-negative; gcd(0, 0) = 0)."""
    dt = _int_operands("gcd", input, other)
    a, b = S.to_dtype(input, dt), S.to_dtype(other, dt)
    return _into(out, _euclid(*_broadcast(a, b)), "gcd", (input, other))


@method
def lcm(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The least common multiple, elementwise, of integer tensors (non-negative; 0 if either is 0)."""
    dt = _int_operands("lcm", input, other)
    a, b = _broadcast(S.to_dtype(input, dt), S.to_dtype(other, dt))
    g = _euclid(a, b)
    r = ew.abs(ew.mul(ew.floor_divide(a, ew.where(ew.eq(g, 0), 1, g)), b))
    return _into(out, S.to_dtype(r, dt) if r._dtype is not dt else r, "lcm", (input, other))


def _broadcast(a: Tensor, b: Tensor):
    shape = broadcast_shapes(a._shape, b._shape)
    return S.expand(a, shape), S.expand(b, shape)


# --- in-place twins and PyTorch's aliases -------------------------------------------------------
for _fn in (nan_to_num, deg2rad, rad2deg, gcd, lcm, ldexp, heaviside, bitwise_left_shift, bitwise_right_shift,
            bitwise_not, nextafter):
    inplace(_fn)
attach("__lshift__", operator(lambda self, other: bitwise_left_shift(self, other)))
attach("__rshift__", operator(lambda self, other: bitwise_right_shift(self, other)))
attach("__rlshift__", operator(lambda self, other: bitwise_left_shift(_scalar_like(other, self), self)))
attach("__rrshift__", operator(lambda self, other: bitwise_right_shift(_scalar_like(other, self), self)))
attach("__ilshift__", operator(lambda self, other: bitwise_left_shift(self, other, out=self)))
attach("__irshift__", operator(lambda self, other: bitwise_right_shift(self, other, out=self)))


def _scalar_like(v, ref: Tensor) -> Tensor:
    """A Python number beside a shift's tensor operand, in their result dtype (an int wrapped into it)."""
    from ember.core.creation import tensor

    dt = dtypes.result_type(ref, v)
    return tensor(_wrapped(v, dt), dtype=dt, device=ref.device)


arccosh, arcsinh, arctanh = ew.acosh, ew.asinh, ew.atanh
for _alias, _op in (("arccosh", ew.acosh), ("arcsinh", ew.asinh), ("arctanh", ew.atanh)):
    attach(_alias, _op)
    attach(_alias + "_", getattr(Tensor, _op.name + "_"))


def _function_form(name: str):
    """`torch.<name>_(input, ...)`, the function spelling of the in-place method."""
    def fn(input: Tensor, *args, **kwargs) -> Tensor:
        return getattr(input, name + "_")(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name + "_"
    fn.__doc__ = f"In-place `{name}`: `input.{name}_(...)`."
    return fn


nan_to_num_, deg2rad_, rad2deg_, gcd_, lcm_, ldexp_ = (_function_form(n) for n in (
    "nan_to_num", "deg2rad", "rad2deg", "gcd", "lcm", "ldexp"))
arccosh_, arcsinh_, arctanh_ = (_function_form(n) for n in ("arccosh", "arcsinh", "arctanh"))

for _alias, _base in (("absolute", "abs"), ("negative", "neg"), ("arcsin", "asin"), ("arccos", "acos"),
                      ("arctan", "atan"), ("arctan2", "atan2"), ("fix", "trunc"), ("greater", "gt"),
                      ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne")):
    attach(_alias + "_", getattr(Tensor, _base + "_"))
inplace(ew.logical_not, "logical_not_")

# `torch.exp_(x)` ...: PyTorch's top-level spellings of the in-place methods
_FUNCTION_FORMS = ("abs", "acos", "acosh", "arccos", "arcsin", "arctan", "asin", "asinh", "atan", "atanh", "ceil",
                   "clamp", "clamp_max", "clamp_min", "clip", "cos", "cosh", "erf", "exp", "exp2", "expm1", "fix",
                   "floor", "frac", "log", "log10", "log1p", "log2", "neg", "negative", "reciprocal", "round",
                   "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "xlogy", "addmv",
                   "relu")
for _name in _FUNCTION_FORMS:
    globals()[_name + "_"] = _function_form(_name)
    __all__.append(_name + "_")
