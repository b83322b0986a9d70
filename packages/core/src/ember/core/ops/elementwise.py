"""Elementwise ops: unary math, binary arithmetic with broadcasting, comparisons, logic.

Each op is declared once from a table row (`Row`: name, numpy implementation, flags, and its
`OpInfo` with the dtype rule and test metadata, NOTE [ The op table ] in `ember.core.opinfo`);
its CPU kernel is generated from the same row and computes in the result dtype (PyTorch's
promotion, not numpy's) without temporaries where numpy's ufunc can write straight into `out`.
"""

from __future__ import annotations

import numbers
import operator
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare, get_op
from ember.core.opinfo import (ALL_DTYPES, BOOL, FLOAT, FLOAT_DTYPES, INT_DTYPES, PROMOTE, ErrorInput, OpInfo, Sample,
                               binary_samples, unary_samples)
from ember.core.ops._util import (_INF, ERRSTATE, IGNORE_ALL, INT_SCALAR_HIGH, INT_SCALAR_LOW, _C_INT_NAMES,
                                  _CPP_TYPE_NAMES, arr, cast_error, int_scalar_overflow, internally, named_as,
                                  scalar_as, shape_error, warn_at_caller, wrap, write_out)
from ember.core.ops import axpy, memfmt, numba_cpu, numba_rows, unary_kernels
from ember.core.ops.complex import BINARY_REFUSING, complex_unary, refuse_complex
from ember.core.ops.complex_half import half_complex_binary
from ember.core.tensor import _CSTRIDES, Tensor, contiguous_strides

# PyTorch computes inf and nan silently; numpy's floating-point RuntimeWarnings ("divide by zero
# encountered") from ember's own kernels are noise. The elementwise kernels switch them off
# (`silenced`); this filter catches the rest at no cost per op.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.core\.ops\.")



def _rounded_once(fn):
    """`fn`, several ufuncs, computed in float32 over float16/bfloat16 and rounded once at the end, as PyTorch
    computes them (each ufunc in the 16-bit dtype would round at every step)."""
    def run(x, dtype=None, out=None):
        dt = np.dtype(dtype) if dtype is not None else np.asarray(x).dtype
        if dt.itemsize != 2 or dt.kind not in "fV":  # V: bfloat16
            return fn(x, dtype=dtype, out=out)
        r = fn(np.asarray(x).astype(np.float32), dtype=np.float32)
        if out is None:
            return r.astype(dt)
        np.copyto(out, r, casting="unsafe")
        return out

    return run


@_rounded_once
def _sigmoid(x, dtype=None, out=None):
    return np.divide(1, np.add(1, np.exp(np.negative(x, dtype=dtype), dtype=dtype), dtype=dtype), out=out,
                     dtype=dtype)


_ZEROS: dict = {}  # numpy dtype -> a read-only 0-dim zero, made once
BOOL_REFUSALS = {"relu": "Boolean inputs not supported for relu"}  # unary ops refusing a bool tensor, all devices


def _relu(x, dtype=None, out=None):
    if dtype is None or dtype == x.dtype:
        r = numba_cpu.relu(x, out)
        if r is not None:
            return r
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = np.zeros((), dtype=x.dtype)
        zero.flags.writeable = False
    if x.dtype.kind in "iub":
        if x.dtype.kind == "b":
            raise BoolOperatorError(BOOL_REFUSALS["relu"])
        return np.maximum(x, zero, out=out, dtype=dtype)
    # PyTorch's `x < 0 ? 0 : x`: -0.0 and NaN payloads pass (ufuncs only, no dispatcher: small tensors come here)
    if out is None:  # a copy in the result dtype (np.positive would give a 0-dim input back as a scalar)
        r = np.array(x, dtype=x.dtype if dtype is None else dtype)
    else:
        r = np.positive(x, out=out, dtype=dtype, casting="unsafe")
    np.positive(zero, out=r, where=np.less(x, zero), casting="unsafe")
    return r


def _complex_reciprocal(z: np.ndarray) -> np.ndarray:
    """1 / z as PyTorch's c10::complex division computes it (Smith's algorithm): 1 / 0 is inf+nanj where numpy's
    reciprocal gives nan+nanj, and the signs of zero parts follow the same steps."""
    c, d = z.real, z.imag
    with np.errstate(all="ignore"):
        big = np.abs(c) >= np.abs(d)
        rat = np.where(big, d / c, c / d)
        scl = 1.0 / np.where(big, c + d * rat, d + c * rat)
        re = np.where(big, (1.0 + 0.0 * rat) * scl, (rat + 0.0) * scl)
        im = np.where(big, (0.0 - rat) * scl, (0.0 * rat - 1.0) * scl)
        zero = big & (c == 0) & (d == 0)
        re = np.where(zero, 1.0 / np.abs(c), re)
        im = np.where(zero, 0.0 / np.abs(d), im)
    r = np.empty(z.shape, dtype=z.dtype)
    r.real, r.imag = re, im
    return r


def _reciprocal(x, dtype=None, out=None):
    dt = np.dtype(dtype) if dtype is not None else np.asarray(x).dtype
    if dt.kind != "c":
        return np.reciprocal(x, out=out, dtype=dtype)
    r = _complex_reciprocal(np.asarray(x).astype(dt, copy=False))
    if out is None:
        return r
    np.copyto(out, r, casting="unsafe")
    return out


@_rounded_once
def _rsqrt(x, dtype=None, out=None):
    return _reciprocal(np.sqrt(x, dtype=dtype), out=out, dtype=dtype)


@_rounded_once
def _silu(x, dtype=None, out=None):
    return np.multiply(x, _sigmoid(x, dtype), out=out, dtype=dtype)


def _erf(x, dtype=None, out=None):
    return numba_cpu.erf(x, dtype=dtype, out=out)


def _erfinv(x, dtype=None, out=None):
    return numba_cpu.erfinv(x, dtype=dtype, out=out)


@_rounded_once  # bfloat16 in float32: its own sign would keep -0.0 and NaN
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


def _neg(x, dtype=None, out=None):  # a bool tensor is refused by the op's meta step
    return np.negative(x, out=out, dtype=dtype)


@named_as("RuntimeError")
class BoolOperatorError(TypeError, RuntimeError):
    """A bool tensor where an op refuses one (`-`), or another dtype where it needs one (`where`'s
    condition): PyTorch raises RuntimeError; by ember's rule a dtype error is a TypeError."""


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


class Row(NamedTuple):
    """One elementwise op: its name, numpy implementation, dtype rule, flags and test metadata."""

    name: str
    impl: Callable
    info: OpInfo
    differentiable: bool = True  # sign, floor, round ... are, with a zero gradient, as in PyTorch
    argnames: tuple[str, ...] = ("input",)  # PyTorch's names of the tensor inputs


def _scipy(name: str) -> Callable:
    """A float64 reference from scipy.special, imported when a test first calls it."""
    def ref(*xs):
        from scipy import special

        return getattr(special, name)(*xs)
    return ref


def _neg_errors(device):
    from ember.core.creation import tensor

    yield ErrorInput(Sample((tensor([True, False], device=device),)), RuntimeError,
                     r"Negation, the `-` operator, on a bool tensor is not supported")


def _relu_errors(device):
    from ember.core.creation import tensor

    yield ErrorInput(Sample((tensor([True, False], device=device),)), RuntimeError, BOOL_REFUSALS["relu"])


def _u(rule=PROMOTE, ref=None, domain=None, int_domain=None, grad_domain=None, dtypes=None, errors=None, **kw):
    """The OpInfo of a unary row (samples: contiguous, strided, transposed, 0-dim, empty)."""
    if dtypes is not None:
        kw["dtypes"] = dtypes
    return OpInfo(rule=rule, n_inputs=1, ref=ref, domain=domain, int_domain=int_domain, grad_domain=grad_domain,
                  samples=unary_samples, errors=errors, public=True, **kw)


_NO_BOOL = {"cpu": tuple(d for d in ALL_DTYPES if d is not dtypes.bool),
            "cuda": tuple(d for d in ALL_DTYPES if d not in (dtypes.bool, dtypes.bfloat16))}
