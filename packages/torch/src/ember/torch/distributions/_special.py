"""Special functions the families need (`lgamma`, `digamma`, `polygamma`, `gammainc`) and reparametrised
gamma sampling, as autograd Functions over numpy (no scipy: it is not a dependency of ember).

NOTE [ Implicit reparametrisation of gamma samples ]
A standard gamma sample x ~ Gamma(a, 1) is drawn by rejection, so it is not a differentiable function of
`a` by construction. It is one implicitly: with u = P(a, x) (the regularised lower incomplete gamma, the
CDF) held fixed, dx/da = -(dP/da)(a, x) / p(x; a), where p is the density. Writing
P(a, x) = x^a e^-x sum_n x^n / Gamma(a + n + 1) and differentiating term by term gives

    dx/da = -x * sum_n c_n (log x - digamma(a + n + 1)),    c_n = x^n / (a (a + 1) ... (a + n)),

The series converges slowly for large x, so `_standard_gamma_grad` takes PyTorch's approximations of this
derivative (Jankowiak & Obermeyer, "Pathwise Derivatives Beyond the Reparameterization Trick", 2018): six terms
of the series below x = 0.8, a saddle-point expansion for a > 8, a fitted rational function elsewhere. They are
up to ~1e-3 relative off the exact value, and taking them keeps ported programs' gradients PyTorch's. Dirichlet
samples (Beta's too) are differentiated the same way through each component's Beta marginal, whose CDF is held
fixed (`_dirichlet_grad_np`, PyTorch's approximations of that derivative), as PyTorch's `_Dirichlet` does,
rather than through the gamma draws they are normalised from.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

import ember.autograd as torch
from ember.autograd import Function, Tensor
from ember.autograd.function import cpp_node

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
    """dx/da of standard gamma samples x at concentrations a, as PyTorch's `_standard_gamma_grad` approximates it
    (Jankowiak & Obermeyer 2018; NOTE [ Implicit reparametrisation of gamma samples ]): below x = 0.8 a six-term
    series, for a > 8 Rice's saddle-point expansion, elsewhere a fitted bivariate rational function of log(x / a)
    and log(a). Each is up to ~1e-3 relative off the exact derivative; taking PyTorch's keeps its gradients."""
    x, a = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(a, np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        small = x < 0.8
        out = _gamma_grad_six_terms(np.where(small, x, 0.5), a)
        out = np.where(small, out, np.where(a > 8.0, _gamma_grad_saddle(x, a), _gamma_grad_rational(x, a)))
    return out


def _gamma_grad_saddle(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Rice's saddle-point expansion for large a, with its own Taylor form within 10% of the mode's singularity."""
    near = (0.9 * a <= x) & (x <= 1.1 * a)
    near_val = ((1 + 24 * a * (1 + 12 * a)) * (1440 * a * a + 6 * x * (53 - 120 * x) - 65 * x * x / a
                                                 + a * (107 + 3600 * x)) / (1244160 * a ** 4))
    denom = np.sqrt(8 * a)
    term2 = denom / (a - x)
    term3 = (x - a - a * np.log(x / a)) ** -1.5
    term1 = np.log(x / a) * np.where(x < a, term2 - term3, term2 + term3) - np.sqrt(2 / a) * (a + x) / (a - x) ** 2
    stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
    return np.where(near, near_val, -stirling * x * term1 / denom)


# the fitted coefficients of PyTorch's rational approximation: rows are powers of u = log(x / a), columns the
# numerator's then the denominator's cubic in v = log(a)
_GAMMA_GRAD_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07]])


def _gamma_grad_rational(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    u, v = np.log(x / a), np.log(a)
    c = [_GAMMA_GRAD_UV[0, i] + u * (_GAMMA_GRAD_UV[1, i] + u * _GAMMA_GRAD_UV[2, i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return np.exp(p / q)


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


def _dirichlet_grad_np(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """PyTorch's `_dirichlet_grad(x, alpha, total)`: G / (1 - x), where G = dx/dalpha of a Dirichlet component x
    with the other concentrations (total - alpha) held fixed, i.e. -(dI_x/dalpha) / density of its Beta(alpha,
    total - alpha) marginal, approximated as PyTorch does (Jankowiak & Obermeyer 2018): Taylor series near x = 0
    and x = 1, a saddle-point expansion when both concentrations pass 6, else a fitted rational correction. The
    1 / (1 - x) is the chain rule's: the other components shrink in proportion, so grad_alpha = G / (1 - x)
    (g - sum_k x_k g_k)."""
    x, a, total = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, alpha, total)))
    b = total - a
    boundary = total * x * (1 - x)
    near0 = (x <= 0.5) & (boundary < 2.5)
    near1 = ~near0 & (x >= 0.5) & (boundary < 0.75)
    mid = ~near0 & ~near1 & (a > 6) & (b > 6)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return np.select([near0, near1, mid], [_beta_grad_alpha_small(x, a, b), -_beta_grad_beta_small(1 - x, b, a),
                                               _beta_grad_alpha_mid(x, a, b)], _beta_grad_rational(x, a, total))


def _beta_grad_alpha_small(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d/da of Beta(a, b) samples near x = 0, from ten terms of the incomplete beta's series (nan reads 0)."""
    factor = _digamma_np(a) - _digamma_np(a + b) - np.log(x)
    numer = np.ones_like(x)
    series = numer / a * (factor + 1 / a)
    for i in range(1, 11):
        numer = numer * (i - b) * x / i
        series = series + numer / (a + i) * (factor + 1 / (a + i))
    out = x * (1 - x) ** -b * series
    return np.where(np.isnan(out), 0.0, out)


def _beta_grad_beta_small(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d/db of Beta(a, b) samples near x = 0, from eight terms of the series (nan reads 0)."""
    factor = _digamma_np(a + b) - _digamma_np(b)
    numer, betas, dbetas, series = np.ones_like(x), np.ones_like(x), np.zeros_like(x), factor / a
    for i in range(1, 9):
        numer = numer * -x / i
        dbetas = dbetas * (b - i) + betas
        betas = betas * (b - i)
        series = series + numer / (a + i) * (dbetas + factor * betas)
    out = -(1 - x) ** (1 - b) * series
    return np.where(np.isnan(out), 0.0, out)


def _beta_grad_alpha_mid(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rice's saddle-point expansion for large a and b, with a polynomial form within 0.1 sd of the mean."""
    total = a + b
    mean = a / total
    std = np.sqrt(a * b / (total + 1)) / total
    poly = 47 * x * b ** 4 + a * ((43 + 20 * (16 + 27 * b) * x) * b ** 3 + a * (3 * (59 + 180 * b - 90 * x) * b * b
            + a * ((453 + 1620 * b * (1 - x) - 455 * x) * b + a * (8 * (1 - x) * (135 * b - 11)))))
    near = ((1 + 12 * a) * (1 + 12 * b) / (total * total) / (1 - x) * poly
            / (12960 * a ** 3 * b * b * (1 + 12 * total)))
    prefactor = -x / np.sqrt(2 * a * b / total)
    stirling = ((1 + 1 / (12 * a) + 1 / (288 * a * a)) * (1 + 1 / (12 * b) + 1 / (288 * b * b))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    axbx = a * (x - 1) + b * x
    term1 = ((2 * a * a * (x - 1) + a * b * (x - 1) - x * b * b)
             / (np.sqrt(2 * a / b) * total ** 1.5 * axbx * axbx))
    term2 = 0.5 * np.log(a / (total * x))
    term3 = np.sqrt(8 * a * b / total) / axbx
    term4 = (b * np.log(b / (total * (1 - x))) + a * np.log(a / (total * x))) ** -1.5
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


# PyTorch's fitted coefficients: [numerator/denominator][power of u][power of a][power of b], u = log x,
# a = log(alpha) - u, b = log(total) - a
_BETA_GRAD_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _beta_grad_rational(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """A fitted rational correction to the analytic approximation x (digamma(total) - digamma(alpha)) / beta."""
    u = np.log(x)
    a = np.log(alpha) - u
    b = np.log(total) - a
    pq = [np.zeros_like(x), np.zeros_like(x)]
    for k in range(2):
        for i in range(3):
            for j in range(3):
                c = _BETA_GRAD_C[k, i, j]
                pq[k] = pq[k] + u ** i * a ** j * (c[0] + b * (c[1] + b * (c[2] + b * c[3])))
    approx = x * (_digamma_np(total) - _digamma_np(alpha)) / (total - alpha)
    return pq[0] / pq[1] * approx


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
        return grad * standard_gamma_grad(a, x), None


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


class _StandardGammaGrad(Function):
    """PyTorch's `_standard_gamma_grad` op: its result records `StandardGammaGradBackward0`, which has no
    derivative (a double backward through `Gamma.rsample` raises)."""

    @staticmethod
    def forward(ctx, self, output):
        return _like(_standard_gamma_grad_np(_to_numpy(output), _to_numpy(self)).astype(output.dtype.np), output)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


cpp_node(_StandardGammaGrad, "StandardGammaGradBackward0")


def standard_gamma_grad(self: Tensor, output: Tensor) -> Tensor:
    """`torch._standard_gamma_grad(self, output)`: d output / d self of standard gamma samples `output` at
    concentrations `self` (NOTE [ Implicit reparametrisation of gamma samples ])."""
    return _StandardGammaGrad.apply(self, output)


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
    """The regularised lower incomplete gamma P(input, other): `torch.special.gammainc`, as PyTorch's Gamma.cdf
    calls it (an IgammaBackward0 node, differentiable in `other`; `input`'s derivative raises only if wanted)."""
    return torch.special.gammainc(_tensor(input), _tensor(other))


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
