"""The connectionist temporal classification loss (`ctc_loss`), log-space forward-backward on
Numba CPU kernels.

`ctc_loss_op(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)` is the
primitive: `(neg_log_likelihood (N,), log_alpha (N, T, 2 S + 1))`, as PyTorch's `_ctc_loss`;
its backward `ctc_loss_backward` reuses log_alpha. The lengths are Python tuples by then; the
meta step checks them and the targets' shape before any kernel runs, the CPU kernel checks the
target values (the recursions index log_probs by them). The public `ctc_loss` takes targets
padded `(N, S)` or concatenated `(sum(target_lengths),)` and applies the reduction and
zero_infinity around the primitive.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare
from ember.core.ops._util import wrap
from ember.core.ops.parser_errors import invalid_arguments
from ember.core.tensor import Tensor, describe

__all__ = ["ctc_loss"]


def _kernels():
    from ember.core.ops import _ctc_kernels

    return _ctc_kernels


ctc_loss_op = declare("ctc_loss", doc="""The CTC negative log likelihood of each batch element.

Positional signature: `ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
zero_infinity)`: log_probs `(T, N, C)`, targets int `(N, S)` padded or `(sum(target_lengths),)`
concatenated, lengths tuples of N ints. Returns `(neg_log_likelihood (N,), log_alpha (N, T,
2 max(target_lengths) + 1))`; zero_infinity is for the backward only. Backward:
`ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
log_alpha, blank, zero_infinity)` -> grad of log_probs.""")


def _check(log_probs, targets, input_lengths, target_lengths, blank) -> None:
    """PyTorch's checks of `ctc_loss_allocate_outputs`, with its messages."""
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor for argument "
                           f"#1 'log_probs' (while checking arguments for ctc_loss_allocate_outputs)")
    n_t, n_b, n_c = log_probs._shape
    if log_probs._dtype not in (dtypes.float32, dtypes.float64):  # PyTorch's kernels have no 16-bit version
        where = "cuda" if log_probs.device.type == "cuda" else "cpu"
        raise NotImplementedError(f"\"ctc_loss_{where}\" not implemented for "
                                  f"'{dtypes.TORCH_NAMES[log_probs._dtype.name]}'")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if targets._dtype.is_floating_point or targets._dtype is dtypes.bool:
        raise TypeError(f"ctc_loss: expected integer targets; got {describe(targets)}")
    if not 0 <= blank < n_c:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != n_b:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != n_b:
        raise RuntimeError("target_lengths must be of size batch_size")
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        for v in lengths:
            if v < 0:
                raise RuntimeError(f"Expected {name} to have value at least 0, but got value {v} (while checking "
                                   f"arguments for ctc_loss_allocate_outputs)")
    for v in input_lengths:
        if v > n_t:
            raise RuntimeError(f"Expected input_lengths to have value at most {n_t}, but got value {v} (while "
                               f"checking arguments for ctc_loss_allocate_outputs)")
    if targets.ndim == 1:
        if targets._shape[0] != sum(target_lengths):
            raise RuntimeError(f"Expected tensor to have size {sum(target_lengths)} at dimension 0, but got size "
                               f"{targets._shape[0]} for argument #2 'targets' (while checking arguments for "
                               f"ctc_loss_allocate_outputs)")
    elif targets.ndim == 2:
        if targets._shape[0] != n_b:
            raise RuntimeError(f"Expected tensor to have size {n_b} at dimension 0, but got size {targets._shape[0]} "
                               f"for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")
        if n_b and max(target_lengths) > targets._shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {max(target_lengths)} at dimension 1, but got "
                               f"size {targets._shape[1]} for argument #2 'targets' (while checking arguments for "
                               f"ctc_loss_allocate_outputs)")
    else:
        raise RuntimeError(f"ctc_loss: expected targets of 1 or 2 dims; got {describe(targets)}")


@ctc_loss_op.meta
def _ctc_loss_meta(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity) -> None:
    _check(log_probs, targets, input_lengths, target_lengths, blank)


def _padded(targets: Tensor, target_lengths, n_c: int) -> np.ndarray:
    """Targets as `(N, max(target_lengths))` int64, their values checked against the class count."""
    t = np.asarray(targets._np(), dtype=np.int64)
    width = max(target_lengths, default=0)
    if t.ndim == 2:
        out = np.ascontiguousarray(t[:, :width])
        used = np.concatenate([out[i, :n] for i, n in enumerate(target_lengths)]) if width else out.reshape(-1)
    else:
        out = np.zeros((len(target_lengths), width), np.int64)
        starts = np.concatenate([[0], np.cumsum(target_lengths)])
        for i, n in enumerate(target_lengths):
            out[i, :n] = t[starts[i]:starts[i] + n]
        used = t
    bad = (used < 0) | (used >= n_c)
    if bad.any():
        raise RuntimeError(f"ctc_loss: target values must be class indices in [0, {n_c}); got {int(used[bad][0])}")
    return out