_COMPLEX = tuple(d for d in ALL_DTYPES if d.is_complex)
_STEP = (0.1, 0.4)  # away from the jumps of floor, ceil, trunc, round

# Domains: (low, high) of float inputs where the op is defined and well-conditioned; `int_domain`
# for integer inputs; `grad_domain` where finite differences are accurate. References: float64.
UNARY = [
    Row("neg", _neg, _u(ref=lambda x: -x, dtypes=_NO_BOOL, errors=_neg_errors)),
    Row("abs", _abs, _u(ref=lambda x: np.where(x < 0, -x, x), dtypes=_NO_BOOL)),
    Row("sign", _sign, _u(ref=lambda x: (0 < x).astype(np.float64) - (x < 0), grad_domain=(0.1, 0.9))),
    Row("square", _square, _u(ref=lambda x: x * x, bool_result=dtypes.int64)),
    Row("floor", _same_int(np.floor), _u(ref=np.floor, grad_domain=_STEP, dtypes=_NO_BOOL)),
    Row("ceil", _same_int(np.ceil), _u(ref=np.ceil, grad_domain=_STEP, dtypes=_NO_BOOL)),
    Row("trunc", _same_int(np.trunc), _u(ref=np.trunc, grad_domain=_STEP, dtypes=_NO_BOOL)),
    # half to even, as PyTorch; `decimals` is composed in arith
    Row("round", _same_int(np.rint), _u(ref=np.round, grad_domain=_STEP, dtypes=_NO_BOOL)),
    Row("frac", _frac, _u(FLOAT, ref=lambda x: x - np.trunc(x), grad_domain=(0.1, 0.9),
                          dtypes={"cpu": FLOAT_DTYPES + _COMPLEX, "cuda": FLOAT_DTYPES + _COMPLEX})),
    Row("relu", _relu, _u(ref=lambda x: np.where(x > 0, x, np.where(x != x, x, np.zeros_like(x))), dtypes=_NO_BOOL,
                          errors=_relu_errors)),
    Row("exp", np.exp, _u(FLOAT, ref=lambda x: np.e ** x)),
    Row("exp2", np.exp2, _u(FLOAT, ref=lambda x: 2.0 ** x)),
    Row("expm1", np.expm1, _u(FLOAT, ref=np.expm1)),
    Row("log", np.log, _u(FLOAT, ref=np.log, domain=(0.1, 9), int_domain=(1, 9), grad_domain=(0.5, 2.0))),
    Row("log1p", np.log1p, _u(FLOAT, ref=np.log1p, domain=(-0.9, 9), int_domain=(0, 9), grad_domain=(-0.5, 2.0))),
    Row("log2", np.log2, _u(FLOAT, ref=lambda x: np.log(x) / np.log(2.0), domain=(0.1, 9), int_domain=(1, 9),
                            grad_domain=(0.5, 2.0))),
    Row("log10", np.log10, _u(FLOAT, ref=lambda x: np.log(x) / np.log(10.0), domain=(0.1, 9), int_domain=(1, 9),
                              grad_domain=(0.5, 2.0))),
    Row("sqrt", np.sqrt, _u(FLOAT, ref=np.sqrt, domain=(0, 9), int_domain=(0, 9), grad_domain=(0.5, 2.0))),
    Row("rsqrt", _rsqrt, _u(FLOAT, ref=lambda x: 1 / np.sqrt(x), domain=(0.1, 9), int_domain=(1, 9),
                            grad_domain=(0.5, 2.0))),
    Row("reciprocal", _reciprocal, _u(FLOAT, ref=lambda x: 1 / x, domain=(0.5, 9), int_domain=(1, 9),
                                        grad_domain=(0.5, 2.0))),
    Row("sin", np.sin, _u(FLOAT, ref=np.sin)),
    Row("cos", np.cos, _u(FLOAT, ref=np.cos)),
    Row("tan", np.tan, _u(FLOAT, ref=lambda x: -1j * np.tanh(1j * x) if np.iscomplexobj(x) else np.sin(x) / np.cos(x),
                          domain=(-1.4, 1.4))),  # sin/cos overflows for a large imaginary part; tanh does not
    Row("asin", np.arcsin, _u(FLOAT, ref=np.arcsin, domain=(-0.99, 0.99), int_domain=(0, 1), grad_domain=(-0.8, 0.8))),
    Row("acos", np.arccos, _u(FLOAT, ref=np.arccos, domain=(-0.99, 0.99), int_domain=(0, 1), grad_domain=(-0.8, 0.8))),
    Row("atan", np.arctan, _u(FLOAT, ref=np.arctan)),
    Row("sinh", np.sinh, _u(FLOAT, ref=lambda x: (np.exp(x) - np.exp(-x)) / 2)),
    Row("cosh", np.cosh, _u(FLOAT, ref=lambda x: (np.exp(x) + np.exp(-x)) / 2)),
    Row("tanh", np.tanh, _u(FLOAT, ref=np.tanh)),
    Row("asinh", np.arcsinh, _u(FLOAT, ref=np.arcsinh)),
    Row("acosh", np.arccosh, _u(FLOAT, ref=np.arccosh, domain=(1, 9), int_domain=(1, 9), grad_domain=(1.5, 3.0))),
    Row("atanh", np.arctanh, _u(FLOAT, ref=np.arctanh, domain=(-0.99, 0.99), int_domain=(0, 1),
                                grad_domain=(-0.8, 0.8))),
    Row("sigmoid", _sigmoid, _u(FLOAT, ref=lambda x: 1 / (1 + np.exp(-x)))),
    Row("silu", _silu, _u(FLOAT, ref=lambda x: x / (1 + np.exp(-x)))),
    Row("erf", _erf, _u(FLOAT, ref=_scipy("erf"))),
    Row("erfinv", _erfinv, _u(FLOAT, ref=_scipy("erfinv"), domain=(-0.99, 0.99), int_domain=(0, 1),
                              grad_domain=(-0.8, 0.8))),
    Row("isnan", np.isnan, _u(BOOL, ref=lambda x: x != x), differentiable=False),
    Row("isinf", np.isinf, _u(BOOL, ref=lambda x: np.abs(x) == np.inf), differentiable=False),
    Row("isfinite", np.isfinite, _u(BOOL, ref=lambda x: np.abs(x) < np.inf), differentiable=False),
    Row("logical_not", np.logical_not, _u(BOOL, ref=lambda x: x == 0), differentiable=False),
    Row("signbit", np.signbit, _u(BOOL, ref=lambda x: np.copysign(1.0, x) < 0), differentiable=False),
]
# the transcendental rows compute float32/float64 with the kernels ember.jit's fused groups share
# (NOTE [ Eager and fused transcendentals share one implementation ] in ember.core.ops.vector_math); numpy's for the
# other dtypes
UNARY = [row._replace(impl=unary_kernels.implementation(row.name, row.impl)) if row.name in unary_kernels.NAMES
         else row for row in UNARY]


def _unary_dtype(rule: str, x: Tensor) -> dtypes.dtype:
    if rule == PROMOTE:
        return x._dtype
    if rule == BOOL:
        return dtypes.bool
    return x._dtype if x._dtype.is_floating_point or x._dtype.is_complex else dtypes.get_default_dtype()


def not_a_tensor(name: str, arg: str, position: int, value) -> TypeError:
    """PyTorch's error for a non-tensor where its signature takes a Tensor."""
    return TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def check_tensors(name: str, input, other) -> None:
    """PyTorch's TypeError for a non-tensor operand of a (Tensor input, Tensor other) signature."""
    for pos, (arg, v) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(v, Tensor):
            raise not_a_tensor(name, arg, pos, v)


