"""The Numba kernels of `ember.core.cpu_sampling` (PyTorch's CPU samplers), module-level so that Numba's disk
cache serves them in every process; imported on the first draw that needs one."""

import math

import numpy as np
import numba
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ember.core._fma_kernels import fma


@intrinsic
def float_bits(typingctx, x):
    """A float32's bits as an int32 (no conversion)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(types.float32), codegen


@intrinsic
def bits_float(typingctx, i):
    """An int32's bits as a float32."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


# NOTE [ The engine in compiled code ]
# The Mersenne Twister itself (`key`, its 624 words, and `st[0]`, the index of the next word; 624 means a twist is
# due, as in numpy's and PyTorch's engines) runs here, so that a sampler makes each word and turns it into a value
# in one pass over an L1-sized chunk: a million float32 uniforms take one pass instead of a uint64 word array
# written and read again.
_N, _M = 624, 397
UPPER, LOWER, MATRIX = np.uint64(0x80000000), np.uint64(0x7FFFFFFF), np.uint64(0x9908B0DF)
B, C = np.uint64(0x9D2C5680), np.uint64(0xEFC60000)
u1, u7, u11, u15, u18 = (np.uint64(k) for k in (1, 7, 11, 15, 18))
CHUNK = 1024  # values converted per chunk: their words stay in L1


@numba.njit(inline="always")
def mix(a, b, c):
    y = (np.uint64(a) & UPPER) | (np.uint64(b) & LOWER)
    return np.uint32(np.uint64(c) ^ (y >> u1) ^ ((y & u1) * MATRIX))


@numba.njit(inline="always")
def twist(key):
    for i in range(_N - _M):
        key[i] = mix(key[i], key[i + 1], key[i + _M])
    for i in range(_N - _M, _N - 1):
        key[i] = mix(key[i], key[i + 1], key[i + _M - _N])
    key[_N - 1] = mix(key[_N - 1], key[0], key[_M - 1])


@numba.njit(inline="always")
def temper(w):
    y = np.uint64(w)
    y ^= y >> u11
    y ^= (y << u7) & B
    y ^= (y << u15) & C
    return y ^ (y >> u18)


@numba.njit(inline="always")
def double53(hi, lo):
    """A float64 uniform in [0, 1) from a 64-bit draw's two words (the first the high half): 53 bits times 2**-53."""
    return np.float64(((hi << np.uint64(32)) | lo) & np.uint64((1 << 53) - 1)) * 1.1102230246251565e-16


@numba.njit(inline="always")
def draw(key, st, w):
    """The next `w.size` tempered words into `w`."""
    pos = st[0]
    i = 0
    n = w.size
    while i < n:
        if pos == _N:
            twist(key)
            pos = 0
        m = min(_N - pos, n - i)
        for j in range(m):
            w[i + j] = temper(key[pos + j])
        pos += m
        i += m
    st[0] = pos


@numba.njit(inline="always")
def next_double(key, st):
    """One float64 uniform (53 bits of a 64-bit draw), for samplers that do not know how many they need."""
    pos = st[0]
    if pos >= _N - 1:
        if pos == _N - 1:
            hi = temper(key[pos])
            twist(key)
            lo = temper(key[0])
            st[0] = 1
        else:
            twist(key)
            hi = temper(key[0])
            lo = temper(key[1])
            st[0] = 2
    else:
        hi = temper(key[pos])
        lo = temper(key[pos + 1])
        st[0] = pos + 2
    return double53(hi, lo)


@numba.njit(cache=True, nogil=True)
def words(key, st, n):
    """`n` words (uint64 holding 32-bit values)."""
    out = np.empty(n, np.uint64)
    draw(key, st, out)
    return out


@numba.njit(cache=True, nogil=True)
def words64(key, st, n):
    """`n` 64-bit draws, each two words, the first the high half."""
    out = np.empty(n, np.uint64)
    w = np.empty(2 * CHUNK, np.uint64)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        draw(key, st, w[:2 * m])
        for i in range(m):
            out[start + i] = (w[2 * i] << np.uint64(32)) | w[2 * i + 1]
    return out