def _work(log_probs: Tensor) -> np.ndarray:
    a = log_probs._np()
    return np.ascontiguousarray(a, dtype=np.float64 if a.dtype == np.float64 else np.float32)


@ctc_loss_op.register("cpu")
def _ctc_loss_cpu(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    lp = _work(log_probs)
    n_t, n_b, n_c = lp.shape
    tg = _padded(targets, target_lengths, n_c)
    log_alpha = np.full((n_b, n_t, 2 * tg.shape[1] + 1), -np.inf, lp.dtype)
    nll = np.empty(n_b, lp.dtype)
    if n_b:
        _kernels().forward(lp, tg, np.asarray(input_lengths, np.int64), np.asarray(target_lengths, np.int64),
                           int(blank), log_alpha, nll)
    dt = log_probs._dtype.np
    return wrap(nll.astype(dt, copy=False)), wrap(log_alpha.astype(dt, copy=False))


ctc_loss_backward = declare("ctc_loss_backward", doc="""The gradient of ctc_loss w.r.t. log_probs.

Positional signature: `ctc_loss_backward(grad, log_probs, targets, input_lengths,
target_lengths, neg_log_likelihood, log_alpha, blank, zero_infinity)`, grad `(N,)`. As
PyTorch's: `exp(log_probs) - exp(log(sum_s alpha beta) + nll - log_probs)` times grad, the
gradient as seen through the log_softmax that makes log_probs (zero past each input length,
and for infinite losses when zero_infinity). Not differentiable again.""")


@ctc_loss_backward.meta
def _ctc_loss_backward_meta(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                            blank, zero_infinity) -> None:
    _check(log_probs, targets, input_lengths, target_lengths, blank)
    n_t, n_b = log_probs._shape[:2]
    width = 2 * max(target_lengths, default=0) + 1
    if tuple(grad._shape) != (n_b,) or tuple(neg_log_likelihood._shape) != (n_b,) or log_alpha.ndim != 3 \
            or tuple(log_alpha._shape[:2]) != (n_b, n_t) or log_alpha._shape[2] < width:
        raise RuntimeError(f"ctc_loss_backward: expected grad and neg_log_likelihood of shape ({n_b},) and log_alpha "
                           f"of shape ({n_b}, {n_t}, 2 S + 1); got {describe(grad)}, {describe(neg_log_likelihood)} "
                           f"and {describe(log_alpha)}")


@ctc_loss_backward.register("cpu")
def _ctc_loss_backward_cpu(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                           blank, zero_infinity):
    lp = _work(log_probs)
    tg = _padded(targets, target_lengths, lp.shape[2])
    out = np.zeros_like(lp)
    if lp.shape[1]:
        _kernels().backward(np.ascontiguousarray(grad._np(), dtype=lp.dtype), lp, tg,
                            np.asarray(input_lengths, np.int64), np.asarray(target_lengths, np.int64), int(blank),
                            np.ascontiguousarray(neg_log_likelihood._np(), dtype=lp.dtype),
                            np.ascontiguousarray(log_alpha._np(), dtype=lp.dtype), bool(zero_infinity), out)
    return wrap(out.astype(log_probs._dtype.np, copy=False))


def _lengths(v, name: str) -> tuple[int, ...]:
    if isinstance(v, Tensor):
        if v.dtype.is_floating_point or v.dtype is dtypes.bool:
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(a) for a in np.asarray(v.cpu()._np()).reshape(-1))
    if isinstance(v, numbers.Integral):
        return (int(v),)
    return tuple(int(a) for a in v)


_REDUCTIONS = ("none", "mean", "sum")
_CTC_OVERLOADS = [f"(Tensor log_probs, Tensor targets, {k} input_lengths, {k} target_lengths, int blank = 0, int "
                  "reduction = at::Reduction::Mean, bool zero_infinity = False)" for k in ("tuple of ints", "Tensor")]


