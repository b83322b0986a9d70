"""Counter-based random numbers: Philox-4x32-10, one block of four 32-bit words per element.

Element `i` of a draw keyed by (seed, offset) is computed from counter `offset + i` and key
`seed` alone, so any thread order gives the same numbers and a draw is reproducible from its
(seed, offset) (NOTE [ Philox streams ] in `ember.core.random`). Words 0-1 make a 53-bit uniform
`u`, words 2-3 a second one `v` (Box-Muller for normals). Layout assumption: the output is a
flat strided index space described by `meta` rows (shape, output strides[, probability strides]).
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

__all__ = [
    "UNIFORM", "NORMAL", "BERNOULLI", "EXPONENTIAL", "RANDOM", "CAUCHY", "LOG_NORMAL", "GEOMETRIC", "DROPOUT",
    "POISSON", "philox", "uniforms", "poisson", "sample_function", "sample"
]

_M0 = 0xD2511F53
_M1 = 0xCD9E8D57
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_MASK = 0xFFFFFFFF
_INV53 = 1.0 / 9007199254740992.0

# sample kinds
UNIFORM, NORMAL, BERNOULLI, EXPONENTIAL, RANDOM, CAUCHY, LOG_NORMAL, GEOMETRIC, DROPOUT, POISSON = range(10)


@cuda.jit(device=True)
def philox(c0, c1, c2, c3, k0, k1):
    """The four 32-bit words of Philox-4x32-10 for counter (c0..c3) and key (k0, k1), as int64s."""
    for _ in range(10):
        p0 = c0 * _M0
        p1 = c2 * _M1
        hi0 = (p0 >> 32) & _MASK
        lo0 = p0 & _MASK
        hi1 = (p1 >> 32) & _MASK
        lo1 = p1 & _MASK
        c0, c1, c2, c3 = (hi1 ^ c1 ^ k0) & _MASK, lo1, (hi0 ^ c3 ^ k1) & _MASK, lo0
        k0 = (k0 + _W0) & _MASK
        k1 = (k1 + _W1) & _MASK
    return c0, c1, c2, c3


@cuda.jit(device=True)
def uniforms(i, seed_lo, seed_hi, off, rnd=0):
    """Two independent uniforms in [0, 1) for element `i` (53 bits each); `rnd` > 0 gives more."""
    n = off + i
    w0, w1, w2, w3 = philox(n & _MASK, (n >> 32) & _MASK, rnd & _MASK, 0, seed_lo, seed_hi)
    u = ((w0 << 21) ^ (w1 >> 11)) * _INV53
    v = ((w2 << 21) ^ (w3 >> 11)) * _INV53
    return u, v


@cuda.jit(device=True)
def poisson(lam, i, seed_lo, seed_hi, off):
    """A Poisson(lam) count: Knuth's product of uniforms below 10, Hormann's PTRS above (numpy's
    algorithms), drawing two uniforms per Philox round of element `i`."""
    if lam <= 0:
        return 0.0
    rnd = 1
    if lam < 10:
        limit = math.exp(-lam)
        prod = 1.0
        k = 0
        while True:
            u, v = uniforms(i, seed_lo, seed_hi, off, rnd)
            rnd += 1
            prod *= u
            if prod <= limit:
                return float(k)
            k += 1
            prod *= v
            if prod <= limit:
                return float(k)
            k += 1
    slam = math.sqrt(lam)
    loglam = math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    while True:
        u, v = uniforms(i, seed_lo, seed_hi, off, rnd)
        rnd += 1
        u -= 0.5
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            return float(k)
        if k < 0 or (us < 0.013 and v > us):
            continue
        if math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1):
            return float(k)


def sample_function(kind: int, vt):
    """out[i] = a sample of `kind` with parameters (a, b, c) (p[i] for a Bernoulli with a tensor p)."""

    def kernel(n, meta, out, out_off, seed_lo, seed_hi, off, a, b, c, p, p_off, p_is_tensor, src, src_off):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        nd = meta.shape[1]
        while i < n:
            rem = i
            po = out_off
            pp = p_off
            ps = src_off
            for d in range(nd - 1, -1, -1):
                s = meta[0, d]
                j = rem % s
                rem //= s
                po += j * meta[1, d]
                pp += j * meta[2, d]
                ps += j * meta[3, d]
            u, v = uniforms(i, seed_lo, seed_hi, off)
            if kind == UNIFORM:
                r = vt(a + (b - a) * u)
                out[po] = vt(c) if b > a and r >= vt(b) else r  # c: the largest value below b
            elif kind == NORMAL or kind == LOG_NORMAL:
                z = math.sqrt(-2.0 * math.log(1.0 - u)) * math.cos(2.0 * math.pi * v)
                out[po] = vt(math.exp(a + b * z)) if kind == LOG_NORMAL else vt(a + b * z)
            elif kind == BERNOULLI:
                prob = p[pp] if p_is_tensor else a
                out[po] = vt(1 if u < prob else 0)
            elif kind == EXPONENTIAL:
                out[po] = vt(-math.log(1.0 - u) / a)
            elif kind == RANDOM:
                out[po] = vt(a + min(int(u * (b - a)), b - a - 1))
            elif kind == CAUCHY:
                out[po] = vt(a + b * math.tan(math.pi * (u - 0.5)))
            elif kind == POISSON:
                out[po] = vt(poisson(p[pp], i, seed_lo, seed_hi, off))
            elif kind == GEOMETRIC:
                out[po] = vt(math.ceil(math.log(1.0 - u) / math.log(1.0 - a)) if a < 1 else 1)
            else:  # DROPOUT: out = src * keep / (1 - a); p holds the bool mask
                keep = u >= a
                p[pp] = keep
                out[po] = vt(src[ps] / (1.0 - a)) if keep else vt(0)
            i += step

    return kernel


@cache
def sample(kind: int, vt):
    return cuda.jit(sample_function(kind, vt))
