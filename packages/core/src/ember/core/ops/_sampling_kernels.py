"""Private Numba CPU kernels of grid_sample (forward and backward).

Imported by `sampling.py` on first use only, so `import ember.core` imports no Numba; every
function is compiled on its first call and cached on disk. Helpers are module-level jitted
functions (not closures), which keeps the disk cache valid across processes.

Two passes. `taps` turns each grid point into K taps: a flat offset into the input plane
(-1 for a tap outside the input, which reads nothing), its weight, and the weight's derivative
in each grid coordinate (the unnormalization and padding factors included); K is 1 (nearest),
4 or 8 (bilinear in 2-D or 3-D) or 16 (bicubic, 2-D). Then every channel plane is gathered
(forward), scattered into (input gradient) or contracted with the taps' derivatives (grid
gradient) with contiguous loops over points: the coordinates are computed once per point, not
once per channel. Layouts: input `(N, C, L)` with L = D*H*W (D = 1 in 2-D), grid `(N, P, gdim)`,
contiguous. Coordinates are computed in float64. Modes: 0 bilinear, 1 nearest, 2 bicubic;
padding: 0 zeros, 1 border, 2 reflection.
"""

from __future__ import annotations

import math

import numba
from numba import prange

_OPTS = {"cache": True, "nogil": True}
_A = -0.75  # the cubic convolution constant of PyTorch's bicubic mode


@numba.njit(**_OPTS)
def _reflect(c, twice_low, twice_high):
    # `c` reflected into [low, high]; returns (value, d value / d c)
    if twice_low == twice_high:
        return 0.0, 0.0
    lo = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    c = c - lo
    sign = 1.0
    if c < 0:
        sign = -1.0
        c = -c
    flips = math.floor(c / span)
    extra = c - flips * span  # fmod, for c >= 0
    if flips % 2 == 0:
        return extra + lo, sign
    return span - extra + lo, -sign


@numba.njit(**_OPTS)
def _pad(c, size, padding, align):
    # the padding mode applied to an unnormalized coordinate; returns (value, d value / d c)
    g = 1.0
    if padding == 2:
        if align:
            c, g = _reflect(c, 0.0, 2.0 * (size - 1))
        else:
            c, g = _reflect(c, -1.0, 2.0 * size - 1.0)
    if padding >= 1:
        if c <= 0:
            c, g = 0.0, 0.0
        elif c >= size - 1:
            c, g = size - 1.0, 0.0
    if not (-2147483648.0 <= c <= 2147483646.0):  # NaN, inf: PyTorch's safe_downgrade_to_int_range
        c = -100.0
    return c, g


@numba.njit(**_OPTS)
def _unnormalize(c, size, align):
    # [-1, 1] -> pixel coordinates; returns (value, d value / d c)
    if align:
        return (c + 1.0) / 2.0 * (size - 1), (size - 1) / 2.0
    return ((c + 1.0) * size - 1.0) / 2.0, size / 2.0


@numba.njit(**_OPTS)
def _source(c, size, padding, align):
    u, gu = _unnormalize(c, size, align)
    p, gp = _pad(u, size, padding, align)
    return p, gu * gp


@numba.njit(**_OPTS)
def _nearbyint(v):
    r = float(math.floor(v))
    d = v - r
    if d > 0.5 or (d == 0.5 and r % 2 != 0):
        r += 1.0
    return r


@numba.njit(**_OPTS)
def _corner(i0, ic, bit):
    # the tap and its weight along one dim for the corner bit; returns (tap, weight, d weight / d coord)
    if bit:
        return i0 + 1.0, ic - i0, 1.0
    return i0, i0 + 1.0 - ic, -1.0


@numba.njit(**_OPTS)
def _cubic(t, k):
    # the weight of tap k (of 4, at offsets -1, 0, 1, 2) at fraction t, and its derivative in t
    if k == 0:
        s = t + 1.0
        return ((_A * s - 5.0 * _A) * s + 8.0 * _A) * s - 4.0 * _A, (3.0 * _A * s - 10.0 * _A) * s + 8.0 * _A
    if k == 3:
        s = 2.0 - t
        return ((_A * s - 5.0 * _A) * s + 8.0 * _A) * s - 4.0 * _A, -((3.0 * _A * s - 10.0 * _A) * s + 8.0 * _A)
    s = t if k == 1 else 1.0 - t
    v = ((_A + 2.0) * s - (_A + 3.0)) * s * s + 1.0
    dv = (3.0 * (_A + 2.0) * s - 2.0 * (_A + 3.0)) * s
    return v, (dv if k == 1 else -dv)


