"""`LowRankMultivariateNormal(loc, cov_factor, cov_diag)`: a Gaussian with covariance W W^T + diag(D)."""

from __future__ import annotations

import math

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.multivariate_normal import _batch_mv, _solve_lower
from ember.torch.distributions.utils import _EMPTY, _infer_size, _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(W, D):
    """The Cholesky factor of the capacitance K = I + W^T D^-1 W (r x r), which the Woodbury identity needs."""
    m = W.shape[-1]
    Wt_Dinv = W.transpose(-1, -2) / D.unsqueeze(-2)
    K = torch.matmul(Wt_Dinv, W) + torch.eye(m, dtype=W.dtype, device=W.device)
    return torch.linalg.cholesky(K)


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log det(W W^T + D) by the matrix determinant lemma: 2 sum log diag(L_K) + sum log D."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by the Woodbury identity: x^T D^-1 x - |L_K^-1 W^T D^-1 x|^2."""
    Wt_Dinv_x = _batch_mv(W.transpose(-1, -2), x / D)
    batch = tuple(_infer_size(capacitance_tril.shape[:-2], Wt_Dinv_x.shape[:-1]))
    m = capacitance_tril.shape[-1]
    L = capacitance_tril.expand(batch + (m, m))
    y = _solve_lower(L, Wt_Dinv_x.expand(batch + (m,)).unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / D).sum(-1) - y.pow(2).sum(-1)


class LowRankMultivariateNormal(Distribution):
    """A multivariate normal whose covariance is low rank plus diagonal, `cov_factor @ cov_factor.T +
    diag(cov_diag)`; log densities cost O(n r^2) through the Woodbury identity instead of O(n^3).

    Raises:
        ValueError: when the shapes of `loc` (..., n), `cov_factor` (..., n, r), `cov_diag` (..., n) disagree.
    """

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = torch.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                       cov_diag.unsqueeze(-1))
        except (RuntimeError, ValueError) as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        var = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return var.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def _dense_covariance(self):
        W = self._unbroadcasted_cov_factor
        return torch.matmul(W, W.transpose(-1, -2)) + torch.diag_embed(self._unbroadcasted_cov_diag)

    @lazy_property
    def _unbroadcasted_scale_tril(self):
        return torch.linalg.cholesky(self._dense_covariance())

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        return self._dense_covariance().expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: (D + W W^T)^-1 = D^-1 - D^-1 W K^-1 W^T D^-1
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        Wt_Dinv = W.transpose(-1, -2) / D.unsqueeze(-2)
        A = _solve_lower(self._capacitance_tril, Wt_Dinv)
        precision = torch.diag_embed(D.reciprocal()) - torch.matmul(A.transpose(-1, -2), A)
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        W_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = _standard_normal(W_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W) + self._unbroadcasted_cov_diag.sqrt() * eps_D

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                     self._capacitance_tril)

    def _half_log_det(self):
        return 0.5 * self._log_det()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M + self._log_det())

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
