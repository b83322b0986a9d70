"""Bijective transforms with log-det-Jacobians, for `TransformedDistribution` (LogNormal, relaxed families)."""

from __future__ import annotations

import math
import numbers

import numpy as np

import ember.autograd as torch
from ember.autograd import Tensor

from ember.torch.distributions import constraints
from ember.torch.distributions._transform import (CatTransform, ComposeTransform, CumulativeDistributionTransform,
                                                  IndependentTransform, ReshapeTransform, StackTransform, Transform,
                                                  identity_transform)
from ember.torch.distributions._transform import _InverseTransform as _InverseTransform  # PyTorch's private name
from ember.torch.distributions.utils import _finfo, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform"]


class ExpTransform(Transform):
    """y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class AbsTransform(Transform):
    """y = |x|; not bijective: its inverse returns the nonnegative preimage."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.exponent = exponent if isinstance(exponent, Tensor) else torch.tensor(float(exponent))

    def with_cache(self, cache_size: int = 1):
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


def _clip_unit(y: Tensor) -> Tensor:
    """`y` clamped to [tiny, 1 - eps] of its dtype, the range SigmoidTransform maps to and from."""
    finfo = _finfo(y.dtype)
    return y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))


def _clipped_sigmoid(x: Tensor) -> Tensor:
    """sigmoid(x) clamped to [tiny, 1 - eps] of its dtype (`_clip_unit`)."""
    return _clip_unit(torch.sigmoid(x))


class SigmoidTransform(Transform):
    """y = 1 / (1 + exp(-x)), clamped to [tiny, 1 - eps] (PyTorch's bounds) so that the inverse stays finite."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        y = _clip_unit(y)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -torch.softplus(-x) - torch.softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return torch.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -torch.softplus(-x)


class TanhTransform(Transform):
    """y = tanh(x); its log-det-Jacobian is written as 2 (log 2 - x - softplus(-2x)) to stay stable."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - torch.softplus(-2.0 * x))


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dim; not bijective (the inverse returns log y, one of many preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.amax(-1, keepdim=True)).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()


class StickBreakingTransform(Transform):
    """A bijection from R^(K-1) onto the K-simplex: each coordinate takes a sigmoid share of the stick left
    (offset so that x = 0 maps to the simplex's centre)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset(n: int, like: Tensor) -> Tensor:
        """log(n + 1 - k) for k = 1..n: the shift that centres the stick breaks."""
        return torch.arange(n, 0, -1, dtype=like.dtype, device=like.device).log()

    def _call(self, x):
        z = torch.sigmoid(x - self._offset(x.shape[-1], x))
        z_cumprod = (1 - z).cumprod(-1)
        ones = torch.ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype, device=x.device)
        return torch.cat([z, ones], -1) * torch.cat([ones, z_cumprod], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        sf = (1 - y_crop.cumsum(-1)).clamp(min=float(np.finfo(y.dtype.np).tiny))
        return y_crop.log() - sf.log() + self._offset(y_crop.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        x = x - self._offset(x.shape[-1], x)
        return (-x + torch.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class CorrCholeskyTransform(Transform):
    """A bijection from R^(D(D-1)/2) onto Cholesky factors of D x D correlation matrices: tanh into (-1, 1),
    laid out below the diagonal, then each row stick-broken so that it has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other) -> bool:
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        eps = float(np.finfo(x.dtype.np).eps)
        r = vec_to_tril_matrix(torch.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # each row: the remaining length sqrt(prod(1 - r_j^2)) over the earlier columns scales r_i
        remaining = (1 - r.pow(2)).sqrt().cumprod(-1)
        ones = torch.ones(tuple(r.shape[:-1]) + (1,), dtype=r.dtype, device=r.device)
        scale = torch.cat([ones, remaining[..., :-1]], -1)
        return (r + torch.eye(r.shape[-1], dtype=r.dtype, device=r.device)) * scale

    def _inverse(self, y):
        left = 1 - torch.cumsum(y * y, dim=-1)
        ones = torch.ones(tuple(y.shape[:-1]) + (1,), dtype=y.dtype, device=y.device)
        left_before = torch.cat([ones, left[..., :-1]], -1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left_before, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        left = 1 - (y * y).cumsum(dim=-1)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + torch.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class LowerCholeskyTransform(Transform):
    """A lower-triangular matrix with positive diagonal from any square matrix: the strict lower triangle
    as is, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + torch.diag_embed(x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return y.tril(-1) + torch.diag_embed(y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(Transform):
    """A positive-definite matrix L L^T from any square matrix, L = LowerCholeskyTransform()(x)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return torch.matmul(L, L.transpose(-1, -2))

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class AffineTransform(Transform):
    """y = loc + scale * x, with `event_dim` dims per event (the log-det-Jacobian sums over them)."""

    bijective = True

    def __init__(self, loc, scale, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real,
                                                                                     self._event_dim)

    @property
    def codomain(self):
        return self.domain

    def with_cache(self, cache_size: int = 1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool(torch.as_tensor(a).eq(torch.as_tensor(b)).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = torch.full_like(x, math.log(abs(scale)))
        else:
            result = torch.abs(scale).log()
        if self._event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self._event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)