@numba.njit(**_OPTS)
def _finite(v):
    # a bicubic centre far outside every input (all taps read zero) for NaN and inf coordinates
    return v if -2147483648.0 <= v <= 2147483646.0 else -100.0


@numba.njit(**_OPTS)
def _bounded(v, size, padding, align):
    # a bicubic tap's index after padding, or -1 outside the input
    p = _pad(v, size, padding, align)[0]
    i = int(p)
    return i if 0 <= i < size else -1


@numba.njit(**_OPTS, parallel=True)
def taps(grid, d_, h_, w_, mode, padding, align, idx, wts, dws):
    # grid (N, P, gdim); idx (N, P, K) int64; wts (N, P, K); dws (N, P, K, gdim)
    n_, p_, gdim = grid.shape
    k_ = idx.shape[2]
    for row in prange(n_ * p_):
        n, p = row // p_, row % p_
        for k in range(k_):
            idx[n, p, k] = -1
            wts[n, p, k] = 0.0
            for d in range(gdim):
                dws[n, p, k, d] = 0.0
        if mode == 2:
            ix, mx = _unnormalize(grid[n, p, 0], w_, align)
            iy, my = _unnormalize(grid[n, p, 1], h_, align)
            ix, iy = _finite(ix), _finite(iy)
            x0, y0 = float(math.floor(ix)), float(math.floor(iy))
            for a in range(4):
                yi = _bounded(y0 - 1.0 + a, h_, padding, align)
                if yi < 0:
                    continue
                cy, dcy = _cubic(iy - y0, a)
                for b in range(4):
                    xj = _bounded(x0 - 1.0 + b, w_, padding, align)
                    if xj < 0:
                        continue
                    cx, dcx = _cubic(ix - x0, b)
                    k = 4 * a + b
                    idx[n, p, k] = yi * w_ + xj
                    wts[n, p, k] = cx * cy
                    dws[n, p, k, 0] = dcx * cy * mx
                    dws[n, p, k, 1] = cx * dcy * my
            continue
        ix, mx = _source(grid[n, p, 0], w_, padding, align)
        iy, my = _source(grid[n, p, 1], h_, padding, align)
        iz, mz = 0.0, 0.0
        if gdim == 3:
            iz, mz = _source(grid[n, p, 2], d_, padding, align)
        if mode == 1:
            xi, yi, zi = _nearbyint(ix), _nearbyint(iy), _nearbyint(iz)
            if 0 <= xi < w_ and 0 <= yi < h_ and 0 <= zi < d_:
                idx[n, p, 0] = (int(zi) * h_ + int(yi)) * w_ + int(xi)
                wts[n, p, 0] = 1.0
            continue
        x0, y0, z0 = float(math.floor(ix)), float(math.floor(iy)), float(math.floor(iz))
        for k in range(k_):
            tx, wx, sx = _corner(x0, ix, k & 1)
            ty, wy, sy = _corner(y0, iy, (k >> 1) & 1)
            tz, wz, sz = _corner(z0, iz, k >> 2)
            if 0 <= tx < w_ and 0 <= ty < h_ and 0 <= tz < d_:
                idx[n, p, k] = (int(tz) * h_ + int(ty)) * w_ + int(tx)
                wts[n, p, k] = wx * wy * wz
                dws[n, p, k, 0] = sx * wy * wz * mx
                dws[n, p, k, 1] = wx * sy * wz * my
                if gdim == 3:
                    dws[n, p, k, 2] = wx * wy * sz * mz


@numba.njit(**_OPTS, parallel=True)
def gather(x, idx, wts, out):
    # x (N, C, L), out (N, C, P): one channel plane per thread
    n_, c_, p_ = out.shape
    k_ = idx.shape[2]
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        for p in range(p_):
            acc = 0.0
            for k in range(k_):
                i = idx[n, p, k]
                if i >= 0:
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
def grid_grad(gout, x, idx, dws, ggrid):
    # ggrid (N, P, gdim): sum over channels and taps of grad * value * d weight / d coordinate
    n_, c_, p_ = gout.shape
    k_, gdim = idx.shape[2], ggrid.shape[2]
    for row in prange(n_ * p_):
        n, p = row // p_, row % p_
        for d in range(gdim):
            ggrid[n, p, d] = 0.0
        for k in range(k_):
            i = idx[n, p, k]
            if i < 0:
                continue
            v = 0.0
            for c in range(c_):
                v += gout[n, c, p] * x[n, c, i]
            for d in range(gdim):
                ggrid[n, p, d] += v * dws[n, p, k, d]
