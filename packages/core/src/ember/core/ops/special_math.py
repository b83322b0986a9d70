"""Scalar special functions (`torch.special`), written once as plain Python and compiled per device.

Every function takes and returns floats and calls only `math` and the functions of this module,
so `ember.core.ops.special` can compile the whole module for the CPU (`numba.njit`, behind
`numba.vectorize`) and for CUDA (device functions) by rebinding its globals (`compiled`). The
algorithms: recurrences to shift into an asymptotic series (digamma), Euler-Maclaurin summation
(Hurwitz zeta), power series near the origin and Hankel's expansions far from it (Bessel J/Y/I),
Miller's backward recurrence in between, the trapezoidal rule on K_nu's integral
`int_0^inf exp(-x cosh t) cosh(nu t) dt` (exponentially accurate), Taylor steps of Airy's equation,
Legendre's continued fraction (incomplete gamma) and Newton's method in log space (ndtri). Edge
values (poles, infinities, NaN) are PyTorch's.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable

_INF = math.inf
_NAN = math.nan
_PI = math.pi
_EULER = 0.57721566490153286061
_SQRT1_2 = 0.70710678118654752440
_SQRTPI = 1.77245385090551602730
_SQRT2PI = 2.50662827463100050242
_FRAC_2_PI = 0.63661977236758134308
_AI0 = 0.35502805388781723926  # Ai(0)
_AIP0 = -0.25881940379280679840  # Ai'(0)
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
    """x^a e^-x / Gamma(a)."""
    return math.exp(a * math.log(x) - x - math.lgamma(a))


def _gammainc_series(a, x):
    """P(a, x) by its power series, for x < a + 1."""
    term = 1.0
    total = 1.0
    n = 1.0
    while n < 5000.0:
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
    while i < 5000.0:
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


def ndtr(x):
    return 0.5 * math.erfc(-x * _SQRT1_2)


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
    """The x with ndtr(x) = p, for 0 < p <= 0.5: a rational start (error < 5e-4), then Newton steps
    on log ndtr(x) = log p, which is concave, so they converge from either side."""
    lp = math.log(p)
    t = math.sqrt(-2.0 * lp)
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(4):
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


# --- Bessel functions ------------------------------------------------------------------------
def _bessel_i_scaled(n, x):
    """exp(-x) I_n(x) for x >= 0, n in {0, 1}: the power series up to 30, Hankel's expansion beyond."""
    if x <= 30.0:
        t = 0.25 * x * x
        term = 1.0 if n == 0 else 0.5 * x
        total = term
        k = 1.0
        while k < 500.0:
            term *= t / (k * (k + n))
            total += term
            if term <= 1e-17 * total:
                break
            k += 1.0
        return total * math.exp(-x)
    mu = 4.0 * n * n
    term = 1.0
    total = 1.0
    k = 1.0
    while k < 60.0:
        term *= -(mu - (2.0 * k - 1.0) ** 2) / (8.0 * k * x)
        total += term
        if abs(term) <= 1e-17 * abs(total):
            break
        k += 1.0
    return total / math.sqrt(2.0 * _PI * x)


def _unscale(v, x):
    """v * exp(x) without overflowing early (I_n(x) is finite up to x of about 713)."""
    if x < 700.0:
        return v * math.exp(x)
    if x > 1500.0:
        return _INF
    h = math.exp(0.5 * x)
    return v * h * h


def i0e(x):
    if x != x:
        return x
    if _isinf(x):
        return 0.0
    return _bessel_i_scaled(0.0, abs(x))


def i1e(x):
    if x != x:
        return x
    if x == 0.0:
        return 0.0  # +0 for -0 too, as PyTorch
    if _isinf(x):
        return math.copysign(0.0, x)
    return math.copysign(_bessel_i_scaled(1.0, abs(x)), x)


def i0(x):
    if x != x or _isinf(x):
        return _NAN
    ax = abs(x)
    return _unscale(_bessel_i_scaled(0.0, ax), ax)


