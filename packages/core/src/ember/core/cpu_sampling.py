"""PyTorch's CPU samplers over its Mersenne Twister (NOTE [ PyTorch's CPU stream ]): the words each consumes and
how it turns them into values, so that a seeded program draws PyTorch's numbers.

Every sampler fills `n` values in TensorIterator's order, which for a tensor that owns its elements is memory
order (`iteration_order`). The transforms are PyTorch's: a float's uniform takes the low 24 bits of a word
(float32, and the 16-bit types rounded from it) or 53 of a 64-bit draw (float64), times 2**-bits; the serial
normal is Box-Muller
on two float64 uniforms with the second value cached; `normal_` on a contiguous tensor of 16 or more values is
`normal_fill`, Box-Muller over blocks of 16 uniforms (the last block redrawn when 16 does not divide the size),
whose float32 form is PyTorch's AVX2 kernel (NOTE [ The AVX2 normal fill ]).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ember.core.mt19937 import MT19937

__all__ = ["iteration_order", "uniform", "uniform_float64", "normal", "serial_normal", "bernoulli_scalar",
           "bernoulli_tensor", "random_from_to", "random_full", "randperm", "exponential", "cauchy", "log_normal",
           "geometric", "poisson", "gamma", "binomial", "multinomial_with_replacement"]

_M53 = np.uint64((1 << 53) - 1)


def iteration_order(a: np.ndarray) -> np.ndarray:
    """`a` transposed so that C order walks memory order, the order PyTorch's serial kernels fill a tensor in."""
    if a.flags.c_contiguous or a.ndim < 2:
        return a
    return a.transpose(sorted(range(a.ndim), key=lambda d: -abs(a.strides[d])))


def uniform_float64(g: MT19937, n: int) -> np.ndarray:
    """`n` float64 uniforms in [0, 1): 53 bits of a 64-bit draw each."""
    return (g.u64(n) & _M53).astype(np.float64) * 2.0 ** -53