@numba.njit(cache=True, nogil=True)
def uniform32(key, st, out, low, span, ranged):
    """`out` (float32): 24 bits of each word times 2**-24, then `x * span + low` fused (NOTE [ The AVX2 normal
    fill ])."""
    n = out.size
    w = np.empty(CHUNK, np.uint32)
    scale = np.float32(5.9604644775390625e-08)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        draw(key, st, w[:m])
        for i in range(m):
            x = np.float32(w[i] & np.uint32(0xFFFFFF)) * scale
            out[start + i] = fma(x, span, low) if ranged else x
    return out


@numba.njit(cache=True, nogil=True)
def uniform64(key, st, out, scale, shift, ranged):
    """`out` (float64): 53 bits of each 64-bit draw times 2**-53, then `x * scale + shift` fused where `ranged`."""
    n = out.size
    w = np.empty(2 * CHUNK, np.uint64)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        draw(key, st, w[:2 * m])
        for i in range(m):
            x = double53(w[2 * i], w[2 * i + 1])
            out[start + i] = fma(x, scale, shift) if ranged else x
    return out


@numba.njit(cache=True, nogil=True)
def dropout(key, st, x, out, keep, q, scale):
    """PyTorch's CPU dropout, `x * empty_like(x).bernoulli_(q).div_(q)`, in one pass over a contiguous 1-D `x`:
    `keep` where a float64 uniform (53 bits of a 64-bit draw) is below `q`, and `out = x * noise`, the noise
    `scale` there and 0 elsewhere (so NaN and inf stay NaN, as x * 0)."""
    n = x.size
    zero = scale * 0
    w = np.empty(2 * CHUNK, np.uint64)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        draw(key, st, w[:2 * m])
        for i in range(m):
            k = double53(w[2 * i], w[2 * i + 1]) < q
            keep[start + i] = k
            out[start + i] = x[start + i] * (scale if k else zero)
    return out


@numba.njit(cache=True, nogil=True)
def randint32(key, st, out, span, low):
    """`out` (int64): `random_(low, low + span)` for a span below 2**32, a word mod the span."""
    n = out.size
    w = np.empty(CHUNK, np.uint32)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        draw(key, st, w[:m])
        for i in range(m):
            out[start + i] = np.int64(w[i] % span) + low
    return out


@numba.njit(cache=True, nogil=True)
def randperm(key, st, n):
    """The forward Fisher-Yates shuffle of 0..n-1: element i swapped with i + word mod (n - i)."""
    perm = np.arange(n)
    w = np.empty(CHUNK, np.uint64)
    for start in range(0, n - 1, CHUNK):
        m = min(CHUNK, n - 1 - start)
        draw(key, st, w[:m])
        for j in range(m):
            i = start + j
            z = i + np.int64(w[j] % np.uint64(n - i))
            perm[i], perm[z] = perm[z], perm[i]
    return perm


# NOTE [ The AVX2 normal fill ]
# PyTorch's float32 `normal_fill` (AVX2; its AVX-512 build keeps this kernel) takes log, sine and cosine from
# Cephes-style polynomials in float32 (the range reduction and coefficients of Cephes' logf/sinf/cosf), and its
# compiler fuses each multiply feeding an add into one FMA (`_fma`, LLVM's), and the order of the steps below is
# the one whose results equal PyTorch's bit for bit (checked on 320,000 draws). The same fusion of `x * scale +
# shift` is in its uniform's range, its normals' mean and std, and its Cauchy's median and sigma.
#
# `normal_fill_16_AVX2` over blocks of 16 float32 uniforms, in place: one compiled pass.
f32 = np.float32
p = tuple(f32(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                                1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                                3.3333331174e-1))  # Cephes logf
q1, q2, sqrthf, tiny = f32(-2.12194440e-4), f32(0.693359375), f32(0.707106781186547524), f32(1.17549435e-38)
dp1, dp2, dp3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)
c0, c1, c2 = f32(2.443315711809948e-5), f32(-1.388731625493765e-3), f32(4.166664568298827e-2)
s0, s1, s2 = f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1)
fopi, two_pi, one, half = f32(1.27323954473516), f32(2 * math.pi), f32(1.0), f32(0.5)


