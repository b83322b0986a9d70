"""Running sums, products, log-sum-exps and extremes along one dim, and the mode of sorted rows:
one thread per row, a sequential scan.

Layout assumption: `km` rows are (row-index shape, output strides, input strides) over the dims
other than the scanned one; `rm[0]` holds the scanned dim's (input, output) strides. Rows are
independent, so a grid of threads covers them; a block-parallel scan would pay on long rows.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

from ember.core.cuda.kernels.reduce import _offset

__all__ = [
    "SUM", "PROD", "LOGSUMEXP", "scan_function", "extreme_scan_function", "mode_function", "scan", "extreme_scan",
    "mode"
]

SUM, PROD, LOGSUMEXP = 0, 1, 2


@cuda.jit(device=True)
def _logaddexp(a, b):
    m = a if a > b else b
    if m == -math.inf:
        return m
    return m + math.log(math.exp(a - m) + math.exp(b - m))


def scan_function(mode: int, acc_t):
    def kernel(nrows, n, km, rm, out, out_off, x, x_off):
        o = cuda.grid(1)
        sx = rm[0, 0]
        so = rm[0, 1]
        while o < nrows:
            po = _offset(o, out_off, km, 1)
            px = _offset(o, x_off, km, 2)
            acc = acc_t(1) if mode == PROD else (acc_t(-math.inf) if mode == LOGSUMEXP else acc_t(0))
            for j in range(n):
                v = acc_t(x[px + j * sx])
                if mode == PROD:
                    acc = acc * v
                elif mode == LOGSUMEXP:
                    acc = _logaddexp(acc, v)
                else:
                    acc = acc + v
                out[po + j * so] = acc
            o += cuda.gridsize(1)

    return kernel


def extreme_scan_function(is_max: bool, acc_t):
    """Running max/min and the index where it was found (a NaN, or the latest equal value, takes over)."""

    def kernel(nrows, n, km, rm, vals, v_off, idx, i_off, x, x_off):
        o = cuda.grid(1)
        sx = rm[0, 0]
        sv = rm[0, 1]
        si = rm[0, 2]
        while o < nrows:
            pv = _offset(o, v_off, km, 1)
            px = _offset(o, x_off, km, 2)
            pi = _offset(o, i_off, km, 3)
            best = acc_t(x[px])
            at = 0
            for j in range(n):
                v = acc_t(x[px + j * sx])
                if v != v or (best == best and (v >= best if is_max else v <= best)):
                    best = v
                    at = j
                vals[pv + j * sv] = best
                idx[pi + j * si] = at
            o += cuda.gridsize(1)

    return kernel


def mode_function():
    """Per row of sorted values `sv` and their original positions `so` (contiguous (rows, n)):
    the most frequent value (the smallest on ties; NaN never equals itself) and the last
    original position holding it."""

    def kernel(nrows, n, sv, so, vals, idx):
        r = cuda.grid(1)
        while r < nrows:
            base = r * n
            best_count = 0
            best_start = 0
            best_end = 0
            start = 0
            for i in range(1, n + 1):
                if i == n or sv[base + i] != sv[base + start]:
                    if i - start > best_count:
                        best_count = i - start
                        best_start = start
                        best_end = i
                    start = i
            vals[r] = sv[base + best_start]
            last = so[base + best_start]
            for j in range(best_start, best_end):
                if so[base + j] > last:
                    last = so[base + j]
            idx[r] = last
            r += cuda.gridsize(1)

    return kernel


@cache
def scan(mode: int, acc_t):
    return cuda.jit(scan_function(mode, acc_t))


@cache
def extreme_scan(is_max: bool, acc_t):
    return cuda.jit(extreme_scan_function(is_max, acc_t))


@cache
def mode():
    return cuda.jit(mode_function())
