"""Bessel and Airy functions, scalar (see `special_math`, which compiles them with its own): power
series near the origin and Hankel's expansions far from it (J, Y, I), Miller's backward recurrence
in between (J, and Y by Neumann's series), the trapezoidal rule on K_nu's integral
`int_0^inf exp(-x cosh t) cosh(nu t) dt` (exponentially accurate; K and Ai for x >= 1), and Taylor
steps of Airy's equation on the negative axis."""

from __future__ import annotations

import math

from ember.core.ops.special_math import _EULER, _INF, _NAN, _PI, _SQRT1_2, _SQRTPI, _isinf

__all__ = [
    "i0e", "i1e", "i0", "i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "spherical_bessel_j0", "airy_ai"
]

_FRAC_2_PI = 0.63661977236758134308
_AI0 = 0.35502805388781723926  # Ai(0)
_AIP0 = -0.25881940379280679840  # Ai'(0)
_TWO_THIRDS = 2.0 / 3.0
_TWO_THIRDS_LO = 3.700743415417188e-17  # 2/3 - _TWO_THIRDS


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


def _two_prod_err(a, b):
    """The rounding error of a * b (Dekker's product by Veltkamp splitting): a * b = fl(a * b) + err."""
    c = 134217729.0 * a
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    return ((ah * bh - a * b) + ah * bl + al * bh) + al * bl


def _airy_phase(z):
    """2/3 z^(3/2) as hi + lo (double-double), for z < 1e100."""
    s = math.sqrt(z)
    s_lo = ((z - s * s) - _two_prod_err(s, s)) / (2.0 * s)  # sqrt's rounding
    p = z * s
    p_lo = _two_prod_err(z, s) + z * s_lo
    hi = _TWO_THIRDS * p
    lo = _two_prod_err(_TWO_THIRDS, p) + _TWO_THIRDS * p_lo + _TWO_THIRDS_LO * p
    return hi, lo


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
    # zeta's rounding (|x|^1.5 eps) would be the phase's error: sin and cos of zeta = hi + lo
    if zeta == _INF:
        return _NAN  # no phase left, as PyTorch
    hi, lo = _airy_phase(z) if z < 1e100 else (zeta, 0.0)
    s = math.sin(hi)
    c = math.cos(hi)
    sl = math.sin(lo)
    cl = math.cos(lo)
    s, c = s * cl + c * sl, c * cl - s * sl
    cm = (c + s) * _SQRT1_2  # cos(zeta - pi/4)
    sm = (s - c) * _SQRT1_2  # sin(zeta - pi/4)
    return (cm * p + sm * q) / (math.sqrt(math.sqrt(z)) * _SQRTPI)