@numba.njit(inline="always")
def log32(x):
    x = max(x, tiny)
    bits = float_bits(x)
    e = np.float32((bits >> 23) - 0x7F) + one
    m = bits_float(np.int32((bits & ~0x7F800000) | 0x3F000000))
    x = m - one
    if m < sqrthf:
        x = x + m
        e = e - one
    z = x * x
    y = p[0]
    y = fma(y, x, p[1])
    y = fma(y, x, p[2])
    y = fma(y, x, p[3])
    y = fma(y, x, p[4])
    y = fma(y, x, p[5])
    y = fma(y, x, p[6])
    y = fma(y, x, p[7])
    y = fma(y, x, p[8])
    y = fma(y * x, z, e * q1)
    y = fma(z, -half, y)
    return fma(e, q2, x + y)

@numba.njit(inline="always")
def sincos32(x):
    negative = x < 0
    x = abs(x)
    j = (np.int32(x * fopi) + 1) & ~1
    y = np.float32(j)
    x = fma(y, dp1, x)
    x = fma(y, dp2, x)
    x = fma(y, dp3, x)
    sin_negative = negative ^ ((j & 4) != 0)
    cos_negative = (~(j - 2) & 4) != 0
    z = x * x
    yc = fma(c0, z, c1)
    yc = fma(yc, z, c2)
    yc = fma(yc * z, z, -(z * half)) + one
    ys = fma(s0, z, s1)
    ys = fma(ys, z, s2)
    ys = fma(ys * z, x, x)
    if (j & 2) != 0:
        sn, cs = yc, ys
    else:
        sn, cs = ys, yc
    return (-sn if sin_negative else sn), (-cs if cos_negative else cs)

@numba.njit(nogil=True)
def block(b, mean, std, plain):
    """16 uniforms `b` replaced by 16 normals; compiled once for `normal32`'s two calls (inlined into both, its
    first compile took 0.8 s more)."""
    for i in range(8):
        radius = np.sqrt(np.float32(-2.0) * log32(one - b[i]))
        sn, cs = sincos32(two_pi * b[i + 8])
        n1 = radius * cs
        n2 = radius * sn
        if plain:
            b[i] = n1
            b[i + 8] = n2
        else:
            b[i] = fma(n1, std, mean)
            b[i + 8] = fma(n2, std, mean)

@numba.njit(cache=True, nogil=True)
def normal32(key, st, out, whole, mean, std, plain):
    """`out` (n float32 values): the next `whole` words as uniforms, each whole block of 16 turned into normals;
    where 16 does not divide n, its last 16 values from 16 more words, written in a loop (a slice assignment
    compiles Numba's shape-mismatch message: 2.3 s of the first `randn`)."""
    n = out.size
    w = np.empty(CHUNK, np.uint32)
    scale = np.float32(5.9604644775390625e-08)
    for start in range(0, whole, CHUNK):
        m = min(CHUNK, whole - start)
        draw(key, st, w[:m])
        for i in range(m):
            out[start + i] = np.float32(w[i] & np.uint32(0xFFFFFF)) * scale
        for k in range(start, start + m - 15, 16):
            block(out[k:k + 16], mean, std, plain)
    if n % 16:
        draw(key, st, w[:16])
        for i in range(16):
            out[n - 16 + i] = np.float32(w[i] & np.uint32(0xFFFFFF)) * scale
        block(out[n - 16:], mean, std, plain)
    return out


@numba.njit(inline="always")
def block64(b, out, mean, std, plain):
    """PyTorch's float64 `normal_fill_16` of 16 uniforms `b` into `out`, its log, cosine and sine glibc's."""
    for i in range(8):
        radius = math.sqrt(-2.0 * math.log(1.0 - b[i]))
        theta = 2.0 * math.pi * b[i + 8]
        n1 = radius * math.cos(theta)
        n2 = radius * math.sin(theta)
        if plain:
            out[i] = n1
            out[i + 8] = n2
        else:
            out[i] = fma(n1, std, mean)
            out[i + 8] = fma(n2, std, mean)


