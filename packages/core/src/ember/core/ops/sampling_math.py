"""grid_sample's scalar math (`F.grid_sample`), written once as plain Python and compiled per device.

Every function here but the CPU's `taps` pass takes and returns numbers and calls only `math` and
the functions of this module, so `compiled` builds the set for the CPU (`numba.njit`, called by `_sampling_kernels`) and
for CUDA (device functions, called by `cuda/kernels/sampling.py`) by rebinding their globals, as
`special_math` does. Coordinates are float64; a tap is a flat offset into an input plane, -1 for
one outside the input (which reads nothing), its weight and the weight's derivative in each grid
coordinate. Modes: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros, 1 border, 2 reflection.

Non-finite coordinates never reach an index. Under border or reflection padding a coordinate that is NaN
after padding (a NaN grid value; an infinite one reflected) is clamped as PyTorch's CPU kernels clamp it: to 0 in
2-D (its vectorized `maximum(c, 0)` answers 0), to the far edge in 3-D (its scalar `std::min(size - 1, NaN)` answers
the bound), with a zero derivative. Under zeros padding a NaN point reads nothing (its index is out of range)
with nearest interpolation or in 3-D. A non-finite point is *undefined* under 2-D bilinear with zeros padding
(PyTorch's weights are NaN there) and before a bicubic stencil: its output is NaN, its grid gradient NaN, and it
adds nothing to the input's gradient. PyTorch's backward of a NaN point crashes or reads an arbitrary pixel;
ember's is the clamped forward's. Other coordinates past int32 (inf otherwise under zeros padding) map to a point
far outside every input (PyTorch's `safe_downgrade_to_int_range`): they read nothing, giving 0.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable

__all__ = ["UNDEFINED", "reflect", "finite", "pad", "unnormalize", "round32", "unnormalize32", "source",
           "source_taps", "unnormalize_taps", "undefined_linear", "round_half", "unnormalize_half",
           "unnormalize_half3d", "half_weight",
           "nearbyint", "nearest_tap", "linear_tap", "cubic_tap", "split_factor", "taps", "compiled"]

_A = -0.75  # the cubic convolution constant of PyTorch's bicubic mode
_INF = math.inf
_NAN = math.nan
UNDEFINED = -2  # the tap index that marks an undefined point (NaN output) in `taps`' table
_INT_LO = -2147483648.0
_INT_HI = 2147483646.0


def reflect(c, twice_low, twice_high):
    """`c` reflected into [low, high]; returns (value, d value / d c)."""
    if twice_low == twice_high:
        return 0.0, 0.0
    lo = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    c = c - lo
    sign = 1.0
    if c < 0:
        sign = -1.0
        c = -c
    # no float -> int conversion: c may be NaN, inf or huge (undefined in machine code, an error in the
    # CUDA simulator); NaN and inf give NaN here: the point is undefined
    if not abs(c) < _INF:
        return _NAN, 0.0
    flips = c // span  # a float: floor without the conversion
    extra = c - flips * span  # fmod, for c >= 0
    if flips % 2.0 == 0.0:
        return extra + lo, sign
    return span - extra + lo, -sign


def finite(v):
    """`v`, or a coordinate far outside every input for inf and values past int32 (NaN stays NaN)."""
    if v != v or _INT_LO <= v <= _INT_HI:
        return v
    return -100.0


def pad(c, size, padding, align, vectorized=True):
    """The padding mode applied to an unnormalized coordinate; returns (value, d value / d c). NaN clamps to 0
    for PyTorch's 2-D (`vectorized`) kernel, to the far edge for its 3-D one (module docstring)."""
    g = 1.0
    if padding == 2:
        if align:
            c, g = reflect(c, 0.0, 2.0 * (size - 1))
        else:
            c, g = reflect(c, -1.0, 2.0 * size - 1.0)
    if padding >= 1:
        # a clipped coordinate's derivative: +0 in the 2-D kernel (a bit mask), the reflection's signed zero in
        # the 3-D one (a product)
        z = 0.0 if vectorized else g * 0.0
        if c <= 0:
            c, g = 0.0, z
        elif c >= size - 1:
            c, g = size - 1.0, z
        elif c != c:
            c, g = (0.0 if vectorized else size - 1.0), z
    return finite(c), g


