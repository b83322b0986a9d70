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

import numpy as np

from ember.core.mt19937 import MT19937, _kernels

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_ZERO32, _ONE32 = np.float32(0.0), np.float32(1.0)

__all__ = ["iteration_order", "uniform", "uniform_float64", "normal", "serial_normal", "bernoulli_scalar",
           "bernoulli_tensor", "dropout", "random_from_to", "random_full", "randperm", "exponential", "cauchy",
           "log_normal", "geometric", "poisson", "gamma", "binomial", "multinomial_with_replacement"]


def memory_axes(a: np.ndarray) -> list[int]:
    """`a`'s axes from the largest stride to the smallest: the transpose whose C order walks memory order."""
    return sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))


def iteration_order(a: np.ndarray) -> np.ndarray:
    """`a` transposed so that C order walks memory order, the order PyTorch's serial kernels fill a tensor in."""
    if a.flags.c_contiguous or a.ndim < 2:
        return a
    return a.transpose(memory_axes(a))


def _target(n: int, dtype, out: np.ndarray | None) -> np.ndarray:
    """Where a kernel writes `n` values of `dtype`: `out` (1-D, contiguous) when it has that dtype, else new."""
    return out if out is not None and out.dtype == dtype else np.empty(n, dtype)


def uniform_float64(g: MT19937, n: int, scale: float = 1.0, shift: float = 0.0,
                    out: np.ndarray | None = None) -> np.ndarray:
    """`n` float64 uniforms in [0, 1): 53 bits of a 64-bit draw each; then `x * scale + shift`, fused."""
    return _kernels().uniform64(*g.spend(2 * n), _target(n, np.float64, out), float(scale), float(shift),
                                (scale, shift) != (1.0, 0.0))


def uniform(g: MT19937, n: int, dtype: np.dtype, low: float = 0.0, high: float = 1.0,
            out: np.ndarray | None = None) -> np.ndarray:
    """`n` draws from [low, high) in `dtype` (float16/bfloat16 computed in float32, as PyTorch's acc type),
    written into `out` where it has the kernel's dtype."""
    if dtype == _F64:
        return uniform_float64(g, n, high - low, low, out)
    if dtype == _F32 and low == 0.0 and high == 1.0:  # `rand`'s draw: no bounds to convert
        return _kernels().uniform32(*g.spend(n), _target(n, _F32, out), _ZERO32, _ONE32, False)
    lo, hi = np.asarray(low, dtype), np.asarray(high, dtype)  # the bounds in the tensor's type
    x = _kernels().uniform32(*g.spend(n), _target(n, np.float32, out), np.float32(lo), np.float32(hi - lo),
                             (low, high) != (0.0, 1.0))
    if dtype == _F32:
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
    left = _kernels().serial_normal64(*g.spend(4 * pairs), out, i, float(std), float(mean),
                                      mean != 0.0 or std != 1.0)
    if (n - i) % 2:
        g.next_double = left
    return out


def normal(g: MT19937, n: int, dtype: np.dtype, contiguous: bool, mean: float = 0.0, std: float = 1.0,
           out: np.ndarray | None = None) -> np.ndarray:
    """`normal_`'s values: `normal_fill` for a contiguous tensor of 16 or more, else the serial normal; a
    `normal_fill` writes straight into `out` (1-D, contiguous) where it has the kernel's dtype."""
    if n < 16 or not contiguous:
        return serial_normal(g, n, mean, std).astype(dtype)
    plain = mean == 0.0 and std == 1.0
    pad = 16 if n % 16 else 0
    if dtype != _F64:  # float32, and the 16-bit types rounded from it
        # float32 draws a uniform per value first; the 16-bit types draw only the whole blocks' (PyTorch 2.13)
        whole = n if dtype == _F32 else n // 16 * 16
        out = _kernels().normal32(*g.spend(whole + pad), _target(n, _F32, out), whole, np.float32(mean),
                                  np.float32(std), plain)
        return out.astype(dtype, copy=False)
    return _kernels().normal64(*g.spend(2 * (n + pad)), _target(n, _F64, out), float(mean), float(std), plain)


# --- the libm-exact float64 pieces (Numba's math calls glibc's, as PyTorch's std:: calls do) ----------------------
_LOG, _COS, _SIN, _EXPONENTIAL, _CAUCHY, _GEOMETRIC, _EXP = range(7)


def _libm():
    return _kernels().apply


def _affine():
    return _kernels().affine


def _mod_shift():
    return _kernels().mod_shift


# --- the discrete and the other continuous samplers --------------------------------------------------------------
def bernoulli_scalar(g: MT19937, n: int, p: float) -> np.ndarray:
    """`bernoulli_(p)`: a float64 uniform below `p` (PyTorch's path on CPUs without MKL's Intel stream)."""
    return uniform_float64(g, n) < p


