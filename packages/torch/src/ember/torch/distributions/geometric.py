"""`Geometric(probs=None, logits=None)`: the number of failures before the first success."""

from __future__ import annotations

import numbers

import numpy as np

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._binary import _binary_param
from ember.torch.distributions.bernoulli import _bce_with_logits
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Counts k = 0, 1, ... of Bernoulli(probs) failures before the first success: P(k) = (1 - p)^k p."""

    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        given = probs if probs is not None else logits
        param = _binary_param(self, probs, logits)
        batch_shape = Size() if isinstance(given, numbers.Number) else param.shape
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            invalid = self.probs.detach()[~(self.probs > 0)]
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found invalid "
                             f"values:\n{invalid}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Geometric, batch_shape, ("probs", "logits"), _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=_EMPTY):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = float(np.finfo(self.probs.dtype.np).tiny)
        with torch.no_grad():
            u = torch.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p = 1 and k = 0: log(1 - p) * 0 must be 0, not nan
        probs = torch.where((probs == 1) & (value == 0), torch.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs) / self.probs