def unnormalize(c, size, align):
    """[-1, 1] -> pixel coordinates; returns (value, d value / d c)."""
    if align:
        return (c + 1.0) / 2.0 * (size - 1), (size - 1) / 2.0
    return ((c + 1.0) * size - 1.0) / 2.0, size / 2.0


def round32(v):
    """`v` rounded to the nearest float32 (half to even), for float32 inputs' coordinate math."""
    if v == 0.0 or not abs(v) < _INF:
        return v
    m, e = math.frexp(v)
    return math.ldexp(nearbyint(m * 16777216.0) / 16777216.0, e)


def round_half(v, bits):
    """`v` rounded (half to even) to a float of `bits` significand bits: 11 float16 (subnormal below 2**-14),
    8 bfloat16."""
    if v == 0.0 or not abs(v) < _INF:
        return v
    if bits == 11 and abs(v) < 6.103515625e-05:
        return nearbyint(v * 16777216.0) / 16777216.0
    m, e = math.frexp(v)
    q = 2.0 ** bits
    return math.ldexp(nearbyint(m * q) / q, e)


def unnormalize_half(c, size, align, bits):
    """PyTorch's 2-D CPU `unnormalize` in float16/bfloat16, every operation rounded (see unnormalize32)."""
    c1 = round_half(c + 1.0, bits)
    if align:
        return round_half(c1 * round_half((size - 1) / 2.0, bits), bits)
    return round_half(round_half(c1 * round_half(size / 2.0, bits), bits) - 0.5, bits)


def unnormalize_half3d(c, size, align, bits):
    """PyTorch's scalar 3-D CPU `unnormalize` in float16/bfloat16, every operation rounded: `((c + 1) / 2) *
    (size - 1)` or `((c + 1) * size - 1) / 2`."""
    c1 = round_half(c + 1.0, bits)
    if align:
        return round_half(round_half(c1 / 2.0, bits) * (size - 1), bits)
    return round_half(round_half(round_half(c1 * size, bits) - 1.0, bits) / 2.0, bits)


def unnormalize32(c, size, align, vectorized):
    """`unnormalize` in float32, rounded after each operation as PyTorch's float kernels: its 2-D CPU kernel
    computes `(c + 1) * s` with s = (size - 1) / 2 (align) or `(c + 1) * (size / 2) - 0.5`, its 3-D one
    `((c + 1) / 2) * (size - 1)` or `((c + 1) * size - 1) / 2`."""
    c1 = round32(c + 1.0)
    if vectorized:
        if align:
            return round32(c1 * round32((size - 1) / 2.0)), (size - 1) / 2.0
        return round32(round32(c1 * (size / 2.0)) - 0.5), size / 2.0
    if align:
        return round32(c1 / 2.0 * (size - 1)), (size - 1) / 2.0
    return round32(round32(c1 * size) - 1.0) / 2.0, size / 2.0


def source(c, size, padding, align, vectorized=True):
    """A grid coordinate's pixel coordinate after padding, and its derivative (`vectorized`: the 2-D kernel)."""
    u, gu = unnormalize(c, size, align)
    p, gp = pad(u, size, padding, align, vectorized)
    return p, gu * gp


def nearbyint(v):
    """Round half to even, as `std::nearbyint`."""
    r = math.floor(v) * 1.0
    d = v - r
    if d > 0.5 or (d == 0.5 and r % 2 != 0):
        r += 1.0
    return r


def nearest_tap(ix, iy, iz, w_, h_, d_):
    """The offset of the pixel nearest to (ix, iy, iz), or -1 outside the input."""
    xi, yi, zi = nearbyint(ix), nearbyint(iy), nearbyint(iz)
    if 0 <= xi < w_ and 0 <= yi < h_ and 0 <= zi < d_:
        return (int(zi) * h_ + int(yi)) * w_ + int(xi)
    return -1


def _corner(i0, ic, bit):
    # the tap and its weight along one dim for the corner bit; returns (tap, weight, d weight / d coord)
    if bit:
        return i0 + 1.0, ic - i0, 1.0
    return i0, i0 + 1.0 - ic, -1.0