@numba.njit(cache=True, nogil=True)
def normal64(key, st, out, mean, std, plain):
    """`normal_fill` in float64 over n >= 16 values into `out`: blocks of 16 float64 uniforms; where 16 does not
    divide n, the uniforms past the last whole block are drawn and dropped and 16 more make the last 16 values."""
    n = out.size
    whole = n // 16 * 16
    w = np.empty(2 * CHUNK, np.uint64)
    u = np.empty(CHUNK)
    for start in range(0, whole, CHUNK):
        m = min(CHUNK, whole - start)
        draw(key, st, w[:2 * m])
        for i in range(m):
            u[i] = double53(w[2 * i], w[2 * i + 1])
        for k in range(0, m, 16):
            block64(u[k:k + 16], out[start + k:start + k + 16], mean, std, plain)
    if n % 16:
        draw(key, st, w[:2 * (n - whole)])
        draw(key, st, w[:32])
        for i in range(16):
            u[i] = double53(w[2 * i], w[2 * i + 1])
        block64(u[:16], out[n - 16:], mean, std, plain)
    return out


@numba.njit(cache=True, nogil=True)
def serial_normal64(key, st, out, start, scale, shift, ranged):
    """`out[start:]` (float64) from Box-Muller pairs of uniforms drawn in turn (PyTorch's
    `normal_distribution<double>`: the cosine served, the sine kept for the next draw), then `x * scale + shift`
    fused over all of `out` where `ranged`; returns the last pair's unserved sine (NaN when none is left)."""
    n = out.size
    left = np.nan
    for j in range(start, n, 2):
        u1 = next_double(key, st)
        u2 = next_double(key, st)
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        out[j] = r * math.cos(theta)
        if j + 1 < n:
            out[j + 1] = r * math.sin(theta)
        else:
            left = r * math.sin(theta)
    if ranged:
        for j in range(n):
            out[j] = fma(out[j], scale, shift)
    return left


# One float64 transform per `kind` over a 1-D array, through glibc's functions as PyTorch's samplers call them
# (numpy's own SIMD log, exp and tan differ from glibc's in the last bit on a few values in a thousand).

@numba.njit(cache=True, nogil=True)
def apply(x, kind, a):
    out = np.empty(x.size)
    for i in range(x.size):
        v = x[i]
        if kind == 0:
            out[i] = math.log(v)
        elif kind == 1:
            out[i] = math.cos(v)
        elif kind == 2:
            out[i] = math.sin(v)
        elif kind == 3:  # a: the rate
            out[i] = -1.0 / a * math.log(1.0 - v)
        elif kind == 4:
            out[i] = math.tan(math.pi * (v - 0.5))
        elif kind == 5:  # a: log(1 - p)
            out[i] = math.ceil(math.log(v) / a)
        else:
            out[i] = math.exp(v)
    return out


@numba.njit(cache=True, nogil=True)
def affine(x, scale, shift):
    """`x * scale + shift` fused, elementwise, over a float64 array of any shape."""
    out = np.empty_like(x)
    flat, res = x.reshape(-1), out.reshape(-1)
    for i in range(flat.size):
        res[i] = fma(flat[i], scale, shift)
    return out


@numba.njit(cache=True, nogil=True)
def mod_shift(draws, span, low):
    out = np.empty(draws.size, np.int64)
    for i in range(draws.size):
        out[i] = np.int64(draws[i] % span) + low
    return out


