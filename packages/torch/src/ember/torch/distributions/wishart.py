"""`Wishart(df, covariance_matrix | precision_matrix | scale_tril)`: the law of sample covariance matrices."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._special import digamma, lgamma
from ember.torch.distributions.chi2 import Chi2
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.exp_family import ExponentialFamily
from ember.torch.distributions.multivariate_normal import _precision_to_scale_tril, _solve_lower
from ember.torch.distributions.utils import _EMPTY, _infer_size, lazy_property

__all__ = ["Wishart"]


def _mvlgamma(x, p: int):
    """The log of the multivariate gamma function Gamma_p(x)."""
    j = torch.arange(p, dtype=x.dtype, device=x.device) / 2
    return p * (p - 1) / 4 * math.log(math.pi) + lgamma(x.unsqueeze(-1) - j).sum(-1)


def _mvdigamma(x, p: int):
    """The derivative of log Gamma_p(x)."""
    j = torch.arange(p, dtype=x.dtype, device=x.device) / 2
    return digamma(x.unsqueeze(-1) - j).sum(-1)


class Wishart(ExponentialFamily):
    """Positive-definite p x p matrices L A A^T L^T (Bartlett's decomposition: A lower triangular with
    sqrt(chi2(df - i)) on the diagonal and standard normals below), L the Cholesky factor of the scale;
    `rsample` is differentiable through the chi-squared (gamma) draws.

    Raises:
        ValueError: when not exactly one matrix is given or df <= p - 1.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args: bool | None = None) -> None:
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = torch.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = _infer_size(param.shape[:-2], df.shape)
            self.df = df.expand(tuple(batch_shape))
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, param.expand(tuple(batch_shape) + (-1, -1)))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < "
                          "ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(self.df, batch_shape)

    def _chi2(self, df, batch_shape) -> Chi2:
        """The diagonal of Bartlett's factor squared: chi2 with df, df - 1, ..., df - p + 1 degrees."""
        L = self._unbroadcasted_scale_tril
        steps = torch.arange(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return Chi2(df=df.unsqueeze(-1) - steps.expand(tuple(batch_shape) + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(tuple(batch_shape))
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(new.df, batch_shape)
        new._validate_args = self._validate_args
        return new

    def _full(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._full())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.transpose(-2, -1)).expand(self._full())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = torch.eye(self._event_shape[-1], dtype=L.dtype, device=L.device)
        L_inv = _solve_lower(L, eye.expand(tuple(L.shape)))
        return torch.matmul(L_inv.transpose(-2, -1), L_inv).expand(self._full())

    def _df_matrix(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = torch.where(factor <= 0, torch.full_like(factor, math.nan), factor)
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape) -> torch.Tensor:
        """One Bartlett draw: sqrt(chi2) on A's diagonal, then p (p - 1) / 2 normals below it in tril_indices
        order (PyTorch's draws, in its order)."""
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        eps = float(np.finfo(L.dtype.np).eps)
        noise = torch.diag_embed(self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps))
        i, j = torch.tril_indices(p, p, offset=-1)
        noise[..., i, j] = torch.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
                                       dtype=noise.dtype, device=noise.device)
        chol = torch.matmul(L, noise)
        return torch.matmul(chol, chol.transpose(-2, -1))

    def rsample(self, sample_shape=_EMPTY, max_try_correction=None):
        """Bartlett samples, then PyTorch 2.13's correction loop as it runs: its first test marks the samples that
        pass `support.check` (not the failing ones), so a valid draw warns "Singular sample detected." and is
        redrawn once; seeded programs see PyTorch's numbers."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        dims = [-(k + 1) for k in range(len(self._batch_shape))]
        flagged = self.support.check(sample)
        if dims:
            flagged = flagged.amax(dims)
        if flagged.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(flagged[flagged].shape)
                sample[flagged] = fresh
                still = ~self.support.check(fresh)
                if dims:
                    still = still.amax(dims)
                flagged[flagged.clone()] = still
                if not flagged.any():
                    break
        return sample

    def _log_scale_term(self):
        p = self._event_shape[-1]
        return p * math.log(2) / 2 + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        n = tuple(_infer_size(L.shape[:-2], value.shape[:-2]))
        # tr(Sigma^-1 X) = |L^-1 X^(1/2)|^2 through a Cholesky factor of X: solve L Y = chol(X)
        Y = _solve_lower(L.expand(n + (p, p)), torch.linalg.cholesky(value).expand(n + (p, p)))
        return (-nu * self._log_scale_term() - _mvlgamma(nu / 2, p) + (nu - p - 1) / 2 * torch.logdet(value)
                - Y.pow(2).sum((-2, -1)) / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * self._log_scale_term() + _mvlgamma(nu / 2, p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
                + nu * p / 2)
