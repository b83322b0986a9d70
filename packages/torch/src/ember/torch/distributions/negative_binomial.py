"""`NegativeBinomial(total_count, probs=None, logits=None)`: successes before `total_count` failures."""

from __future__ import annotations

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._binary import _one_of
from ember.torch.distributions._special import lgamma
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.gamma import Gamma
from ember.torch.distributions.utils import _EMPTY, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The number of successes (probability `probs` each) before `total_count` failures; sampled as a
    Poisson with a Gamma-distributed rate.

    Raises:
        ValueError: when both or neither of `probs` and `logits` are given.
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(NegativeBinomial, batch_shape, ("total_count", "probs", "logits"), _instance)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=_EMPTY):
        with torch.no_grad():
            return torch.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * torch.logsigmoid(-self.logits)
                                 + value * torch.logsigmoid(self.logits))
        log_normalization = -lgamma(self.total_count + value) + lgamma(1.0 + value) + lgamma(self.total_count)
        # total_count + value = 0 is the certain outcome: its normalization is 0, not lgamma(0) terms
        log_normalization = torch.where(self.total_count + value == 0.0, torch.zeros_like(log_normalization),
                                        log_normalization)
        return log_unnormalized_prob - log_normalization
