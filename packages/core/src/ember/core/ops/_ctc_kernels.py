"""Private Numba CPU kernels of the CTC loss: the log-space forward (alpha) and backward (beta)
recursions of Graves et al. (2006), one batch element per thread.

Imported by `ctc.py` on first use only. Layouts: log_probs `(T, N, C)` contiguous, targets
`(N, S)` int64 padded, lengths int64 `(N,)`; the launcher has checked every length and target
value, so the recursions index within bounds. Label `s` of the extended target (blanks between
and around the labels) is `blank` for even `s`, `targets[n, s // 2]` for odd `s`.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

_OPTS = {"cache": True, "nogil": True}
_NEG_INF = -math.inf


@numba.njit(**_OPTS)
def _lse3(a, b, c):
    # PyTorch's log-sum-exp of three: shifted by the largest by `>` (so a NaN anywhere propagates through
    # exp), and by 0 when all are -inf (so the sum is log(0) = -inf)
    m = a
    if b > m:
        m = b
    if c > m:
        m = c
    if m == _NEG_INF:
        m = 0.0
    return math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m)) + m


@numba.njit(**_OPTS)
def _log_add(acc, v):
    # PyTorch's "acc log+= v" of the gradient's sums: -inf is replaced, else shifted by std::max(acc, v)
    if acc == _NEG_INF:
        return v
    m = v if acc < v else acc
    return math.log(math.exp(acc - m) + math.exp(v - m)) + m


@numba.njit(**_OPTS)
def _label(targets, n, s, blank):
    return blank if s % 2 == 0 else targets[n, s // 2]


@numba.njit(**_OPTS, parallel=True)
def forward(lp, targets, ilen, tlen, blank, log_alpha, nll):
    # log_alpha (N, T, 2 S + 1) is filled with -inf by the launcher
    for n in prange(lp.shape[1]):
        t_n, l_n = ilen[n], tlen[n]
        s_n = 2 * l_n + 1
        if t_n == 0:
            nll[n] = 0.0 if l_n == 0 else math.inf
            continue
        log_alpha[n, 0, 0] = lp[0, n, blank]
        if s_n > 1:
            log_alpha[n, 0, 1] = lp[0, n, targets[n, 0]]
        for t in range(1, t_n):
            for s in range(s_n):
                c = _label(targets, n, s, blank)
                a = log_alpha[n, t - 1, s]
                b = log_alpha[n, t - 1, s - 1] if s > 0 else _NEG_INF
                d = _NEG_INF
                if s > 1 and s % 2 == 1 and targets[n, s // 2] != targets[n, s // 2 - 1]:
                    d = log_alpha[n, t - 1, s - 2]
                log_alpha[n, t, s] = _lse3(a, b, d) + lp[t, n, c]  # (-inf + inf is NaN, as PyTorch's)
        if l_n == 0:
            nll[n] = -log_alpha[n, t_n - 1, 0]
        else:
            nll[n] = -_lse3(log_alpha[n, t_n - 1, s_n - 1], log_alpha[n, t_n - 1, s_n - 2], _NEG_INF)


@numba.njit(**_OPTS, parallel=True)
def backward(gout, lp, targets, ilen, tlen, blank, nll, log_alpha, zero_infinity, grad):
    # grad (T, N, C) zeroed by the launcher; PyTorch's formula and order of operations (so NaN and inf
    # inputs give its results), the gradient as seen through a log_softmax:
    # exp(lp) - exp(log(sum_s alpha beta) + nll - lp) at t < input_length, 0 after. zero_infinity zeroes
    # the gradient of an infinite loss only (a NaN loss keeps its NaN gradient, as PyTorch's).
    n_t, n_b, n_c = lp.shape
    for n in prange(n_b):
        t_n, l_n = ilen[n], tlen[n]
        s_n = 2 * l_n + 1
        if t_n == 0 or (zero_infinity and nll[n] == math.inf):
            continue
        beta = np.full((t_n, s_n), _NEG_INF)
        lcab = np.full((t_n, n_c), _NEG_INF)
        beta[t_n - 1, s_n - 1] = lp[t_n - 1, n, blank]
        lcab[t_n - 1, blank] = log_alpha[n, t_n - 1, s_n - 1] + beta[t_n - 1, s_n - 1]
        if s_n > 1:
            c = targets[n, l_n - 1]
            beta[t_n - 1, s_n - 2] = lp[t_n - 1, n, c]
            lcab[t_n - 1, c] = log_alpha[n, t_n - 1, s_n - 2] + beta[t_n - 1, s_n - 2]
        for t in range(t_n - 2, -1, -1):
            for s in range(s_n - 1, -1, -1):
                c = _label(targets, n, s, blank)
                a = beta[t + 1, s]
                b = beta[t + 1, s + 1] if s < s_n - 1 else _NEG_INF
                d = _NEG_INF
                if s < s_n - 2 and s % 2 == 1 and targets[n, s // 2] != targets[n, s // 2 + 1]:
                    d = beta[t + 1, s + 2]
                beta[t, s] = _lse3(a, b, d) + lp[t, n, c]
                lcab[t, c] = _log_add(lcab[t, c], log_alpha[n, t, s] + beta[t, s])
        for t in range(t_n):
            for c in range(n_c):
                v = lp[t, n, c]
                grad[t, n, c] = (math.exp(v) - math.exp(lcab[t, c] + nll[n] - v)) * gout[n]
