"""Batched dense factorizations for small matrices: one thread per matrix.

Layout assumption: `w` is a contiguous (batch, n, n + k) work buffer holding [A | B]; the LU
kernel eliminates with partial pivoting in place, accumulates the determinant's sign and
log|det|, records the first zero pivot (1-based) in `info`, and back-substitutes each of the k
right-hand columns, which then hold X with A X = B. The Cholesky kernel factors a contiguous
(batch, n, n) buffer in place (lower triangle), recording in `info` the first non-positive
pivot. Householder QR and cyclic-Jacobi eigh follow the same one-thread-per-matrix pattern.
Sequential per matrix: fine for the small batched systems of deep learning; large matrices want
cuSOLVER.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

__all__ = [
    "lu_solve_function", "cholesky_function", "lu_solve", "cholesky", "householder_qr_function",
    "jacobi_eigh_function", "householder_qr", "jacobi_eigh"
]


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


def householder_qr_function(acc_t):
    """Householder QR of contiguous (batch, m, n) `r` in place (it becomes R), accumulating the
    (batch, m, m) `q` (identity on entry); `v` is (batch, m) scratch. The reflector of column j
    maps it to (alpha, 0, ...) with alpha = -sign(r[j, j]) * norm, as LAPACK's geqrf, so Q and R
match LAPACK's signs."""

    def kernel(batch, m, n, r, q, v):
        b = cuda.grid(1)
        k = min(m, n)
        while b < batch:
            rb = b * m * n
            qb = b * m * m
            vb = b * m
            for j in range(k):
                scale = acc_t(0)  # the column over its largest entry, so squares of 1e30 do not overflow
                nonzero = False
                for i in range(j, m):
                    scale = max(scale, abs(r[rb + i * n + j]))
                    nonzero = nonzero or (i > j and r[rb + i * n + j] != 0)
                if not nonzero:  # nothing to annihilate: no reflection, as LAPACK's larfg
                    continue
                below = acc_t(0)  # (may underflow to 0 next to a huge entry: the reflection is then a sign flip)
                for i in range(j + 1, m):
                    below += (r[rb + i * n + j] / scale) * (r[rb + i * n + j] / scale)
                x0 = r[rb + j * n + j] / scale
                norm2 = below + x0 * x0
                alpha = -math.sqrt(norm2) if x0 >= 0 else math.sqrt(norm2)
                vn2 = acc_t(0)  # v in units of `scale`: the reflection I - 2 v v^T / (v^T v) is the same
                for i in range(j, m):
                    vi = r[rb + i * n + j] / scale - (alpha if i == j else 0)
                    v[vb + i] = vi
                    vn2 += vi * vi
                if vn2 == 0:
                    continue
                for c in range(j, n):
                    s = acc_t(0)
                    for i in range(j, m):
                        s += v[vb + i] * r[rb + i * n + c]
                    f = 2 * s / vn2
                    for i in range(j, m):
                        r[rb + i * n + c] -= f * v[vb + i]
                for row in range(m):
                    s = acc_t(0)
                    for i in range(j, m):
                        s += q[qb + row * m + i] * v[vb + i]
                    f = 2 * s / vn2
                    for i in range(j, m):
                        q[qb + row * m + i] -= f * v[vb + i]
            b += cuda.gridsize(1)

    return kernel


def jacobi_eigh_function(acc_t):
    """Cyclic Jacobi on contiguous symmetric (batch, n, n) `a` (destroyed: its diagonal ends as the
    eigenvalues), accumulating the eigenvectors as the columns of `v` (identity on entry); sweeps
    until the off-diagonal mass is negligible (at most `max_sweeps`)."""

    def kernel(batch, n, a, v, max_sweeps):
        b = cuda.grid(1)
        while b < batch:
            base = b * n * n
            for _ in range(max_sweeps):
                off = acc_t(0)
                diag = acc_t(0)
                for p in range(n):
                    diag += a[base + p * n + p] * a[base + p * n + p]
                    for q2 in range(p + 1, n):
                        off += a[base + p * n + q2] * a[base + p * n + q2]
                if off <= 1e-30 * diag or off == 0:
                    break
                for p in range(n - 1):
                    for q2 in range(p + 1, n):
                        apq = a[base + p * n + q2]
                        if apq == 0:
                            continue
                        theta = (a[base + q2 * n + q2] - a[base + p * n + p]) / (2 * apq)
                        t = (1 if theta >= 0 else -1) / (abs(theta) + math.sqrt(theta * theta + 1))
                        c = 1 / math.sqrt(t * t + 1)
                        s = t * c
                        for k in range(n):
                            akp = a[base + k * n + p]
                            akq = a[base + k * n + q2]
                            a[base + k * n + p] = c * akp - s * akq
                            a[base + k * n + q2] = s * akp + c * akq
                        for k in range(n):
                            apk = a[base + p * n + k]
                            aqk = a[base + q2 * n + k]
                            a[base + p * n + k] = c * apk - s * aqk
                            a[base + q2 * n + k] = s * apk + c * aqk
                        for k in range(n):
                            vkp = v[base + k * n + p]
                            vkq = v[base + k * n + q2]
                            v[base + k * n + p] = c * vkp - s * vkq
                            v[base + k * n + q2] = s * vkp + c * vkq
            b += cuda.gridsize(1)

    return kernel


@cache
def householder_qr(acc_t):
    return cuda.jit(householder_qr_function(acc_t))


@cache
def jacobi_eigh(acc_t):
    return cuda.jit(jacobi_eigh_function(acc_t))
