"""`Kumaraswamy(concentration1, concentration0)`: a Beta-like law on [0, 1] with a closed-form CDF."""

from __future__ import annotations

import math

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._special import digamma, lgamma
from ember.torch.distributions.transformed_distribution import TransformedDistribution
from ember.torch.distributions.transforms import AffineTransform, PowerTransform
from ember.torch.distributions.uniform import Uniform
from ember.torch.distributions.utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b B(1 + n / a, b) for X ~ Kumaraswamy(a, b)."""
    arg1 = 1 + n / a
    return torch.exp(b.log() + lgamma(arg1) + lgamma(b) - lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """Density a b x^(a-1) (1 - x^a)^(b-1) on [0, 1] (a = concentration1, b = concentration0); samples are
    (1 - U^(1/b))^(1/a), so `rsample` is differentiable."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(torch.full_like(self.concentration0, 0), torch.full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a b - 1))^(1 / a), defined for a, b >= 1 (not both 1)
        a, b = self.concentration1, self.concentration0
        mode = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return torch.where((a < 1) | (b < 1), torch.full_like(mode, math.nan), mode)

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = digamma(self.concentration0 + 1) + euler_constant  # the harmonic number of concentration0
        return t0 + t1 * H0 - torch.log(self.concentration1) - torch.log(self.concentration0)