def i1(x):
    if x != x or _isinf(x):
        return _NAN
    if x == 0.0:
        return 0.0
    ax = abs(x)
    return math.copysign(_unscale(_bessel_i_scaled(1.0, ax), ax), x)


def _bessel_k_scaled_integral(nu, x):
    """exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt by the trapezoidal rule, whose
    error for this analytic, fast-decaying integrand falls like exp(-pi^2 / h); the step shrinks
    like 1 / sqrt(x), the width of the peak at t = 0."""
    h = min(0.2, 0.55 / math.sqrt(x))
    total = 0.5
    k = 1.0
    while k < 100000.0:
        t = k * h
        s = math.sinh(0.5 * t)
        f = math.exp(-2.0 * x * s * s) * math.cosh(nu * t)
        total += f
        if f <= 1e-18 * total:
            break
        k += 1.0
    return total * h


def _k_series(n, x):
    """K_n(x), n in {0, 1}, for 0 < x <= 2 from the power series of I_n and the harmonic numbers."""
    t = 0.25 * x * x
    lg = math.log(0.5 * x)
    if n == 0.0:
        term = 1.0
        i_sum = 1.0
        h_sum = 0.0
        hk = 0.0
        k = 1.0
        while k < 100.0:
            term *= t / (k * k)
            hk += 1.0 / k
            i_sum += term
            h_sum += hk * term
            if term <= 1e-18 * i_sum:
                break
            k += 1.0
        return -(lg + _EULER) * i_sum + h_sum
    term = 1.0
    i_sum = 1.0
    c_sum = 2.0 * _EULER - 1.0
    hk = 0.0
    k = 1.0
    while k < 100.0:
        term *= t / (k * (k + 1.0))
        hk += 1.0 / k
        i_sum += term
        c_sum += (2.0 * _EULER - 2.0 * hk - 1.0 / (k + 1.0)) * term
        if term <= 1e-18 * i_sum:
            break
        k += 1.0
    return 1.0 / x + lg * 0.5 * x * i_sum + 0.25 * x * c_sum


def _k(n, x, scaled):
    if x != x:
        return x
    if x < 0.0:
        return _NAN
    if x == 0.0:
        return _INF
    if x == _INF:
        return 0.0
    if x <= 2.0:
        v = _k_series(n, x)
        return v * math.exp(x) if scaled else v
    v = _bessel_k_scaled_integral(n, x)
    return v if scaled else v * math.exp(-x)


def modified_bessel_k0(x):
    return _k(0.0, x, False)


def modified_bessel_k1(x):
    return _k(1.0, x, False)


def scaled_modified_bessel_k0(x):
    return _k(0.0, x, True)


def scaled_modified_bessel_k1(x):
    return _k(1.0, x, True)


def _hankel(n, x, second):
    """J_n(x) (second=False) or Y_n(x) for x > 25, n in {0, 1}: Hankel's asymptotic expansion."""
    mu = 4.0 * n * n
    term = 1.0
    p = 1.0
    q = 0.0
    k = 1.0
    while k < 60.0:
        term *= (mu - (2.0 * k - 1.0) ** 2) / (8.0 * k * x)
        if k % 4.0 == 1.0:
            q += term
        elif k % 4.0 == 2.0:
            p -= term
        elif k % 4.0 == 3.0:
            q -= term
        else:
            p += term
        if abs(term) < 1e-17:
            break
        k += 1.0
    s = math.sin(x)
    c = math.cos(x)
    # chi = x - (n / 2 + 1 / 4) pi, expanded so that x's own argument reduction stays exact
    if n == 0.0:
        cchi = (c + s) * _SQRT1_2
        schi = (s - c) * _SQRT1_2
    else:
        cchi = (s - c) * _SQRT1_2
        schi = -(s + c) * _SQRT1_2
    amp = math.sqrt(_FRAC_2_PI / x)
    if second:
        return amp * (p * schi + q * cchi)
    return amp * (p * cchi - q * schi)


