"""Scalar special functions (`torch.special`), written once as plain Python and compiled per device.

Every function here and in `special_bessel` and `special_poly` takes and returns floats and calls
only `math` and the functions of these modules, so `compiled` can build the whole set for the CPU
(`numba.njit`, behind `numba.vectorize`) and for CUDA (device functions) by rebinding their
globals. This module: the gamma family (digamma by recurrence into its asymptotic series, Hurwitz
zeta by Euler-Maclaurin summation, the incomplete gammas by series and Legendre's continued
fraction), the error functions (erfcx, log_ndtr, ndtri by Newton's method in log space) and the
elementary ones. Edge values (poles, infinities, NaN) are PyTorch's.
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable

__all__ = [
    "lgamma", "digamma", "zeta", "polygamma", "gammainc", "gammaincc", "erfc", "erfcx", "log_ndtr", "ndtri",
    "entr", "sinc", "sinc_of_product", "logit", "xlog1py", "compiled"
]

_INF = math.inf
_NAN = math.nan
_PI = math.pi
_EULER = 0.57721566490153286061
_SQRT1_2 = 0.70710678118654752440
_SQRTPI = 1.77245385090551602730
_SQRT2PI = 2.50662827463100050242
# B_2j / (2j)! for j = 1..12: the Euler-Maclaurin correction coefficients
_EM = (1.0 / 12.0, -1.0 / 720.0, 1.0 / 30240.0, -1.0 / 1209600.0, 1.0 / 47900160.0,
       -691.0 / 1307674368000.0, 1.0 / 74724249600.0, -3617.0 / 10670622842880000.0,
       43867.0 / 5109094217170944000.0, -174611.0 / 802857662698291200000.0,
       77683.0 / 14101100039391805440000.0, -236364091.0 / 1693824136731743669452800000.0)


def _is_int(x):
    """x finite and integral (no math.floor, whose int overflows in Numba)."""
    return x % 1.0 == 0.0


def _isinf(x):
    return x == _INF or x == -_INF


# --- gamma family --------------------------------------------------------------------------
def lgamma(x):
    if x != x:
        return x
    if _isinf(x):
        return _INF
    if x <= 0.0 and _is_int(x):
        return _INF
    return math.lgamma(x)


def _digamma_pos(x):
    """psi(x) for x > 0: shift to x >= 10 by psi(x) = psi(x + 1) - 1/x, then the asymptotic series."""
    r = 0.0
    while x < 10.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 + f * (
        691.0 / 32760 + f * (-1.0 / 12)))))))
    return r + math.log(x) - 0.5 / x + t


def digamma(x):
    if x != x or x == -_INF:
        return _NAN
    if x == _INF:
        return x
    if x == 0.0:
        return math.copysign(_INF, -x)
    if x < 0.0:
        if _is_int(x):
            return _NAN
        # reflection psi(x) = psi(1 - x) - pi / tan(pi x); tan has period 1, so reduce x exactly to
        # [-1/2, 1/2] first (|x| < 2^52 here: larger floats are integers)
        r = x - float(int(x))
        if r < -0.5:
            r += 1.0
        return _digamma_pos(1.0 - x) - _PI / math.tan(_PI * r)
    return _digamma_pos(x)


def zeta(s, q):
    """Hurwitz zeta sum_k (q + k)^-s: direct terms until q + k is large, then Euler-Maclaurin."""
    if s != s or q != q:
        return _NAN
    if s == 1.0:
        return _INF
    if s < 1.0 or _isinf(s) or _isinf(q):
        return _NAN
    if q <= 0.0:
        if _is_int(q):
            return _INF
        if not _is_int(s):
            return _NAN  # a negative base to a fractional power
    # correction terms shrink by about ((s + 2j) / (2 pi a))^2 each: a >= 0.72 (s + 24) makes 12 enough
    a_min = max(9.0, 0.72 * (s + 24.0))
    total = 0.0
    a = q
    while a < a_min:
        t = a ** -s
        total += t
        a += 1.0
        if s > 10.0 and abs(t) <= 1e-17 * abs(total):
            return total  # the tail is below a few t
    total += a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
    fac = s * a ** (-s - 1.0)
    inv2 = 1.0 / (a * a)
    for j in range(12):
        term = _EM[j] * fac
        total += term
        if abs(term) <= 1e-17 * abs(total):
            break
        fac *= (s + 2.0 * j + 1.0) * (s + 2.0 * j + 2.0) * inv2
    return total


def polygamma(n, x):
    if n == 0.0:
        return digamma(x)
    if x == _INF:
        return 0.0 if n == 1.0 else _NAN
    fact = 1.0
    k = 2.0
    while k <= n:
        fact *= k
        k += 1.0
    sign = 1.0 if n % 2.0 == 1.0 else -1.0
    return sign * fact * zeta(n + 1.0, x)


def _gamma_prefix(a, x):
    """x^a e^-x / Gamma(a). For large a, a log x - x - lgamma(a) cancels to a fraction of its terms;
    with Stirling's series for lgamma it is a (log1p(t) - t) + log(a) / 2 - log(2 pi) / 2 - c(a),
    t = (x - a) / a, whose error is a eps t instead of a log(a) eps."""
    if a < 10.0:
        return math.exp(a * math.log(x) - x - math.lgamma(a))
    t = (x - a) / a
    r = 1.0 / (a * a)
    c = (1.0 / 12 + r * (-1.0 / 360 + r * (1.0 / 1260 + r * (-1.0 / 1680 + r * (1.0 / 1188 + r * (
        -691.0 / 360360 + r * (1.0 / 156 + r * -3617.0 / 122400))))))) / a
    lr = math.log1p(t) if abs(t) < 0.5 else math.log(x / a)  # log(x / a): log1p(t) magnifies t's rounding near -1
    return math.exp(a * (lr - t) + 0.5 * math.log(a) - 0.9189385332046728 - c)


def _gammainc_series(a, x):
    """P(a, x) by its power series, for x < a + 1."""
    term = 1.0
    total = 1.0
    n = 1.0
    while n < 1e6:
        term *= x / (a + n)
        total += term
        if term <= 1e-17 * total:
            break
        n += 1.0
    return _gamma_prefix(a, x) / a * total


def _gammaincc_cf(a, x):
    """Q(a, x) by Legendre's continued fraction (modified Lentz), for x >= a + 1."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    i = 1.0
    while i < 1e6:
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
        i += 1.0
    return _gamma_prefix(a, x) * h


