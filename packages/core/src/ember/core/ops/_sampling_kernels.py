"""Private Numba CPU kernels of grid_sample (forward and backward).

Imported by `sampling.py` on first use only, so `import ember.core` imports no Numba; every
function is compiled on its first call and cached on disk. Helpers are module-level jitted
functions (not closures), which keeps the disk cache valid across processes.

Layouts: input `(N, C, D, H, W)` and grid `(N, Do, Ho, Wo, 3)`, contiguous; 2-D sampling runs
here with D = 1 and a zero z coordinate, which reads only the z = 0 taps (their weight is 1).
Coordinates are computed in float64. Modes: 0 bilinear, 1 nearest, 2 bicubic (2-D kernels
only); padding: 0 zeros, 1 border, 2 reflection. Every read is bounds-checked here, since a
grid holds arbitrary values.
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


@numba.njit(**_OPTS, parallel=True)
def linear_forward(x, grid, out, mode, padding, align):
    n_, c_, d_, h_, w_ = x.shape
    do, ho, wo = grid.shape[1], grid.shape[2], grid.shape[3]
    for row in prange(n_ * do * ho):
        n = row // (do * ho)
        oz = (row // ho) % do
        oy = row % ho
        for ox in range(wo):
            ix = _source(grid[n, oz, oy, ox, 0], w_, padding, align)[0]
            iy = _source(grid[n, oz, oy, ox, 1], h_, padding, align)[0]
            iz = _source(grid[n, oz, oy, ox, 2], d_, padding, align)[0]
            if mode == 1:
                xi, yi, zi = _nearbyint(ix), _nearbyint(iy), _nearbyint(iz)
                inside = 0 <= xi < w_ and 0 <= yi < h_ and 0 <= zi < d_
                for c in range(c_):
                    out[n, c, oz, oy, ox] = x[n, c, int(zi), int(yi), int(xi)] if inside else 0.0
                continue
            x0, y0, z0 = float(math.floor(ix)), float(math.floor(iy)), float(math.floor(iz))
            for c in range(c_):
                out[n, c, oz, oy, ox] = 0.0
            for k in range(8):
                tx, wx, _ = _corner(x0, ix, k & 1)
                ty, wy, _ = _corner(y0, iy, (k >> 1) & 1)
                tz, wz, _ = _corner(z0, iz, k >> 2)
                if 0 <= tx < w_ and 0 <= ty < h_ and 0 <= tz < d_:
                    wt = wx * wy * wz
                    for c in range(c_):
                        out[n, c, oz, oy, ox] += x[n, c, int(tz), int(ty), int(tx)] * wt


@numba.njit(**_OPTS, parallel=True)
def linear_backward(gout, x, grid, gin, ggrid, mode, padding, align):
    # gin zeroed; one batch element per thread, so the scatter into gin never races
    n_, c_, d_, h_, w_ = x.shape
    do, ho, wo = grid.shape[1], grid.shape[2], grid.shape[3]
    for n in prange(n_):
        for oz in range(do):
            for oy in range(ho):
                for ox in range(wo):
                    ix, mx = _source(grid[n, oz, oy, ox, 0], w_, padding, align)
                    iy, my = _source(grid[n, oz, oy, ox, 1], h_, padding, align)
                    iz, mz = _source(grid[n, oz, oy, ox, 2], d_, padding, align)
                    gx = gy = gz = 0.0
                    if mode == 1:
                        xi, yi, zi = _nearbyint(ix), _nearbyint(iy), _nearbyint(iz)
                        if 0 <= xi < w_ and 0 <= yi < h_ and 0 <= zi < d_:
                            for c in range(c_):
                                gin[n, c, int(zi), int(yi), int(xi)] += gout[n, c, oz, oy, ox]
                    else:
                        x0, y0, z0 = float(math.floor(ix)), float(math.floor(iy)), float(math.floor(iz))
                        for k in range(8):
                            tx, wx, sx = _corner(x0, ix, k & 1)
                            ty, wy, sy = _corner(y0, iy, (k >> 1) & 1)
                            tz, wz, sz = _corner(z0, iz, k >> 2)
                            if 0 <= tx < w_ and 0 <= ty < h_ and 0 <= tz < d_:
                                a, b, e = int(tz), int(ty), int(tx)
                                acc = 0.0
                                wt = wx * wy * wz
                                for c in range(c_):
                                    go = gout[n, c, oz, oy, ox]
                                    gin[n, c, a, b, e] += wt * go
                                    acc += x[n, c, a, b, e] * go
                                gx += acc * sx * wy * wz
                                gy += acc * wx * sy * wz
                                gz += acc * wx * wy * sz
                    ggrid[n, oz, oy, ox, 0] = gx * mx
                    ggrid[n, oz, oy, ox, 1] = gy * my
                    ggrid[n, oz, oy, ox, 2] = gz * mz


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
def bicubic_forward(x, grid, out, padding, align):
    # x (N, C, H, W), grid (N, Ho, Wo, 2), out (N, C, Ho, Wo)
    n_, c_, h_, w_ = x.shape
    ho, wo = grid.shape[1], grid.shape[2]
    for row in prange(n_ * ho):
        n, oy = row // ho, row % ho
        for ox in range(wo):
            ix = _finite(_unnormalize(grid[n, oy, ox, 0], w_, align)[0])
            iy = _finite(_unnormalize(grid[n, oy, ox, 1], h_, align)[0])
            x0, y0 = float(math.floor(ix)), float(math.floor(iy))
            for c in range(c_):
                out[n, c, oy, ox] = 0.0
            for i in range(4):
                yi = _bounded(y0 - 1.0 + i, h_, padding, align)
                if yi < 0:
                    continue
                cy = _cubic(iy - y0, i)[0]
                for j in range(4):
                    xj = _bounded(x0 - 1.0 + j, w_, padding, align)
                    if xj < 0:
                        continue
                    wt = cy * _cubic(ix - x0, j)[0]
                    for c in range(c_):
                        out[n, c, oy, ox] += x[n, c, yi, xj] * wt


@numba.njit(**_OPTS, parallel=True)
def bicubic_backward(gout, x, grid, gin, ggrid, padding, align):
    # gin zeroed; one batch element per thread
    n_, c_, h_, w_ = x.shape
    ho, wo = grid.shape[1], grid.shape[2]
    for n in prange(n_):
        for oy in range(ho):
            for ox in range(wo):
                ix, mx = _unnormalize(grid[n, oy, ox, 0], w_, align)
                iy, my = _unnormalize(grid[n, oy, ox, 1], h_, align)
                ix, iy = _finite(ix), _finite(iy)
                x0, y0 = float(math.floor(ix)), float(math.floor(iy))
                gx = gy = 0.0
                for i in range(4):
                    yi = _bounded(y0 - 1.0 + i, h_, padding, align)
                    if yi < 0:
                        continue
                    cy, dcy = _cubic(iy - y0, i)
                    for j in range(4):
                        xj = _bounded(x0 - 1.0 + j, w_, padding, align)
                        if xj < 0:
                            continue
                        cx, dcx = _cubic(ix - x0, j)
                        acc = 0.0
                        for c in range(c_):
                            go = gout[n, c, oy, ox]
                            gin[n, c, yi, xj] += cx * cy * go
                            acc += x[n, c, yi, xj] * go
                        gx += acc * dcx * cy
                        gy += acc * cx * dcy
                ggrid[n, oy, ox, 0] = gx * mx
                ggrid[n, oy, ox, 1] = gy * my