def _j_series(n, x):
    """J_n(x) by its power series (n in {0, 1}; |x| <= 5, where cancellation costs under a digit)."""
    t = 0.25 * x * x
    term = 1.0 if n == 0.0 else 0.5 * x
    total = term
    k = 1.0
    while k < 100.0:
        term *= -t / (k * (k + n))
        total += term
        if abs(term) <= 1e-18 * abs(total):
            break
        k += 1.0
    return total


def _y_series(n, x):
    """Y_n(x) for 0 < x <= 5 from the power series with harmonic numbers."""
    t = 0.25 * x * x
    lg = math.log(0.5 * x) + _EULER
    if n == 0.0:
        term = 1.0
        j_sum = 1.0
        h_sum = 0.0
        hk = 0.0
        k = 1.0
        while k < 100.0:
            term *= -t / (k * k)
            hk += 1.0 / k
            j_sum += term
            h_sum += hk * term
            if abs(term) <= 1e-18 * abs(j_sum):
                break
            k += 1.0
        return _FRAC_2_PI * (lg * j_sum - h_sum)
    term = 1.0
    j_sum = 1.0
    c_sum = -1.0
    hk = 0.0
    k = 1.0
    while k < 100.0:
        term *= -t / (k * (k + 1.0))
        hk += 1.0 / k
        j_sum += term
        c_sum -= (2.0 * hk + 1.0 / (k + 1.0)) * term
        if abs(term) <= 1e-18 * abs(j_sum):
            break
        k += 1.0
    return _FRAC_2_PI * (lg * 0.5 * x * j_sum - 1.0 / x) + 0.25 * _FRAC_2_PI * x * c_sum


def _miller(n, x, second):
    """J_n or Y_n for 5 < x <= 25: Miller's backward recurrence for J_k, normalised by
    J_0 + 2 sum J_2k = 1, and Neumann's series of Y_0 in the J_2k (Y_1 from its derivative)."""
    top = 2.0 * math.floor(0.5 * x + 24.0)
    jk1 = 0.0
    jk = 1e-30
    norm = 0.0
    s0 = 0.0
    s1 = 0.0
    k = top
    j0 = 0.0
    j1 = 0.0
    while k > 0.0:
        jm = 2.0 * k / x * jk - jk1  # J_{k-1}
        if k % 2.0 == 0.0:
            # jk is J_k for even k = 2m: terms of the norm and of Neumann's series
            m = 0.5 * k
            sgn = 1.0 if m % 2.0 == 0.0 else -1.0
            norm += 2.0 * jk
            s0 += sgn * jk / m
            s1 += sgn * (jm - jk1) / m  # J_{2m-1} - J_{2m+1}
        jk1 = jk
        jk = jm
        k -= 1.0
        if k == 1.0:
            j1 = jk
    j0 = jk
    norm += j0
    j0 /= norm
    j1 /= norm
    s0 /= norm
    s1 /= norm
    if not second:
        return j0 if n == 0.0 else j1
    lg = math.log(0.5 * x) + _EULER
    if n == 0.0:
        return _FRAC_2_PI * (lg * j0 - 2.0 * s0)
    return _FRAC_2_PI * (lg * j1 - j0 / x + s1)


def _bessel_j(n, x):
    if x != x or _isinf(x):
        return _NAN
    sign = -1.0 if (n == 1.0 and x < 0.0) else 1.0
    ax = abs(x)
    if ax <= 5.0:
        v = _j_series(n, ax)
    elif ax <= 25.0:
        v = _miller(n, ax, False)
    else:
        v = _hankel(n, ax, False)
    return sign * v


def _bessel_y(n, x):
    if x != x or x < 0.0 or x == _INF:
        return _NAN
    if x == 0.0:
        return -_INF
    if x <= 5.0:
        return _y_series(n, x)
    if x <= 25.0:
        return _miller(n, x, True)
    return _hankel(n, x, True)


def bessel_j0(x):
    return _bessel_j(0.0, x)


def bessel_j1(x):
    return _bessel_j(1.0, x) if x != 0.0 else x


