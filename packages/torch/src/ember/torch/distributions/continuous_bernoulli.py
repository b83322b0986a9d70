"""`ContinuousBernoulli(probs=None, logits=None)`: the [0, 1]-valued density proportional to
lambda^x (1 - lambda)^(1 - x) (Loaiza-Ganem and Cunningham, 2019), for VAEs on pixel intensities.

Its normalizer, mean and variance divide by (1 - 2 lambda), so near lambda = 1/2 (inside `lims`) they are
replaced by their Taylor expansions, as PyTorch does.
"""

from __future__ import annotations

import math
import numbers

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._binary import _one_of
from ember.torch.distributions.bernoulli import _bce_with_logits
from ember.torch.distributions.exp_family import ExponentialFamily
from ember.torch.distributions.utils import (_EMPTY, broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                                             probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] of parameter `probs` (or `logits`); reparametrised
    through its inverse CDF.

    Raises:
        ValueError: when both or neither of `probs` and `logits` are given.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(ContinuousBernoulli, batch_shape, ("probs", "logits"), _instance)
        new._lims = self._lims
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """probs, with the unstable region replaced by a safe value (its results are discarded there)."""
        return torch.where(self._outside_unstable_region(), self.probs, torch.full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        """log C(lambda), the log normalizing constant."""
        cut = self._cut_probs()
        below = torch.where(cut <= 0.5, cut, torch.zeros_like(cut))
        above = torch.where(cut >= 0.5, cut, torch.ones_like(cut))
        log_norm = torch.log(torch.abs(torch.log1p(-cut) - torch.log(cut))) - torch.where(
            cut <= 0.5, torch.log1p(-2.0 * below), torch.log(2.0 * above - 1.0))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (torch.log1p(-cut) - torch.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return torch.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / (torch.log1p(-cut) - torch.log(cut)).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torch.where(self._outside_unstable_region(), var, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    def sample(self, sample_shape=_EMPTY):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_EMPTY):
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            u = torch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = torch.where(self._outside_unstable_region(), cdfs, value)
        return torch.where(value <= 0.0, torch.zeros_like(value),
                           torch.where(value >= 1.0, torch.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inverse = ((torch.log1p(-cut + value * (2.0 * cut - 1.0)) - torch.log1p(-cut))
                   / (torch.log(cut) - torch.log1p(-cut)))
        return torch.where(self._outside_unstable_region(), inverse, value)

    def entropy(self):
        log_probs0 = torch.log1p(-self.probs)
        log_probs1 = torch.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = torch.where(outside, x, torch.full_like(x, self._lims[0] - 0.5))
        log_norm = torch.log(torch.abs(torch.expm1(cut))) - torch.log(torch.abs(cut))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return torch.where(outside, log_norm, taylor)
