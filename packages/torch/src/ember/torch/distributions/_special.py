"""Special functions the families need (`lgamma`, `digamma`, `polygamma`, `gammainc`) and reparametrised
gamma sampling, as autograd Functions over numpy (no scipy: it is not a dependency of ember).

NOTE [ Implicit reparametrisation of gamma samples ]
A standard gamma sample x ~ Gamma(a, 1) is drawn by rejection, so it is not a differentiable function of
`a` by construction. It is one implicitly: with u = P(a, x) (the regularised lower incomplete gamma, the
CDF) held fixed, dx/da = -(dP/da)(a, x) / p(x; a), where p is the density. Writing
P(a, x) = x^a e^-x sum_n x^n / Gamma(a + n + 1) and differentiating term by term gives

    dx/da = -x * sum_n c_n (log x - digamma(a + n + 1)),    c_n = x^n / (a (a + 1) ... (a + n)),

which `_standard_gamma_grad` sums until the terms vanish (below x = 0.8 it takes PyTorch's six-term series of
the same derivative, so small samples get PyTorch's values). Dirichlet samples (Beta's too) are differentiated
the same way through each component's Beta marginal, whose CDF is held fixed (`_dirichlet_grad_np`), as
PyTorch's `_Dirichlet` does, rather than through the gamma draws they are normalised from.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

import ember.autograd as torch
from ember.autograd import Function, Tensor

from ember.core import cpu_sampling, dtypes
from ember.core import random as cpu_random
from ember.core.dispatch import node_name
from ember.torch.distributions.utils import _like, _numpy_generator, _to_numpy

__all__ = ["lgamma", "digamma", "polygamma", "gammainc", "standard_gamma", "standard_gamma_grad", "dirichlet_grad",
           "sample_dirichlet", "check_sampler_dtype"]


@cache
def _lgamma_ufunc():
    """math.lgamma as a Numba ufunc (exact, ~15x faster than a Python loop); built on first use, cached."""
    import numba

    @numba.vectorize(["float64(float64)"], cache=True)
    def lgamma_(x):
        return math.lgamma(x)

    return lgamma_


def _lgamma_np(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)| in float64 (inf at 0 and the negative integers, as PyTorch)."""
    with np.errstate(divide="ignore"):
        return _lgamma_ufunc()(np.asarray(x, dtype=np.float64))


# Bernoulli numbers B_2 .. B_14, for the asymptotic series of digamma and polygamma.
_B2K = np.array([1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6])


def _digamma_np(x: np.ndarray) -> np.ndarray:
    """digamma in float64: reflection below 0.5, the recurrence up to 10, then the asymptotic series."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    reflect = x < 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(reflect, -np.pi / np.tan(np.pi * x), 0.0)
        z = np.where(reflect, 1.0 - x, x)
        for _ in range(10):
            small = z < 10
            out = out - np.where(small, 1.0 / np.where(small, z, 1.0), 0.0)
            z = np.where(small, z + 1, z)
        zz = 1.0 / (z * z)
        series = zz * (_B2K[0] / 2 + zz * (_B2K[1] / 4 + zz * (_B2K[2] / 6 + zz * (_B2K[3] / 8 + zz * _B2K[4] / 10))))
        out = out + np.log(z) - 0.5 / z - series
    out = np.where(x == 0, -np.inf, out)
    out = np.where((x < 0) & (x == np.floor(x)), np.nan, out)
    return np.where(np.isposinf(x), np.inf, out)


def _polygamma_np(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma (n >= 1): the recurrence up to 20, then the asymptotic series."""
    x = np.asarray(x, dtype=np.float64)
    sign = (-1.0) ** (n + 1)
    fact_n = math.factorial(n)
    out = np.zeros_like(x)
    z = x.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        while True:
            small = z < 20
            if not small.any():
                break
            out = out + np.where(small, sign * fact_n / np.where(small, z, 1.0) ** (n + 1), 0.0)
            z = np.where(small, z + 1, z)
        series = math.factorial(n - 1) / z**n + fact_n / (2 * z ** (n + 1))
        for k, b in enumerate(_B2K, start=1):
            series = series + b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / z ** (2 * k + n)
        out = out + sign * series
    return np.where((x <= 0) & (x == np.floor(x)), np.inf if n % 2 else np.nan, out)


