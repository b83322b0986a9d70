"""Batched dense factorizations for small matrices: one thread per matrix.

Layout assumption: `w` is a contiguous (batch, n, n + k) work buffer holding [A | B]; the LU
kernel eliminates with partial pivoting in place, accumulates the determinant's sign and
log|det|, records the first zero pivot (1-based) in `info`, and back-substitutes each of the k
right-hand columns, which then hold X with A X = B. The Cholesky kernel factors a contiguous
(batch, n, n) buffer in place (lower triangle), recording in `info` the first non-positive
pivot. Sequential per matrix: fine for the small batched systems of deep learning; large
matrices want cuSOLVER.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda


def lu_solve_function(acc_t):
    def kernel(batch, n, k, w, sign, logabs, info):
        b = cuda.grid(1)
        m = n + k
        while b < batch:
            base = b * n * m
            s = acc_t(1)
            la = acc_t(0)
            bad = 0
            for c in range(n):
                p = c
                best = abs(w[base + c * m + c])
                for r in range(c + 1, n):
                    v = abs(w[base + r * m + c])
                    if v > best:
                        best = v
                        p = r
                if best == 0:
                    if bad == 0:
                        bad = c + 1
                    continue
                if p != c:
                    s = -s
                    for q in range(m):
                        t = w[base + c * m + q]
                        w[base + c * m + q] = w[base + p * m + q]
                        w[base + p * m + q] = t
                d = w[base + c * m + c]
                if d < 0:
                    s = -s
                la += math.log(abs(d))
                for r in range(c + 1, n):
                    f = w[base + r * m + c] / d
                    if f != 0:
                        for q in range(c, m):
                            w[base + r * m + q] -= f * w[base + c * m + q]
            for j in range(n, m):
                for r in range(n - 1, -1, -1):
                    acc = w[base + r * m + j]
                    for q in range(r + 1, n):
                        acc -= w[base + r * m + q] * w[base + q * m + j]
                    w[base + r * m + j] = acc / w[base + r * m + r]
            sign[b] = 0 if bad else s
            logabs[b] = -math.inf if bad else la
            info[b] = bad
            b += cuda.gridsize(1)

    return kernel


def cholesky_function(acc_t):
    def kernel(batch, n, a, info):
        b = cuda.grid(1)
        while b < batch:
            base = b * n * n
            bad = 0
            for j in range(n):
                d = acc_t(a[base + j * n + j])
                for q in range(j):
                    d -= acc_t(a[base + j * n + q]) * acc_t(a[base + j * n + q])
                if not d > 0:
                    if bad == 0:
                        bad = j + 1
                    d = acc_t(math.nan)
                ljj = math.sqrt(d) if d > 0 else d
                a[base + j * n + j] = ljj
                for i in range(j + 1, n):
                    v = acc_t(a[base + i * n + j])
                    for q in range(j):
                        v -= acc_t(a[base + i * n + q]) * acc_t(a[base + j * n + q])
                    a[base + i * n + j] = v / ljj
                for q in range(j + 1, n):
                    a[base + j * n + q] = 0
            info[b] = bad
            b += cuda.gridsize(1)

    return kernel


@cache
def lu_solve(acc_t):
    return cuda.jit(lu_solve_function(acc_t))


@cache
def cholesky(acc_t):
    return cuda.jit(cholesky_function(acc_t))
