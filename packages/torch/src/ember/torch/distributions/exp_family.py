"""`ExponentialFamily`: the base of the families whose density is exp(<theta, t(x)> - F(theta) + k(x))."""

from __future__ import annotations

import ember.autograd as torch
from ember.autograd import Tensor

from ember.torch.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution given by natural parameters theta, a log normalizer F and a carrier measure k.

    Its entropy follows from these by one autograd call: H = F(theta) - <theta, grad F(theta)> - E[k(x)].
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy from the log normalizer's gradient (the Bregman divergence identity)."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
