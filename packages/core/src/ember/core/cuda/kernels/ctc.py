"""CTC loss kernels, the CUDA twins of `ops/_ctc_kernels.py`: one block per batch element, its
threads sharing the positions `s` of the extended target at each time step (a barrier between
steps), over flat buffers: log_probs `(T, N, C)`, targets `(N, S)` int64 padded, log_alpha and
log_beta `(N, T, W)` filled with -inf by the launcher, W = 2 S + 1. `geom` packs (T, N, C, S, W).
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

__all__ = ["THREADS", "forward_function", "backward_function", "forward", "backward"]

THREADS = 128


@cuda.jit(device=True)
def _lse3(a, b, c):
    m = max(a, max(b, c))
    if m == -math.inf:
        return -math.inf
    return math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m)) + m


@cuda.jit(device=True)
def _label(targets, row, s, blank):
    if s % 2 == 0:
        return blank
    return targets[row + s // 2]


def forward_function():
    def kernel(geom, lp, targets, ilen, tlen, blank, la, nll):
        n_t, n_b, n_c, smax, w = geom[0], geom[1], geom[2], geom[3], geom[4]
        n = cuda.blockIdx.x
        tid, nth = cuda.threadIdx.x, cuda.blockDim.x
        t_n, l_n = ilen[n], tlen[n]
        s_n = 2 * l_n + 1
        row = n * smax
        base = n * n_t * w
        if t_n > 0:
            if tid == 0:
                la[base] = lp[n * n_c + blank]
                if s_n > 1:
                    la[base + 1] = lp[n * n_c + targets[row]]
            cuda.syncthreads()
            for t in range(1, t_n):
                s = tid
                while s < s_n:
                    prev = base + (t - 1) * w
                    a = la[prev + s]
                    b = -math.inf
                    if s > 0:
                        b = la[prev + s - 1]
                    d = -math.inf
                    if s > 1 and s % 2 == 1 and targets[row + s // 2] != targets[row + s // 2 - 1]:
                        d = la[prev + s - 2]
                    v = _lse3(a, b, d)
                    if v != -math.inf:
                        v += lp[(t * n_b + n) * n_c + _label(targets, row, s, blank)]
                    la[base + t * w + s] = v
                    s += nth
                cuda.syncthreads()
            if tid == 0:
                last = base + (t_n - 1) * w
                p = -math.inf
                if s_n > 1:
                    p = la[last + s_n - 2]
                nll[n] = -_lse3(la[last + s_n - 1], p, -math.inf)
        elif tid == 0:
            nll[n] = 0.0 if l_n == 0 else math.inf

    return kernel


def backward_function():
    def kernel(geom, gout, lp, targets, ilen, tlen, blank, nll, la, lb, zero_infinity, grad):
        n_t, n_b, n_c, smax, w = geom[0], geom[1], geom[2], geom[3], geom[4]
        n = cuda.blockIdx.x
        tid, nth = cuda.threadIdx.x, cuda.blockDim.x
        t_n, l_n = ilen[n], tlen[n]
        s_n = 2 * l_n + 1
        row = n * smax
        base = n * n_t * w
        if t_n > 0 and not (zero_infinity and nll[n] == math.inf):
            if tid == 0:
                lb[base + (t_n - 1) * w + s_n - 1] = lp[((t_n - 1) * n_b + n) * n_c + blank]
                if s_n > 1:
                    lb[base + (t_n - 1) * w + s_n - 2] = lp[((t_n - 1) * n_b + n) * n_c + targets[row + l_n - 1]]
            cuda.syncthreads()
            for t in range(t_n - 2, -1, -1):
                s = tid
                while s < s_n:
                    nxt = base + (t + 1) * w
                    a = lb[nxt + s]
                    b = -math.inf
                    if s < s_n - 1:
                        b = lb[nxt + s + 1]
                    d = -math.inf
                    if s < s_n - 2 and s % 2 == 1 and targets[row + s // 2] != targets[row + s // 2 + 1]:
                        d = lb[nxt + s + 2]
                    v = _lse3(a, b, d)
                    if v != -math.inf:
                        v += lp[(t * n_b + n) * n_c + _label(targets, row, s, blank)]
                    lb[base + t * w + s] = v
                    s += nth
                cuda.syncthreads()
            k = tid
            while k < t_n * n_c:
                t, c = k // n_c, k % n_c
                acc = -math.inf
                for s in range(s_n):
                    if _label(targets, row, s, blank) == c:
                        acc = _lse3(acc, la[base + t * w + s] + lb[base + t * w + s], -math.inf)
                v = lp[(t * n_b + n) * n_c + c]
                grad[(t * n_b + n) * n_c + c] = (math.exp(v) - math.exp(acc + nll[n] - v)) * gout[n]
                k += nth

    return kernel


@cache
def forward():
    return cuda.jit(forward_function())


@cache
def backward():
    return cuda.jit(backward_function())