@numba.njit(cache=True, nogil=True)
def poisson(rates, key, st, cache_valid, cache):
    out = np.empty(rates.size)
    k = 0
    for i in range(rates.size):
        lam = rates[i]
        if lam >= 10.0:
            slam = math.sqrt(lam)
            loglam = math.log(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while True:
                uu = next_double(key, st) - 0.5
                v = next_double(key, st)
                k += 2
                us = 0.5 - abs(uu)
                x = math.floor((2 * a / us + b) * uu + lam + 0.43)
                if us >= 0.07 and v <= vr:
                    break
                if x < 0 or (us < 0.013 and v > us):
                    continue
                if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= \
                        (-lam + x * loglam - math.lgamma(x + 1)):
                    break
            out[i] = x
        elif lam == 0.0:
            out[i] = 0.0
        else:
            enlam = math.exp(-lam)
            x = 0.0
            prod = 1.0
            while True:
                prod *= next_double(key, st)
                k += 1
                if prod > enlam:
                    x += 1.0
                else:
                    break
            out[i] = x
    return out, k, cache_valid, cache


third = float(np.float32(1.0) / np.float32(3.0))  # PyTorch's 1.0f / 3.0f
c0331 = float(np.float32(0.0331))

@numba.njit(cache=True, nogil=True)
def gamma(alphas, float32, key, st, cache_valid, cache):
    out = np.empty(alphas.size)
    k = 0
    for i in range(alphas.size):
        alpha = alphas[i]
        scale = 1.0
        if alpha < 1.0:
            if alpha == 0.0:
                out[i] = 0.0
                continue
            inv = np.float32(1.0) / np.float32(alpha) if float32 else 1.0 / alpha
            scale *= (1.0 - next_double(key, st)) ** inv
            k += 1
            alpha = np.float32(alpha) + np.float32(1.0) if float32 else alpha + 1.0
        d = np.float32(alpha) - np.float32(third) if float32 else alpha - third
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            while True:  # x, a standard normal: the cached sine, or a new Box-Muller pair
                if cache_valid:
                    x = cache
                    cache_valid = False
                else:
                    u1 = next_double(key, st)
                    r = math.sqrt(-2.0 * math.log1p(-next_double(key, st)))
                    theta = 2.0 * math.pi * u1
                    k += 2
                    cache = r * math.sin(theta)
                    cache_valid = True
                    x = r * math.cos(theta)
                y = 1.0 + c * x
                if not y <= 0:  # PyTorch's `while (y <= 0)`: a NaN y (alpha <= 0 or NaN) ends the loop too
                    break
            v = y * y * y
            uu = 1.0 - next_double(key, st)
            k += 1
            xx = x * x
            if uu < 1.0 - c0331 * xx * xx or math.log(uu) < 0.5 * xx + d * (1.0 - v + math.log(v)):
                out[i] = scale * d * v
                break
    return out, k, cache_valid, cache


tails = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287])

@numba.njit(inline="always")
def stirling_tail(k):
    if k <= 9:
        return tails[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)

@numba.njit(cache=True, nogil=True)
def binomial(count, prob, float32, key, st, cache_valid, cache):
    out = np.empty(count.size)
    k_used = 0
    for i in range(count.size):
        n = count[i]
        p = prob[i]
        if n <= 0.0 or p <= 0.0:
            out[i] = 0.0
            continue
        if p >= 1.0:
            out[i] = n
            continue
        flip = p > 0.5
        q = (np.float32(1.0) - np.float32(p) if float32 else 1.0 - p) if flip else p
        if n * q >= 10.0:  # BTRS
            stddev = math.sqrt(n * q * (1 - q))
            b = 1.15 + 2.53 * stddev
            a = -0.0873 + 0.0248 * b + 0.01 * q
            c = n * q + 0.5
            v_r = 0.92 - 4.2 / b
            r = q / (1 - q)
            alpha = (2.83 + 5.1 / b) * stddev
            m = math.floor((n + 1) * q)
            while True:
                uu = next_double(key, st) - 0.5
                v = next_double(key, st)
                k_used += 2
                us = 0.5 - abs(uu)
                k = math.floor((2 * a / us + b) * uu + c)
                if float32:
                    k = np.float32(k)
                if k < 0 or k > n:
                    continue
                if us >= 0.07 and v <= v_r:
                    break
                v = math.log(v * alpha / (a / (us * us) + b))
                upper = ((m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                         + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                         + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1))
                         + stirling_tail(m) + stirling_tail(n - m) - stirling_tail(k) - stirling_tail(n - k))
                if v <= upper:
                    break
            got = k
        else:  # inversion: geometric jumps until they pass n
            logq = math.log1p(-q)
            geom_sum = 0.0
            got = 0.0
            while True:
                geom_sum += math.ceil(math.log(next_double(key, st)) / logq)
                k_used += 1
                if geom_sum > n:
                    break
                got += 1.0
        out[i] = n - got if flip else got
    return out, k_used, cache_valid, cache


@numba.njit(cache=True, nogil=True)
def cdf_search(cdf, u, out):
    """Per row, each uniform's first bucket whose cumulative probability is at least it (PyTorch's binary search),
    clamped to the last bucket."""
    rows, c = cdf.shape
    for i in range(rows):
        for j in range(u.shape[1]):
            x = u[i, j]
            lo, hi = 0, c
            while hi > lo:
                mid = lo + (hi - lo) // 2
                if cdf[i, mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            out[i, j] = min(lo, c - 1)
    return out
