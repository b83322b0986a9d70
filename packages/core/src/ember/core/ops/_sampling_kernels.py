"""Private Numba CPU kernels of grid_sample (forward and backward).

Imported by `sampling.py` on first use only, so `import ember.core` imports no Numba; every
function is compiled on its first call and cached on disk. The scalar math (coordinates, padding,
taps and weights) and the `taps` pass are `sampling_math`'s, compiled here for the CPU and by the
CUDA kernels for the device.

Two passes. `taps` turns each grid point into K taps: a flat offset into the input plane
(-1 for a tap outside the input, which reads nothing), its weight, and the weight's derivative
in each grid coordinate (the unnormalization and padding factors included, but a clipped point's zero, kept
apart to multiply the summed gradient); K is 1 (nearest),
4 or 8 (bilinear in 2-D or 3-D) or 16 (bicubic, 2-D). Then every channel plane is gathered
(forward), scattered into (input gradient) or contracted with the taps' derivatives (grid
gradient) with contiguous loops over points: the coordinates are computed once per point, not
once per channel. Layouts: input `(N, C, L)` with L = D*H*W (D = 1 in 2-D), grid `(N, P, gdim)`,
contiguous. Coordinates are computed in float64 (a float16/bfloat16 bilinear or nearest sample rounds
every operation to its type, as PyTorch's 2-D vectorized and 3-D scalar kernels). Modes: 0 bilinear, 1 nearest,
2 bicubic; padding: 0 zeros, 1 border, 2 reflection.
"""

from __future__ import annotations

import math

import numba
from numba import prange

from ember.core.ops import sampling_math

_OPTS = {"cache": True, "nogil": True}
# the scalar math and the tap table, shared with the CUDA kernels (`cuda/kernels/sampling.py`)
_M = sampling_math.compiled(numba.njit(**_OPTS), numba.prange)
taps = numba.njit(**_OPTS, parallel=True)(_M["taps_py"])


_UNDEFINED = sampling_math.UNDEFINED
_round_half = _M["round_half"]


@numba.njit(**_OPTS, parallel=True)
def gather(x, idx, wts, bits, out):
    # x (N, C, L), out (N, C, P): one channel plane per thread; bits: a half type's significand bits, each
    # product and sum rounded to it (PyTorch's 2-D bilinear kernel), or 0
    n_, c_, p_ = out.shape
    k_ = idx.shape[2]
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        for p in range(p_):
            acc = 0.0
            if idx[n, p, 0] == _UNDEFINED:
                acc = math.nan
            for k in range(k_):
                i = idx[n, p, k]
                if i >= 0:
                    if bits:
                        acc = _round_half(acc + _round_half(wts[n, p, k] * x[n, c, i], bits), bits)
                    else:
                        acc += wts[n, p, k] * x[n, c, i]
            out[n, c, p] = acc


@numba.njit(**_OPTS, parallel=True)
def scatter(gout, idx, wts, gin):
    # gin (N, C, L) zeroed; one channel plane per thread, so the additions never race
    n_, c_, p_ = gout.shape
    k_ = idx.shape[2]
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        for p in range(p_):
            go = gout[n, c, p]
            for k in range(k_):
                i = idx[n, p, k]
                if i >= 0:
                    gin[n, c, i] += wts[n, p, k] * go


@numba.njit(**_OPTS, parallel=True)
def grid_grad(gout, x, idx, dws, muls, ggrid):
    # ggrid (N, P, gdim): sum over channels and taps of grad * value * d weight / d coordinate, times the
    # point's split-off factor (1, or a clipped point's signed zero)
    n_, c_, p_ = gout.shape
    k_, gdim = idx.shape[2], ggrid.shape[2]
    for row in prange(n_ * p_):
        n, p = row // p_, row % p_
        for d in range(gdim):
            ggrid[n, p, d] = math.nan if idx[n, p, 0] == _UNDEFINED else 0.0
        for k in range(k_):
            i = idx[n, p, k]
            if i < 0:
                continue
            v = 0.0
            for c in range(c_):
                v += gout[n, c, p] * x[n, c, i]
            for d in range(gdim):
                ggrid[n, p, d] += v * dws[n, p, k, d]
        for d in range(gdim):
            ggrid[n, p, d] *= muls[n, p, d]
