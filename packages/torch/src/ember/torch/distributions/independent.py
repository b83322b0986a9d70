"""`Independent(base_distribution, reinterpreted_batch_ndims)`: batch dims reread as event dims."""

from __future__ import annotations

from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Treats the rightmost `reinterpreted_batch_ndims` batch dims of `base_distribution` as event dims,
    so `log_prob` sums over them (a diagonal Normal as one multivariate event).

    Raises:
        ValueError: when `reinterpreted_batch_ndims` exceeds the base's batch dims.

    Example:
        >>> import ember.autograd as torch
        >>> from ember.torch.distributions.normal import Normal
        >>> d = Independent(Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
        >>> d.batch_shape, d.event_shape, d.log_prob(torch.zeros(2, 3)).shape
        (ember.Size([2]), ember.Size([3]), ember.Size([2]))
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = Size(tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape))
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[:len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim:]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(
            tuple(batch_shape) + tuple(self.event_shape[:self.reinterpreted_batch_ndims]))
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=_EMPTY):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=_EMPTY):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        log_prob = self.base_dist.log_prob(value)
        return _sum_rightmost(log_prob, self.reinterpreted_batch_ndims)

    def entropy(self):
        entropy = self.base_dist.entropy()
        return _sum_rightmost(entropy, self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