def _gammainc_np(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised lower incomplete gamma P(a, x): its series below a + 1, Legendre's fraction above."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0)
    out[ok & (x == 0)] = 0.0
    out[ok & np.isposinf(x)] = 1.0
    finite = ok & (x > 0) & np.isfinite(x)
    log_pre = np.where(finite, np.where(finite, a, 1) * np.log(np.where(finite, x, 1)) - x - _lgamma_np(a), 0)
    low = finite & (x < a + 1)
    if low.any():
        aa, xx = a[low], x[low]
        term = 1.0 / aa
        total = term.copy()
        for k in range(1, 10000):
            term = term * xx / (aa + k)
            total += term
            if (np.abs(term) <= 1e-17 * np.abs(total)).all():
                break
        out[low] = np.exp(log_pre[low]) * total
    high = finite & ~low
    if high.any():  # modified Lentz's method on Q(a, x)'s continued fraction
        aa, xx = a[high], x[high]
        tiny = 1e-300
        b = xx + 1.0 - aa
        c = np.full_like(b, 1 / tiny)
        d = 1.0 / b
        h = d.copy()
        for i in range(1, 10000):
            an = -i * (i - aa)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            if (np.abs(delta - 1.0) <= 1e-16).all():
                break
        out[high] = 1.0 - np.exp(log_pre[high]) * h
    return out


def _standard_gamma_grad_np(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """dx/da of standard gamma samples x at concentrations a (NOTE [ Implicit reparametrisation ... ]): below
    x = 0.8 PyTorch's six-term series, elsewhere the exact derivative (PyTorch's saddle-point and fitted
    rational approximations there are ~3e-5 relative off it)."""
    x, a = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(a, np.float64))
    out = _gamma_grad_exact(x, a)
    small = x < 0.8
    if small.any():
        out = np.where(small, _gamma_grad_six_terms(np.where(small, x, 0.5), a), out)
    return out


def _gamma_grad_six_terms(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """dx/da from the first six terms of gamma(a, x) = sum_n (-x)^n x^a / (n! (a + n)) (e^-t expanded): with
    s1 = sum_n (-x)^n / (n! (a + n)) and s2 = sum_n (-x)^n / (n! (a + n)^2), dP/da = x^a ((log x - digamma(a)) s1
    - s2) / Gamma(a) over the density x^(a-1) e^-x / Gamma(a). PyTorch's truncation, whose error (up to ~1e-4
    relative) its small samples carry; nan (x = 0) reads 0, as PyTorch's."""
    term, s1, s2 = np.ones_like(x), 1.0 / a, 1.0 / (a * a)
    for n in range(1, 6):
        term = term * -x / n
        s1, s2 = s1 + term / (a + n), s2 + term / ((a + n) * (a + n))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = -x * np.exp(x) * ((np.log(x) - _digamma_np(a)) * s1 - s2)
    return np.where(np.isnan(out), 0.0, out)


def _gamma_grad_exact(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    logx = np.log(x)
    c = 1.0 / a
    psi = _digamma_np(a + 1)
    total = c * (logx - psi)
    for n in range(1, 100000):
        c = c * x / (a + n)
        psi = psi + 1.0 / (a + n)
        term = c * (logx - psi)
        total = total + term
        if (np.abs(term) <= 1e-16 * np.maximum(np.abs(total), c)).all() and (x < a + n).all():
            break
    return -x * total


def _beta_cf(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised incomplete beta I_x(a, b) from its continued fraction (modified Lentz), which converges
    fast for x < (a + 1) / (a + b + 2); callers take the other side by I_x(a, b) = 1 - I_(1-x)(b, a)."""
    tiny = 1e-300
    c = np.ones_like(x)
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
    h = d.copy()
    for m in range(1, 10000):
        if not x.size:
            break
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
            c = 1.0 + num / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            h = h * d * c
        if (np.abs(d * c - 1.0) <= 4e-16).all():
            break
    log_front = a * np.log(x) + b * np.log1p(-x) - (_lgamma_np(a) + _lgamma_np(b) - _lgamma_np(a + b))
    return np.exp(log_front) * h / a


def _dirichlet_grad_np(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """PyTorch's `_dirichlet_grad(x, alpha, total)`: G / (1 - x), where G = dx/dalpha of a Dirichlet component x
    with the other concentrations (total - alpha) held fixed, from its Beta(alpha, total - alpha) marginal:
    -(dI_x/dalpha) / density. The incomplete beta's derivative is a central difference of its continued
    fraction on the side where that converges (the smaller of I and 1 - I). The 1 / (1 - x) is the chain rule's:
    the other components shrink in proportion, so grad_alpha = G / (1 - x) (g - sum_k x_k g_k)."""
    x, a, total = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, alpha, total)))
    b = total - a
    h = 1e-5 * a
    lower = x < (a + 1.0) / (a + b + 2.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        def side(aa):  # each element on its own side only: the other's fraction converges slowly there
            out = np.empty_like(x)
            out[lower] = _beta_cf(aa[lower], b[lower], x[lower])
            out[~lower] = -_beta_cf(b[~lower], aa[~lower], 1.0 - x[~lower])
            return out
        d_cdf = (side(a + h) - side(a - h)) / (2 * h)
        log_density = ((a - 1) * np.log(x) + (b - 1) * np.log1p(-x)
                       - (_lgamma_np(a) + _lgamma_np(b) - _lgamma_np(total)))
        return -d_cdf / np.exp(log_density) / (1.0 - x)


def _np_op(fn, x: Tensor) -> Tensor:
    return _like(fn(_to_numpy(x).astype(np.float64)), x)


class _Lgamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _np_op(_lgamma_np, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * digamma(x)


class _Digamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _np_op(_digamma_np, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * polygamma(1, x)


class _Polygamma(Function):
    @staticmethod
    def forward(ctx, n, x):
        ctx.n = n
        ctx.save_for_backward(x)
        return _np_op(lambda v: _polygamma_np(n, v), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return None, grad * polygamma(ctx.n + 1, x)


class _Gammainc(Function):
    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return _like(_gammainc_np(_to_numpy(a), _to_numpy(x)), x)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative of gammainc with respect to its first argument (a) is not "
                                      "implemented")
        density = torch.exp((a - 1) * torch.log(x) - x - lgamma(a))
        return None, grad * density


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, concentration, generator=None):
        a = _to_numpy(concentration).astype(np.float64)
        if concentration.device.type == "cpu":  # PyTorch's sampler on PyTorch's stream
            x = cpu_sampling.gamma(cpu_random.cpu_engine(generator), a, concentration.dtype.np == np.float32)
            x = x.reshape(a.shape)
        else:
            x = np.asarray(_numpy_generator(a.size, concentration.device).standard_gamma(a))  # 0-d: a float
        # PyTorch's std::max(min, sample): a NaN sample (alpha < 0 or NaN) becomes the smallest normal too
        x = np.fmax(x.astype(concentration.dtype.np), np.finfo(concentration.dtype.np).tiny)
        out = _like(x, concentration)
        ctx.save_for_backward(concentration, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        return grad * _like(_standard_gamma_grad_np(_to_numpy(x), _to_numpy(a)), x), None


class _Dirichlet(Function):
    """Dirichlet samples along the last dim (PyTorch's `_sample_dirichlet`), differentiable in the
    concentrations as PyTorch's `_Dirichlet`: component i moves by `_dirichlet_grad` as alpha_i does, the others
    shrink to keep the sum 1, so grad_alpha_i = G_i (g_i - sum_k x_k g_k)."""

    @staticmethod
    def forward(ctx, concentration):
        from ember.torch._aten import _sample_dirichlet

        x = _sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        g = dirichlet_grad(x, concentration, total)
        return g * (grad - (x * grad).sum(-1, True))


def sample_dirichlet(concentration: Tensor) -> Tensor:
    """Dirichlet(concentration) samples, differentiable in the concentration (node `_DirichletBackward`)."""
    return _Dirichlet.apply(concentration)


def standard_gamma_grad(self: Tensor, output: Tensor) -> Tensor:
    """`torch._standard_gamma_grad(self, output)`: d output / d self of standard gamma samples `output` at
    concentrations `self` (NOTE [ Implicit reparametrisation of gamma samples ])."""
    return _like(_standard_gamma_grad_np(_to_numpy(output), _to_numpy(self)).astype(output.dtype.np), output)


def dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """`torch._dirichlet_grad(x, alpha, total)`: the derivative of Dirichlet components `x` in their
    concentrations `alpha`, the concentrations' sum `total` held fixed (`_dirichlet_grad_np`)."""
    return _like(_dirichlet_grad_np(_to_numpy(x), _to_numpy(alpha), _to_numpy(total)).astype(x.dtype.np), x)


def _tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else torch.tensor(float(x))


def lgamma(input: Tensor) -> Tensor:
    """log |Gamma(input)| elementwise (inf at 0 and the negative integers)."""
    return _Lgamma.apply(_tensor(input))


def digamma(input: Tensor) -> Tensor:
    """The logarithmic derivative of the gamma function (-inf at 0, nan at the negative integers)."""
    return _Digamma.apply(_tensor(input))


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma; n = 0 is digamma itself."""
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n; got n={n}")
    return digamma(input) if n == 0 else _Polygamma.apply(int(n), _tensor(input))


def gammainc(input: Tensor, other: Tensor) -> Tensor:
    """The regularised lower incomplete gamma P(input, other), differentiable in `other`."""
    a, x = torch.broadcast_tensors(_tensor(input), _tensor(other))
    return _Gammainc.apply(a, x)


def check_sampler_dtype(x: Tensor, kernel: str) -> None:
    """PyTorch's CPU gamma and Dirichlet samplers take float and double only (`"gamma_cpu" not implemented
    for 'Half'`)."""
    if x.device.type == "cpu" and x.dtype not in (torch.float32, torch.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[x.dtype.name]}'")


def standard_gamma(concentration: Tensor, generator=None) -> Tensor:
    """Samples of Gamma(concentration, 1), differentiable in the concentration (NOTE [ Implicit ... ])."""
    check_sampler_dtype(concentration, "gamma_cpu")
    cpu_random.guard_batched_draw(concentration)
    return node_name(_StandardGamma.apply(concentration, generator), "_StandardGammaBackward", "StandardGammaBackward0")