def linear_tap(ix, iy, iz, k, w_, h_, d_):
    """Corner `k` (bit 0 x, bit 1 y, bit 2 z) of the (tri)linear stencil at (ix, iy, iz): (offset or
    -1, weight, d weight / d ix, d weight / d iy, d weight / d iz)."""
    tx, wx, sx = _corner(math.floor(ix) * 1.0, ix, k & 1)
    ty, wy, sy = _corner(math.floor(iy) * 1.0, iy, (k >> 1) & 1)
    tz, wz, sz = _corner(math.floor(iz) * 1.0, iz, k >> 2)
    if 0 <= tx < w_ and 0 <= ty < h_ and 0 <= tz < d_:
        off = (int(tz) * h_ + int(ty)) * w_ + int(tx)
        return off, wx * wy * wz, sx * wy * wz, wx * sy * wz, wx * wy * sz
    return -1, 0.0, 0.0, 0.0, 0.0


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
    if k == 1:
        return v, dv
    return v, -dv


def _bounded(v, size, padding, align):
    # a bicubic tap's index after padding, or -1 outside the input
    i = int(pad(v, size, padding, align)[0])
    if 0 <= i < size:
        return i
    return -1


def cubic_tap(ix, iy, k, w_, h_, padding, align):
    """Tap `k` (of 16, row-major over the 4x4 stencil) of the bicubic stencil at the unnormalized,
    `finite` (ix, iy): (offset or -1, weight, d weight / d ix, d weight / d iy)."""
    a, b = k >> 2, k & 3
    x0, y0 = math.floor(ix) * 1.0, math.floor(iy) * 1.0
    yi = _bounded(y0 - 1.0 + a, h_, padding, align)
    xj = _bounded(x0 - 1.0 + b, w_, padding, align)
    if yi < 0 or xj < 0:
        return -1, 0.0, 0.0, 0.0
    cy, dcy = _cubic(iy - y0, a)
    cx, dcx = _cubic(ix - x0, b)
    return yi * w_ + xj, cx * cy, dcx * cy, cx * dcy


def source_taps(c, size, padding, align, single, vectorized):
    """`source`, with float32 coordinate math when `single` (see unnormalize32)."""
    if not single:
        return source(c, size, padding, align, vectorized)
    u, gu = unnormalize32(c, size, align, vectorized)
    p, gp = pad(u, size, padding, align, vectorized)
    return p, gu * gp


def unnormalize_taps(c, size, align, single):
    """bicubic's `unnormalize` (2-D only), with float32 math when `single`."""
    if single:
        return unnormalize32(c, size, align, True)
    return unnormalize(c, size, align)


def undefined_linear(gx, gy, gdim, mode, padding):
    """Whether a (bi)linear point is undefined (module docstring): non-finite in 2-D under zeros padding."""
    return gdim == 2 and mode == 0 and padding == 0 and not (abs(gx) < _INF and abs(gy) < _INF)


def half_weight(ix, iy, iz, k, gdim, bits):
    """(Tri)linear corner `k`'s weight as PyTorch's CPU kernels compute it in a half type: each side and each
    product, left to right, rounded."""
    x0, y0 = math.floor(ix) * 1.0, math.floor(iy) * 1.0
    wx = round_half(ix - x0, bits) if k & 1 else round_half(x0 + 1.0 - ix, bits)
    wy = round_half(iy - y0, bits) if k & 2 else round_half(y0 + 1.0 - iy, bits)
    w = round_half(wx * wy, bits)
    if gdim == 2:
        return w
    z0 = math.floor(iz) * 1.0
    return round_half(w * round_half(iz - z0 if k & 4 else z0 + 1.0 - iz, bits), bits)


def split_factor(m, muls, n, p, d):
    """A point's coordinate factor `m`, split between the taps' derivatives (returned) and `muls`, which
    multiplies the summed gradient: a clipped point's zero goes there, so the result is the sum times a
    signed zero (PyTorch's), the others stay with the taps (1.0 there)."""
    if m == 0.0:
        muls[n, p, d] = m
        return 1.0
    muls[n, p, d] = 1.0
    return m