def _make_unary(row: Row):
    name, fn, rule = row.name, row.impl, row.info.rule
    op = declare(name, fn, differentiable=row.differentiable, argnames=row.argnames, info=row.info)
    quick = unary_kernels.quick(name) if name in unary_kernels.NAMES else None
    bool_result = row.info.bool_result

    @op.register("cpu")
    def kernel(x, *, out=None):
        try:
            dt = x._dtype
        except AttributeError:
            raise not_a_tensor(name, "input", 1, x) from None
        if dt.is_complex:
            t = complex_unary(name, fn, x, out, None if out is None else layout_of((x,)))
            return t if out is not None or t._strides == x._strides else laid_out(t, t._np(), (x,))
        if not (rule == PROMOTE or (rule == FLOAT and dt.is_floating_point)):
            dt = _unary_dtype(rule, x)
        elif dt is dtypes.bool and bool_result is not None:
            dt = bool_result
        c = x._npc  # Tensor._np's cache, read inline
        a = c[1] if c is not None and c[0] is x._storage._raw else x._np()
        if quick is not None and out is None and dt.np is a.dtype:  # NOTE [ The cost of a small call ]
            r = quick(a)
            if r is not None:
                t = wrap(r, True)
                return t if t._strides == x._strides else laid_out(t, r, (x,))
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
            return write_out(out, r, name, layout_of((x,)))
        t = wrap(r, True)
        if t._strides == x._strides:  # a row-major input, the common case: nothing more to do
            return t
        return laid_out(t, r, (x,))

    return op


class _RowMajor:
    """Stands for the operands of `pow(number, tensor)`, whose result PyTorch makes row-major whatever the
    exponent's layout: its strides equal no result's, so the kernel asks `laid_out` with no operands."""

    _strides = None


_ROW_MAJOR = _RowMajor()


def laid_out(t: Tensor, r, operands, numbers: bool = True) -> Tensor:
    """`t`, the wrapped CPU result `r`, in the layout its operands give (NOTE [ Elementwise result layout ] in
    `ember.core.ops.memfmt`), in `r`'s own buffer where numpy laid it out so already."""
    s = t._strides
    shape = t._shape
    same = bool(operands)  # every input of the result's strides, or expanded from one element (a gradient of sum)
    row_major = s == _CSTRIDES.get(shape)  # and every input row-major in its own shape (a broadcast bias)
    for v in operands:
        if isinstance(v, Tensor):
            vs = v._strides
            if vs != s and any(vs):
                same = False
                if not row_major:
                    break
                if vs != _CSTRIDES.get(v._shape):
                    row_major = False
                    break
    if same or row_major:
        return t
    strides = memfmt.elementwise_strides(shape, operands, numbers)
    if strides is None:
        strides = _CSTRIDES.get(shape) or contiguous_strides(shape)
    if strides == s:
        return t
    r = np.asarray(r)
    isz = r.itemsize
    if all(n == 1 or a == s * isz for n, a, s in zip(shape, r.strides, strides, strict=True)):
        flat = r.ravel(order="K")  # a view: r is dense in that order
    else:
        flat = np.empty(r.size, r.dtype)
        np.copyto(np.ndarray(shape, r.dtype, flat, 0, tuple([s * isz for s in strides])), r)
    base = wrap(flat)
    return Tensor._make(base._storage, 0, shape, strides, base._dtype)


def layout_of(operands, numbers: bool = True):
    """`write_out`'s `layout` for an elementwise result over `operands`: an `out=` it resizes takes the layout a
    new result would have (NOTE [ Elementwise result layout ]), as PyTorch's TensorIterator gives it."""
    return lambda shape: memfmt.elementwise_strides(shape, operands, numbers)


def _bool_of_int(name: str, a):
    """isnan/isinf/isfinite/signbit of an integer array (numpy lacks some integer loops)."""
    if name == "isfinite":
        return np.ones(a.shape, dtype=np.bool_)
    if name == "signbit":
        return a < 0
    return np.zeros(a.shape, dtype=np.bool_)


for _row in UNARY:
    globals()[_row.name] = _make_unary(_row)

# PyTorch's kernels that refuse bool (and frac, integers) rather than return the input: `"abs_cpu" not implemented
# for 'Bool'`; square is pow(x, 2), so bool squares to int64
_UNARY_REFUSALS = {"abs": "abs_cpu", "floor": "floor_vml_cpu", "ceil": "ceil_vml_cpu", "trunc": "trunc_vml_cpu",
                   "round": "round_vml_cpu", "frac": "frac_cpu"}


def same_dtype_out(x, out) -> None:
    """The unary ops whose output keeps the input's dtype (abs, neg, sign, floor, ceil, trunc, round, frac: PyTorch's
    `build_borrowing_unary_op`) take an `out` of exactly that dtype, float64 for float32 included (complex input
    keeps its own rules: abs is complex-to-real)."""
    if isinstance(out, Tensor) and isinstance(x, Tensor) and out._dtype is not x._dtype and not x._dtype.is_complex:
        raise RuntimeError(f"Found dtype {dtypes.TORCH_NAMES[out._dtype.name]} but expected "
                           f"{dtypes.TORCH_NAMES[x._dtype.name]}")


def _refusing_meta(name: str, kernel: str):
    def meta(x, *, out=None) -> None:
        same_dtype_out(x, out)
        if isinstance(x, Tensor) and (x._dtype is dtypes.bool or name == "frac" and x._dtype in INT_DTYPES):
            raise DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[x._dtype.name]}'")
    return meta


for _name, _kernel in _UNARY_REFUSALS.items():
    get_op(_name).meta(_refusing_meta(_name, _kernel))


# the table's ops whose PyTorch function takes no `out=` (relu neither, but a meta step on every relu call costs
# more than the refusal is worth: it keeps accepting one)
NO_OUT = ("isnan", "isfinite")


def _no_out_meta(name: str):
    """PyTorch's isnan and isfinite take no `out=` (the TypeError of an unknown keyword)."""
    def meta(x, *, out=None) -> None:
        if out is not None and out is not x:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
    return meta


for _name in NO_OUT:
    get_op(_name).meta(_no_out_meta(_name))


@get_op("sign").meta
def _sign_meta(x, *, out=None) -> None:
    same_dtype_out(x, out)


@get_op("signbit").meta
def _signbit_meta(x, *, out=None) -> None:
    """A non-bool `out` is refused (the complex refusal, later, comes first in PyTorch)."""
    complex_input = isinstance(x, Tensor) and x._dtype.is_complex
    if isinstance(out, Tensor) and out._dtype is not dtypes.bool and not complex_input:
        raise RuntimeError("signbit does not support non-boolean outputs.")


