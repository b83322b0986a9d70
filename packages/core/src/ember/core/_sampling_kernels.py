"""The Numba kernels of `ember.core.cpu_sampling` (PyTorch's CPU samplers), module-level so that Numba's disk
cache serves them in every process; imported on the first draw that needs one."""

import math

import numpy as np
import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


# LLVM's `fma` (one rounding, as the FMA instructions PyTorch's compiler emits for `a * b + c`), for float32 or
# float64 operands.
@intrinsic
def fma(typingctx, a, b, c):
    t = types.float32 if a == b == c == types.float32 else types.float64
    ll = ir.FloatType() if t == types.float32 else ir.DoubleType()

    def codegen(context, builder, signature, args):
        args = [context.cast(builder, v, ty, t) for v, ty in zip(args, signature.args)]
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ll, [ll] * 3),
                                            f"llvm.fma.f{32 if t == types.float32 else 64}")
        return builder.call(fn, args)

    return t(a, b, c), codegen


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
def log32(x, fbuf, ibuf):
    x = max(x, tiny)
    fbuf[0] = x
    bits = ibuf[0]
    e = np.float32((bits >> 23) - 0x7F) + one
    ibuf[0] = (bits & ~0x7F800000) | 0x3F000000
    m = fbuf[0]
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

@numba.njit(inline="always")
def block(b, mean, std, plain, fbuf, ibuf):  # b: 16 uniforms, replaced by 16 normals
    for i in range(8):
        radius = np.sqrt(np.float32(-2.0) * log32(one - b[i], fbuf, ibuf))
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
def fill(words, out, whole, mean, std, plain):
    """`out` (n values) from `words`: the first `whole` as blocks of uniforms; where 16 does not divide n, its
    last 16 values again from the last 16 words."""
    n = out.size
    fbuf = np.empty(1, np.float32)
    ibuf = fbuf.view(np.int32)
    scale = np.float32(5.9604644775390625e-08)
    for i in range(whole):
        out[i] = np.float32(words[i] & np.uint64(0xFFFFFF)) * scale
    for k in range(0, whole - 15, 16):
        block(out[k:k + 16], mean, std, plain, fbuf, ibuf)
    if n % 16:
        tail = np.empty(16, np.float32)
        for i in range(16):
            tail[i] = np.float32(words[words.size - 16 + i] & np.uint64(0xFFFFFF)) * scale
        block(tail, mean, std, plain, fbuf, ibuf)
        out[n - 16:] = tail
    return out


@numba.njit(cache=True, nogil=True)
def box_muller(u1, u2):
    c = np.empty(u1.size)
    s = np.empty(u1.size)
    for i in range(u1.size):
        r = math.sqrt(-2.0 * math.log1p(-u2[i]))
        theta = 2.0 * math.pi * u1[i]
        c[i] = r * math.cos(theta)
        s[i] = r * math.sin(theta)
    return c, s


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
def unit(words, low, span, ranged):
    """24 bits of each word times 2**-24, then `x * span + low` fused (NOTE [ The AVX2 normal fill ])."""
    out = np.empty(words.size, np.float32)
    for i in range(words.size):
        x = np.float32(words[i] & np.uint64(0xFFFFFF)) * np.float32(5.9604644775390625e-08)
        out[i] = fma(x, span, low) if ranged else x
    return out


@numba.njit(cache=True, nogil=True)
def mod_shift(draws, span, low):
    out = np.empty(draws.size, np.int64)
    for i in range(draws.size):
        out[i] = np.int64(draws[i] % span) + low
    return out


@numba.njit(cache=True, nogil=True)
def shuffle(words):
    n = words.size + 1
    perm = np.arange(n)
    for i in range(n - 1):
        z = i + np.int64(words[i] % np.uint64(n - i))
        perm[i], perm[z] = perm[z], perm[i]
    return perm


@numba.njit(cache=True, nogil=True)
def poisson(rates, u, cache_valid, cache):
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
                if k + 2 > u.size:
                    return out, -1, cache_valid, cache
                uu = u[k] - 0.5
                v = u[k + 1]
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
                if k >= u.size:
                    return out, -1, cache_valid, cache
                prod *= u[k]
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
def gamma(alphas, float32, u, cache_valid, cache):
    out = np.empty(alphas.size)
    k = 0
    for i in range(alphas.size):
        alpha = alphas[i]
        scale = 1.0
        if alpha < 1.0:
            if alpha == 0.0:
                out[i] = 0.0
                continue
            if k >= u.size:
                return out, -1, cache_valid, cache
            inv = np.float32(1.0) / np.float32(alpha) if float32 else 1.0 / alpha
            scale *= (1.0 - u[k]) ** inv
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
                    if k + 2 > u.size:
                        return out, -1, cache_valid, cache
                    r = math.sqrt(-2.0 * math.log1p(-u[k + 1]))
                    theta = 2.0 * math.pi * u[k]
                    k += 2
                    cache = r * math.sin(theta)
                    cache_valid = True
                    x = r * math.cos(theta)
                y = 1.0 + c * x
                if y > 0:
                    break
            v = y * y * y
            if k >= u.size:
                return out, -1, cache_valid, cache
            uu = 1.0 - u[k]
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
def binomial(count, prob, float32, u, cache_valid, cache):
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
                if k_used + 2 > u.size:
                    return out, -1, cache_valid, cache
                uu = u[k_used] - 0.5
                v = u[k_used + 1]
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
                if k_used >= u.size:
                    return out, -1, cache_valid, cache
                geom_sum += math.ceil(math.log(u[k_used]) / logq)
                k_used += 1
                if geom_sum > n:
                    break
                got += 1.0
        out[i] = n - got if flip else got
    return out, k_used, cache_valid, cache

