"""`VonMises(loc, concentration)`: the circular normal distribution on angles."""

from __future__ import annotations

import math

import numpy as np

import ember.autograd as torch
from ember.autograd import Function

from ember.torch.distributions import constraints
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, _like, _to_numpy, broadcast_all

__all__ = ["VonMises"]

_ASYMPTOTIC_FROM = 500.0  # above this, np.i0 nears overflow: use Hankel's expansion of log I_nu


def _log_bessel_asymptotic(nu: int, x: np.ndarray) -> np.ndarray:
    mu = 4.0 * nu * nu
    t = 1.0 / (8.0 * x)
    series = 1 - (mu - 1) * t + (mu - 1) * (mu - 9) * t**2 / 2 - (mu - 1) * (mu - 9) * (mu - 25) * t**3 / 6
    return x - 0.5 * np.log(2 * np.pi * x) + np.log(series)


def _log_i0_np(x: np.ndarray) -> np.ndarray:
    small = x < _ASYMPTOTIC_FROM
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(small, np.log(np.i0(np.where(small, x, 0.0))),
                        _log_bessel_asymptotic(0, np.where(small, _ASYMPTOTIC_FROM, x)))


def _ratio_np(x: np.ndarray) -> np.ndarray:
    """I1(x) / I0(x) by Gauss's continued fraction, evaluated backwards from enough terms to converge."""
    x = np.maximum(x, 1e-300)
    terms = int(min(np.max(x), 1e5)) + 60
    r = np.zeros_like(x)
    for k in range(terms, 0, -1):
        r = 1.0 / (2.0 * k / x + r)
    return r


class _LogI0(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _like(_log_i0_np(_to_numpy(x).astype(np.float64)), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _bessel_ratio(x)


class _BesselRatio(Function):
    @staticmethod
    def forward(ctx, x):
        out = _like(_ratio_np(_to_numpy(x).astype(np.float64)), x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, r = ctx.saved_tensors
        return grad * (1 - r / x - r * r)  # (I1 / I0)' = 1 - r / x - r^2


def _log_i0(x):
    return _LogI0.apply(x)


def _bessel_ratio(x):
    return _BesselRatio.apply(x)


class VonMises(Distribution):
    """Angles with density exp(concentration cos(x - loc)) / (2 pi I0(concentration)); samples lie in
    [-pi, pi). `mean` and `variance` are the circular ones (loc and 1 - I1 / I0)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(VonMises, batch_shape, ("loc", "concentration"), _instance)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * torch.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_i0(self.concentration))

    def sample(self, sample_shape=_EMPTY):
        """Best and Fisher's (1979) rejection sampler in float64, drawing PyTorch's uniforms in PyTorch's order:
        three per element each round, until every element has been accepted once."""
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            loc, kappa = self.loc.to(torch.float64), self.concentration.to(torch.float64)
            tau = 1 + (1 + 4 * kappa**2).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
            r = torch.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))
            x = torch.empty(shape, dtype=torch.float64, device=self.loc.device)
            done = torch.zeros(shape, dtype=torch.bool, device=self.loc.device)
            while not bool(done.all()):
                u1, u2, u3 = torch.rand((3,) + shape, dtype=torch.float64, device=self.loc.device).unbind()
                z = torch.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                if bool(accept.any()):
                    x = torch.where(accept, (u3 - 0.5).sign() * f.acos(), x)
                    done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 1 - _bessel_ratio(self.concentration)
