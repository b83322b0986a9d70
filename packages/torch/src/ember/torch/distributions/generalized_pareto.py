"""`GeneralizedPareto(loc, scale, concentration)`: the law of threshold exceedances (peaks over threshold)."""

from __future__ import annotations

import math
import numbers

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Survival function (1 + xi z)^(-1 / xi) of z = (x - loc) / scale, with xi = `concentration` (exp(-z)
    at xi = 0); reparametrised through its inverse CDF."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        all_numbers = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(Size() if all_numbers else self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, ("loc", "scale", "concentration"), _instance)

    def _zero_and_safe(self):
        """Where xi is 0 (the exponential limit) and xi with those entries replaced by 1, safe to divide by."""
        eq_zero = torch.isclose(self.concentration, torch.zeros_like(self.concentration))
        return eq_zero, torch.where(eq_zero, torch.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape=_EMPTY):
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            u = torch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._zero_and_safe()
        y = 1 / safe + torch.ones_like(z)
        nonzero = torch.where(y == 0, y, y * torch.log1p(safe * z))
        return -self.scale.log() - torch.where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._zero_and_safe()
        return torch.where(eq_zero, -z, -torch.log1p(safe * z) / safe)

    def log_cdf(self, value):
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torch.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe = self._zero_and_safe()
        logu = torch.log1p(-value)
        return torch.where(eq_zero, self.loc - self.scale * logu,
                           self.loc + self.scale / safe * torch.expm1(-safe * logu))

    @property
    def mean(self):
        valid = self.concentration < 1
        safe = torch.where(valid, self.concentration, torch.full_like(self.concentration, 0.5))
        result = self.loc + self.scale / (1 - safe)
        return torch.where(valid, result, torch.full_like(result, math.nan))

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe = torch.where(valid, self.concentration, torch.full_like(self.concentration, 0.25))
        result = self.scale**2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return torch.where(valid, result, torch.full_like(result, math.nan))

    def entropy(self):
        return (torch.log(self.scale) + self.concentration + 1).expand(tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = torch.where(self.concentration < 0, lower - self.scale / self.concentration,
                            torch.full_like(lower, math.inf))
        return constraints.interval(lower, upper)
