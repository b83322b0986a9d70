"""grid_sample kernels over contiguous flat buffers, the CUDA twins of `ops/_sampling_kernels.py`
(same formulas, one thread per grid point, grid-stride).

Input `(N, C, D, H, W)` (D = 1 for 2-D), grid `(N, Do, Ho, Wo, gdim)` with gdim 2 or 3 (a 2-D
grid has no z: it reads 0). `geom` packs (N, C, D, H, W, Do, Ho, Wo, gdim, mode, padding,
align). The backward adds into grad_input with atomics (grid points share taps; `acc_t` is its
dtype, float32 or float64) and writes the grid gradient of its own point. Coordinates are
computed in float64, as on the CPU.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

__all__ = [
    "forward_function", "backward_function", "bicubic_forward_function", "bicubic_backward_function", "forward",
    "backward", "bicubic_forward", "bicubic_backward"
]

_A = -0.75


@cuda.jit(device=True)
def _reflect(c, twice_low, twice_high):
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
    extra = c - flips * span
    if flips % 2 == 0:
        return extra + lo, sign
    return span - extra + lo, -sign


@cuda.jit(device=True)
def _pad(c, size, padding, align):
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
    if not (-2147483648.0 <= c <= 2147483646.0):
        c = -100.0
    return c, g


@cuda.jit(device=True)
def _unnormalize(c, size, align):
    if align:
        return (c + 1.0) / 2.0 * (size - 1), (size - 1) / 2.0
    return ((c + 1.0) * size - 1.0) / 2.0, size / 2.0


@cuda.jit(device=True)
def _source(c, size, padding, align):
    u, gu = _unnormalize(c, size, align)
    p, gp = _pad(u, size, padding, align)
    return p, gu * gp


@cuda.jit(device=True)
def _nearbyint(v):
    r = math.floor(v) * 1.0
    d = v - r
    if d > 0.5 or (d == 0.5 and r % 2 != 0):
        r += 1.0
    return r


@cuda.jit(device=True)
def _corner(i0, ic, bit):
    if bit:
        return i0 + 1.0, ic - i0, 1.0
    return i0, i0 + 1.0 - ic, -1.0


@cuda.jit(device=True)
def _cubic(t, k):
    if k == 0:
        s = t + 1.0
        return ((_A * s - 5.0 * _A) * s + 8.0 * _A) * s - 4.0 * _A, (3.0 * _A * s - 10.0 * _A) * s + 8.0 * _A
    if k == 3:
        s = 2.0 - t
        return ((_A * s - 5.0 * _A) * s + 8.0 * _A) * s - 4.0 * _A, -((3.0 * _A * s - 10.0 * _A) * s + 8.0 * _A)
    s = t if k == 1 else 1.0 - t
    v = ((_A + 2.0) * s - (_A + 3.0)) * s * s + 1.0
    dv = (3.0 * (_A + 2.0) * s - 2.0 * (_A + 3.0)) * s
    if k == 1:
        return v, dv
    return v, -dv


@cuda.jit(device=True)
def _finite(v):
    if -2147483648.0 <= v <= 2147483646.0:
        return v
    return -100.0


@cuda.jit(device=True)
def _bounded(v, size, padding, align):
    p, _ = _pad(v, size, padding, align)
    i = int(p)
    if 0 <= i < size:
        return i
    return -1


def forward_function():
    def kernel(total, geom, x, grid, out):
        c_, d_, h_, w_ = geom[1], geom[2], geom[3], geom[4]
        do, ho, wo, gdim = geom[5], geom[6], geom[7], geom[8]
        mode, padding, align = geom[9], geom[10], geom[11] != 0
        plane_in, plane_out = d_ * h_ * w_, do * ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            g = i * gdim
            ix = _source(1.0 * grid[g], w_, padding, align)[0]
            iy = _source(1.0 * grid[g + 1], h_, padding, align)[0]
            iz = 0.0
            if gdim == 3:
                iz = _source(1.0 * grid[g + 2], d_, padding, align)[0]
            else:
                iz = _source(0.0, d_, padding, align)[0]
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            if mode == 1:
                xi, yi, zi = _nearbyint(ix), _nearbyint(iy), _nearbyint(iz)
                inside = 0 <= xi < w_ and 0 <= yi < h_ and 0 <= zi < d_
                off = (int(zi) * h_ + int(yi)) * w_ + int(xi)
                for c in range(c_):
                    out[base_out + c * plane_out] = x[base_in + c * plane_in + off] if inside else 0.0
            else:
                x0, y0, z0 = math.floor(ix) * 1.0, math.floor(iy) * 1.0, math.floor(iz) * 1.0
                for c in range(c_):
                    out[base_out + c * plane_out] = 0.0
                for k in range(8):
                    tx, wx, _ = _corner(x0, ix, k & 1)
                    ty, wy, _ = _corner(y0, iy, (k >> 1) & 1)
                    tz, wz, _ = _corner(z0, iz, k >> 2)
                    if 0 <= tx < w_ and 0 <= ty < h_ and 0 <= tz < d_:
                        off = (int(tz) * h_ + int(ty)) * w_ + int(tx)
                        wt = wx * wy * wz
                        for c in range(c_):
                            out[base_out + c * plane_out] += x[base_in + c * plane_in + off] * wt
            i += cuda.gridsize(1)

    return kernel


def backward_function(acc_t):
    def kernel(total, geom, gout, x, grid, gin, ggrid):
        c_, d_, h_, w_ = geom[1], geom[2], geom[3], geom[4]
        do, ho, wo, gdim = geom[5], geom[6], geom[7], geom[8]
        mode, padding, align = geom[9], geom[10], geom[11] != 0
        plane_in, plane_out = d_ * h_ * w_, do * ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            g = i * gdim
            ix, mx = _source(1.0 * grid[g], w_, padding, align)
            iy, my = _source(1.0 * grid[g + 1], h_, padding, align)
            if gdim == 3:
                iz, mz = _source(1.0 * grid[g + 2], d_, padding, align)
            else:
                iz, mz = _source(0.0, d_, padding, align)
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            gx = gy = gz = 0.0
            if mode == 1:
                xi, yi, zi = _nearbyint(ix), _nearbyint(iy), _nearbyint(iz)
                if 0 <= xi < w_ and 0 <= yi < h_ and 0 <= zi < d_:
                    off = (int(zi) * h_ + int(yi)) * w_ + int(xi)
                    for c in range(c_):
                        cuda.atomic.add(gin, base_in + c * plane_in + off, acc_t(gout[base_out + c * plane_out]))
            else:
                x0, y0, z0 = math.floor(ix) * 1.0, math.floor(iy) * 1.0, math.floor(iz) * 1.0
                for k in range(8):
                    tx, wx, sx = _corner(x0, ix, k & 1)
                    ty, wy, sy = _corner(y0, iy, (k >> 1) & 1)
                    tz, wz, sz = _corner(z0, iz, k >> 2)
                    if 0 <= tx < w_ and 0 <= ty < h_ and 0 <= tz < d_:
                        off = (int(tz) * h_ + int(ty)) * w_ + int(tx)
                        wt = wx * wy * wz
                        acc = 0.0
                        for c in range(c_):
                            go = gout[base_out + c * plane_out]
                            cuda.atomic.add(gin, base_in + c * plane_in + off, acc_t(wt * go))
                            acc += x[base_in + c * plane_in + off] * go
                        gx += acc * sx * wy * wz
                        gy += acc * wx * sy * wz
                        gz += acc * wx * wy * sz
            ggrid[g] = gx * mx
            ggrid[g + 1] = gy * my
            if gdim == 3:
                ggrid[g + 2] = gz * mz
            i += cuda.gridsize(1)

    return kernel


def bicubic_forward_function():
    def kernel(total, geom, x, grid, out):
        c_, h_, w_ = geom[1], geom[3], geom[4]
        ho, wo = geom[6], geom[7]
        padding, align = geom[10], geom[11] != 0
        plane_in, plane_out = h_ * w_, ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            ix = _finite(_unnormalize(1.0 * grid[2 * i], w_, align)[0])
            iy = _finite(_unnormalize(1.0 * grid[2 * i + 1], h_, align)[0])
            x0, y0 = math.floor(ix) * 1.0, math.floor(iy) * 1.0
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            for c in range(c_):
                out[base_out + c * plane_out] = 0.0
            for a in range(4):
                yi = _bounded(y0 - 1.0 + a, h_, padding, align)
                if yi >= 0:
                    cy = _cubic(iy - y0, a)[0]
                    for b in range(4):
                        xj = _bounded(x0 - 1.0 + b, w_, padding, align)
                        if xj >= 0:
                            wt = cy * _cubic(ix - x0, b)[0]
                            for c in range(c_):
                                out[base_out + c * plane_out] += x[base_in + c * plane_in + yi * w_ + xj] * wt
            i += cuda.gridsize(1)

    return kernel


def bicubic_backward_function(acc_t):
    def kernel(total, geom, gout, x, grid, gin, ggrid):
        c_, h_, w_ = geom[1], geom[3], geom[4]
        ho, wo = geom[6], geom[7]
        padding, align = geom[10], geom[11] != 0
        plane_in, plane_out = h_ * w_, ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            ix, mx = _unnormalize(1.0 * grid[2 * i], w_, align)
            iy, my = _unnormalize(1.0 * grid[2 * i + 1], h_, align)
            ix, iy = _finite(ix), _finite(iy)
            x0, y0 = math.floor(ix) * 1.0, math.floor(iy) * 1.0
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            gx = gy = 0.0
            for a in range(4):
                yi = _bounded(y0 - 1.0 + a, h_, padding, align)
                if yi >= 0:
                    cy, dcy = _cubic(iy - y0, a)
                    for b in range(4):
                        xj = _bounded(x0 - 1.0 + b, w_, padding, align)
                        if xj >= 0:
                            cx, dcx = _cubic(ix - x0, b)
                            acc = 0.0
                            for c in range(c_):
                                go = gout[base_out + c * plane_out]
                                cuda.atomic.add(gin, base_in + c * plane_in + yi * w_ + xj, acc_t(cx * cy * go))
                                acc += x[base_in + c * plane_in + yi * w_ + xj] * go
                            gx += acc * dcx * cy
                            gy += acc * cx * dcy
            ggrid[2 * i] = gx * mx
            ggrid[2 * i + 1] = gy * my
            i += cuda.gridsize(1)

    return kernel


@cache
def forward():
    return cuda.jit(forward_function())


@cache
def backward(acc_t):
    return cuda.jit(backward_function(acc_t))


@cache
def bicubic_forward():
    return cuda.jit(bicubic_forward_function())


@cache
def bicubic_backward(acc_t):
    return cuda.jit(bicubic_backward_function(acc_t))
