"""`Multinomial(total_count=1, probs=None, logits=None)`: category counts over `total_count` draws."""

from __future__ import annotations

import math

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._special import lgamma
from ember.torch.distributions.binomial import Binomial
from ember.torch.distributions.categorical import Categorical
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts per category (event shape `(K,)`) of `total_count` categorical draws from `probs` or `logits`.

    Raises:
        NotImplementedError: when `total_count` is not one int (PyTorch's restriction).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=_EMPTY):
        sample_shape = Size(sample_shape)
        k = self._categorical._num_events
        with torch.no_grad():
            draws = self._categorical.sample(Size((self.total_count,) + tuple(sample_shape)))
            onehot = (draws.unsqueeze(-1) == torch.arange(k, device=draws.device)).to(self.probs.dtype)
            return onehot.sum(0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        # a category of probability 0 drawn 0 times contributes 0, not -inf * 0
        logits = torch.where((value == 0) & (logits == -math.inf), torch.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def entropy(self):
        n = torch.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torch.exp(self._binomial.log_prob(support))
        weights = lgamma(support + 1)
        return term1 + (binomial_probs * weights).sum(0).sum(-1)