def _length_kinds(fn):
    """`fn` refusing lengths that are neither both sequences of ints nor both tensors (a plain int is neither) with
    PyTorch's parser's TypeError over the arguments as given (`F.ctc_loss` gives all seven, its reduction as
    at::Reduction's int; `torch.ctc_loss(lp, t, 5, 2)` four)."""
    def opens_ints(v):  # PyTorch's parser reads a list as `tuple of ints` from its first element, a non-bool int
        return isinstance(v, list | tuple) and (not v or isinstance(v[0], int) and not isinstance(v[0], bool))

    def seq(v):
        return opens_ints(v) and all(isinstance(e, int) for e in v)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        il = args[2] if len(args) > 2 else kwargs.get("input_lengths")
        tl = args[3] if len(args) > 3 else kwargs.get("target_lengths")
        for name, v in (("input_lengths", il), ("target_lengths", tl)):
            if opens_ints(v) and not seq(v):
                pos, bad = next((i, e) for i, e in enumerate(v) if not isinstance(e, int))
                raise TypeError(f"ctc_loss(): argument '{name}' failed to unpack the object at pos {pos + 1} with "
                                f"error \"type must be tuple of ints,but got {type(bad).__name__}\"")
        if not (seq(il) and seq(tl) or isinstance(il, Tensor) and isinstance(tl, Tensor)) and not (
                len(args) > 5 and isinstance(args[5], str) and args[5] not in _REDUCTIONS):
            given = tuple(_REDUCTIONS.index(a) if i == 5 and isinstance(a, str) else a for i, a in enumerate(args))
            raise invalid_arguments("ctc_loss", given, kwargs, _CTC_OVERLOADS)
        return fn(*args, **kwargs)
    return call


@_length_kinds
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str | int = 0, zero_infinity: bool = False) -> Tensor:
    """The CTC loss, as `torch.nn.functional.ctc_loss` (`torch.ctc_loss`, ATen's form: without a `reduction`, each
    sample's loss, as PyTorch's binding reads its `at::Reduction::Mean` default as 0).

    Args:
        log_probs: `(T, N, C)` or unbatched `(T, C)` log-probabilities (log_softmax outputs).
        targets: `(N, S)` padded or `(sum(target_lengths),)` concatenated class indices (never `blank`);
            `(S,)` when unbatched.
        input_lengths, target_lengths: `(N,)` tensors, or both sequences of ints.
        blank: the blank class. reduction: 'none' | 'mean' (each loss divided by its target length,
            then averaged) | 'sum' (or 0, 1, 2, as `torch.ctc_loss` takes them).
        zero_infinity: impossible alignments give 0 and a zero gradient.
    Returns:
        the loss, `(N,)` for reduction='none'.
    Raises:
        RuntimeError: lengths out of range or of the wrong count, targets too short, a blank outside
            the classes, or target values outside the classes.
        TypeError: lengths neither both tensors nor both sequences of ints (a plain int, a mix).

    >>> import ember.core as ec
    >>> lp = ec.log_softmax(ec.zeros(2, 1, 2), 2)
    >>> round(ec.ctc_loss(lp, ec.tensor([[1]]), [2], [1], reduction="sum").item(), 4)
    0.2877
    """
    from ember.core.ops.join import where
    from ember.core.ops.layout import unsqueeze

    if isinstance(reduction, int) and 0 <= reduction <= 2:  # `torch.ctc_loss` takes at::Reduction's ints
        reduction = ("none", "mean", "sum")[reduction]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(log_probs, Tensor) or not isinstance(targets, Tensor):
        raise TypeError(f"ctc_loss(): log_probs and targets must be Tensors; got {describe(log_probs)} and "
                        f"{describe(targets)}")
    unbatched = log_probs.ndim != 3  # PyTorch unsqueezes every other rank: (T, C, 1) fails as a 4-D batch
    if unbatched:
        log_probs = unsqueeze(log_probs, 1)
        targets = unsqueeze(targets, 0) if targets.ndim == 1 else targets
    il, tl = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if targets.device != log_probs.device or targets.dtype is not dtypes.int64:
        # PyTorch moves them "as a service" (cuDNN wants CPU targets) and casts them to int64, floats truncating
        targets = targets.to(device=log_probs.device, dtype=dtypes.int64)
    nll, _ = ctc_loss_op(log_probs, targets, il, tl, int(blank), bool(zero_infinity))
    if zero_infinity:
        nll = where(nll == float("inf"), 0.0, nll)
    if reduction == "mean":
        from ember.core.creation import tensor

        div = tensor([max(n, 1) for n in tl], dtype=nll.dtype, device=nll.device)
        return (nll / div).mean()
    if reduction == "sum":
        return nll.sum()
    return nll[0] if unbatched else nll
