"""Elementwise CUDA kernels: one scalar device function per op and one kernel template.

The template maps each thread's linear index (a grid-stride loop) to the element offsets of
the output and of every tensor operand through the shape and per-operand strides in `meta`
(row 0: shape, row 1: output strides, then one row per tensor operand; broadcast dims have
stride 0). A dense variant, used when every operand is contiguous in the output's shape, skips
the index arithmetic. Operands are cast to the compute type before the scalar function runs,
so kernels compute in PyTorch's result dtype; the store casts to the output's dtype.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

from ember.core.ops import scalar_math
from ember.core.ops.scalar_math import erfinv as _erfinv_py

__all__ = ["UNARY", "BINARY", "OTHER", "device_fn", "source", "kernel_function", "kernel"]

# --- unary scalar functions ---------------------------------------------------------------
# Layout assumption for every function below: x (and y) already hold the compute type.


def _neg(x):
    return -x


def _abs(x):
    return -x if x < 0 else x


def _sign(x):
    if x > 0:
        return 1
    if x < 0:
        return -1
    return x if x == x else 0  # 0 keeps its sign; NaN gives 0, as PyTorch's (0 < x) - (x < 0)


def _square(x):
    return x * x


@cuda.jit(device=True)
def _ffloor(x):
    # math.floor returns an integer in Numba; this keeps the float type, inf and nan
    return x if x != x or x == math.inf or x == -math.inf else x - x % 1.0


@cuda.jit(device=True)
def _ftrunc(x):
    return x if x != x or x == math.inf or x == -math.inf else x - math.fmod(x, 1.0)


def _floor(x):
    return _ffloor(x)


def _ceil(x):
    return -_ffloor(-x)


def _trunc(x):
    return _ftrunc(x)


def _same(x):
    return x


def _round(x):
    # half to even, like numpy's rint and PyTorch's round
    f = _ffloor(x)
    d = x - f
    if d > 0.5 or (d == 0.5 and f % 2.0 != 0.0):
        return f + 1.0
    return f


def _frac(x):
    return x - _ftrunc(x)


def _relu(x):
    return 0 if x < 0 else x


def _exp(x):
    return math.exp(x)


def _exp2(x):
    return math.pow(2.0, x)


def _expm1(x):
    return math.expm1(x)


def _log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _log1p(x):
    return math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan)


def _log2(x):
    return math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _log10(x):
    return math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


def _rsqrt(x):
    return 1 / math.sqrt(x) if x >= 0 else math.nan


def _reciprocal(x):
    return 1 / x


def _sin(x):
    return math.sin(x)


def _cos(x):
    return math.cos(x)


def _tan(x):
    return math.tan(x)


def _asin(x):
    return math.asin(x) if -1 <= x <= 1 else math.nan


def _acos(x):
    return math.acos(x) if -1 <= x <= 1 else math.nan


def _atan(x):
    return math.atan(x)


def _sinh(x):
    return math.sinh(x)


def _cosh(x):
    return math.cosh(x)


def _tanh(x):
    return math.tanh(x)


def _asinh(x):
    return math.asinh(x)


def _acosh(x):
    return math.acosh(x) if x >= 1 else math.nan


def _atanh(x):
    return math.atanh(x) if -1 < x < 1 else (math.copysign(math.inf, x) if x == 1 or x == -1 else math.nan)


def _sigmoid(x):
    # exp of a non-positive argument only: no overflow (the simulator's math raises on one)
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def _silu(x):
    return x / (1 + math.exp(-x)) if x >= 0 else x * math.exp(x) / (1 + math.exp(x))


def _erf(x):
    return math.erf(x)


_erfinv_scalar = cuda.jit(device=True)(_erfinv_py)


def _erfinv(y):
    return _erfinv_scalar(y)


def _isnan(x):
    return x != x


def _isinf(x):
    return x == math.inf or x == -math.inf


def _isfinite(x):
    return x == x and x != math.inf and x != -math.inf


def _false(x):
    return False


def _true(x):
    return True


def _logical_not(x):
    return x == 0


def _signbit(x):
    return math.copysign(1.0, x) < 0


def _signbit_int(x):
    return x < 0


# --- binary scalar functions --------------------------------------------------------------
def _add(x, y):
    return x + y


def _sub(x, y):
    return x - y


def _mul(x, y):
    return x * y


def _div(x, y):
    return x / y


def _floor_divide(x, y):
    if y == 0:
        return 0
    return x // y


def _floor_divide_float(x, y):
    # PyTorch's div_floor, as the CPU kernel: from the exact fmod, so inf // 1 is nan and -5 // inf is -1
    if y == 0:
        return x / y
    if x != x or y != y or x - x != 0:
        return math.nan
    mod = math.fmod(x, y)
    div = (x - mod) / y
    if mod != 0 and (y < 0) != (mod < 0):
        div -= 1.0
    if div == 0:
        return math.copysign(0.0, x / y)
    fl = _ffloor(div)
    return fl + 1.0 if div - fl > 0.5 else fl


def _trunc_divide(x, y):
    if y == 0:
        return 0
    q = x // y
    if x % y != 0 and (x < 0) != (y < 0):
        q += 1
    return q


def _trunc_divide_float(x, y):
    return _ftrunc(x / y) if y != 0 else x / y


def _remainder(x, y):
    if y == 0:
        return 0
    return x % y


def _remainder_float(x, y):
    if y == 0:
        return math.nan
    r = math.fmod(x, y)
    return r + y if r != 0 and (r < 0) != (y < 0) else r


def _fmod(x, y):
    if y == 0:
        return 0
    r = x % y
    return r - y if r != 0 and (r < 0) != (x < 0) else r


def _fmod_float(x, y):
    return math.fmod(x, y) if y != 0 else math.nan


def _pow(x, y):
    if y < 0:
        return 0 if x != 1 and x != -1 else (1 if x == 1 or y % 2 == 0 else -1)
    r = 1
    b = x
    e = y
    while e > 0:
        if e & 1:
            r *= b
        b *= b
        e >>= 1
    return r


def _pow_float(x, y):
    return math.pow(x, y)


# PyTorch's rules for floats, the CPU ufuncs' too (ember.core.ops.scalar_math): a NaN operand gives the
# canonical NaN (maximum, minimum) or loses to the number (fmax, fmin; of two NaNs the second, quieted); of
# equal zeros the first operand
_maximum, _minimum, _fmax, _fmin = scalar_math.maximum, scalar_math.minimum, scalar_math.fmax, scalar_math.fmin


def _maximum_int(x, y):
    return y if x < y else x


def _minimum_int(x, y):
    return y if x > y else x


def _atan2(x, y):
    return math.atan2(x, y)


def _hypot(x, y):
    return math.hypot(x, y)


def _copysign(x, y):
    return math.copysign(x, y)


def _xlogy(x, y):
    if y != y:
        return y
    return 0.0 if x == 0 else x * (math.log(y) if y > 0 else (-math.inf if y == 0 else math.nan))


def _eq(x, y):
    return x == y


def _ne(x, y):
    return x != y


def _lt(x, y):
    return x < y


def _le(x, y):
    return x <= y


def _gt(x, y):
    return x > y


def _ge(x, y):
    return x >= y


def _logical_and(x, y):
    return x != 0 and y != 0


def _logical_or(x, y):
    return x != 0 or y != 0


def _logical_xor(x, y):
    return (x != 0) != (y != 0)


def _bitwise_and(x, y):
    return x & y


def _bitwise_or(x, y):
    return x | y


def _bitwise_xor(x, y):
    return x ^ y


# --- ternary and helpers ----------------------------------------------------------------------
def _where(c, x, y):
    return x if c else y


def _clamp(x, lo, hi):
    # PyTorch's order: a bound is taken where x is past it or it is NaN; equal zeros keep x (-0.0 stays)
    r = lo if x < lo or lo != lo else x
    return hi if r > hi or hi != hi else r


def _clamp_min(x, lo):
    return lo if x < lo or lo != lo else x


def _clamp_max(x, hi):
    return hi if x > hi or hi != hi else x


def _clamp_nan(x, lo, hi):
    # clamp.Tensor of floats, as the CPU kernel: maximum/minimum's rule, a NaN operand gives the canonical NaN
    # (written out: a device function cannot call another plain Python function)
    if x != x or lo != lo or hi != hi:
        return math.nan
    r = lo if x < lo else x
    return hi if r > hi else r


def _clamp_min_nan(x, lo):
    if x != x or lo != lo:
        return math.nan
    return lo if x < lo else x


def _clamp_max_nan(x, hi):
    if x != x or hi != hi:
        return math.nan
    return hi if x > hi else x


def _lerp(a, b, w):
    if abs(w) < 0.5:  # PyTorch's two-sided form: lerp(-inf, 1, 0.75) is -inf
        return a + w * (b - a)
    return b - (b - a) * (1 - w)


def _identity(x):
    return x


# (name -> function for floating compute, function for integer compute)
UNARY = {
    "neg": (_neg, _neg), "abs": (_abs, _abs), "sign": (_sign, _sign), "square": (_square, _square),
    "floor": (_floor, _same), "ceil": (_ceil, _same), "trunc": (_trunc, _same), "round": (_round, _same),
    "frac": (_frac, _frac),
    "relu": (_relu, _relu), "exp": (_exp, _exp), "exp2": (_exp2, _exp2), "expm1": (_expm1, _expm1),
    "log": (_log, _log), "log1p": (_log1p, _log1p), "log2": (_log2, _log2), "log10": (_log10, _log10),
    "sqrt": (_sqrt, _sqrt), "rsqrt": (_rsqrt, _rsqrt), "reciprocal": (_reciprocal, _reciprocal),
    "sin": (_sin, _sin), "cos": (_cos, _cos), "tan": (_tan, _tan), "asin": (_asin, _asin),
    "acos": (_acos, _acos), "atan": (_atan, _atan), "sinh": (_sinh, _sinh), "cosh": (_cosh, _cosh),
    "tanh": (_tanh, _tanh), "asinh": (_asinh, _asinh), "acosh": (_acosh, _acosh), "atanh": (_atanh, _atanh),
    "sigmoid": (_sigmoid, _sigmoid), "silu": (_silu, _silu), "erf": (_erf, _erf), "erfinv": (_erfinv, _erfinv),
    "isnan": (_isnan, _false), "isinf": (_isinf, _false), "isfinite": (_isfinite, _true),
    "logical_not": (_logical_not, _logical_not), "signbit": (_signbit, _signbit_int),
}

BINARY = {
    "add": (_add, _add), "sub": (_sub, _sub), "mul": (_mul, _mul), "div": (_div, _div),
    "floor_divide": (_floor_divide_float, _floor_divide), "trunc_divide": (_trunc_divide_float, _trunc_divide),
    "remainder": (_remainder_float, _remainder), "fmod": (_fmod_float, _fmod), "pow": (_pow_float, _pow),
    "maximum": (_maximum, _maximum_int), "minimum": (_minimum, _minimum_int), "fmax": (_fmax, _fmax),
    "fmin": (_fmin, _fmin), "atan2": (_atan2, _atan2), "hypot": (_hypot, _hypot),
    "copysign": (_copysign, _copysign), "xlogy": (_xlogy, _xlogy), "eq": (_eq, _eq), "ne": (_ne, _ne),
    "lt": (_lt, _lt), "le": (_le, _le), "gt": (_gt, _gt), "ge": (_ge, _ge),
    "logical_and": (_logical_and, _logical_and), "logical_or": (_logical_or, _logical_or),
    "logical_xor": (_logical_xor, _logical_xor), "bitwise_and": (_bitwise_and, _bitwise_and),
    "bitwise_or": (_bitwise_or, _bitwise_or), "bitwise_xor": (_bitwise_xor, _bitwise_xor),
}

OTHER = {"where": _where, "clamp": _clamp, "clamp_min": _clamp_min, "clamp_max": _clamp_max, "lerp": _lerp,
         "identity": _identity, "clamp_nan": _clamp_nan, "clamp_min_nan": _clamp_min_nan,
         "clamp_max_nan": _clamp_max_nan}


@cache
def device_fn(fn):
    """The CUDA device function of the scalar function `fn` (made once)."""
    return cuda.jit(device=True)(fn)


_TEMPLATE = """
def kernel(n, meta, out, out_off{params}):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    nd = meta.shape[1]
    while i < n:
{index}
        out[{out_at}] = fn({args})
        i += step