def uniform(g: MT19937, n: int, dtype: np.dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """`n` draws from [low, high) in `dtype` (float16/bfloat16 computed in float32, as PyTorch's acc type)."""
    if np.dtype(dtype) == np.float64:
        x = uniform_float64(g, n)
        return x if (low, high) == (0.0, 1.0) else _affine()(x, high - low, low)
    lo, hi = np.asarray(low, dtype), np.asarray(high, dtype)  # the bounds in the tensor's type
    x = _unit32()(g.u32(n), np.float32(lo), np.float32(hi - lo), (low, high) != (0.0, 1.0))
    if np.dtype(dtype) == np.float32:
        return x
    r = x.astype(dtype)
    r[r == hi] = lo  # a value rounded up to `high` in a 16-bit type becomes `low`, as in PyTorch
    return r


def serial_normal(g: MT19937, n: int, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    """`n` float64 normals one at a time (PyTorch's `normal_distribution<double>`): Box-Muller pairs, the sine of
    each pair served next, from the generator's cache when a draw ends mid-pair."""
    out = np.empty(n)
    i = 0
    if n and g.next_double is not None:
        out[0], g.next_double, i = g.next_double, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = uniform_float64(g, 2 * pairs)
        cos_, sin_ = _box_muller64()(u[0::2], u[1::2])
        both = np.empty(2 * pairs)
        both[0::2], both[1::2] = cos_, sin_
        out[i:] = both[:n - i]
        if (n - i) % 2:
            g.next_double = float(sin_[-1])
    return _affine()(out, std, mean) if (mean, std) != (0.0, 1.0) else out


def normal(g: MT19937, n: int, dtype: np.dtype, contiguous: bool, mean: float = 0.0, std: float = 1.0,
           out: np.ndarray | None = None) -> np.ndarray:
    """`normal_`'s values: `normal_fill` for a contiguous tensor of 16 or more, else the serial normal; a float32
    `normal_fill` writes straight into `out` (1-D, contiguous) where given."""
    if n < 16 or not contiguous:
        return serial_normal(g, n, mean, std).astype(dtype)
    if np.dtype(dtype) != np.float64:  # float32, and the 16-bit types rounded from it
        # float32 draws a uniform per value first; the 16-bit types draw only the whole blocks' (PyTorch 2.13)
        whole = n if np.dtype(dtype) == np.float32 else n // 16 * 16
        words = g.u32(whole + (16 if n % 16 else 0))
        out = np.empty(n, np.float32) if out is None else out
        _avx2_fill()(words, out, whole, np.float32(mean), np.float32(std), (mean, std) == (0.0, 1.0))
        return out.astype(dtype, copy=False)
    u = uniform_float64(g, n + (16 if n % 16 else 0))
    return _fill_blocks(u, n, _block64, mean, std)


def _fill_blocks(u: np.ndarray, n: int, block, mean, std) -> np.ndarray:
    """Box-Muller over the whole blocks of 16, then the last 16 values again from the last 16 uniforms drawn."""
    whole = n // 16 * 16
    out = np.empty(n, u.dtype)
    out[:whole] = block(u[:whole].reshape(-1, 16), mean, std).reshape(-1)
    if n % 16:
        out[n - 16:] = block(u[-16:].reshape(1, 16), mean, std).reshape(-1)
    return out


def _block64(b: np.ndarray, mean, std) -> np.ndarray:
    """PyTorch's float64 `normal_fill_16`, its log, cosine and sine glibc's."""
    radius = np.sqrt(-2.0 * _libm()((1.0 - b[:, :8]).ravel(), _LOG, 0.0)).reshape(-1, 8)
    theta = (2.0 * math.pi * b[:, 8:]).ravel()
    c = _libm()(theta, _COS, 0.0).reshape(-1, 8)
    s = _libm()(theta, _SIN, 0.0).reshape(-1, 8)
    if (mean, std) == (0.0, 1.0):
        return np.concatenate([radius * c, radius * s], axis=1)
    return np.concatenate([_affine()(radius * c, std, mean), _affine()(radius * s, std, mean)], axis=1)


# NOTE [ The AVX2 normal fill ]
# PyTorch's float32 `normal_fill` (AVX2; its AVX-512 build keeps this kernel) takes log, sine and cosine from
# Cephes-style polynomials in float32 (the range reduction and coefficients of Cephes' logf/sinf/cosf), and its
# compiler fuses each multiply feeding an add into one FMA (`_fma`, LLVM's), and the order of the steps below is
# the one whose results equal PyTorch's bit for bit (checked on 320,000 draws). The same fusion of `x * scale +
# shift` is in its uniform's range, its normals' mean and std, and its Cauchy's median and sigma.
_LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
          -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)


@cache
def _avx2_fill():
    """`normal_fill_16_AVX2` over blocks of 16 float32 uniforms, in place: one compiled pass."""
    import numba

    f32 = np.float32
    p = tuple(f32(c) for c in _LOG_P)
    q1, q2, sqrthf, tiny = f32(-2.12194440e-4), f32(0.693359375), f32(0.707106781186547524), f32(1.17549435e-38)
    dp1, dp2, dp3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)
    c0, c1, c2 = f32(2.443315711809948e-5), f32(-1.388731625493765e-3), f32(4.166664568298827e-2)
    s0, s1, s2 = f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1)
    fopi, two_pi, one, half = f32(1.27323954473516), f32(2 * math.pi), f32(1.0), f32(0.5)

    fma = _fma()

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

    return fill


