"""More loss modules: `CTCLoss`, `MultiLabelMarginLoss`, `TripletMarginWithDistanceLoss`, the
deprecated `NLLLoss2d`, and `AdaptiveLogSoftmaxWithLoss` (Grave et al.'s efficient softmax)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable

import numpy as np

from ember import autograd as ea
from ember.core import Tensor
from ember.nn import functional as F
from ember.nn.modules.container import ModuleList, Sequential
from ember.nn.modules.extra import PairwiseDistance
from ember.nn.modules.linear import Linear
from ember.nn.modules.loss import NLLLoss, _Loss
from ember.nn.modules.module import Module

__all__ = ["CTCLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d",
           "AdaptiveLogSoftmaxWithLoss"]


class CTCLoss(_Loss):
    """The connectionist temporal classification loss: `forward(log_probs, targets, input_lengths,
    target_lengths)` with log_probs `(T, N, C)`; see `F.ctc_loss`."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss; targets list each row's classes, ended by -1."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, margin + d(a, p) - d(a, n)) for any distance function `d` (default: pairwise_distance)."""

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             f"instead")
        # PyTorch's default is a PairwiseDistance submodule (it shows in the repr), not None
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """The deprecated name of NLLLoss for `(N, C, H, W)` inputs."""


_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """An adaptive softmax: frequent classes (below `cutoffs[0]`) in a head, the others in clusters
    reached through the head, each cluster's projection `div_value` times narrower than the last.

    `forward(input, target)` returns `(output, loss)`: the target log-probabilities `(N,)` and their
    negated mean. `log_prob(input)` gives every class's log-probability, `predict(input)` the argmax.
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0, head_bias: bool = False,
                 device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, device=device, dtype=dtype),
                                        Linear(hsz, osz, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{list(input_.shape)}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{list(input_.shape)}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = targ_dim > 0
        input = input_ if batched else input_.unsqueeze(0)
        t = np.asarray(target_.detach().cpu().numpy(), dtype=np.int64).reshape(-1)
        if t.size and (t.min() < 0 or t.max() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{t.min()}, {t.max()}] were found. ")
        dev = input.device
        gather = t.copy()
        output = ea.zeros(len(t), dtype=input.dtype, device=dev)
        for i in range(self.n_clusters):
            lo, hi = self.cutoffs[i], self.cutoffs[i + 1]
            rows = np.nonzero((t >= lo) & (t < hi))[0]
            if rows.size == 0:
                continue
            gather[rows] = self.shortlist_size + i
            r = ea.tensor(rows, dtype=ea.int64, device=dev)
            logp = F.log_softmax(self.tail[i](input.index_select(0, r)), dim=1)
            rel = ea.tensor(t[rows] - lo, dtype=ea.int64, device=dev).unsqueeze(1)
            output = output.index_add(0, r, logp.gather(1, rel).squeeze(1))
        head = F.log_softmax(self.head(input), dim=1)
        output = output + head.gather(1, ea.tensor(gather, dtype=ea.int64, device=dev).unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head = F.log_softmax(head_output, dim=1)
        parts = [head[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            logp = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(logp + head[:, self.shortlist_size + i].unsqueeze(1))
        return ea.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Every class's log-probability: `(N, n_classes)` for `(N, in_features)` input."""
        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row."""
        return self.log_prob(input).argmax(dim=-1)
