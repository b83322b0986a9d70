"""`Pareto(scale, alpha)`: the type-I Pareto distribution, scale * exp(E) for E ~ Exponential(alpha)."""

from __future__ import annotations

from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions.exponential import Exponential
from ember.torch.distributions.transformed_distribution import TransformedDistribution
from ember.torch.distributions.transforms import AffineTransform, ExpTransform
from ember.torch.distributions.utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Density alpha scale^alpha / x^(alpha + 1) on [scale, inf)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)  # alpha <= 1: a / (a - 1) is inf
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)  # alpha <= 2: inf
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