@get_op("neg").meta
def _neg_meta(x, *, out=None) -> None:
    """PyTorch's refusal of `-` on a bool tensor, for every device."""
    same_dtype_out(x, out)
    if isinstance(x, Tensor) and x._dtype is dtypes.bool:
        raise BoolOperatorError("Negation, the `-` operator, on a bool tensor is not supported. "
                                "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


# --- binary ---------------------------------------------------------------------------
def _floor_divide(a, b, dtype=None, out=None):
    return np.floor_divide(a, b, out=out, dtype=dtype)


def _remainder(a, b, dtype=None, out=None):
    """Python's modulo as PyTorch takes it on floats: fmod, plus the divisor where their signs differ, so a zero
    remainder keeps the dividend's sign (-3.0 % 1 is -0.0, where numpy's remainder gives 0.0)."""
    if (np.dtype(dtype) if dtype is not None else np.result_type(a, b)).kind in "iub":  # bfloat16 is "V"
        return np.remainder(a, b, out=out, dtype=dtype)
    m = np.asarray(np.fmod(a, b, dtype=dtype))  # an array, also for 0-dim operands, so it can be written
    fix = (m != 0) & ((np.asarray(b) < 0) != (m < 0))
    if out is None:
        return np.add(m, b, out=m, where=fix, dtype=dtype)  # m + 0 would turn -0.0 into 0.0
    np.copyto(out, m, casting="unsafe")
    return np.add(m, b, out=out, where=fix, dtype=dtype, casting="unsafe")


def _trunc_divide(a, b, dtype=None, out=None):
    dt = np.dtype(dtype)
    if dt.kind in "fV":  # V: bfloat16. 16-bit floats divide in float32 and round once, as PyTorch
        if dt.itemsize == 2:
            r = np.trunc(np.divide(a, b, dtype=np.float32))
            if out is None:
                return r.astype(dt)
            np.copyto(out, r, casting="unsafe")
            return out
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


def _xlogy(a, b, dtype=None, out=None):
    a = np.asarray(a, dtype=dtype)
    r = np.where(a == 0, np.zeros((), dtype), a * np.log(np.asarray(b, dtype=dtype)))
    r = np.where(np.isnan(np.asarray(b, dtype=dtype)), np.asarray(np.nan, dtype), r)
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r.astype(dtype, copy=False)


def _broadcast_errors(name, dtype=dtypes.float32):
    def errors(device):
        from ember.core.creation import ones

        yield ErrorInput(Sample((ones(2, 3, dtype=dtype, device=device), ones(4, dtype=dtype, device=device))),
                         RuntimeError,
                         r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
                         r"dimension 1$")
    return errors


def _integer_only_errors(name):
    def errors(device):
        from ember.core.creation import ones

        yield from _broadcast_errors(name, dtypes.int64)(device)
        yield ErrorInput(Sample((ones(2, device=device), ones(2, device=device))), RuntimeError,
                         f"\"{name}_.*\" not implemented for 'Float'")
    return errors


def _division_errors(name):
    def errors(device):
        from ember.core.creation import tensor

        yield from _broadcast_errors(name)(device)
        if device == "cpu":  # a CUDA kernel would have to synchronize to see the zero
            yield ErrorInput(Sample((tensor([1, 2]), tensor([1, 0]))), ZeroDivisionError,
                             "^ZeroDivisionError$")
    return errors


def _nonzero_divisor(info, dtype, device="cpu"):
    """Binary samples whose divisor has no zero (an integer division by zero raises)."""
    for s in binary_samples(info, dtype, device):
        a, b = s.args
        yield Sample((a, where(b == 0, 1, b)))


def _zero_divisor(a, b, *attrs):
    """An integer division by zero raises (on the CPU)."""
    if binary_dtype(PROMOTE, a, b).is_floating_point or _empty(a) or _empty(b):
        return None
    return "an integer division by zero" if np.any(np.asarray(arr(b)) == 0) else None


def _bool_operand(a, b, *attrs):
    """`torch.sub` refuses a bool tensor on either side."""
    if any(isinstance(v, Tensor) and v._dtype is dtypes.bool for v in (a, b)):
        return "a bool tensor in a subtraction"
    return None


def _negative_int_power(a, b, *attrs):
    if type(b) is int and b < 0 and isinstance(a, Tensor) and not a._dtype.is_floating_point:
        return "an integer to a negative integer power"
    return None


def _b(rule=PROMOTE, ref=None, int_ref=None, domain=None, int_domain=None, grad_domain=None, dtypes=None,
       samples=binary_samples, errors=None, invalid=None, number_input=False):
    kw = {} if dtypes is None else {"dtypes": dtypes}
    if invalid is None and int_ref is not None:
        invalid = _zero_divisor
    return OpInfo(rule=rule, n_inputs=2, ref=ref, int_ref=int_ref, domain=domain, int_domain=int_domain,
                  grad_domain=grad_domain, samples=samples, errors=errors, public=True, invalid=invalid,
                  number_input=number_input, **kw)


def _floor_divide_ref(a, b):
    """PyTorch's float floor division, from the exact fmod (so inf // 1 is nan, 5 // inf is 0)."""
    mod = np.fmod(a, b)
    div = (a - mod) / b
    div = np.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    fl = np.floor(div)
    fl = np.where(div - fl > 0.5, fl + 1, fl)
    return np.where(b == 0, a / b, np.where(div != 0, fl, np.copysign(0.0, a / b)))


def _fmod_ref(a, b):
    """C's fmod in float64: exact (the result is representable), unlike a - b trunc(a / b) at 1e30."""
    return np.fmod(a, b)


def _remainder_ref(a, b):
    """Python's modulo from the exact fmod: the remainder takes the divisor's sign."""
    r = np.fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


def _int_trunc_div(a, b):
    """Floor division, one up where it rounded a negative inexact quotient down (no abs: int64 min)."""
    return np.floor_divide(a, b) + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))


_INTS_AND_BOOL = {"cpu": (dtypes.bool, *INT_DTYPES), "cuda": (dtypes.bool, *INT_DTYPES)}
_FLOATS_ONLY = {"cpu": FLOAT_DTYPES, "cuda": FLOAT_DTYPES}  # hypot: no integer kernel, "not implemented for 'Long'"
_NO_BOOL_QUOTIENT = _NO_BOOL  # PyTorch: "remainder_cpu" not implemented for 'Bool'
_POSITIVE = ((0.5, 3), (0.5, 3))


_QUIET_BITS = {2: (np.uint16, 0x0200), 4: (np.uint32, 0x00400000), 8: (np.uint64, 0x0008000000000000)}


def _extremum(ufunc, second_wins, nan_skipped: bool):
    """maximum/minimum (`nan_skipped` False) and fmax/fmin as PyTorch's CPU computes them element by element
    (its scalar path: 0-dim and short tensors): `b` only where it wins strictly (`a < b` for a maximum), so
    of -0.0 and 0.0 the first operand is returned; a NaN operand of maximum/minimum gives the dtype's canonical
    quiet NaN (0x7fc00000 in float32, whatever the operands' sign and payload); fmax/fmin return the other
    operand, but a signaling NaN against a number (not float16's) and the second of two NaNs, quieted; bfloat16,
    through float32: NaN is 0x7fc0 and of equal zeros the second. numpy's ufuncs keep a NaN's payload and
    pick between signed zeros by array length (SIMD), so floats do not use them."""
    ties = {np.less: np.less_equal, np.greater: np.greater_equal}[second_wins]
    name = ufunc.__name__

    def fn(x, y, out=None, dtype=None):
        dt = np.result_type(x, y) if dtype is None else np.dtype(dtype)
        bf16 = dt.kind == "V" and dt == dtypes.bfloat16.np  # (not dt.name: numpy computes it in Python, ~5 us)
        if dt.kind != "f" and not bf16:
            return ufunc(x, y, out=out, dtype=dtype)
        a, b = np.asarray(x, dtype=dt), np.asarray(y, dtype=dt)
        if dt.itemsize >= 4 and (not nan_skipped or not (np.isnan(a).any() or np.isnan(b).any())):
            return numba_cpu.extremum_ufuncs()[name](a, b, out=out)  # a Numba ufunc: numpy's speed
        an, bn = a != a, b != b
        if not nan_skipped:
            r = np.where(second_wins(a, b), b, a)
            nan = an | bn
            if nan.any():
                np.copyto(r, np.array(np.nan, dtype=dt), where=nan)
        else:
            r = np.where((ties if bf16 else second_wins)(a, b) | an, b, a)
            if an.any() or bn.any():
                uint, quiet = _QUIET_BITS[dt.itemsize] if not bf16 else (np.uint16, 0x0040)
                signaling = an & (a.view(uint) & uint(quiet) == 0) | bn & (b.view(uint) & uint(quiet) == 0)
                if (dt.itemsize != 2 or bf16) and signaling.any():  # float16 widens to float32, quieting it first
                    r = np.where(signaling, np.where(bn, b, a), r)
                nan = r != r
                if bf16:
                    np.copyto(r, np.array(np.nan, dtype=dt), where=nan)
                else:
                    r.view(uint)[nan] |= uint(quiet)
        if out is None:
            return r
        np.copyto(out, r)
        return out

    return fn


