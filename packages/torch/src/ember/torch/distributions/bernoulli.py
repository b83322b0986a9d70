"""`Bernoulli(probs=None, logits=None)`: a coin flip of probability `probs` (or log-odds `logits`)."""

from __future__ import annotations

import numbers

import ember.autograd as torch
from ember.autograd import Size
from ember.nn import functional as F

from ember.torch.distributions import constraints
from ember.torch.distributions._binary import _binary_param
from ember.torch.distributions.exp_family import ExponentialFamily
from ember.torch.distributions.utils import _EMPTY, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


def _bce_with_logits(logits, target):
    """Elementwise binary cross-entropy from logits, through `F.binary_cross_entropy_with_logits` as PyTorch's
    distributions compute it: (1 - target) * logits - log_sigmoid(logits), finite for any |logits|, with its
    grad_fn (`Bernoulli.entropy()` prints `BinaryCrossEntropyWithLogitsBackward0`)."""
    return F.binary_cross_entropy_with_logits(logits, target, reduction="none")


class Bernoulli(ExponentialFamily):
    """Samples are 1 with probability `probs` and 0 otherwise; give exactly one of `probs` and `logits`.

    Raises:
        ValueError: when both or neither of `probs` and `logits` are given.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        given = probs if probs is not None else logits
        self._param = _binary_param(self, probs, logits)
        batch_shape = Size() if isinstance(given, numbers.Number) else self._param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Bernoulli, batch_shape, ("probs", "logits"), _instance)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return torch.where(self.probs == 0.5, torch.full_like(mode, float("nan")), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    def sample(self, sample_shape=_EMPTY):
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True):
        values = torch.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (torch.log(self.probs / (1 - self.probs)),)

    def _log_normalizer(self, x):
        return torch.log1p(torch.exp(x))
