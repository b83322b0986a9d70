"""`Distribution`: the base class of every family (shapes, sampling, argument validation, repr)."""

from __future__ import annotations

import warnings

import ember.autograd as torch
from ember.autograd import Size, Tensor

from ember.torch.distributions import constraints
from ember.torch.distributions.utils import _EMPTY, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A batch of probability distributions over events of `event_shape`.

    Args:
        batch_shape: the shape over which parameters are batched.
        event_shape: the shape of one sample of one distribution.
        validate_args: check parameters (in `__init__`) and values (in `log_prob` ...) against their
            constraints; None takes the default (`set_default_validate_args`, True as in PyTorch).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Set whether distributions validate their arguments by default (True unless python runs -O)."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_EMPTY, event_shape=_EMPTY, validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with `validate_args=False` "
                              "to turn off validation.",
                              stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue  # the parameterization not given: it is computed from the other, already checked
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n"
                        f"{constraints._fmt(value)}")

    def expand(self, batch_shape, _instance=None) -> Distribution:
        """This distribution with its batch broadcast to `batch_shape` (parameters expanded, not copied)."""
        raise NotImplementedError

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_params(self, cls, batch_shape, names, _instance=None) -> Distribution:
        """`expand` for a family whose parameters all have the batch shape: expand each one present."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(batch_shape) + tuple(self._event_shape)))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """The constraint each parameter must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint | None:
        """The constraint the samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape=_EMPTY) -> Tensor:
        """Draw samples of shape `sample_shape + batch_shape + event_shape`, without gradient."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_EMPTY) -> Tensor:
        """Draw reparametrised samples: gradients flow from them to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape=_EMPTY) -> Size:
        """`sample_shape + batch_shape + event_shape`."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
        """Check that `value` is a tensor broadcastable to the batch and event shapes, inside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if Size(value.shape[event_dim_start:]) != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs "
                             f"{self._event_shape}.")
        actual_shape = value.shape
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(tuple(actual_shape)), reversed(tuple(expected_shape))):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=2)
            return
        assert support is not None
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{constraints._fmt(value)}")

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for name in names:
            value = self.__dict__[name]
            if value.numel() == 1:
                shown = value.item() if value.dim() == 0 else value
            else:
                shown = value.shape
            parts.append(f"{name}: {shown}")
        return f"{self.__class__.__name__}({', '.join(parts)})"
