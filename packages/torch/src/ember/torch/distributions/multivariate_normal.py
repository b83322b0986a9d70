"""`MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)`."""

from __future__ import annotations

import math

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, _infer_size, _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dims: (..., n, n) @ (..., n) -> (..., n)."""
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _solve_lower(L, B):
    """L^{-1} B for lower-triangular L; through `tril`, so gradients reach only L's lower triangle (as with
    PyTorch's solve_triangular)."""
    return torch.linalg.solve(L.tril(), B)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^{-1} x over broadcast batches, by solving L y = x (L is lower triangular)."""
    n = bx.shape[-1]
    batch = tuple(_infer_size(bL.shape[:-2], bx.shape[:-1]))
    y = _solve_lower(bL.expand(batch + (n, n)), bx.expand(batch + (n,)).unsqueeze(-1)).squeeze(-1)
    return y.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    return torch.linalg.cholesky(torch.linalg.inv(P))


class MultivariateNormal(Distribution):
    """A Gaussian over vectors of size n with mean `loc` (..., n) and one of a covariance matrix, a precision
    matrix or a lower-triangular scale with positive diagonal (..., n, n).

    Raises:
        ValueError: when not exactly one matrix is given, or shapes do not fit.
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        matrix = next(m for m in (scale_tril, covariance_matrix, precision_matrix) if m is not None)
        name = ("scale_tril" if scale_tril is not None else
                "covariance_matrix" if covariance_matrix is not None else "precision_matrix")
        if matrix.dim() < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name  # PyTorch's three wordings
            raise ValueError(f"{label} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = _infer_size(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.transpose(-1, -2)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return torch.linalg.inv(self.covariance_matrix)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=_EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