@cache
def _fma():
    """LLVM's `fma` (one rounding, as the FMA instructions PyTorch's compiler emits for `a * b + c`), for float32 or
    float64 operands, callable from Numba code."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

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

    return fma


# --- the libm-exact float64 pieces (Numba's math calls glibc's, as PyTorch's std:: calls do) ----------------------
@cache
def _box_muller64():
    import numba

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

    return box_muller


_LOG, _COS, _SIN, _EXPONENTIAL, _CAUCHY, _GEOMETRIC, _EXP = range(7)


@cache
def _libm():
    """One float64 transform per `kind` over a 1-D array, through glibc's functions as PyTorch's samplers call them
    (numpy's own SIMD log, exp and tan differ from glibc's in the last bit on a few values in a thousand)."""
    import numba

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

    return apply


@cache
def _affine():
    import numba

    fma = _fma()

    @numba.njit(cache=True, nogil=True)
    def affine(x, scale, shift):
        """`x * scale + shift` fused, elementwise, over a float64 array of any shape."""
        out = np.empty_like(x)
        flat, res = x.reshape(-1), out.reshape(-1)
        for i in range(flat.size):
            res[i] = fma(flat[i], scale, shift)
        return out

    return affine


@cache
def _unit32():
    import numba

    fma = _fma()

    @numba.njit(cache=True, nogil=True)
    def unit(words, low, span, ranged):
        """24 bits of each word times 2**-24, then `x * span + low` fused (NOTE [ The AVX2 normal fill ])."""
        out = np.empty(words.size, np.float32)
        for i in range(words.size):
            x = np.float32(words[i] & np.uint64(0xFFFFFF)) * np.float32(5.9604644775390625e-08)
            out[i] = fma(x, span, low) if ranged else x
        return out

    return unit


@cache
def _mod_shift():
    import numba

    @numba.njit(cache=True, nogil=True)
    def mod_shift(draws, span, low):
        out = np.empty(draws.size, np.int64)
        for i in range(draws.size):
            out[i] = np.int64(draws[i] % span) + low
        return out

    return mod_shift


@cache
def _shuffle():
    import numba

    @numba.njit(cache=True, nogil=True)
    def shuffle(words):
        n = words.size + 1
        perm = np.arange(n)
        for i in range(n - 1):
            z = i + np.int64(words[i] % np.uint64(n - i))
            perm[i], perm[z] = perm[z], perm[i]
        return perm

    return shuffle


# --- the discrete and the other continuous samplers --------------------------------------------------------------
def bernoulli_scalar(g: MT19937, n: int, p: float) -> np.ndarray:
    """`bernoulli_(p)`: a float64 uniform below `p` (PyTorch's path on CPUs without MKL's Intel stream)."""
    return uniform_float64(g, n) < p


def bernoulli_tensor(g: MT19937, p: np.ndarray) -> np.ndarray:
    """`bernoulli_(p_tensor)` over p's values in order: float64 uniforms for float64 `p`, else float32 ones."""
    if p.dtype == np.float64:
        return uniform_float64(g, p.size) < p.reshape(-1)
    return uniform(g, p.size, np.float32) < p.reshape(-1).astype(np.float32)


def random_from_to(g: MT19937, n: int, low: int, high: int, use64: bool) -> np.ndarray:
    """`random_(low, high)`: a word (a 64-bit draw where the range needs it and the dtype allows) mod the range."""
    span = high - low
    draws = g.u64(n) if use64 and span >= 1 << 32 else g.u32(n)
    if span >= 1 << 63:
        return np.array([int(d) % span + low for d in draws], dtype=np.int64)
    return _mod_shift()(draws, np.uint64(span), np.int64(low))


def random_full(g: MT19937, n: int, dtype: np.dtype, modulus: int, use64: bool) -> np.ndarray:
    """`random_()` without bounds: a word (64-bit for int64 and float64) mod the dtype's range."""
    draws = g.u64(n) if use64 else g.u32(n)
    return (draws % np.uint64(modulus)).astype(dtype)


def randperm(g: MT19937, n: int) -> np.ndarray:
    """`randperm(n)`: the forward Fisher-Yates shuffle of 0..n-1, element i swapped with i + word mod (n - i)."""
    if n <= 1:
        return np.arange(n)
    return _shuffle()(g.u32(n - 1))


def exponential(g: MT19937, n: int, lambd: float) -> np.ndarray:
    return _libm()(uniform_float64(g, n), _EXPONENTIAL, lambd)


def cauchy(g: MT19937, n: int, median: float, sigma: float) -> np.ndarray:
    return _affine()(_libm()(uniform_float64(g, n), _CAUCHY, 0.0), sigma, median)