"""


def source(kinds: str, casts: tuple, dense: bool) -> str:
    """The template's source for operands `kinds` ("t" tensor, "s" scalar per operand)."""
    params, args, index = [], [], []
    tensors = [j for j, k in enumerate(kinds) if k == "t"]
    for j, k in enumerate(kinds):
        params.append(f", a{j}, off{j}" if k == "t" else f", a{j}")
        load = (f"a{j}[off{j} + i]" if dense else f"a{j}[p{j}]") if k == "t" else f"a{j}"
        args.append(load if casts[j] is None else f"c{j}({load})")
    if not dense:
        index = ["        rem = i", "        po = out_off"] + [f"        p{j} = off{j}" for j in tensors]
        index += ["        for d in range(nd - 1, -1, -1):", "            size = meta[0, d]",
                  "            idx = rem % size", "            rem //= size", "            po += idx * meta[1, d]"]
        index += [f"            p{j} += idx * meta[{r + 2}, d]" for r, j in enumerate(tensors)]
    return _TEMPLATE.format(params="".join(params), index="\n".join(index) or "        pass",
                            out_at="out_off + i" if dense else "po", args=", ".join(args))


def kernel_function(fn, kinds: str, casts: tuple, dense: bool):
    """The Python function of the kernel for scalar function `fn` (before `cuda.jit`)."""
    namespace = {"cuda": cuda, "fn": device_fn(fn)}
    namespace.update({f"c{j}": c for j, c in enumerate(casts) if c is not None})
    exec(compile(source(kinds, casts, dense), f"<ember elementwise {fn.__name__} {kinds}>", "exec"), namespace)
    return namespace["kernel"]


@cache
def kernel(fn, kinds: str, casts: tuple, dense: bool):
    """The launchable kernel (compiled lazily per argument types by Numba)."""
    return cuda.jit(kernel_function(fn, kinds, casts, dense))