def bessel_y0(x):
    return _bessel_y(0.0, x)


def bessel_y1(x):
    return _bessel_y(1.0, x)


def modified_bessel_i0(x):
    return i0(x)


def modified_bessel_i1(x):
    return i1(x)


def spherical_bessel_j0(x):
    if x != x:
        return x
    if _isinf(x):
        return 0.0
    if abs(x) < 0.5:
        y = x * x
        return 1.0 + y * (-1.0 / 6.0 + y * (1.0 / 120.0 + y * (-1.0 / 5040.0 + y * (1.0 / 362880.0 + y * (
            -1.0 / 39916800.0 + y / 6227020800.0)))))
    return math.sin(x) / x


def _airy_taylor(x):
    """Ai(x) for -10 <= x < 1: Taylor steps of y'' = x y from Ai(0), Ai'(0) in steps of at most 1.
    On the negative axis both solutions oscillate with the same amplitude, so errors do not grow."""
    steps = math.ceil(abs(x)) if x < 0.0 else 1
    h = x / steps
    y = _AI0
    dy = _AIP0
    x0 = 0.0
    for _ in range(steps):
        # coefficients c_m of y(x0 + u) = sum c_m u^m: c_{m+2} (m+1)(m+2) = x0 c_m + c_{m-1}
        cm1 = 0.0
        c0 = y
        c1 = dy
        val = c0 + c1 * h
        der = c1
        hp = 1.0  # h^(m+1) once multiplied in the loop
        m = 0.0
        small = 0  # consecutive negligible terms (at x0 = 0 every third coefficient is 0)
        while m < 80.0:
            c2 = (x0 * c0 + cm1) / ((m + 1.0) * (m + 2.0))
            hp *= h
            der += (m + 2.0) * c2 * hp
            val += c2 * hp * h
            small = small + 1 if abs(c2 * hp) < 1e-18 else 0
            if small == 3:
                break
            cm1 = c0
            c0 = c1
            c1 = c2
            m += 1.0
        y = val
        dy = der
        x0 += h
    return y


def airy_ai(x):
    if x != x or _isinf(x):
        return _NAN
    if x >= 1.0:
        if x > 110.0:
            return 0.0
        z = 2.0 / 3.0 * x * math.sqrt(x)
        return math.sqrt(x / 3.0) / _PI * _bessel_k_scaled_integral(1.0 / 3.0, z) * math.exp(-z)
    if x >= -10.0:
        return _airy_taylor(x)
    # Ai(-z) ~ z^(-1/4) / sqrt(pi) (cos(zeta - pi/4) P + sin(zeta - pi/4) Q), zeta = 2/3 z^(3/2)
    z = -x
    zeta = 2.0 / 3.0 * z * math.sqrt(z)
    u = 1.0
    p = 1.0
    q = 0.0
    k = 1.0
    r = 1.0
    while k < 40.0:
        u *= (6.0 * k - 5.0) * (6.0 * k - 3.0) * (6.0 * k - 1.0) / ((2.0 * k - 1.0) * 216.0 * k)
        r /= zeta
        term = u * r
        if k % 4.0 == 1.0:
            q += term
        elif k % 4.0 == 2.0:
            p -= term
        elif k % 4.0 == 3.0:
            q -= term
        else:
            p += term
        if term < 1e-17:
            break
        k += 1.0
    s = math.sin(zeta)
    c = math.cos(zeta)
    cm = (c + s) * _SQRT1_2  # cos(zeta - pi/4)
    sm = (s - c) * _SQRT1_2  # sin(zeta - pi/4)
    return (cm * p + sm * q) / (math.sqrt(math.sqrt(z)) * _SQRTPI)


