"""The probs-or-logits parameterization shared by Bernoulli, Binomial, Categorical and their relaxations."""

from __future__ import annotations

from ember.autograd import Tensor

from ember.torch.distributions.utils import broadcast_all


def _one_of(probs, logits) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _binary_param(dist, probs, logits) -> Tensor:
    """Store `probs` or `logits` (broadcast to a tensor) on `dist` and return the one given."""
    _one_of(probs, logits)
    if probs is not None:
        (dist.probs,) = broadcast_all(probs)
        return dist.probs
    (dist.logits,) = broadcast_all(logits)
    return dist.logits