def _binary_rows():
    rows = [
        ("add", np.add, _b(ref=lambda a, b: a + b)),
        ("sub", np.subtract, _b(ref=lambda a, b: a - b, dtypes=_NO_BOOL, invalid=_bool_operand)),
        ("mul", np.multiply, _b(ref=lambda a, b: a * b)),
        ("div", np.true_divide, _b(FLOAT, ref=lambda a, b: a / b, samples=_nonzero_divisor,
                                   grad_domain=((-1, 1), (0.5, 2.0)))),
        ("floor_divide", _floor_divide, _b(ref=_floor_divide_ref, int_ref=np.floor_divide,
                                           samples=_nonzero_divisor, errors=_division_errors("floor_divide"),
                                           dtypes=_NO_BOOL_QUOTIENT)),
        ("trunc_divide", _trunc_divide, _b(ref=lambda a, b: np.trunc(a / b), int_ref=_int_trunc_div,
                                           samples=_nonzero_divisor, errors=_division_errors("trunc_divide"),
                                           dtypes=_NO_BOOL_QUOTIENT)),
        ("remainder", _remainder, _b(ref=_remainder_ref, int_ref=np.remainder,
                                       samples=_nonzero_divisor, errors=_division_errors("remainder"),
                                       grad_domain=((0.1, 0.4), (1.0, 2.0)), dtypes=_NO_BOOL_QUOTIENT)),
        ("fmod", np.fmod, _b(ref=_fmod_ref, int_ref=np.fmod, samples=_nonzero_divisor,
                             errors=_division_errors("fmod"), grad_domain=((0.1, 0.4), (1.0, 2.0)),
                             dtypes=_NO_BOOL_QUOTIENT)),
        ("pow", _pow, _b(ref=np.power, domain=((0.5, 3), (0, 3)), int_domain=((-4, 5), (0, 3)),
                         grad_domain=((0.5, 2.0), (-1.0, 2.0)), invalid=_negative_int_power)),
        ("maximum", _extremum(np.maximum, np.less, False), _b(ref=np.maximum)),
        ("minimum", _extremum(np.minimum, np.greater, False), _b(ref=np.minimum)),
        ("fmax", _extremum(np.fmax, np.less, True),
         _b(ref=lambda a, b: np.where(b != b, a, np.where(a != a, b, np.maximum(a, b))))),
        ("fmin", _extremum(np.fmin, np.greater, True),
         _b(ref=lambda a, b: np.where(b != b, a, np.where(a != a, b, np.minimum(a, b))))),
        ("atan2", np.arctan2, _b(FLOAT, ref=np.arctan2)),
        ("hypot", np.hypot, _b(FLOAT, ref=lambda a, b: np.sqrt(a * a + b * b), dtypes=_FLOATS_ONLY)),
        ("copysign", np.copysign, _b(FLOAT, ref=lambda a, b: np.abs(a) * np.where(np.signbit(b), -1.0, 1.0),
                                     grad_domain=((0.2, 1.0), (-1, 1)))),
        ("xlogy", _xlogy, _b(FLOAT, ref=lambda a, b: np.where(b != b, np.nan, np.where(a == 0, 0.0, a * np.log(b))),
                             domain=_POSITIVE, grad_domain=((-1, 1), (0.5, 2.0)))),
        ("eq", np.equal, _b(BOOL, ref=lambda a, b: a == b)),
        ("ne", np.not_equal, _b(BOOL, ref=lambda a, b: a != b)),
        ("lt", np.less, _b(BOOL, ref=lambda a, b: a < b)),
        ("le", np.less_equal, _b(BOOL, ref=lambda a, b: a <= b)),
        ("gt", np.greater, _b(BOOL, ref=lambda a, b: a > b)),
        ("ge", np.greater_equal, _b(BOOL, ref=lambda a, b: a >= b)),
        ("logical_and", np.logical_and, _b(BOOL, ref=lambda a, b: (a != 0) & (b != 0))),
        ("logical_or", np.logical_or, _b(BOOL, ref=lambda a, b: (a != 0) | (b != 0))),
        ("logical_xor", np.logical_xor, _b(BOOL, ref=lambda a, b: (a != 0) != (b != 0))),
        ("bitwise_and", np.bitwise_and, _b(ref=np.bitwise_and, dtypes=_INTS_AND_BOOL,
                                           errors=_integer_only_errors("bitwise_and"))),
        ("bitwise_or", np.bitwise_or, _b(ref=np.bitwise_or, dtypes=_INTS_AND_BOOL,
                                         errors=_integer_only_errors("bitwise_or"))),
        ("bitwise_xor", np.bitwise_xor, _b(ref=np.bitwise_xor, dtypes=_INTS_AND_BOOL,
                                           errors=_integer_only_errors("bitwise_xor"))),
    ]
    out = []
    for name, impl, info in rows:
        if info.errors is None:
            info = replace(info, errors=_broadcast_errors(name))
        if name in _NUMBER_INPUT:
            info = replace(info, number_input=True)
        out.append(Row(name, impl, info, differentiable=info.rule != BOOL and name not in _STEPWISE,
                       argnames=("input", "exponent") if name == "pow" else ("input", "other")))
    return out


# ops whose PyTorch signature also takes a Number as `input` (the others raise TypeError for one)
_NUMBER_INPUT = {"add", "sub", "mul", "div", "floor_divide", "trunc_divide", "remainder", "pow", "xlogy",
                 "bitwise_and", "bitwise_or", "bitwise_xor"}
# bit operations are not differentiable (PyTorch: "derivative not implemented"); the rounding quotients are, with
# a zero gradient (`div(rounding_mode=)`)
_STEPWISE = {"bitwise_and", "bitwise_or", "bitwise_xor"}
# Binary rows. Domains: one (low, high) per operand. int_ref: the exact result on int64 arrays.
BINARY = _binary_rows()


def refused_dtypes(row: Row) -> frozenset:
    """The compute dtypes the op refuses on every device (those its CPU row does not accept)."""
    return frozenset(ALL_DTYPES) - frozenset(row.info.dtypes_for("cpu"))


_KERNEL_NAMES = {"floor_divide": "div_floor", "trunc_divide": "div_trunc"}  # PyTorch's kernels, where named apart


def dtype_not_supported(name: str, dt: dtypes.dtype, device: str = "cpu") -> DtypeNotSupported:
    """PyTorch's exact error: `"bitwise_and_cpu" not implemented for 'Float'` (its kernel and ScalarType names)."""
    kernel = _KERNEL_NAMES.get(name, name)
    return DtypeNotSupported(f"\"{kernel}_{device}\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")


def binary_dtype(rule: str, a, b) -> dtypes.dtype:
    """The dtype an elementwise binary op computes in (and returns, but for comparisons)."""
    dt = dtypes.result_type(a, b)
    if rule == FLOAT and not dt.is_floating_point and not dt.is_complex:
        return dtypes.get_default_dtype()
    return dt


@named_as("NotImplementedError")
class DtypeNotSupported(TypeError, NotImplementedError):
    """An op given a dtype it has no kernel for: TypeError by ember's rule, NotImplementedError (a
    RuntimeError) as PyTorch raises ("bitwise_and_cpu" not implemented for 'Float')."""


def _empty(v) -> bool:
    return isinstance(v, Tensor) and 0 in v._shape


@named_as("RuntimeError")
class IntegerDivisionByZero(RuntimeError, ZeroDivisionError):
    """Integer division by zero: PyTorch raises RuntimeError("ZeroDivisionError"); Python users
    catch ZeroDivisionError. Both work."""


def _check_int_div(name: str, a, b, dt) -> None:
    """Raise PyTorch's exact error (its message is the bare name) if `b` holds a zero and `dt` is integral."""
    if not dt.is_floating_point and not _empty(a) and not _empty(b):  # an empty result divides nothing
        if type(b) is int and dt.name in _C_INT_NAMES:  # a Python int divisor wraps to the dtype (2**40 is int8's 0)
            b = b % (1 << (8 * dt.itemsize))
        if np.any(np.asarray(arr(b)) == 0):
            raise IntegerDivisionByZero("ZeroDivisionError")


_SCALAR_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}
_SCALAR_FLOATS = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _scalar_inplace(fn, t: Tensor, b) -> Tensor | None:
    """`t op= b` for a 0-dim tensor and a Python number that keep `t`'s dtype (BatchNorm's
    `num_batches_tracked += 1`), by numpy scalar arithmetic: the ufunc's values (NEP 50 casts `b` the
    same way; integers wrap) without the ufunc call's ~4 µs. None where the general path must decide."""
    dt = t._dtype.np
    if dt in _SCALAR_FLOATS:
        if type(b) is int and not -(1 << 53) <= b <= 1 << 53:
            return None
    elif dt.kind not in "iu" or type(b) is not int or not 0 <= b <= 127:  # numpy refuses ints out of range
        return None
    x = t._np()
    token = ERRSTATE.set(IGNORE_ALL)
    try:
        x[()] = fn(x[()], b)
    finally:
        ERRSTATE.reset(token)
    return t


