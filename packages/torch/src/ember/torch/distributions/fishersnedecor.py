"""`FisherSnedecor(df1, df2)`: the F distribution, a ratio of scaled chi-squared variables."""

from __future__ import annotations

import math
import numbers

import numpy as np

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._special import lgamma
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.gamma import Gamma
from ember.torch.distributions.utils import _EMPTY, broadcast_all

__all__ = ["FisherSnedecor"]


def _nan_where(mask, value):
    return torch.where(mask, torch.full_like(value, math.nan), value)


class FisherSnedecor(Distribution):
    """The F distribution of (chi2(df1) / df1) / (chi2(df2) / df2), reparametrised through its gammas."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        both_numbers = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(Size() if both_numbers else self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(FisherSnedecor, batch_shape, ("df1", "df2"), _instance)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self):
        return _nan_where(self.df2 <= 2, self.df2 / (self.df2 - 2))

    @property
    def mode(self):
        return _nan_where(self.df1 <= 2, (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2))

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2
        var = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return _nan_where(df2 <= 4, var)

    def rsample(self, sample_shape=_EMPTY):
        tiny = float(np.finfo(self.df1.dtype.np).tiny)
        X1 = self._gamma1.rsample(sample_shape)
        X2 = self._gamma2.rsample(sample_shape).clamp(min=tiny)
        return (X1 / X2).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = lgamma(ct1 + ct2) - lgamma(ct1) - lgamma(ct2)
        t2 = ct1 * ct3.log() + (ct1 - 1) * torch.log(value)
        t3 = (ct1 + ct2) * torch.log1p(ct3 * value)
        return t1 + t2 - t3