# --- orthogonal polynomials (degree n truncated to an integer, as PyTorch) --------------------
# p_0 = 1, p_1 and p_{k+1} = a(k, x) p_k - b(k) p_{k-1}; the loop stops at the first NaN
def chebyshev_polynomial_t(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if abs(x) == 1.0:
        return 1.0 if (x > 0.0 or k % 2 == 0) else -1.0
    if k == 0:
        return 1.0
    p = 1.0
    q = x
    for _ in range(1, k):
        if q != q:
            break
        p, q = q, 2.0 * x * q - p
    return q


def chebyshev_polynomial_u(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if abs(x) == 1.0:
        return k + 1.0 if (x > 0.0 or k % 2 == 0) else -(k + 1.0)
    if k == 0:
        return 1.0
    p = 1.0
    q = 2.0 * x
    for _ in range(1, k):
        if q != q:
            break
        p, q = q, 2.0 * x * q - p
    return q


def chebyshev_polynomial_v(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if x == 1.0:
        return 1.0
    if x == -1.0:
        return 2.0 * k + 1.0 if k % 2 == 0 else -(2.0 * k + 1.0)
    if k == 0:
        return 1.0
    p = 1.0
    q = 2.0 * x - 1.0
    for _ in range(1, k):
        if q != q:
            break
        p, q = q, 2.0 * x * q - p
    return q


def chebyshev_polynomial_w(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if x == 1.0:
        return 2.0 * k + 1.0
    if x == -1.0:
        return 1.0 if k % 2 == 0 else -1.0
    if k == 0:
        return 1.0
    p = 1.0
    q = 2.0 * x + 1.0
    for _ in range(1, k):
        if q != q:
            break
        p, q = q, 2.0 * x * q - p
    return q


def shifted_chebyshev_polynomial_t(x, n):
    return chebyshev_polynomial_t(2.0 * x - 1.0, n)


def shifted_chebyshev_polynomial_u(x, n):
    return chebyshev_polynomial_u(2.0 * x - 1.0, n)


def shifted_chebyshev_polynomial_v(x, n):
    return chebyshev_polynomial_v(2.0 * x - 1.0, n)


def shifted_chebyshev_polynomial_w(x, n):
    return chebyshev_polynomial_w(2.0 * x - 1.0, n)


def hermite_polynomial_h(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if k == 0:
        return 1.0
    p = 1.0
    q = 2.0 * x
    for j in range(1, k):
        if q != q:
            break
        p, q = q, 2.0 * x * q - 2.0 * j * p
    return q


def hermite_polynomial_he(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if k == 0:
        return 1.0
    p = 1.0
    q = x
    for j in range(1, k):
        if q != q:
            break
        p, q = q, x * q - j * p
    return q


def laguerre_polynomial_l(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if x == 0.0 or k == 0:
        return 1.0
    p = 1.0
    q = 1.0 - x
    for j in range(1, k):
        if q != q:
            break
        p, q = q, ((2.0 * j + 1.0 - x) * q - j * p) / (j + 1.0)
    return q


def legendre_polynomial_p(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if abs(x) == 1.0:
        return 1.0 if (x > 0.0 or k % 2 == 0) else -1.0
    if k == 0:
        return 1.0
    p = 1.0
    q = x
    for j in range(1, k):
        if q != q:
            break
        p, q = q, ((2.0 * j + 1.0) * x * q - j * p) / (j + 1.0)
    return q


def compiled(jit: Callable) -> dict:
    """This module's functions with their globals rebound to `jit`-compiled twins: `jit` is
    `numba.njit(...)` for the CPU or `cuda.jit(device=True)` for CUDA. Returns the namespace,
    where each name holds the compiled function and `name + "_py"` the Python entry point
    (globals bound to the compiled helpers) that `numba.vectorize` or a CUDA kernel wraps."""
    src = globals()
    ns = {k: v for k, v in src.items() if not isinstance(v, types.FunctionType)}
    fns = {k: v for k, v in src.items() if isinstance(v, types.FunctionType) and v.__module__ == __name__
           and k != "compiled"}
    for name, fn in fns.items():
        copy = types.FunctionType(fn.__code__, ns, name, fn.__defaults__)
        ns[name + "_py"] = copy
        ns[name] = jit(types.FunctionType(fn.__code__, ns, name, fn.__defaults__))
    return ns