_HALF_FLOATS = (dtypes.float16, dtypes.bfloat16)


def _opmath_scalar(b) -> np.float32 | None:
    """`b` as PyTorch's CPU mul, div and div_floor kernels read a scalar second operand (a Python number or a 0-dim
    CPU tensor) of a float16/bfloat16 operand: its own value in float32, not rounded to the 16-bit dtype first."""
    if type(b) is float or type(b) is int or type(b) is bool:
        return np.float32(b)
    if isinstance(b, Tensor) and not b._shape and not b._dtype.is_complex and b.device.type == "cpu":
        return np.float32(b._np()[()])
    return None


def _make_binary(row: Row):
    name, fn, rule = row.name, row.impl, row.info.rule
    opmath = name in ("mul", "div", "floor_divide")  # a 16-bit float times/over a scalar: the scalar kept in float32
    op = declare(name, fn, differentiable=row.differentiable, argnames=row.argnames, info=row.info)
    refused = refused_dtypes(row)
    refuses_complex = name in BINARY_REFUSING
    divides = name in ("floor_divide", "trunc_divide", "remainder", "fmod")
    scalar_op = _SCALAR_OPS.get(name)
    reflected = row.info.number_input and name != "pow"  # a number as `input` takes the fast path below
    rows = scalar_op is not None  # add, sub, mul: a Numba pass for a matrix and a row vector (numba_rows)

    @op.register("cpu")
    def kernel(a, b, *, alpha=None, out=None):  # alpha: add's and sub's (ember.core.ops.axpy), None for 1
        if out is a and out is not None and scalar_op is not None and alpha is None and not a._shape \
                and (type(b) is int or type(b) is float) and _scalar_inplace(scalar_op, a, b) is not None:
            return out
        if (isinstance(a, Tensor) and isinstance(b, Tensor) and a._dtype is b._dtype and a._shape and b._shape
                and (rule != FLOAT or a._dtype.is_floating_point)):
            dt = a._dtype  # the common case, where binary_dtype gives the inputs' dtype at once
            c, d = a._npc, b._npc  # Tensor._np's cache, read inline
            x = c[1] if c is not None and c[0] is a._storage._raw else a._np()
            y = d[1] if d is not None and d[0] is b._storage._raw else b._np()
            u, v = a, b  # the tensor operands whose strides a row-major result must equal
        elif (isinstance(a, Tensor) and a._dtype.is_floating_point and a._shape
              and (type(b) is float or type(b) is int)):
            dt = a._dtype  # a float tensor and a Python number: result_type keeps the tensor's dtype
            c = a._npc
            x = c[1] if c is not None and c[0] is a._storage._raw else a._np()
            y = b
            u = v = a
            if type(b) is int and not INT_SCALAR_LOW <= b < INT_SCALAR_HIGH:
                raise int_scalar_overflow(b)
        elif (reflected and (type(a) is float or type(a) is int) and isinstance(b, Tensor)
              and b._dtype.is_floating_point and b._shape):
            dt = b._dtype  # a Python number and a float tensor (`1.0 - y` in sigmoid's and tanh's derivatives)
            c = b._npc
            x = a
            y = c[1] if c is not None and c[0] is b._storage._raw else b._np()
            u = v = b
            if type(a) is int and not INT_SCALAR_LOW <= a < INT_SCALAR_HIGH:
                raise int_scalar_overflow(a)
        else:
            check_operands(row, a, b)
            for s in (a, b):
                if type(s) is int and not INT_SCALAR_LOW <= s < INT_SCALAR_HIGH:
                    raise int_scalar_overflow(s)
            if rule == FLOAT and refused and (rt := dtypes.result_type(a, b)) in refused and not rt.is_complex:
                raise dtype_not_supported(name, rt)  # refused before promotion: "hypot_cpu" ... for 'Long'
            dt = binary_dtype(rule, a, b)
            if dt is dtypes.complex32:  # a float16 tensor and a complex number (ops/complex_half.py)
                if out is not None and rule != BOOL and not dtypes.can_cast(dt, out._dtype):
                    raise cast_error(dt, out._dtype)
                if alpha is not None:
                    b = get_op("mul")(b, alpha) if isinstance(b, Tensor) else b * alpha
                return half_complex_binary(op, a, b, out)
            x = a._np() if isinstance(a, Tensor) else a
            y = b._np() if isinstance(b, Tensor) else b
            x, y = _as_operand(x, dt), _as_operand(y, dt)  # comparisons too: uint8 > -3 is uint8 > 253
            u = a if isinstance(a, Tensor) else (b if name != "pow" else _ROW_MAJOR)
            v = b if isinstance(b, Tensor) else u
        wide = None
        if opmath and dt in _HALF_FLOATS:
            if isinstance(a, Tensor) and a._dtype is dt:
                wide = _opmath_scalar(b)
                if wide is not None:
                    x, y = np.asarray(x, np.float32), wide
            elif name == "mul" and type(a) in (float, int, bool) and isinstance(b, Tensor) and b._dtype is dt:
                wide = np.float32(a)  # `0.3 * t`: PyTorch's Tensor.__rmul__ is mul(t, 0.3)
                x, y = wide, np.asarray(y, np.float32)
        if out is not None and (out is a or out is b) and (refused or divides or refuses_complex):
            try:  # PyTorch's shape checks come before its kernel's dtype refusals
                _check_read_write_out(out, (a, b), strict=True)
            except ValueError:
                raise shape_error(name, a, b) from None
        if out is not None and rule != BOOL and not dtypes.can_cast(dt, out._dtype):
            raise cast_error(dt, out._dtype)  # TensorIterator's check precedes the kernel's dtype refusals
        if refuses_complex and dt.is_complex:
            refuse_complex(name, dt)
        if refused and dt in refused:
            raise dtype_not_supported(name, dt)
        if divides:
            _check_int_div(name, a, b, dt)
        f = fn if alpha is None else axpy.scaled(name, alpha, dt)
        token = ERRSTATE.set(IGNORE_ALL)  # PyTorch makes inf and nan silently
        try:
            if rule == BOOL:
                r = f(x, y)
            elif wide is not None:
                r = f(x, y, dtype=np.float32).astype(dt.np)
            else:
                if out is not None and out._dtype is dt and out._shape == (
                        a._shape if isinstance(a, Tensor) and isinstance(b, Tensor) and a._shape == b._shape
                        else _shape_of(a, b)):
                    f(x, y, out=out._np(), dtype=dt.np)  # in place: x.add_(y), .grad += g
                    return out
                r = None
                if rows and f is fn and u is a and v is b and b._shape and len(b._shape) == 1:  # a bias add
                    r = numba_rows.row_broadcast(name, x, y)
                if r is None:
                    r = f(x, y, dtype=dt.np)
        except ValueError as e:
            if "broadcast" in str(e):
                raise shape_error(name, a, b) from None
            raise
        finally:
            ERRSTATE.reset(token)
        if out is not None:
            if (out is a or out is b) and out._shape != np.shape(r):
                raise RuntimeError(f"output with shape {list(out._shape)} doesn't match the broadcast "
                                   f"shape {list(np.shape(r))}")
            return write_out(out, r, name, layout_of((a, b) if u is not _ROW_MAJOR else (), name != "pow"))
        t = wrap(r, True)
        s = t._strides
        if u._strides == s and v._strides == s:  # row-major inputs of the result's shape: nothing more to do
            return t
        return laid_out(t, r, (a, b) if u is not _ROW_MAJOR else (), name != "pow")

    return op


_OUT = ", *, Tensor out = None)"
_WITH_NUMBER = [f"(Tensor input, Tensor other{_OUT}", "(Number self, Tensor other)",
                f"(Tensor input, Number other{_OUT}"]