def taps(grid, d_, h_, w_, mode, padding, align, single, bits, idx, wts, dws, muls):
    """The CPU kernels' tap table (host only: compiled with `numba.prange`, never for CUDA): grid
    (N, P, gdim) -> idx (N, P, K) int64, wts (N, P, K), dws (N, P, K, gdim) the derivatives scaled by
    the unnormalization and padding factors, muls (N, P, gdim) the zero factor of a clipped point
    (`split_factor`). It lives here so that its disk cache follows this file (Numba invalidates a
    cached function only when its own file changes)."""
    n_, p_, gdim = grid.shape
    k_ = idx.shape[2]
    for row in prange(n_ * p_):  # an undefined point (module docstring) gets the tap UNDEFINED first
        n, p = row // p_, row % p_
        for k in range(k_):
            idx[n, p, k] = -1
            wts[n, p, k] = 0.0
            for d in range(gdim):
                dws[n, p, k, d] = 0.0
        for d in range(gdim):
            muls[n, p, d] = 0.0
        if mode == 2:
            ix, mx = unnormalize_taps(grid[n, p, 0], w_, align, single)
            iy, my = unnormalize_taps(grid[n, p, 1], h_, align, single)
            mx, my = split_factor(mx, muls, n, p, 0), split_factor(my, muls, n, p, 1)
            if not (abs(ix) < _INF and abs(iy) < _INF):
                idx[n, p, 0] = UNDEFINED
                continue
            ix, iy = finite(ix), finite(iy)
            for k in range(16):
                off, wt, dx, dy = cubic_tap(ix, iy, k, w_, h_, padding, align)
                if off >= 0:
                    idx[n, p, k] = off
                    wts[n, p, k] = wt
                    dws[n, p, k, 0] = dx * mx
                    dws[n, p, k, 1] = dy * my
            continue
        ix, mx = source_taps(grid[n, p, 0], w_, padding, align, single, gdim == 2)
        iy, my = source_taps(grid[n, p, 1], h_, padding, align, single, gdim == 2)
        if bits and gdim == 2:  # a half type's coordinates, rounded as PyTorch's 2-D kernel rounds them
            ix = pad(unnormalize_half(grid[n, p, 0], w_, align, bits), w_, padding, align)[0]
            iy = pad(unnormalize_half(grid[n, p, 1], h_, align, bits), h_, padding, align)[0]
        mx, my = split_factor(mx, muls, n, p, 0), split_factor(my, muls, n, p, 1)
        iz, mz = 0.0, 0.0
        if gdim == 3:
            iz, mz = source_taps(grid[n, p, 2], d_, padding, align, single, False)
            mz = split_factor(mz, muls, n, p, 2)
            if bits:  # and the 3-D kernel's, in its own formula
                ix = pad(unnormalize_half3d(grid[n, p, 0], w_, align, bits), w_, padding, align, False)[0]
                iy = pad(unnormalize_half3d(grid[n, p, 1], h_, align, bits), h_, padding, align, False)[0]
                iz = pad(unnormalize_half3d(grid[n, p, 2], d_, align, bits), d_, padding, align, False)[0]
        if undefined_linear(grid[n, p, 0], grid[n, p, 1], gdim, mode, padding):
            idx[n, p, 0] = UNDEFINED
            continue
        if ix != ix or iy != iy or iz != iz:  # no tap finds a pixel
            continue
        if mode == 1:
            off = nearest_tap(ix, iy, iz, w_, h_, d_)
            if off >= 0:
                idx[n, p, 0] = off
                wts[n, p, 0] = 1.0
            continue
        for k in range(k_):
            off, wt, dx, dy, dz = linear_tap(ix, iy, iz, k, w_, h_, d_)
            if off >= 0:
                idx[n, p, k] = off
                wts[n, p, k] = wt if not bits else half_weight(ix, iy, iz, k, gdim, bits)
                dws[n, p, k, 0] = dx * mx
                dws[n, p, k, 1] = dy * my
                if gdim == 3:
                    dws[n, p, k, 2] = dz * mz


prange = range  # `taps`' parallel loop; the CPU build binds numba.prange
_HOST_ONLY = ("taps",)


def compiled(jit: Callable, parallel_range=range) -> dict:
    """This module's functions in one namespace, their globals rebound to `jit`-compiled twins: `jit`
    is `numba.njit(...)` for the CPU or `cuda.jit(device=True)` for CUDA. `name + "_py"` holds each
    Python entry point (globals bound to the compiled helpers); host-only functions (`taps`) get only
    that, for the CPU to compile with its own options, `prange` bound to `parallel_range`."""
    ns: dict = {k: v for k, v in globals().items() if not isinstance(v, types.FunctionType)}
    ns["prange"] = parallel_range
    for name, fn in list(globals().items()):
        if isinstance(fn, types.FunctionType) and fn.__module__ == __name__ and name != "compiled":
            ns[name + "_py"] = types.FunctionType(fn.__code__, ns, name, fn.__defaults__)
            if name not in _HOST_ONLY:
                ns[name] = jit(types.FunctionType(fn.__code__, ns, name, fn.__defaults__))
    return ns
