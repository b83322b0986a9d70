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
    # PyTorch's log-sum-exp of three (see the CPU kernels): a NaN propagates, all -inf gives -inf
    m = a
    if b > m:
        m = b
    if c > m:
        m = c
    if m == -math.inf:
        m = 0.0
    total = math.exp(a - m) + math.exp(b - m) + math.exp(c - m)
    if total == 0.0:  # log(0) (Numba's simulator raises on it)
        return -math.inf
    return math.log(total) + m


@cuda.jit(device=True)
def _log_add(acc, v):
    if acc == -math.inf:
        return v
    m = acc
    if acc < v:
        m = v
    return math.log(math.exp(acc - m) + math.exp(v - m)) + m


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
                    la[base + t * w + s] = _lse3(a, b, d) + lp[(t * n_b + n) * n_c + _label(targets, row, s, blank)]
                    s += nth
                cuda.syncthreads()
            if tid == 0:
                last = base + (t_n - 1) * w
                if s_n > 1:
                    nll[n] = -_lse3(la[last + s_n - 1], la[last + s_n - 2], -math.inf)
                else:
                    nll[n] = -la[last]
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
                    lb[base + t * w + s] = _lse3(a, b, d) + lp[(t * n_b + n) * n_c + _label(targets, row, s, blank)]
                    s += nth
                cuda.syncthreads()
            k = tid
            while k < t_n * n_c:
                t, c = k // n_c, k % n_c
                acc = -math.inf
                at = base + t * w
                if t == t_n - 1:  # the last step: the two final states only, assigned (as PyTorch's CPU kernel)
                    if c == blank:
                        acc = la[at + s_n - 1] + lb[at + s_n - 1]
                    if s_n > 1 and c == targets[row + l_n - 1]:
                        acc = la[at + s_n - 2] + lb[at + s_n - 2]
                else:
                    for s in range(s_n - 1, -1, -1):
                        if _label(targets, row, s, blank) == c:
                            acc = _log_add(acc, la[at + s] + lb[at + s])
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