# the overloads PyTorch's parser lists when both operands of these ops are numbers (`torch.pow(2.0, 1.0)`): those
# that take a Number somewhere; the others name the first operand ("argument 'input' (position 1) must be Tensor")
NUMBER_OVERLOADS = {
    "pow": [f"(Tensor input, Tensor exponent{_OUT}", f"(Number self, Tensor exponent{_OUT}",
            f"(Tensor input, Number exponent{_OUT}"],
    "xlogy": [f"(Tensor input, Tensor other{_OUT}", f"(Number self, Tensor other{_OUT}",
              f"(Tensor input, Number other{_OUT}"],
    "fmod": [f"(Tensor input, Tensor other{_OUT}", f"(Tensor input, Number other{_OUT}"],
    **dict.fromkeys(("remainder", "bitwise_and", "bitwise_or", "bitwise_xor"), _WITH_NUMBER),
}


def check_operands(row: Row, a, b) -> None:
    """Raise PyTorch's TypeError for an operand that is neither a tensor nor a number, and for a
    number as `input` where PyTorch's signature takes only a Tensor there (`torch.fmax(1.5, t)`)."""
    for pos, v in enumerate((a, b)):
        if not isinstance(v, Tensor | numbers.Number | np.ndarray | np.generic) or (
                pos == 0 and not isinstance(v, Tensor) and (not row.info.number_input or not isinstance(b, Tensor))):
            if pos == 0 and row.name in NUMBER_OVERLOADS and isinstance(a, numbers.Number) and isinstance(
                    b, numbers.Number):
                from ember.core.ops.parser_errors import invalid_arguments

                raise invalid_arguments(row.name, (a, b), {}, NUMBER_OVERLOADS[row.name])
            raise not_a_tensor(row.name, row.argnames[pos], pos + 1, v)


def _as_operand(v, dt: dtypes.dtype):
    """Cast what numpy would refuse or widen: 0-dim arrays of another dtype (uint8 + tensor(-1)) and
    Python ints outside the result's range, which wrap like PyTorch (int8 + 1000)."""
    if type(v) is np.ndarray:
        return v.astype(dt.np) if v.ndim == 0 and v.dtype != dt.np else v
    if type(v) is int and dt.np.kind in "iu" and not 0 <= v <= 127:
        return np.array(v).astype(dt.np)
    if isinstance(v, np.integer) and dt.np.kind in "iu" and v.dtype != dt.np:  # a numpy int is a Python int
        return np.array(v).astype(dt.np)  # to PyTorch (uint8 * np.int64(300) wraps), which numpy refuses to cast
    if isinstance(v, np.bool_ | np.complex64):  # parsed as floats (dtypes._scalar_category): numpy warns
        return float(v)  # ComplexWarning where PyTorch's parser does
    return v


def _shape_of(a, b):
    sa = a._shape if isinstance(a, Tensor) else ()
    sb = b._shape if isinstance(b, Tensor) else ()
    return sa if sa == sb or not sb else (sb if not sa else np.broadcast_shapes(sa, sb))


for _row in BINARY:
    globals()[_row.name] = _make_binary(_row)


@get_op("pow").meta
def _pow_meta(input, exponent, *, out=None) -> None:
    """An integer tensor to a negative Python (or numpy) integer power raises, as in PyTorch, on every device."""
    if ((type(exponent) is int or isinstance(exponent, np.integer)) and exponent < 0 and isinstance(input, Tensor)
            and not (input._dtype.is_floating_point or input._dtype.is_complex)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


# --- ternary ---------------------------------------------------------------------------
where = declare("where", np.where, argnames=("condition", "input", "other"))


# where's number operands that PyTorch checks against a complex result's range (its float16/bfloat16 ones it does not)
_WHERE_COMPLEX_LIMITS = {"complex64": (float(np.finfo(np.float32).max), "c10::complex<float>")}


@where.meta
def _where_meta(condition, input, other, *, out=None) -> None:
    """A bool condition, on every device (PyTorch's RuntimeError, also a TypeError); a uint8 one is
    read as nonzero, with PyTorch's deprecation warning. With `out`, PyTorch's `where.self_out`: tensor
    operands only, and an `out` of exactly their result dtype (no cast, unlike other ops' `out`)."""
    if out is not None:
        for name, pos, v in (("input", 2, input), ("other", 3, other)):
            if not isinstance(v, Tensor):
                raise TypeError(f"where(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")
        dt = dtypes.result_type(input, other)
        if isinstance(out, Tensor) and out._dtype is not dt:
            raise RuntimeError(f"Expected out type to be {dtypes.TORCH_NAMES[dt.name]} but got "
                               f"{dtypes.TORCH_NAMES[out._dtype.name]}")
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):  # a number converts to the result dtype
        dt = dtypes.result_type(input, other)
        for v in (input, other):
            if type(v) in (int, float) or isinstance(v, np.integer):
                if dt.name in _C_INT_NAMES or dt is dtypes.float32:
                    scalar_as(dt, v)
                elif (type(v) is float and (limit := _WHERE_COMPLEX_LIMITS.get(dt.name))
                      and limit[0] < (v if v > 0 else -v) < _INF):
                    raise RuntimeError(f"value cannot be converted to type {limit[1]} without overflow")
                elif type(v) is int and not INT_SCALAR_LOW <= v < INT_SCALAR_HIGH:
                    raise int_scalar_overflow(v)
    if isinstance(condition, Tensor) and condition._dtype is not dtypes.bool:
        if condition._dtype is dtypes.uint8:
            warn_at_caller(internally("where received a uint8 condition tensor. This behavior is deprecated and will "
                                      "be removed in a future version of PyTorch. Use a boolean condition instead.",
                                      "aten/src/ATen/native/TensorCompare.cpp:621"))
            return
        raise BoolOperatorError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                                f"{dtypes.TORCH_NAMES[condition._dtype.name]}")


def _where_fill(condition, input, other, dt) -> np.ndarray | None:
    """where(cond, number, t) or where(cond, t, number), t a C-contiguous tensor of the result dtype and cond
    a bool tensor of t's shape or of t's shape with a last dim of 1 (attention's masked rows): a copy of t
    with the number written where it is picked, 3x faster than np.where's broadcasting loop; else None."""
    if isinstance(other, Tensor) and type(input) in (int, float):
        t, value, pick = other, input, True
    elif isinstance(input, Tensor) and type(other) in (int, float):
        t, value, pick = input, other, False
    else:
        return None
    if t._dtype is not dt or not isinstance(condition, Tensor) or condition._dtype is not dtypes.bool:
        return None
    x, c = t._np(), condition._np()
    if x.size == 0 or not x.flags.c_contiguous or not c.flags.c_contiguous:
        return None
    if t._dtype in _HALF_FLOATS and type(value) is float:
        with np.errstate(over="ignore"):  # beyond the range: inf, PyTorch's unchecked conversion, without a warning
            value = np.array(value, t._dtype.np)
    if c.shape == x.shape:
        r = x.copy()
        np.copyto(r, value, where=c if pick else ~c)
        return r
    if c.shape == x.shape[:-1] + (1,):
        r = x.copy()
        rows = c.reshape(-1)
        r.reshape(-1, x.shape[-1])[rows if pick else ~rows] = value
        return r
    return None


@where.register("cpu")
def _where_cpu(condition, input, other, *, out=None):
    dt = dtypes.result_type(input, other)
    if dt.name in _C_INT_NAMES:  # a Python int wraps into an unsigned result (uint8's -1 is 255), as PyTorch's
        input, other = (scalar_as(dt, v) if type(v) is int else v for v in (input, other))
    if out is None and (r := _where_fill(condition, input, other, dt)) is not None:
        return wrap(r)
    try:
        r = np.where(arr(condition), arr(input), arr(other)).astype(dt.np, copy=False)
    except ValueError:
        raise shape_error("where", condition, input, other) from None
    operands = (condition, input, other)
    return write_out(out, r, "where", layout_of(operands)) if out is not None else laid_out(wrap(r, True), r, operands)