def log_normal(g: MT19937, n: int, mean: float, std: float) -> np.ndarray:
    return _libm()(serial_normal(g, n, mean, std), _EXP, 0.0)


def geometric(g: MT19937, n: int, p: float) -> np.ndarray:
    return _libm()(uniform_float64(g, n), _GEOMETRIC, math.log(1.0 - p))


def poisson(g: MT19937, rates: np.ndarray) -> np.ndarray:
    """PyTorch's `sample_poisson` per rate, in order: products of uniforms below 10, Hörmann's transformed
    rejection from 10 up."""
    return _rewound(g, _poisson_kernel(), np.ascontiguousarray(rates, dtype=np.float64).reshape(-1))


@cache
def _poisson_kernel():
    import numba

    @numba.njit(cache=True, nogil=True)
    def sample(rates, u, cache_valid, cache):
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

    return sample


def _rewound(g: MT19937, kernel, *args):
    """Run `kernel(*args, uniforms, cache_valid, cache)` on uniforms drawn ahead, then wind the engine back and
    forward by exactly the number it used (a rejection sampler's count is not known beforehand); the kernel
    returns (out, used or -1 for more, cache_valid, cache), the float64 normal cache being part of the stream."""
    saved = (g.bits.state, g.fresh, g.words)
    ahead = 8 * args[0].size + 64
    while True:
        u = uniform_float64(g, ahead)
        cached = g.next_double is not None
        out, used, valid, value = kernel(*args, u, cached, g.next_double if cached else 0.0)
        g.bits.state, g.fresh, g.words = saved
        if used >= 0:
            uniform_float64(g, used)
            g.next_double = value if valid else None
            return out
        ahead *= 4


def gamma(g: MT19937, alphas: np.ndarray, float32: bool) -> np.ndarray:
    """PyTorch's `sample_gamma` per concentration, in order (Marsaglia and Tsang, boosted below 1): float64
    draws, the concentration's own arithmetic float32 where the tensor is (`float32`), as PyTorch's kernel."""
    a = np.ascontiguousarray(alphas, dtype=np.float64).reshape(-1)
    return _rewound(g, _gamma_kernel(), a, float32)


@cache
def _gamma_kernel():
    import numba

    third = float(np.float32(1.0) / np.float32(3.0))  # PyTorch's 1.0f / 3.0f
    c0331 = float(np.float32(0.0331))

    @numba.njit(cache=True, nogil=True)
    def sample(alphas, float32, u, cache_valid, cache):
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

    return sample


def binomial(g: MT19937, count: np.ndarray, prob: np.ndarray, float32: bool) -> np.ndarray:
    """PyTorch's `sample_binomial` per (count, prob), in order: inversion by geometric jumps where count * p < 10,
    BTRS transformed rejection above, on p or 1 - p, whichever is at most 0.5."""
    n = np.ascontiguousarray(count, dtype=np.float64).reshape(-1)
    p = np.ascontiguousarray(prob, dtype=np.float64).reshape(-1)
    return _rewound(g, _binomial_kernel(), n, p, float32)


@cache
def _binomial_kernel():
    import numba

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
    def sample(count, prob, float32, u, cache_valid, cache):
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

    return sample


def multinomial_with_replacement(g: MT19937, rows: np.ndarray, num_samples: int) -> np.ndarray:
    """Each row's normalised cumulative sum searched for float64 uniforms, row after row (PyTorch's kernel)."""
    n, c = rows.shape
    acc = np.float64 if rows.dtype == np.float64 else np.float32
    cdf = np.cumsum(rows.astype(acc), axis=1, dtype=acc)
    with np.errstate(invalid="ignore"):  # an overflowed sum makes NaN entries, which PyTorch's search steps over
        cdf = cdf / cdf[:, -1:]
    cdf[:, -1] = 1.0
    u = uniform_float64(g, n * num_samples).reshape(n, num_samples)
    out = np.empty((n, num_samples), np.int64)
    for i in range(n):
        out[i] = np.searchsorted(cdf[i], u[i], side="left")  # the first bucket >= u
    return np.minimum(out, c - 1)