def _gammainc_edge(a, x):
    """P(a, x) where an argument is NaN, negative, zero or infinite; -1 where none is."""
    if a != a or x != x or a < 0.0 or x < 0.0:
        return _NAN
    if a == 0.0:
        return _NAN if x == 0.0 else 1.0
    if x == 0.0:
        return 0.0
    if a == _INF:
        return _NAN if x == _INF else 0.0
    if x == _INF:
        return 1.0
    return -1.0


def gammainc(a, x):
    e = _gammainc_edge(a, x)
    if e != -1.0:
        return e
    if x < a + 1.0:
        return _gammainc_series(a, x)
    return 1.0 - _gammaincc_cf(a, x)


def _gammaincc_small_a(a, x):
    """Q(a, x) for a < 1, x < 1.5 without the cancellation of 1 - P: with u = x^a / Gamma(a + 1),
    P = u (1 + a sum_{n>=1} (-x)^n / (n! (a + n))), so Q = -expm1(log u) - u a sum(...)."""
    lu = a * math.log(x) - math.lgamma(a + 1.0)
    term = 1.0
    total = 0.0
    n = 1.0
    while n < 100.0:
        term *= -x / n
        total += term / (a + n)
        if abs(term) < 1e-17 * abs(total):
            break
        n += 1.0
    return -math.expm1(lu) - math.exp(lu) * a * total


def gammaincc(a, x):
    e = _gammainc_edge(a, x)
    if e != -1.0:
        return 1.0 - e
    if a < 1.0 and x < 1.5:
        return _gammaincc_small_a(a, x)
    if x < a + 1.0:
        return 1.0 - _gammainc_series(a, x)
    return _gammaincc_cf(a, x)


# --- error function family -----------------------------------------------------------------
def erfc(x):
    return math.erfc(x)


def _exp_square(x):
    """exp(x * x) without the rounding of x * x: x = hi + lo with hi * hi exact (|x| < 27)."""
    c = x * 134217729.0
    hi = c - (c - x)
    lo = x - hi
    return math.exp(hi * hi) * math.exp((2.0 * hi + lo) * lo)


