"""grid_sample kernels over contiguous flat buffers, the CUDA twins of `ops/_sampling_kernels.py`:
the same scalar math (`ops/sampling_math.py`, compiled as device functions), one thread per grid
point, grid-stride.

Input `(N, C, D, H, W)` (D = 1 for 2-D), grid `(N, Do, Ho, Wo, gdim)` with gdim 2 or 3 (a 2-D
grid has no z: it reads 0). `geom` packs (N, C, D, H, W, Do, Ho, Wo, gdim, mode, padding,
align, single). An undefined point (see `sampling_math`) writes NaN and adds nothing. The backward adds
into grad_input with atomics (grid points share taps; `acc_t` is its
dtype, float32 or float64) and writes the grid gradient of its own point. Coordinates are
computed in float64, rounded as float32 arithmetic when geom[12] says the input is not float64, as on the CPU.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

__all__ = [
    "forward_function", "backward_function", "bicubic_forward_function", "bicubic_backward_function", "forward",
    "backward", "bicubic_forward", "bicubic_backward"
]


@cache
def _math() -> dict:
    """`sampling_math` compiled as device functions (the CPU kernels compile the same module)."""
    from ember.core.ops import sampling_math

    return sampling_math.compiled(cuda.jit(device=True))


def forward_function():
    m = _math()
    source, nearest_tap, linear_tap = m["source_taps"], m["nearest_tap"], m["linear_tap"]
    undefined_linear = m["undefined_linear"]

    def kernel(total, geom, x, grid, out):
        c_, d_, h_, w_ = geom[1], geom[2], geom[3], geom[4]
        do, ho, wo, gdim = geom[5], geom[6], geom[7], geom[8]
        mode, padding, align, single = geom[9], geom[10], geom[11] != 0, geom[12] != 0
        plane_in, plane_out = d_ * h_ * w_, do * ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            g = i * gdim
            ix = source(1.0 * grid[g], w_, padding, align, single, gdim == 2)[0]
            iy = source(1.0 * grid[g + 1], h_, padding, align, single, gdim == 2)[0]
            iz = 0.0
            if gdim == 3:
                iz = source(1.0 * grid[g + 2], d_, padding, align, single, False)[0]
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            undefined = undefined_linear(grid[g], grid[g + 1], gdim, mode, padding)
            for c in range(c_):
                out[base_out + c * plane_out] = math.nan if undefined else 0.0
            if undefined:
                pass
            elif mode == 1:
                off = nearest_tap(ix, iy, iz, w_, h_, d_)
                if off >= 0:
                    for c in range(c_):
                        out[base_out + c * plane_out] = x[base_in + c * plane_in + off]
            else:
                for k in range(4 if gdim == 2 else 8):
                    off, wt, _, _, _ = linear_tap(ix, iy, iz, k, w_, h_, d_)
                    if off >= 0:
                        for c in range(c_):
                            out[base_out + c * plane_out] += x[base_in + c * plane_in + off] * wt
            i += cuda.gridsize(1)

    return kernel


def backward_function(acc_t):
    m = _math()
    source, nearest_tap, linear_tap = m["source_taps"], m["nearest_tap"], m["linear_tap"]
    undefined_linear = m["undefined_linear"]

    def kernel(total, geom, gout, x, grid, gin, ggrid):
        c_, d_, h_, w_ = geom[1], geom[2], geom[3], geom[4]
        do, ho, wo, gdim = geom[5], geom[6], geom[7], geom[8]
        mode, padding, align, single = geom[9], geom[10], geom[11] != 0, geom[12] != 0
        plane_in, plane_out = d_ * h_ * w_, do * ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            g = i * gdim
            ix, mx = source(1.0 * grid[g], w_, padding, align, single, gdim == 2)
            iy, my = source(1.0 * grid[g + 1], h_, padding, align, single, gdim == 2)
            iz, mz = 0.0, 0.0
            if gdim == 3:
                iz, mz = source(1.0 * grid[g + 2], d_, padding, align, single, False)
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            gx = gy = gz = 0.0
            if undefined_linear(grid[g], grid[g + 1], gdim, mode, padding):
                gx = gy = gz = math.nan
            elif ix != ix or iy != iy or iz != iz:  # no tap finds a pixel
                pass
            elif mode == 1:
                off = nearest_tap(ix, iy, iz, w_, h_, d_)
                if off >= 0:
                    for c in range(c_):
                        cuda.atomic.add(gin, base_in + c * plane_in + off, acc_t(gout[base_out + c * plane_out]))
            else:
                for k in range(4 if gdim == 2 else 8):
                    off, wt, dx, dy, dz = linear_tap(ix, iy, iz, k, w_, h_, d_)
                    if off >= 0:
                        acc = 0.0
                        for c in range(c_):
                            go = gout[base_out + c * plane_out]
                            cuda.atomic.add(gin, base_in + c * plane_in + off, acc_t(wt * go))
                            acc += x[base_in + c * plane_in + off] * go
                        gx += acc * dx
                        gy += acc * dy
                        gz += acc * dz
            ggrid[g] = gx * mx
            ggrid[g + 1] = gy * my
            if gdim == 3:
                ggrid[g + 2] = gz * mz
            i += cuda.gridsize(1)

    return kernel


def bicubic_forward_function():
    m = _math()
    unnormalize, finite, cubic_tap = m["unnormalize_taps"], m["finite"], m["cubic_tap"]

    def kernel(total, geom, x, grid, out):
        c_, h_, w_ = geom[1], geom[3], geom[4]
        ho, wo = geom[6], geom[7]
        padding, align, single = geom[10], geom[11] != 0, geom[12] != 0
        plane_in, plane_out = h_ * w_, ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            ix = unnormalize(1.0 * grid[2 * i], w_, align, single)[0]
            iy = unnormalize(1.0 * grid[2 * i + 1], h_, align, single)[0]
            undefined = not (abs(ix) < math.inf and abs(iy) < math.inf)
            ix, iy = finite(ix), finite(iy)
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            for c in range(c_):
                out[base_out + c * plane_out] = math.nan if undefined else 0.0
            for k in range(0 if undefined else 16):
                off, wt, _, _ = cubic_tap(ix, iy, k, w_, h_, padding, align)
                if off >= 0:
                    for c in range(c_):
                        out[base_out + c * plane_out] += x[base_in + c * plane_in + off] * wt
            i += cuda.gridsize(1)

    return kernel


def bicubic_backward_function(acc_t):
    m = _math()
    unnormalize, finite, cubic_tap = m["unnormalize_taps"], m["finite"], m["cubic_tap"]

    def kernel(total, geom, gout, x, grid, gin, ggrid):
        c_, h_, w_ = geom[1], geom[3], geom[4]
        ho, wo = geom[6], geom[7]
        padding, align, single = geom[10], geom[11] != 0, geom[12] != 0
        plane_in, plane_out = h_ * w_, ho * wo
        i = cuda.grid(1)
        while i < total:
            n = i // plane_out
            q = i % plane_out
            ix, mx = unnormalize(1.0 * grid[2 * i], w_, align, single)
            iy, my = unnormalize(1.0 * grid[2 * i + 1], h_, align, single)
            undefined = not (abs(ix) < math.inf and abs(iy) < math.inf)
            ix, iy = finite(ix), finite(iy)
            base_out = n * c_ * plane_out + q
            base_in = n * c_ * plane_in
            gx = gy = math.nan if undefined else 0.0
            for k in range(0 if undefined else 16):
                off, wt, dx, dy = cubic_tap(ix, iy, k, w_, h_, padding, align)
                if off >= 0:
                    acc = 0.0
                    for c in range(c_):
                        go = gout[base_out + c * plane_out]
                        cuda.atomic.add(gin, base_in + c * plane_in + off, acc_t(wt * go))
                        acc += x[base_in + c * plane_in + off] * go
                    gx += acc * dx
                    gy += acc * dy
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
