"""Orthogonal polynomials, scalar (see `special_math`, which compiles them with its own): the degree
n is truncated to an integer as PyTorch's; p_0 = 1, p_1 and p_{k+1} = a(k, x) p_k - b(k) p_{k-1},
the loop stopping at the first NaN; PyTorch's values at x = +-1 and for n < 0. Chebyshev's four
kinds of degree above 6 inside (-1, 1) are trigonometric (x = cos t, T_n = cos(n t) ...), as PyTorch's,
so a huge degree costs no more than a small one."""

from __future__ import annotations

import math

__all__ = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p"
]


def chebyshev_polynomial_t(x, n):
    if n != n:
        return n
    k = int(n)
    if k < 0:
        return 0.0
    if abs(x) == 1.0:
        return 1.0 if (x > 0.0 or k % 2 == 0) else -1.0
    if k > 6 and abs(x) < 1.0:
        return math.cos(k * math.acos(x))
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
    if k > 6 and abs(x) < 1.0:
        return math.sin((k + 1.0) * math.acos(x)) / math.sqrt((1.0 - x) * (1.0 + x))
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
    if k > 6 and abs(x) < 1.0:
        return math.cos((k + 0.5) * math.acos(x)) / math.sqrt(0.5 * (1.0 + x))
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
    if k > 6 and abs(x) < 1.0:
        return math.sin((k + 0.5) * math.acos(x)) / math.sqrt(0.5 * (1.0 - x))
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
