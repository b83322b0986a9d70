"""More losses of `torch.nn.functional`: ctc_loss (ember-core's kernels), multilabel_margin_loss and
triplet_margin_with_distance_loss (compositions, so their gradients and devices come from the
primitives)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ember import autograd as ea
from ember.core import Tensor
from ember.core.dispatch import composite, node_name
from ember.core.dtypes import TORCH_NAMES
from ember.core.ops.ctc import ctc_loss as _ctc_loss
from ember.nn.functional._loss import _legacy_reduction, _reduce

__all__ = ["ctc_loss", "multilabel_margin_loss", "triplet_margin_with_distance_loss"]


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The connectionist temporal classification loss; log_probs `(T, N, C)` from log_softmax.

    Targets are `(N, S)` padded or `(sum(target_lengths),)` concatenated; 'mean' divides each loss
    by its target length before averaging. Like PyTorch's, the gradient w.r.t. log_probs is the
    one seen through the log_softmax that produced them.
    """
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


@composite("multilabel_margin_loss")  # seen whole: CPU autocast runs it in float32
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])), divided by C.

    Args:
        input: `(C)` or `(N, C)` scores. target: int64 of the same shape: the target classes of each row,
            ended by the first -1.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input.dim() not in (0, 1, 2) or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if target.dtype != ea.int64:
        raise RuntimeError(f"expected scalar type Long but found {TORCH_NAMES[target.dtype.name]}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    t = np.asarray(target.detach().cpu().numpy(), dtype=np.int64).reshape(x.shape)
    n, c = x.shape
    counts = np.zeros((n, c))
    for row in range(n):
        for v in t[row]:
            if v < 0:
                break
            if v >= c:
                raise RuntimeError("argument #2 'target' is out of range")
            counts[row, v] += 1
    is_target = counts > 0
    weight = counts[:, :, None] * (~is_target)[:, None, :]  # (N, j, i): each listed target against each non-target
    w = ea.tensor(weight, dtype=x.dtype, device=x.device)
    margins = ea.relu(1.0 - x.unsqueeze(2) + x.unsqueeze(1))  # no gradient at the kink, as PyTorch (clamp passes it)
    loss = (margins * w).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    loss = _reduce(loss, reduction)
    return node_name(loss, type(loss.grad_fn).__name__, "MultilabelMarginLossBackward0")


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with any distance `d` (default: `pairwise_distance`);
    `swap` uses d(p, n) where it is smaller than d(a, n)."""
    from ember.nn.functional import pairwise_distance

    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           f"inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = ea.minimum(d_neg, dist(positive, negative))
    return _reduce(ea.clamp(margin + d_pos - d_neg, min=0), reduction)
