"""The `torch.*` spellings of functional layers and losses (`torch.alpha_dropout`,
`torch.kl_div`, `torch.conv_tbc` ...): ATen's signatures over ember.nn.functional, with the
reduction as at::Reduction's int (0 none, 1 mean, 2 sum) where ATen takes one."""

from __future__ import annotations

from ember.core import Tensor
from ember.nn import functional as F

__all__ = ["alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout_",
           "dropout_", "rrelu_", "conv_tbc", "native_channel_shuffle", "channel_shuffle", "max_pool1d_with_indices",
           "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "kl_div", "poisson_nll_loss",
           "triplet_margin_loss", "binary_cross_entropy_with_logits", "pairwise_distance", "selu_", "celu_",
           "threshold_"]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(r) -> str:
    if isinstance(r, int) and 0 <= r < 3:
        return _REDUCTIONS[r]
    raise ValueError(f"reduction must be 0 (none), 1 (mean) or 2 (sum), as at::Reduction; got {r!r}")


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    from ember import autograd as ea

    result = ea.feature_dropout(input, p, train)
    return input if result is input else input.copy_(result)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, p, train, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    return F.rrelu_(input, lower, upper, training)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    return F.conv_tbc(input, weight, bias, pad)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return F.native_channel_shuffle(input, groups)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return F.channel_shuffle(input, groups)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode: bool = False):
    return F.max_pool1d_with_indices(input, kernel_size, stride if stride != () else None, padding, dilation,
                                     ceil_mode)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1) -> Tensor:
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def kl_div(input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False) -> Tensor:
    """ATen's kl_div: reduction 1 is the plain mean over every element (F.kl_div's 'mean')."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # F.kl_div's advice to use 'batchmean' is not ATen's
        return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, reduction: int = 1) -> Tensor:
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def selu_(input: Tensor) -> Tensor:
    return F.selu_(input)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu_(input, alpha)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold_(input, threshold, value)
