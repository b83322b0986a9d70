"""The scalar functions of eager's and ember.jit's fused float32/float64 transcendental ops, written once.

NOTE [ Eager and fused transcendentals share one implementation ]
A fused kernel of ember.jit inlines a scalar function per op into its loop; eager's CPU kernels of the
same ops (`ember.core.ops.unary_kernels`) loop over the very same functions, so a fused group and the
eager ops it replaces give the same bits (numpy's own loops differ from these by an ulp, and a training
run grows that ulp: 2.9e-2 relative in the LSTM benchmark's loss after 100 steps). `SCALAR` maps an
op to its (float32, float64) function: the vectorizable forms below for float32 (`exp32` from
`ember.core.ops.vector_exp`), libm through `math.*` otherwise, the formula an op is written as
(`sigmoid` is 1 / (1 + exp(-x)) in its dtype) the same in both; `GENERIC` is one function per op
that Numba compiles as either. `log_sigmoid32`/`log_sigmoid64` (min(x, 0) - log1p(exp(-|x|)), through `LOG_SIGMOID`)
and `sigmoid` of -x (its backward) serve `log_sigmoid` the same way (`ember.core.ops.numba_nn`'s loops, ember.jit's
fused groups). Numba's disk cache keys a kernel on its own file only: ember.jit names
its kernels by a hash of this file and of vector_exp.py, but a change here needs the cache of
`unary_kernels`' loops cleared (or unary_kernels.py touched).

NOTE [ Vectorized exp in fused kernels ]
This Numba has no SVML, so `math.exp` in a fused loop is a libm call per value, slower than numpy's
own loops; hence `config.fuse_libm_max`. For float32 groups, `exp` (and `sigmoid`, `silu`, `tanh`
written from it), `sin`, `cos`, `log`, `log2`, `log10` and `log1p` use these branch-free forms
instead, inlined into the loop so it vectorizes: no branch but selects, no call (polynomials through
`llvm.fmuladd`, one FMA where the CPU has it). `exp32` is Cephes' expf (range reduction to [-ln2/2,
ln2/2], a degree-6 polynomial, 2^n built from exponent bits; NOTE [ Vectorized exp32 ] in
`ember.core.ops.vector_exp`, shared with core's softmax row passes and LSTM kernels) and `tanh32`
Cephes' tanhf (an odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) above). `log32` computes in
float64 (every float32, denormals too, is a normal float64): x = m 2^e with m in [sqrt(1/2),
sqrt(2)), log m = 2 atanh((m - 1) / (m + 1)) by its series to the 11th power, rounded once to
float32; `log2_32`, `log10_32` and `log1p32` (1 + x, exact in float64 where it matters) are the same
float64 log, scaled. exp, tanh and the logs are within 1 ulp of the correctly rounded value, sin and
cos within 2 (numpy's are within 1 to 3; tests/test_vector_math.py), and eager's float32 ops use them
too. Overflow gives inf, NaN passes, a log gives -inf at 0 and NaN below 0.

NOTE [ Vectorized float64 exp and tanh ]
libm's scalar `tanh` in a loop ran at 0.65x numpy's SIMD loop on 64x1024; these float64 forms are branch-free
like the float32 ones. `exp64` reduces x = n ln2 + r, |r| <= ln2/2, Cody-Waite with ln2 in two parts (the
first of 32 bits, so n ln2_hi and x - n ln2_hi are exact), and recovers what r = hi - lo rounded away
(Fast2Sum) into the polynomial's tail; exp(r) - 1 is its Taylor series to r^13 (truncation below 4e-18,
Estrin's scheme through `llvm.fmuladd`), rounded once; 2^n is two normal powers of two, 2^h 2^(n - h), built
from exponent bits without a float -> int64 conversion (AVX2 has none for vectors), so results down through
the denormals round once. Within 1 ulp (0.82 measured against a longdouble reference), inf past
709.78, 0 below -745.13. `tanh64` is (e^2a - 1) / (e^2a + 1), a = |x|, from exp64's parts (e^2a = 2^n (1 + p)):
numerator and denominator are each a sum of two floats whose rounding Knuth's TwoSum recovers, and one
correction step divides the exact ones, so the cancellation at small a costs nothing; within 2 ulp (1.54
measured, where p's own rounding meets a small tanh), a itself below 2^-28, 1 from about 19.1 on, the sign
copied (tanh(-0.0) = -0.0). `sigmoid64` and `silu64` are their formulas through `exp64`.

NOTE [ Vectorized sin and cos in fused kernels ]
`sin32` and `cos32` reduce x to r = x - q pi/2, |r| <= pi/4, in float64 (Cody-Waite: pi/2 as three
constants, the first two of 24 bits, so q C1 and q C2 are exact and r is good to float64's last bit
for |x| < 2^29), round r to float32 and evaluate sin r and cos r there (degree-2 polynomials in r^2
fitted to the relative error), choosing by q mod 4 with selects. Within 2 ulp of the correctly
rounded value for |x| < 2^29 (5.4e8). Past it, q C1 rounds: the absolute error grows as |x| 2^-53
(1e-7 at 1e9, 1e-4 at 1e12) and past 2^52 the result means nothing, though it stays in [-1, 1];
PyTorch's SLEEF forms reduce exactly at any size. Float32 arguments that large are 64 or more apart,
more than ten periods, so a model that feeds them to sin has lost its phase already; these forms
trade them for a loop without a per-value branch (one Payne-Hanek table lookup per value, which
would make them exact, doubled the loop's time). Eager's loops recompute those values exactly (NOTE [ float32 sin
and cos past 2^29 ] in `unary_kernels`); fused kernels do not.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from ember.core.ops.vector_exp import exp32, fmuladd

__all__ = ["SCALAR", "GENERIC", "exp32", "tanh32", "sin32", "cos32", "log32", "log2_32", "log10_32", "log1p32",
           "sigmoid32", "silu32", "exp64", "tanh64", "sigmoid64", "silu64", "log_sigmoid32", "log_sigmoid64",
           "LOG_SIGMOID", "LOG_SIGMOID_BACKWARD"]


@intrinsic
def _as_float64(typingctx, bits):
    """The float64 whose bits are the int64 `bits`."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _bits64(typingctx, x):
    """The int64 bits of the float64 `x`."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def tanh32(x):
    """tanh of a float32, branch-free: an odd polynomial below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1) above."""
    a = abs(x)
    z = a * a
    small = fmuladd(z, np.float32(-5.70498872745e-3), np.float32(2.06390887954e-2))
    small = fmuladd(small, z, np.float32(-5.37397155531e-2))
    small = fmuladd(small, z, np.float32(1.33314422036e-1))
    small = fmuladd(small, z, np.float32(-3.33332819422e-1))
    small = fmuladd(small * z, a, a)
    big = np.float32(1.0) - np.float32(2.0) / (exp32(np.float32(2.0) * a) + np.float32(1.0))
    r = big if a > np.float32(0.625) else small
    return math.copysign(r, x)  # tanh(-0.0) is -0.0



@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def _exp64_parts(x):
    """(p, s1, s2) with exp(x) = (1 + p) s1 s2 for a float64 `x` clamped to [-746, 710], branch-free: x = n ln2 + r,
    |r| <= ln2/2 (Cody-Waite, ln2 in two parts, the first of 32 bits so n ln2_hi is exact), p = exp(r) - 1 by its
    Taylor series to r^13 (error below 4e-18), and 2^n = s1 s2 as two normal powers of two built from exponent bits
    (NOTE [ Vectorized float64 exp and tanh ])."""
    c = min(max(x, np.float64(-746.0)), np.float64(710.0))
    n = np.floor(fmuladd(c, np.float64(1.4426950408889634), np.float64(0.5)))
    hi = fmuladd(n, np.float64(-6.93147180369123816490e-01), c)  # exact: n ln2_hi has at most 43 bits
    lo = n * np.float64(1.90821492927058770002e-10)
    r = hi - lo
    rc = (hi - r) - lo  # what r's rounding lost (Fast2Sum), added back below: exp(r + rc) ~ exp(r) + rc (1 + r)
    # r + r^2 (1/2! + r/3! + ... + r^11/13!), the tail by Estrin's scheme (pairs in r, then in r^2 and r^4): 4 FMAs deep
    r2 = r * r
    r4 = r2 * r2
    q0 = fmuladd(r, np.float64(1.0 / 6.0), np.float64(0.5))
    q1 = fmuladd(r, np.float64(1.0 / 120.0), np.float64(1.0 / 24.0))
    q2 = fmuladd(r, np.float64(1.0 / 5040.0), np.float64(1.0 / 720.0))
    q3 = fmuladd(r, np.float64(1.0 / 362880.0), np.float64(1.0 / 40320.0))
    q4 = fmuladd(r, np.float64(1.0 / 39916800.0), np.float64(1.0 / 3628800.0))
    q5 = fmuladd(r, np.float64(1.0 / 6227020800.0), np.float64(1.0 / 479001600.0))
    t = fmuladd(r4, fmuladd(r2, q5, q4), fmuladd(r2, q3, q2))
    t = fmuladd(r4, t, fmuladd(r2, q1, q0))
    p = r + fmuladd(r2, t, fmuladd(rc, r, rc))  # rc (1 + r) joins the tail: p is rounded once
    # 2^h and 2^(n - h), h = floor(n / 2), from exponent bits: 2^52 + 1023 + k holds 1023 + k in its low bits
    # (no float -> int64 conversion, which AVX2 lacks for vectors)
    h = np.floor(n * np.float64(0.5))
    s1 = _as_float64(_bits64(h + np.float64(4503599627371519.0)) << np.int64(52))
    s2 = _as_float64(_bits64(n - h + np.float64(4503599627371519.0)) << np.int64(52))
    return p, s1, s2


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def exp64(x):
    """exp of a float64, branch-free (within 1 ulp; overflow to inf, underflow through the denormals to 0)."""
    p, s1, s2 = _exp64_parts(x)
    e = (np.float64(1.0) + p) * s1 * s2
    return x if x != x else e


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def tanh64(x):
    """tanh of a float64, branch-free: (exp(2|x|) - 1) / (exp(2|x|) + 1) from exp64's parts, numerator and
    denominator carried with their rounding errors, |x| itself below 2^-28, 1 from 19.1 on (within 2 ulp)."""
    a = abs(x)
    p, s1, s2 = _exp64_parts(min(np.float64(2.0) * a, np.float64(40.0)))
    s = s1 * s2  # 2^n exactly, n <= 58
    sp = s * p  # exact
    # exp(2|x|) -/+ 1 = sp + (s -/+ 1), each a sum of two floats whose rounding error Knuth's TwoSum recovers: at
    # small |x| the numerator cancels, and its rounding alone would cost up to 0.8 ulp of tanh
    n1 = s - np.float64(1.0)
    num = sp + n1
    v = num - sp
    num_err = (sp - (num - v)) + (n1 - v) + ((s - n1) - np.float64(1.0))  # the last: s - 1 rounds from n = 54
    d1 = s + np.float64(1.0)
    den = sp + d1
    v = den - sp
    den_err = (sp - (den - v)) + (d1 - v) + (np.float64(1.0) - (d1 - s))
    q = num / den
    r = q + (fmuladd(-q, den, num) + num_err - q * den_err) / den  # one Newton step on the exact quotient
    r = a if a < np.float64(2.0 ** -28) else r  # tanh x rounds to x there (denormals too)
    r = math.copysign(r, x)  # tanh(-0.0) is -0.0, tanh(-inf) is -1
    return x if x != x else r


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def _reduce(x):
    """(r, q) in float32: x = (q + r) pi/2 with |r| <= pi/4 and q taken mod 4, reduced in float64 (Cody-Waite,
    three parts; NOTE [ Vectorized sin and cos in fused kernels ]). r is clamped to [-1, 1], so that past 2^52,
    where the reduction means nothing, the result stays within [-1, 1]."""
    d = np.float64(x)
    q = np.floor(fmuladd(d, np.float64(0.6366197723675814), np.float64(0.5)))
    r = fmuladd(q, np.float64(-1.570796251296997), d)
    r = fmuladd(q, np.float64(-7.549789415861596e-08), r)
    r = fmuladd(q, np.float64(-5.390302858158119e-15), r)
    q = q - np.float64(4.0) * np.floor(q * np.float64(0.25))  # kept a float: AVX2 has no vector f64 -> i64
    return np.float32(min(max(r, np.float64(-1.0)), np.float64(1.0))), np.float32(q)


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def _sin_cos_poly(r):
    """(sin r, cos r) for |r| <= pi/4 in float32: r + r z P(z) and 1 - z/2 + z^2 Q(z), z = r^2, with P and Q of
    degree 2 fitted to the relative error (Lawson's iteration; 1.3e-8 and 7e-10 with these float32 constants)."""
    z = r * r
    s = fmuladd(z, np.float32(-1.9513188453856856e-04), np.float32(8.332150988280773e-03))
    s = fmuladd(s, z, np.float32(-1.6666655242443085e-01))
    s = fmuladd(s * z, r, r)
    c = fmuladd(z * z, fmuladd(z, np.float32(2.4426986783510074e-05), np.float32(-1.3887266395613551e-03)),
             fmuladd(z, np.float32(4.166664555668831e-02), np.float32(-0.5)))  # Estrin: 3 FMAs deep, not 4
    c = fmuladd(c, z, np.float32(1.0))
    return s, c


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def sin32(x):
    """sin of a float32, branch-free (within 2 ulp for |x| < 2^29)."""
    r, q = _reduce(x)
    s, c = _sin_cos_poly(r)
    v = c if q == np.float32(1.0) or q == np.float32(3.0) else s
    v = -v if q >= np.float32(2.0) else v
    v = x if abs(x) < np.float32(2.0 ** -12) else v  # sin x rounds to x there; keeps sin(-0.0) = -0.0
    return v if abs(x) < np.float32(np.inf) else x - x  # nan for nan and +-inf


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def cos32(x):
    """cos of a float32, branch-free (within 2 ulp for |x| < 2^29)."""
    r, q = _reduce(x)
    s, c = _sin_cos_poly(r)
    v = s if q == np.float32(1.0) or q == np.float32(3.0) else c
    v = -v if q == np.float32(1.0) or q == np.float32(2.0) else v
    return v if abs(x) < np.float32(np.inf) else x - x


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def _log64(d):
    """log of a positive finite float64, branch-free, to about 1e-10 relative (enough to round to float32 once):
    d = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, to s^11."""
    b = _bits64(d)
    # the exponent field as a float: OR-ed into 2^52's mantissa, less 2^52 + 1023 (AVX2 has no vector i64 -> f64)
    e = _as_float64((b >> np.int64(52)) | np.int64(0x4330000000000000)) - np.float64(4503599627371519.0)
    m = _as_float64((b & np.int64(0xFFFFFFFFFFFFF)) | np.int64(0x3FF0000000000000))
    big = m > np.float64(1.4142135623730951)
    m = m * np.float64(0.5) if big else m
    e = e + np.float64(1.0) if big else e
    s = (m - np.float64(1.0)) / (m + np.float64(1.0))
    z = s * s
    p = fmuladd(z, np.float64(2.0 / 11.0), np.float64(2.0 / 9.0))
    p = fmuladd(p, z, np.float64(2.0 / 7.0))
    p = fmuladd(p, z, np.float64(2.0 / 5.0))
    p = fmuladd(p, z, np.float64(2.0 / 3.0))
    p = fmuladd(p * z, s, np.float64(2.0) * s)
    return fmuladd(e, np.float64(0.6931471805599453), p)


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def _log_specials(v, a):
    """`v`, a log computed for the positive finite float64 `a`, where `a` is one: -inf at 0, inf at inf, else nan."""
    v = np.float32(-np.inf) if a == np.float64(0.0) else v
    v = np.float32(np.inf) if a == np.float64(np.inf) else v
    return v if a >= np.float64(0.0) else np.float32(np.nan)  # nan below 0 and for nan


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def log32(x):
    """log of a float32, branch-free, in float64 (every float32 is a normal float64) and rounded once."""
    d = np.float64(x)
    return _log_specials(np.float32(_log64(d)), d)


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def log2_32(x):
    """log2 of a float32: log in float64 times 1/ln 2, rounded once (powers of two give their exponent exactly)."""
    d = np.float64(x)
    return _log_specials(np.float32(_log64(d) * np.float64(1.4426950408889634)), d)


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def log10_32(x):
    """log10 of a float32: log in float64 times 1/ln 10, rounded once."""
    d = np.float64(x)
    return _log_specials(np.float32(_log64(d) * np.float64(0.4342944819032518)), d)


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def log1p32(x):
    """log(1 + x) of a float32: 1 + x is exact in float64 for |x| >= 2^-29, and below 2^-24 log1p(x) rounds to x."""
    a = np.float64(1.0) + np.float64(x)
    v = _log_specials(np.float32(_log64(a)), a)
    return x if abs(x) < np.float32(2.0 ** -24) else v  # keeps log1p(-0.0) = -0.0


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def sigmoid32(x):
    """1 / (1 + exp(-x)) of a float32, in float32 (eager's and the fused formula)."""
    return np.float32(1.0) / (np.float32(1.0) + exp32(-x))


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def silu32(x):
    """x sigmoid(x) of a float32, the sigmoid rounded first (eager's and the fused formula)."""
    return x * (np.float32(1.0) / (np.float32(1.0) + exp32(-x)))


# libm, one function for both dtypes (Numba calls expf for a float32, exp for a float64); the fused
# kernels write the same `math.*` calls (ember.jit.codegen.EXPR)
def _libm(fn):
    return numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")(fn)


@_libm
def _expm1(x):
    return math.expm1(x)


@_libm
def _log(x):
    return math.log(x)


@_libm
def _log1p(x):
    return math.log1p(x)


@_libm
def _log2(x):
    return math.log2(x)


@_libm
def _log10(x):
    return math.log10(x)


@_libm
def _sin(x):
    return math.sin(x)


@_libm
def _cos(x):
    return math.cos(x)


@_libm
def _tan(x):
    return math.tan(x)


@_libm
def _asin(x):
    return math.asin(x)


@_libm
def _acos(x):
    return math.acos(x)


@_libm
def _atan(x):
    return math.atan(x)


@_libm
def _sinh(x):
    return math.sinh(x)


@_libm
def _cosh(x):
    return math.cosh(x)


@_libm
def _asinh(x):
    return math.asinh(x)


@_libm
def _acosh(x):
    return math.acosh(x)


@_libm
def _atanh(x):
    return math.atanh(x)


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def sigmoid64(x):
    """1 / (1 + exp(-x)) of a float64 through `exp64` (eager's and the fused formula)."""
    return np.float64(1.0) / (np.float64(1.0) + exp64(-x))


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def silu64(x):
    """x sigmoid(x) of a float64, the sigmoid rounded first (eager's and the fused formula)."""
    return x * (np.float64(1.0) / (np.float64(1.0) + exp64(-x)))


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def log_sigmoid32(x):
    """log(sigmoid(x)) of a float32 as min(x, 0) - log1p(exp(-|x|)) (eager's and the fused formula)."""
    return (x if x < np.float32(0.0) else np.float32(0.0)) - log1p32(exp32(-abs(x)))


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def log_sigmoid64(x):
    """log(sigmoid(x)) of a float64 as min(x, 0) - log1p(exp(-|x|)), `exp64` and libm's log1p."""
    return (x if x < np.float64(0.0) else np.float64(0.0)) - math.log1p(exp64(-abs(x)))


# op name -> (float32 function, float64 function)
SCALAR = {
    "exp": (exp32, exp64), "tanh": (tanh32, tanh64), "sigmoid": (sigmoid32, sigmoid64), "silu": (silu32, silu64),
    "sin": (sin32, _sin), "cos": (cos32, _cos), "log": (log32, _log), "log2": (log2_32, _log2),
    "log10": (log10_32, _log10), "log1p": (log1p32, _log1p),
    "expm1": (_expm1, _expm1), "tan": (_tan, _tan), "asin": (_asin, _asin), "acos": (_acos, _acos),
    "atan": (_atan, _atan), "sinh": (_sinh, _sinh), "cosh": (_cosh, _cosh), "asinh": (_asinh, _asinh),
    "acosh": (_acosh, _acosh), "atanh": (_atanh, _atanh),
}


def _generic(name: str, f32, f64):
    """A plain function `generic_<name>(x)` that Numba compiles as `f32` for a float32 and `f64` for a float64 (an
    overload). A module global, so a kernel closing over it pickles it by reference: Numba's disk cache keys a
    closure on its cells' pickles, and a dispatcher's carries a fresh uuid in each process (a miss every time).

    Not `inline="always"`: Numba would inline the function's IR (with the exp32 it inlines) into each kernel and
    type it there again; as a call LLVM inlines it and vectorizes the loop the same, with the same bits, and a
    cold unary loop compiles in 0.2-0.3 s instead of 0.55-0.7 (each of exp, tanh, sigmoid, silu, sin, cos, log,
    log1p in float32 and float64)."""
    def generic(x):
        raise TypeError(f"generic_{name} runs compiled only")

    @overload(generic)
    def _typed(x):
        f = f32 if x == types.float32 else f64
        return lambda x: f(x)

    generic.__name__ = generic.__qualname__ = f"generic_{name}"
    globals()[generic.__name__] = generic
    return generic


# op name -> its function for either dtype
GENERIC = {name: _generic(name, f32, f64) for name, (f32, f64) in SCALAR.items()}
def generic_log_sigmoid(x):
    """log_sigmoid (an activation of ember.core.ops.activation, not an op of unary_kernels) for either dtype."""
    raise TypeError("generic_log_sigmoid runs compiled only")


@overload(generic_log_sigmoid)  # not inlined here as well as in log_sigmoid32: both doubled a cold compile (2.2 s)
def _log_sigmoid_typed(x):
    f = log_sigmoid32 if x == types.float32 else log_sigmoid64
    return lambda x: f(x)


def generic_log_sigmoid_backward(g, x):
    """log_sigmoid's backward g * sigmoid(-x) for either dtype (`sigmoid32`/`sigmoid64`, the fused formula)."""
    raise TypeError("generic_log_sigmoid_backward runs compiled only")


@overload(generic_log_sigmoid_backward)
def _log_sigmoid_backward_typed(g, x):
    f = sigmoid32 if x == types.float32 else sigmoid64
    return lambda g, x: g * f(-x)


LOG_SIGMOID, LOG_SIGMOID_BACKWARD = generic_log_sigmoid, generic_log_sigmoid_backward