def _check_read_write_out(out, operands, strict: bool = False) -> None:
    """PyTorch's refusal to resize an `out` that is also an operand (`x.clamp_(t)`, `x.lerp_(t, w)`): an in-place
    result keeps its shape, so the operands must broadcast to it (operands that do not broadcast at all are left
    to the op's own error, or raise numpy's ValueError when `strict`)."""
    if not isinstance(out, Tensor) or not any(out is t for t in operands):
        return
    try:
        full = np.broadcast_shapes(*(t._shape for t in operands if isinstance(t, Tensor)))
    except ValueError:
        if strict:
            raise
        return
    if tuple(full) != out._shape:
        raise RuntimeError(f"output with shape {list(out._shape)} doesn't match the broadcast shape {list(full)}")


clamp = declare("clamp", np.clip, argnames=("input", "min", "max"))


@clamp.meta
def _clamp_meta(input, min=None, max=None, *, out=None) -> None:
    """At least one bound, on every device. With `out` (not the in-place form, `out=input`, which casts as
    usual) and number bounds, PyTorch's `clamp.out` takes exactly the result dtype: `clamp(int64_t, 1.5, 4,
    out=int64_t)` raises "Found dtype Long but expected Float" (tensor bounds cast as other ops' `out`).
    Tensor bounds must broadcast with the input (a RuntimeError naming the sizes, not numpy's ValueError)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):  # tensor bounds broadcast with the input first
        bounded = [v for v in (input, min, max) if isinstance(v, Tensor)]
        try:
            np.broadcast_shapes(*(v._shape for v in bounded))
        except ValueError:
            raise shape_error("clamp", *bounded) from None
    if isinstance(input, Tensor) and (name := input._dtype.name) in _C_INT_NAMES:
        info = np.iinfo(name)  # an int bound converts to an integer input's dtype, checked (uint8: -1 raises)
        for v in (min, max):
            if type(v) is int and not int(info.min) <= v <= int(info.max):
                raise RuntimeError(f"value cannot be converted to type {_C_INT_NAMES[name]} without overflow")
    if out is None:
        return
    _check_read_write_out(out, (input, min, max))
    if out is input and isinstance(input, Tensor) and not isinstance(min, Tensor) and not isinstance(max, Tensor):
        dt = dtypes.result_type(*(v for v in (input, min, max) if v is not None))
        if not dtypes.can_cast(dt, input._dtype):  # clamp_ with number bounds names the C++ type
            raise RuntimeError(f"result type {dtypes.TORCH_NAMES[dt.name]} can't be cast to the desired output type "
                               f"{_CPP_TYPE_NAMES.get(input._dtype.name, dtypes.TORCH_NAMES[input._dtype.name])}")
    if (isinstance(out, Tensor) and out is not input and isinstance(input, Tensor)
            and not isinstance(min, Tensor) and not isinstance(max, Tensor)):
        dt = dtypes.result_type(*(v for v in (input, min, max) if v is not None))
        if out._dtype is not dt:
            raise RuntimeError(f"Found dtype {dtypes.TORCH_NAMES[out._dtype.name]} but expected "
                               f"{dtypes.TORCH_NAMES[dt.name]}")


_NUMBER_OR_NONE = frozenset({int, float, type(None)})


@clamp.register("cpu")
def _clamp_cpu(input, min=None, max=None, *, out=None):
    if (min.__class__ in _NUMBER_OR_NONE and max.__class__ in _NUMBER_OR_NONE and isinstance(input, Tensor)
            and input._dtype.is_floating_point):  # a float tensor and number bounds: its dtype, no NaN to track
        x = input._np()
        if (r := numba_cpu.clamp(x, min, max)) is not None:
            return _clamp_result(x, r, (input, min, max), out)
        r = x
        for bound, past in ((min, np.less), (max, np.greater)):
            if bound is not None:
                b = x.dtype.type(bound)
                r = np.full_like(r, b) if bound != bound else np.where(past(r, b), b, r)
        return _clamp_result(x, r, (input, min, max), out)
    dt = dtypes.result_type(*(v for v in (input, min, max) if v is not None))
    x = arr(input).astype(dt.np, copy=False)
    r = x
    if not dt.is_floating_point:  # bounds cast to the result type as C casts (a 0-dim int64 bound of uint8 wraps)
        if min is not None:
            r = np.maximum(r, np.asarray(arr(min)).astype(dt.np, copy=False))
        if max is not None:
            r = np.minimum(r, np.asarray(arr(max)).astype(dt.np, copy=False))
    else:  # PyTorch's `x < lo ? lo : x` then `x > hi ? hi : x`, a NaN bound taken: -0.0 and NaN payloads pass
        nan = None
        for bound, past in ((min, np.less), (max, np.greater)):
            if bound is not None:
                b = np.asarray(arr(bound), dtype=dt.np)
                r = np.where(past(r, b) | np.isnan(b), b, r)
                if isinstance(bound, Tensor):  # clamp.Tensor: maximum/minimum's rule, a NaN anywhere canonical
                    nan = (np.isnan(x) if nan is None else nan) | np.isnan(b)
        if nan is not None and nan.any():
            np.copyto(r, np.array(np.nan, dtype=dt.np), where=nan)
    return _clamp_result(x, r, (input, min, max), out)


def _clamp_result(x: np.ndarray, r: np.ndarray, operands: tuple, out):
    if r is x:
        r = x.copy()
    if out is not None:
        return write_out(out, r, "clamp", layout_of(operands, False))
    return laid_out(wrap(r, True), r, operands, False)


lerp = declare("lerp", lambda a, b, w: a + w * (b - a), argnames=("input", "end", "weight"))


@lerp.meta
def _lerp_meta(input, end, weight, *, out=None) -> None:
    """PyTorch's order: `end` and a tensor `weight` (not 0-dim) of input's dtype, a floating input,
    shapes that broadcast (numpy would raise its own ValueError)."""
    from ember.core.ops.linalg import _c_name

    if not isinstance(input, Tensor):
        return
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._dtype is not input._dtype and (name == "end" or t._shape):
            raise RuntimeError(f"expected dtype {_c_name(input)} for `{name}` but got dtype {_c_name(t)}")
    dt = input._dtype
    if not (dt.is_floating_point or dt.is_complex):
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")
    tensors = [t for t in (input, end, weight) if isinstance(t, Tensor)]
    try:
        np.broadcast_shapes(*(t._shape for t in tensors))
    except ValueError:
        raise shape_error("lerp", *tensors) from None
    _check_read_write_out(out, tensors)


@lerp.register("cpu")
def _lerp_cpu(input, end, weight, *, out=None):
    dt = dtypes.result_type(input, end)
    x, y, w = arr(input), arr(end), arr(weight)
    # PyTorch's lerp: from the nearer end (`weight` under 0.5 in magnitude: self + w (end - self), else end -
    # (end - self) (1 - w)), in float32 for a 16-bit dtype and rounded once
    op = np.dtype(np.float32) if dt.np.itemsize == 2 and dt.is_floating_point else dt.np
    x, y = (np.asarray(v).astype(op, copy=False) if np.asarray(v).dtype.itemsize == 2 else v for v in (x, y))
    w = np.asarray(w).astype(op, copy=False) if not np.iscomplexobj(w) or op.kind == "c" else w  # a scalar in op
    diff = np.subtract(y, x, dtype=op)
    small = np.abs(w) < 0.5
    # float32 with one rounding after the multiply-add, as PyTorch's fused (fma) vector kernel: the float64
    # product of two float32 values is exact
    fma = np.float64 if op == np.float32 else op
    with np.errstate(invalid="ignore", over="ignore"):  # the side not taken may be nan (lerp(-inf, 1, 0.75))
        r = np.where(small, np.add(x, np.multiply(w, diff, dtype=fma), dtype=fma),
                     np.subtract(y, np.multiply(diff, np.subtract(1, w, dtype=op), dtype=fma), dtype=fma))
    r = r.astype(op).astype(dt.np)
    operands = (input, end, weight)
    if out is not None:
        return write_out(out, r, "lerp", layout_of(operands, False))
    return laid_out(wrap(r, True), r, operands, False)


# every op of the tables, declared into this module's namespace above
__all__ = [*(_row.name for _row in UNARY + BINARY), "where", "clamp", "lerp"]