def _erfcx_pos(x):
    if x < 12.0:
        return _exp_square(x) * math.erfc(x)
    if x == _INF:
        return 0.0
    # asymptotic: 1 / (x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2 x^2)^k
    r = 1.0 / (2.0 * x * x)
    term = 1.0
    total = 1.0
    k = 1.0
    while k < 30.0:
        term *= -(2.0 * k - 1.0) * r
        total += term
        if abs(term) < 1e-17:
            break
        k += 1.0
    return total / (x * _SQRTPI)


def erfcx(x):
    if x != x:
        return x
    if x >= 0.0:
        return _erfcx_pos(x)
    if x < -26.7:
        return _INF
    return 2.0 * _exp_square(x) - _erfcx_pos(-x)


def log_ndtr(x):
    if x != x:
        return x
    if x > 0.0:
        return math.log1p(-0.5 * math.erfc(x * _SQRT1_2))
    if x > -1.0:
        return math.log(0.5 * math.erfc(-x * _SQRT1_2))
    if x == -_INF:
        return x
    z = -x * _SQRT1_2
    return math.log(0.5 * _erfcx_pos(z)) - z * z


def _ndtri_lower(p):
    """The x with ndtr(x) = p, for 0 < p <= 0.5: a rational start (error < 5e-4), then three Newton steps
    on log ndtr(x) = log p, which is concave, so they converge from either side."""
    lp = math.log(p)
    t = math.sqrt(-2.0 * lp)
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(3):
        g = log_ndtr(x)
        x -= (g - lp) * _SQRT2PI * math.exp(0.5 * x * x + g)
    return x


def ndtri(p):
    if p != p or p < 0.0 or p > 1.0:
        return _NAN
    if p == 0.0:
        return -_INF
    if p == 1.0:
        return _INF
    if p == 0.5:
        return 0.0
    if p > 0.5:
        return -_ndtri_lower(1.0 - p)
    return _ndtri_lower(p)


# --- elementary ----------------------------------------------------------------------------
def entr(x):
    if x != x:
        return x
    if x > 0.0:
        return -x * math.log(x) if x != _INF else -_INF
    if x == 0.0:
        return 0.0
    return -_INF


def sinc(x):
    if x == 0.0:
        return 1.0
    if x != x or _isinf(x):
        return _NAN
    y = _PI * x
    return math.sin(y) / y


def sinc_of_product(x, y):
    """sinc(x) from `y`, pi * x as PyTorch rounds it (to float32 below float64: sinc(1.0) is -2.78e-08)."""
    if x == 0.0:
        return 1.0
    if x != x or _isinf(x):
        return _NAN
    return math.sin(y) / y


def logit(x, eps):
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps >= 0 (eps < 0 means None)."""
    if eps >= 0.0:
        lo = eps
        hi = 1.0 - eps
        x = lo if x < lo else (hi if x > hi else x)
    if x != x or x < 0.0 or x > 1.0:
        return _NAN
    if x == 1.0:
        return _INF
    if x == 0.0:
        return -_INF
    return math.log(x / (1.0 - x))


def xlog1py(x, y):
    if y != y:
        return y
    if x == 0.0:
        return 0.0
    if y < -1.0:
        return _NAN
    if y == -1.0:
        return -x * _INF
    return x * math.log1p(y)


def compiled(jit: Callable) -> dict:
    """The scalar functions of this module, `special_bessel` and `special_poly` in one namespace,
    their globals rebound to `jit`-compiled twins: `jit` is `numba.njit(...)` for the CPU or
    `cuda.jit(device=True)` for CUDA. Each name holds the compiled function and `name + "_py"` the
    Python entry point (globals bound to the compiled helpers) that `numba.vectorize` or a CUDA
    kernel wraps."""
    from ember.core.ops import special_bessel, special_poly

    ns: dict = {}
    fns: dict = {}
    for module in (sys.modules[__name__], special_bessel, special_poly):
        for k, v in vars(module).items():
            if not isinstance(v, types.FunctionType):
                ns.setdefault(k, v)
            elif v.__module__ == module.__name__ and k != "compiled":
                fns[k] = v
    for name, fn in fns.items():
        ns[name + "_py"] = types.FunctionType(fn.__code__, ns, name, fn.__defaults__)
        ns[name] = jit(types.FunctionType(fn.__code__, ns, name, fn.__defaults__))
    return ns