def bernoulli_tensor(g: MT19937, p: np.ndarray) -> np.ndarray:
    """`bernoulli_(p_tensor)` over p's values in order: float64 uniforms for float64 `p`, else float32 ones."""
    if p.dtype == np.float64:
        return uniform_float64(g, p.size) < p.reshape(-1)
    return uniform(g, p.size, np.float32) < p.reshape(-1).astype(np.float32)


def random_from_to(g: MT19937, n: int, low: int, high: int, out: np.ndarray | None = None) -> np.ndarray:
    """`random_(low, high)`: a word mod the range, or a 64-bit draw (two words, the first the high half) mod the
    range from a range of 2**28 on, whatever the dtype (PyTorch 2.13's rule); written into `out` where it is int64."""
    span = high - low
    if span < 1 << 28:
        return _kernels().randint32(*g.spend(n), _target(n, np.int64, out), np.uint32(span), np.int64(low))
    draws = g.u64(n)
    if span >= 1 << 63:
        return np.array([int(d) % span + low for d in draws], dtype=np.int64)
    return _mod_shift()(draws, np.uint64(span), np.int64(low))


def dropout(g: MT19937, x: np.ndarray, q: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Dropout of a C-contiguous float32/float64 array in one pass: `(x * noise, noise != 0)`, the noise `scale`
    where a float64 uniform is below `q`, else 0 (PyTorch's CPU `input * empty_like(input).bernoulli_(q).div_(q)`,
    the same draws)."""
    flat = x.reshape(-1)
    r, k = np.empty_like(flat), np.empty(flat.size, np.bool_)
    _kernels().dropout(*g.spend(2 * flat.size), flat, r, k, q, flat.dtype.type(scale))
    return r.reshape(x.shape), k.reshape(x.shape)


def random_full(g: MT19937, n: int, dtype: np.dtype, modulus: int, use64: bool) -> np.ndarray:
    """`random_()` without bounds: a word (64-bit for int64 and float64) mod the dtype's range."""
    draws = g.u64(n) if use64 else g.u32(n)
    return (draws % np.uint64(modulus)).astype(dtype)


def randperm(g: MT19937, n: int) -> np.ndarray:
    """`randperm(n)`: the forward Fisher-Yates shuffle of 0..n-1, element i swapped with i + word mod (n - i)."""
    if n <= 1:
        return np.arange(n)
    return _kernels().randperm(*g.spend(n - 1), n)


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
    return _drawing(g, _poisson_kernel(), np.ascontiguousarray(rates, dtype=np.float64).reshape(-1))


def _poisson_kernel():
    return _kernels().poisson


def _drawing(g: MT19937, kernel, *args):
    """Run a rejection sampler `kernel(*args, key, st, cache_valid, cache)` on the engine itself (how many
    uniforms it takes is not known beforehand); it returns (out, uniforms used, cache_valid, cache), the float64
    normal cache being part of the stream."""
    cached = g.next_double is not None
    out, used, valid, value = kernel(*args, g.key, g.st, cached, g.next_double if cached else 0.0)
    if used:
        g.spend(2 * used)
    g.next_double = value if valid else None
    return out


def gamma(g: MT19937, alphas: np.ndarray, float32: bool) -> np.ndarray:
    """PyTorch's `sample_gamma` per concentration, in order (Marsaglia and Tsang, boosted below 1): float64
    draws, the concentration's own arithmetic float32 where the tensor is (`float32`), as PyTorch's kernel."""
    a = np.ascontiguousarray(alphas, dtype=np.float64).reshape(-1)
    return _drawing(g, _gamma_kernel(), a, float32)


def _gamma_kernel():
    return _kernels().gamma


def binomial(g: MT19937, count: np.ndarray, prob: np.ndarray, float32: bool) -> np.ndarray:
    """PyTorch's `sample_binomial` per (count, prob), in order: inversion by geometric jumps where count * p < 10,
    BTRS transformed rejection above, on p or 1 - p, whichever is at most 0.5."""
    n = np.ascontiguousarray(count, dtype=np.float64).reshape(-1)
    p = np.ascontiguousarray(prob, dtype=np.float64).reshape(-1)
    return _drawing(g, _binomial_kernel(), n, p, float32)


def _binomial_kernel():
    return _kernels().binomial


def multinomial_with_replacement(g: MT19937, rows: np.ndarray, num_samples: int) -> np.ndarray:
    """Each row's normalised cumulative sum searched for float64 uniforms, row after row (PyTorch's kernel)."""
    n = rows.shape[0]
    acc = np.float64 if rows.dtype == np.float64 else np.float32
    cdf = np.cumsum(rows.astype(acc), axis=1, dtype=acc)
    with np.errstate(invalid="ignore"):  # an overflowed sum makes NaN entries, which PyTorch's search steps over
        cdf = cdf / cdf[:, -1:]
    cdf[:, -1] = 1.0
    u = uniform_float64(g, n * num_samples).reshape(n, num_samples)
    return _kernels().cdf_search(cdf, u, np.empty((n, num_samples), np.int64))
