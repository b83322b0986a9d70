"""Loss functions composed from differentiable primitives (autograd derives their gradients)."""


from __future__ import annotations

import math
import numbers

import numpy as np

from ember import autograd as ea
from ember.autograd.grad_mode import refuse_grad
from ember.core import Tensor, dtypes
from ember.core.dispatch import composite, node_name
from ember.core.dtypes import TORCH_NAMES
from ember.core.methods import numpy_aliases
from ember.core.ops.arguments import parsed
from ember.core.ops._util import warn_at_caller
from ember.core.ops.complex import ComplexNotSupported
from ember.core.ops.softmax import legacy_reduction as _legacy_reduction
from ember.core.ops.softmax import mse_loss_op
from ember.core.tensor import describe

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "nll_loss", "cross_entropy", "kl_div", "cosine_embedding_loss",
           "cosine_similarity", "normalize", "margin_ranking_loss", "soft_margin_loss", "gaussian_nll_loss",
           "poisson_nll_loss", "hinge_embedding_loss", "multi_margin_loss", "triplet_margin_loss",
           "multilabel_soft_margin_loss"]


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _named(loss: Tensor, name: str) -> Tensor:
    """The fresh loss `loss` with PyTorch's node name for its fused loss (its outer node renamed)."""
    fn = loss.grad_fn
    return loss if fn is None else node_name(loss, type(fn).__name__, name)


