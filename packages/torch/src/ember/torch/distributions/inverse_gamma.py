"""`InverseGamma(concentration, rate)`: 1 / X for X ~ Gamma(concentration, rate)."""

from __future__ import annotations

import math

import ember.autograd as torch

from ember.torch.distributions import constraints
from ember.torch.distributions._special import digamma, lgamma
from ember.torch.distributions.gamma import Gamma
from ember.torch.distributions.transformed_distribution import TransformedDistribution
from ember.torch.distributions.transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """The inverse gamma distribution (the conjugate prior of a normal variance), reparametrised through Gamma."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args: bool | None = None) -> None:
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -torch.ones((), dtype=base_dist.rate.dtype, device=base_dist.rate.device)
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return torch.where(self.concentration > 1, result, torch.full_like(result, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return torch.where(self.concentration > 2, result, torch.full_like(result, math.inf))

    def entropy(self):
        return (self.concentration + self.rate.log() + lgamma(self.concentration)
                - (1 + self.concentration) * digamma(self.concentration))
