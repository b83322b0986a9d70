"""`Categorical(probs=None, logits=None)`: one of K categories, batched over the leading dimensions."""

from __future__ import annotations

import numpy as np

import ember.autograd as torch
from ember.autograd import Size

from ember.torch.distributions import constraints
from ember.torch.distributions._binary import _one_of
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.utils import _EMPTY, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Samples are indices in [0, K) drawn with probabilities `probs` (normalised over the last dim) or
    `softmax(logits)`; the leading dims of the parameter are the batch.

    Raises:
        ValueError: when both or neither of `probs` and `logits` are given, or the parameter has no dim.

    Example:
        >>> d = Categorical(torch.tensor([0.25, 0.25, 0.5]))
        >>> d.log_prob(torch.tensor(2)).exp()
        tensor(0.5000)
        >>> d.sample((4,)).shape
        ember.Size([4])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = self._param.shape[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(param_shape))
                new._param = getattr(new, name)
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @property
    def mean(self):
        return torch.full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype,
                          device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return torch.full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype,
                          device=self.probs.device)

    def sample(self, sample_shape=_EMPTY):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        with torch.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            # an empty sample_shape asks multinomial for 0 samples: PyTorch's "cannot sample n_sample <= 0 samples"
            samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).transpose(0, 1)
            return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = float(np.finfo(self.logits.dtype.np).min)
        logits = torch.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True):
        values = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