def _check_reduction(reduction: str) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_broadcast(name: str, input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warn_at_caller(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                       "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                       "same size.")


def _no_complex(kernel: str, *tensors: Tensor) -> None:
    """PyTorch's NotImplementedError for a loss whose CPU kernel `kernel` has no complex instance."""
    for t in tensors:
        if isinstance(t, Tensor) and t.is_complex():
            raise ComplexNotSupported(f"\"{kernel}\" not implemented for '{TORCH_NAMES[t.dtype.name]}'")


def _floating_kernel(kernel: str, input: Tensor, target: Tensor) -> None:
    """PyTorch's NotImplementedError for a loss kernel `kernel` that has only complex-free floating instances:
    the inputs' promoted dtype must be floating (`mse_loss(long, double)` computes, `mse_loss(long, long)` not)."""
    _no_complex(kernel, input, target)
    dt = dtypes.result_type(input, target)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{TORCH_NAMES[dt.name]}'")


@composite("mse_loss")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """(input - target)^2, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _floating_kernel("mse_cpu", input, target)
    _warn_broadcast("mse_loss", input, target)
    if weight is not None:
        return _reduce((input - target) ** 2 * weight, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return mse_loss_op(input, target, reduction)  # one node, as PyTorch's


@composite("l1_loss")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """|input - target|, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _warn_broadcast("l1_loss", input, target)
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@composite("smooth_l1_loss")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _floating_kernel("smooth_l1_cpu", input, target)
    _warn_broadcast("smooth_l1_loss", input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = _wide_bfloat16(input) - _wide_bfloat16(target)
    d = diff.abs()
    if beta == 0:
        return _reduce(d.to(input.dtype), reduction)
    # the square of `diff`, not of `d`: abs's zero gradient at 0 would zero the second derivative there
    loss = ea.where(d < beta, 0.5 * diff * diff / beta, d - 0.5 * beta)
    return _named(_reduce(loss.to(ea.result_type(input, target)), reduction), "SmoothL1LossBackward0")


def _wide_bfloat16(x: Tensor) -> Tensor:
    """x in float32 where it is bfloat16, else x: PyTorch's smooth_l1 kernel computes bfloat16 (only) in float32
    and rounds each loss once (its float16 kernel rounds at every step, as ember's ops do)."""
    return x.float() if x.dtype is ea.bfloat16 else x


@composite("huber_loss")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where d = |input - target| < delta, else delta (d - 0.5 delta)."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _floating_kernel("huber_cpu", input, target)
    _warn_broadcast("huber_loss", input, target)
    wide = input.dtype is ea.float16  # PyTorch's huber kernel computes float16 (only) in float32, one rounding
    diff = (input.float() if wide else input) - (target.float() if target.dtype is ea.float16 else target)
    d = diff.abs()
    loss = ea.where(d < delta, 0.5 * diff * diff, delta * (d - 0.5 * delta))
    if wide:
        loss = loss.to(ea.result_type(input, target))
    if weight is not None:
        return _reduce(loss * weight, reduction)
    return _named(_reduce(loss, reduction), "HuberLossBackward0")


@composite("binary_cross_entropy")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as PyTorch does; the gradient is
    finite at x = 0 and 1 (ember-core's primitive, whose derivative is written for the boundary)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _no_complex("binary_cross_entropy", input, target)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:  # PyTorch's kernel takes one dtype (integer labels are a common slip)
        raise RuntimeError(f"Found dtype {dtypes.TORCH_NAMES[target.dtype.name]} but expected "
                           f"{dtypes.TORCH_NAMES[input.dtype.name]}")
    if weight is not None:  # PyTorch broadcasts the weight to the target first, with broadcast_shapes' words
        ea.broadcast_shapes(target.shape, weight.shape)
    refuse_grad("binary_cross_entropy", weight=weight)
    return _named(ea.binary_cross_entropy(input, target, weight, reduction), "BinaryCrossEntropyBackward0")


@composite("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """BCE of sigmoid(input): (1 - t) x - w_log * log_sigmoid(x), with w_log = 1 + (pos_weight - 1) t.
    log_sigmoid is stable at any |x| and smooth, so the gradient (1 - t) - w_log sigmoid(-x) is
    exact everywhere (at x = 0 too, where a composition through abs/max had a wrong subgradient)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if not (target.dtype.is_floating_point or target.dtype.is_complex or target.dtype is ea.bool):
        # PyTorch computes into the target's dtype: integer labels cannot hold the float loss
        raise RuntimeError(f"result type {dtypes.TORCH_NAMES[input.dtype.name]} can't be cast to the desired output "
                           f"type {dtypes.TORCH_NAMES[target.dtype.name]}")
    if target.dtype is ea.bool:  # PyTorch's (1 - target) fills a bool tensor with 1 and subtracts the bool target
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    refuse_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    def into(t: Tensor, like: Tensor) -> Tensor:  # PyTorch computes in place: each step rounds to `like`'s dtype
        return t if t.dtype is like.dtype or not like.dtype.is_floating_point else t.to(like.dtype)

    log_sigmoid = ea.logsigmoid(input)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        log_sigmoid = into(log_weight * log_sigmoid, log_weight)
    loss = into(into((1 - target) * input, target) - log_sigmoid, target)  # in (1 - target): the target's dtype
    if weight is not None:
        loss = into(loss * weight, target)
    return _named(_reduce(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0")


def _refuse_class_weight_grad(input: Tensor, weight: Tensor | None) -> None:
    """nll_loss's class weights are not differentiable: PyTorch names its 1-D/2-D kernel, or the 2-D-image one that
    inputs of 3 dims and more reach."""
    if isinstance(input, Tensor):  # a list is refused by the argument parser, first
        refuse_grad("nll_loss_forward" if input.dim() < 3 else "nll_loss2d_forward", weight=weight)


@composite("nll_loss")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """-input[n, target[n]] (times weight[target[n]]), skipping `ignore_index`; input (N, C, d...)."""
    _refuse_class_weight_grad(input, weight)
    return ea.nll_loss(input, target, weight, size_average, ignore_index, reduce, reduction)


@composite("cross_entropy")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of the logits `input` (N, C, d...) against class ids (N, d...) or class
    probabilities (same shape as `input`), with optional label smoothing (ember-core's fused kernel)."""
    _aten_arguments("cross_entropy_loss", (("ignore_index", "int", ignore_index, 5),
                                            ("label_smoothing", "float", label_smoothing, 6)))
    if isinstance(target, Tensor) and not (target.dtype.is_floating_point or target.dtype.is_complex):  # class ids
        _refuse_class_weight_grad(input, weight)
    return ea.cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)


_KIND_TEST = {"Tensor": lambda v: isinstance(v, Tensor), "bool": lambda v: v.__class__ is bool,
              "int": lambda v: isinstance(v, int | np.integer) and v.__class__ is not bool,
              "float": lambda v: isinstance(v, float | int | np.number) and v.__class__ is not bool}


def _aten_arguments(op: str, checks) -> None:
    """PyTorch's parser TypeError for the ATen call a loss makes after its Python checks: (name, kind, value,
    position), the position None where torch.nn.functional passes the argument by keyword."""
    for name, kind, value, position in checks:
        if not _KIND_TEST[kind](value):
            where = "" if position is None else f" (position {position})"
            raise TypeError(f"{op}(): argument '{name}'{where} must be {kind}, not {type(value).__name__}")


@composite("kl_div")
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """target * (log target - input) with `input` log-probabilities; `reduction="batchmean"` divides
    the sum by the batch size (the mathematically correct KL). As PyTorch's, an explicit 'mean' warns before the
    inputs are checked and an unknown reduction raises first; the legacy arguments do neither."""
    if size_average is None and reduce is None:
        if reduction == "mean":
            warn_at_caller("reduction: 'mean' divides the total loss by both the batch size and the support size."
                           "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                           "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _aten_arguments("kl_div", (("input", "Tensor", input, 1), ("target", "Tensor", target, 2),
                               ("log_target", "bool", log_target, None)))
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = ea.exp(target) * (target - input)
    else:
        loss = ea.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction)


def _clamp_value(norm: Tensor, eps: float) -> Tensor:
    """max(norm, eps) in value, with norm's own gradient (PyTorch clamps its norms in place under
    no_grad): a zero vector then gets the finite gradient PyTorch gives, not 0 * inf."""
    return norm + (ea.clamp(norm, min=eps) - norm).detach()


@numpy_aliases
@parsed("cosine_similarity", x1="Tensor", x2="Tensor", dim="int", eps="float")
@composite("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along `dim` (inputs broadcast); the
    norms' gradient is 0 at a zero vector (vector_norm's rule), so zero vectors stay finite."""
    common = ea.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{TORCH_NAMES[common.name]}")
    # an integer (or bool) input computes in the common dtype; a float one, even 16-bit, in its own
    x1, x2 = (x if x.dtype.is_floating_point or x.dtype.is_complex else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:  # PyTorch broadcasts first: `dim` counts the dims of the common shape
        x1, x2 = ea.broadcast_tensors(x1, x2)
    n1 = _clamp_value(ea.linalg.vector_norm(x1, 2, dim, keepdim=True), eps)
    n2 = _clamp_value(ea.linalg.vector_norm(x2, 2, dim, keepdim=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p, eps) along `dim` (a zero row gives 0 and the gradient 1 / eps, as PyTorch)."""
    # PyTorch's `input.norm(p, dim, keepdim=True)`: a str or None order goes through torch.norm's matrix forms
    norm = ea.linalg.vector_norm(input, p, dim, keepdim=True) if isinstance(p, numbers.Number) \
        else input.norm(p, dim, keepdim=True)
    result = input / ea.clamp(norm, min=eps)
    return result if out is None else out.copy_(result)


@composite("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.dim() not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    rank = target.dim() + 1  # PyTorch: a 1-D target pairs 2-D inputs, a 0-D one 1-D inputs
    if input1.dim() != rank or input2.dim() != rank:
        raise RuntimeError(f"{target.dim()}D target tensor expects {rank}D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2):
        raise RuntimeError(f"cosine_embedding_loss: expected 1D or 2D inputs of the same rank; got "
                           f"{describe(input1)} and {describe(input2)}")
    dim = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = ea.zeros_like(cos)
    pos = ea.where(target == 1, 1 - cos, zeros)
    neg = ea.where(target == -1, ea.clamp(cos - margin, min=0), zeros)
    return _reduce(pos + neg, reduction)


@composite("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (x1 - x2) + margin)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce(ea.clamp(-target * (input1 - input2) + margin, min=0), reduction)


@composite("soft_margin_loss")
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input))."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _reduce(ea.log1p(ea.exp(-input * target)), reduction)  # PyTorch's operand order, for its size errors
    return _named(loss, "SoftMarginLossBackward0")


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """0.5 (log var + (input - target)^2 / var) (+ 0.5 log 2 pi with `full`); var is clamped at eps
    for the value only (its gradient passes through, as PyTorch)."""
    if not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ea.full_like(input, float(var))
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)  # homoscedastic: one variance per row
        # else var may differ from input in one dimension only, where it is 1 ((4, 1, 32, 32) for (4, 3, 32, 32))
        elif not (var.dim() == input.dim() and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")  # PyTorch's words here, not _check_reduction's
    var = ea.where(var < eps, var + (eps - var).detach(), var)  # (not clamp(var) - var: NaN at var = inf)
    loss = 0.5 * (ea.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@composite("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """exp(input) - target * input (log_input), else input - target * log(input + eps); `full` adds
    Stirling's approximation of log(target!) where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = ea.exp(input) - target * input if log_input else input - target * ea.log(input + eps)
    if full:
        stirling = target * ea.log(target) - target + 0.5 * ea.log(2 * math.pi * target)
        loss = loss + ea.where(target > 1, stirling, ea.zeros_like(stirling))
    return _reduce(loss, reduction)


@composite("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1. An integer (or bool) input keeps its dtype:
    PyTorch fills the margin into it (truncated, overflow refused) and subtracts there."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    zeros = ea.zeros_like(input)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        margin = ea.full_like(input, margin)
    loss = ea.where(target != 1, ea.clamp(margin - input, min=0), zeros) + ea.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


@composite("multi_margin_loss")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """sum over i != y of max(0, margin - x[y] + x[i])^p / C (times weight[y]); input (N, C) or (C,)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    nd = input.dim()
    if not (nd == 2 and input.shape[1] or nd == 1 and input.shape[0] or nd == 0):  # PyTorch's shape check
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input if nd == 2 else input.reshape(1, -1)  # a vector or a number: one sample
    if target.dim() > 1 or target.numel() != x.shape[0]:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{x.shape[0]}], but got "
                           f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if target.dtype != dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {TORCH_NAMES[target.dtype.name]}")
    c = x.shape[1]
    if weight is not None and (weight.dim() > 1 or weight.numel() != c):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    refuse_grad("multi_margin_loss", weight=weight)
    y = target.reshape(-1)
    if y.numel() and (int(y.min()) < 0 or int(y.max()) >= c):  # device targets too (a synchronization, where
        raise RuntimeError("target out of range")                # PyTorch's CUDA kernel asserts), before gather
    picked = x.gather(1, y.unsqueeze(1))
    margins = ea.relu(margin - picked + x)  # no gradient at the kink (PyTorch's z > 0), unlike clamp
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight[y].unsqueeze(1)
    not_target = ea.arange(x.shape[1], device=x.device).unsqueeze(0) != y.unsqueeze(1)
    loss = (margins * not_target.to(x.dtype)).sum(1) / x.shape[1]
    if nd < 2:  # one sample's loss takes the target's shape, () or (1,)
        loss = loss.reshape(target.shape)
    return _named(_reduce(loss, reduction), "MultiMarginLossBackward0")


@composite("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with d the p-norm distance (`swap`: d(a, n) is replaced by
    d(p, n) where that is smaller)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")

    def dist(a: Tensor, b: Tensor) -> Tensor:
        return ea.vector_norm(a - b + eps, p, -1)

    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = ea.minimum(d_neg, dist(positive, negative))
    return _reduce(ea.clamp(margin + d_pos - d_neg, min=0), reduction)


@composite("multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """Per-class binary cross entropy of logits, averaged over the classes (dim 1)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * ea.logsigmoid(input) + (1 - target) * ea.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.dim() - 1) / input.shape[-1]
    return _reduce(loss, reduction)
