"""`LKJCholesky(dim, concentration=1.0)`: the LKJ prior on correlation matrices, over their Cholesky factors."""

from __future__ import annotations

import math

import numpy as np

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._special import lgamma
from ember.torch.distributions.beta import Beta
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, broadcast_all
from ember.torch.distributions.wishart import _mvlgamma

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors L of correlation matrices L L^T with density proportional to
    det(L L^T)^(concentration - 1) (Lewandowski, Kurowicka and Joe, 2009); sampled by the onion method.

    Raises:
        ValueError: when `dim` < 2.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i of L is sqrt(y_i) times a uniform direction in its first i coordinates, y_i ~ Beta(i/2, ...)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = torch.cat([torch.zeros(1, dtype=offset.dtype, device=offset.device), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.shape, Size((dim, dim)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_EMPTY):
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = _standard_normal_tril(tuple(self._extended_shape(sample_shape)), y)
            norm = u.pow(2).sum(-1, keepdim=True).sqrt()
            direction = torch.where(norm > 0, u / torch.where(norm > 0, norm, torch.ones_like(norm)),
                                    torch.zeros_like(u))
            w = torch.sqrt(y) * direction
            tiny = float(np.finfo(w.dtype.np).tiny)
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + torch.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1, dtype=self.concentration.dtype, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + _mvlgamma(alpha - 0.5, dm1) - lgamma(alpha) * dm1
        return unnormalized - normalizer


def _standard_normal_tril(shape, like):
    return torch.randn(shape, dtype=like.dtype, device=like.device).tril(-1)
