"""softmax/log_softmax over any dim, the fused cross_entropy and nll_loss, with their backward ops,
and the elementwise binary_cross_entropy primitive.

All are numerically stable (the row max is subtracted before `exp`) and compute in the input's
floating dtype; float32/float64 rows along the last dim run as Numba row passes (`softmax_rows`).
softmax/log_softmax and their backward ops return row-major results whatever the input's layout (a
transposed or channels_last input too), as PyTorch's kernels do. The losses lay the class dim last
(`(M, C)` rows) and validate targets before any kernel runs, so an out-of-range class index raises
PyTorch's "Target 7 is out of bounds.".
"""

from __future__ import annotations

import warnings

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare, node_name
from ember.core.opinfo_indexing import info as _info
from ember.core.methods import attach, numpy_aliases
from ember.core.ops import softmax_rows as _rows_pass
from ember.core.ops._cascade_sum import cascade_sum
from ember.core.ops._util import _resize_out, check_out_dtype, index_arg, normalize_dims, warn_at_caller, wrap
from ember.core.tensor import Tensor, describe

__all__ = ["softmax", "_safe_softmax", "_softmax", "_log_softmax", "log_softmax", "softmin", "softmax_backward",
           "log_softmax_backward", "cross_entropy", "nll_loss", "cross_entropy_backward", "nll_loss_backward",
           "binary_cross_entropy", "mse_loss_op", "mse_loss_backward"]


def _log_softmax_np(x: np.ndarray, dim: int) -> np.ndarray:
    """`x - logsumexp(x)` along `dim`; an all -inf row, and a row with +inf (inf - inf), give NaN like PyTorch."""
    if not x.size:
        return x.copy()
    m = np.maximum.reduce(x, axis=dim, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # silently, as PyTorch
        z = x - np.where(m == -np.inf, 0, m)
        return z - np.log(np.add.reduce(np.exp(z), axis=dim, keepdims=True))


def _log_softmax_16bit_rows(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """log_softmax over the last dim of float32 `x` as PyTorch's 16-bit last-dim CPU kernel: it keeps the sum of the
    exponentials, and then its log, in the 16-bit type `dt`, and rounds `x - max - log` once more."""
    m = np.maximum.reduce(x, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # silently, as PyTorch
        z = x - np.where(m == -np.inf, 0, m)
        s = np.add.reduce(np.exp(z), axis=-1, keepdims=True).astype(dt).astype(np.float32)
        z -= np.log(s).astype(dt).astype(np.float32)
    return z.astype(dt)


def _opmath(a: np.ndarray) -> np.ndarray:
    """`a` in the dtype PyTorch computes it in: float32 for half and bfloat16 (one rounding, on the result; their
    type codes, which need neither `dtype.name`'s Python nor ml_dtypes loaded)."""
    return a.astype(np.float32) if a.dtype.char in "eE" else a


softmax_op = declare("softmax", doc="""Softmax along one dim (PyTorch's _softmax).

Positional signature: `softmax(input, dim)` with `dim` a non-negative int.
Backward: `softmax_backward(grad, result, dim)` -> grad_input.""")


@softmax_op.register("cpu")
def _softmax_cpu(input, dim):
    x = _opmath(input._np())
    if x.ndim == 0:
        return wrap(np.ones((), input._dtype.np))
    if dim == x.ndim - 1:
        if (out := _rows_pass.softmax_rows(x)) is not None:  # float32/64, row-major
            return wrap(out.astype(input._dtype.np, copy=False))
        if (z := _rows_pass.small_shifted(x)) is not None:  # NOTE [ Small rows: the shift in one call ]
            np.exp(z, out=z)
            z /= np.add.reduce(z, axis=dim, keepdims=True)
            return wrap(z.astype(input._dtype.np, copy=False))
    m = np.maximum.reduce(x, axis=dim, keepdims=True) if x.size else 0  # np.max's ufunc, without its wrappers
    with np.errstate(invalid="ignore"):  # a row all -inf (or with +inf) is NaN, silently as in PyTorch
        e = np.exp(x - m)
        e /= np.add.reduce(e, axis=dim, keepdims=True)
    return wrap(e.astype(input._dtype.np, order="C", copy=False))


safe_softmax_op = declare("_safe_softmax", doc="""Softmax along one dim where a slice whose every entry is -inf
gives zeros, not NaN (PyTorch's _safe_softmax: attention rows with every key masked).

Positional signature: `_safe_softmax(input, dim)` with `dim` a non-negative int.
Backward: `softmax_backward(grad, result, dim)` -> grad_input (zero on the zeros rows).""")


@safe_softmax_op.meta
def _safe_softmax_meta(input, dim) -> None:
    """A floating input, as softmax's kernels refuse the rest (PyTorch names the same kernel)."""
    if not input._dtype.is_floating_point and input.numel():
        from ember.core.ops.numeric import not_implemented_for

        kernel = "softmax_lastdim_kernel_impl" if dim == max(input.ndim - 1, 0) else "softmax_kernel_impl"
        raise not_implemented_for(kernel, input._dtype)


@safe_softmax_op.register("cpu")
def _safe_softmax_cpu(input, dim):
    x = _opmath(input._np())
    if x.ndim == 0:
        return wrap(np.asarray(0.0 if x == -np.inf else 1.0, input._dtype.np))
    if dim == x.ndim - 1 and (out := _rows_pass.safe_softmax_rows(x)) is not None:  # float32/64, row-major
        return wrap(out.astype(input._dtype.np, copy=False))
    empty = np.all(x == -np.inf, axis=dim, keepdims=True)
    m = np.maximum.reduce(x, axis=dim, keepdims=True) if x.size else 0
    with np.errstate(invalid="ignore"):  # a row with +inf, or a NaN, is NaN, silently as in PyTorch
        e = np.exp(np.where(empty, 0, x) - np.where(empty, 0, m))
        e /= np.add.reduce(e, axis=dim, keepdims=True)
    return wrap(np.where(empty, 0, e).astype(input._dtype.np, order="C", copy=False))


@safe_softmax_op.register("any")
def _safe_softmax_any(input, dim):
    """softmax, then zeros where the slice is all -inf: CUDA's softmax kernel and three elementwise/reduce ops."""
    from ember.core.dispatch import get_op
    from ember.core.ops import elementwise as ew

    masked = ew.eq(input, float("-inf"))
    empty = get_op("all")(masked, (dim,), True) if input.ndim else masked
    return ew.where(empty, 0.0, softmax_op(input, dim))


log_softmax_op = declare("log_softmax", doc="""Log-softmax along one dim (PyTorch's _log_softmax).

Positional signature: `log_softmax(input, dim)` with `dim` a non-negative int.
Backward: `log_softmax_backward(grad, result, dim)` -> grad_input.""")


@log_softmax_op.register("cpu")
def _log_softmax_cpu(input, dim):
    x = _opmath(input._np())
    if x.ndim == 0:
        return wrap(np.zeros((), input._dtype.np))
    if dim == x.ndim - 1 and x.dtype != input._dtype.np and x.size:
        return wrap(_log_softmax_16bit_rows(x, input._dtype.np))
    if dim == x.ndim - 1:
        if (out := _rows_pass.log_softmax_rows(x)) is not None:
            return wrap(out.astype(input._dtype.np, copy=False))
        if (z := _rows_pass.small_shifted(x)) is not None:  # NOTE [ Small rows: the shift in one call ]
            s = np.add.reduce(np.exp(z), axis=dim, keepdims=True)
            z -= np.log(s, out=s)
            return wrap(z.astype(input._dtype.np, copy=False))
    return wrap(_log_softmax_np(x, dim).astype(input._dtype.np, order="C", copy=False))


softmax_backward = declare("softmax_backward", doc="""The gradient of softmax: `y * (grad - sum(grad * y, dim))`.

Positional signature: `softmax_backward(grad, output, dim)` with `output` softmax's result.""")


@softmax_backward.register("cpu")
def _softmax_backward_cpu(grad, output, dim):
    g, y = _opmath(grad._np()), _opmath(output._np())
    if y.ndim == 0:
        return wrap(np.zeros((), output._dtype.np))
    if dim == y.ndim - 1 and (out := _rows_pass.softmax_backward_rows(g, y)) is not None:
        return wrap(out.astype(output._dtype.np, copy=False))
    gx = (g - np.add.reduce(g * y, axis=dim, keepdims=True)) * y  # PyTorch's order (the sign of a zero y's entry)
    return wrap(gx.astype(output._dtype.np, order="C", copy=False))


log_softmax_backward = declare("log_softmax_backward", doc="""The gradient of log_softmax.

Positional signature: `log_softmax_backward(grad, output, dim)` with `output` log_softmax's result;
grad_input = `grad - exp(output) * sum(grad, dim)`.""")


@log_softmax_backward.register("cpu")
def _log_softmax_backward_cpu(grad, output, dim):
    g, y = _opmath(grad._np()), _opmath(output._np())
    if y.ndim == 0:
        return wrap(np.zeros((), output._dtype.np))
    if dim == y.ndim - 1 and (out := _rows_pass.log_softmax_backward_rows(g, y)) is not None:
        return wrap(out.astype(output._dtype.np, copy=False))
    gx = g - np.exp(y) * np.add.reduce(g, axis=dim, keepdims=True)
    return wrap(gx.astype(output._dtype.np, order="C", copy=False))


# --- losses ---------------------------------------------------------------------------------
def _rows(x: np.ndarray) -> np.ndarray:
    """`(N, C, d1, ...)` or `(C,)` as `(M, C)` rows with the class dim last."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim == 2:  # rows already
        return x
    return np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])


def _unrows(r: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if len(shape) == 1:
        return r.reshape(shape)
    moved = (shape[0], *shape[2:], shape[1])
    return np.ascontiguousarray(np.moveaxis(r.reshape(moved), -1, 1))


def _exp_shifted(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(exp(r - shift), shift) for (M, C) rows, shift the row max, in one buffer: the class-index losses'
    softmax without materializing log_softmax. A row with +inf, or all -inf, is NaN (inf - inf), as PyTorch's."""
    shift = np.maximum.reduce(r, axis=1, keepdims=True)
    e = r - shift
    np.exp(e, out=e)
    return e, shift


def _shifted_sums_np(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shift, sum(exp(r - shift))) per row, as `_exp_shifted`: numpy's form of the row pass."""
    e, shift = _exp_shifted(r)
    return shift[:, 0], np.add.reduce(e, axis=1)


def _class_terms(x: Tensor, target: Tensor, weight, ignore_index: int):
    """Per-row valid targets (clamped to 0 where ignored) and their weights, as float arrays. A target
    outside [0, C) raises here, before anything reads by it (device targets: the meta step calls
    this on a host copy, `_check_device_targets`)."""
    c = x._shape[1] if x.ndim > 1 else x._shape[0]
    t = target._np().reshape(-1).astype(np.int64, copy=False)
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= c))
    if np.logical_or.reduce(bad, axis=None):  # bad.any()'s ufunc, without its Python wrapper
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    tt = np.where(valid, t, 0)
    if weight is None:  # every class weighs 1: a row's weight is whether it counts (the bits of ones[tt] * valid)
        w = np.ones(c, x._dtype.np)
        return tt, valid, w, valid.astype(w.dtype)
    w = weight._np().reshape(-1)  # a spatial loss takes any weight of C elements
    return tt, valid, w, w[tt] * valid


def _reduce(per_row: np.ndarray, reduction: str, denom, target_shape, dt) -> np.ndarray:
    if reduction == "none":
        return per_row.reshape(target_shape).astype(dt, copy=False)
    s = np.add.reduce(per_row, axis=None)  # per_row.sum()'s ufunc, without its Python wrapper
    if reduction == "sum":
        return np.asarray(s, dtype=dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(s / denom, dtype=dt)


def _row_scale(grad: np.ndarray, reduction: str, denom, m: int) -> np.ndarray:
    if reduction == "none":
        return grad.reshape(m, 1)
    g = grad.reshape(())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.full((m, 1), g / denom if reduction == "mean" else g, dtype=grad.dtype)


cross_entropy_op = declare("cross_entropy", doc="""Fused log_softmax + negative log likelihood.

Positional signature: `cross_entropy(input, target, weight, reduction, ignore_index,
label_smoothing)`, input `(N, C, d1, ...)` or `(C,)`; target either class indices (an integer
tensor of shape `(N, d1, ...)`, validated in range) or class probabilities (input's shape and
dtype); weight `(C,)` or None; reduction 'none' | 'mean' | 'sum'. 'mean' divides by the summed
weights of non-ignored targets (class indices) or by the number of rows (probabilities).
Backward: `cross_entropy_backward(grad, input, target, weight, reduction, ignore_index,
label_smoothing)` -> grad_input (target and weight get no gradient).""", info=_info("cross_entropy"))


@cross_entropy_op.register("cpu")
def _cross_entropy_cpu(input, target, weight, reduction, ignore_index, label_smoothing):
    x = input._np()
    dt = x.dtype
    if not target._dtype.is_floating_point and not label_smoothing and x.size:
        # only the targets' log-probabilities are read: (x_t - shift) - log(sum(exp(x - shift)))
        r = _rows(x)
        if weight is None and (small := _rows_pass.small_shifted_at(
                r, target._np().reshape(-1).astype(np.int64, copy=False), ignore_index)) is not None:
            z, xt, wt, n = small  # NOTE [ Small rows: the shift in one call ]
            np.exp(z, out=z)
            per_row = -(xt - np.log(np.add.reduce(z, axis=1))) * wt
            if reduction == "mean" and n:  # finite terms over a count: no flag for `_reduce`'s errstate to silence
                return wrap(np.asarray(np.add.reduce(per_row, axis=None) / dt.type(n), dtype=dt))
            return wrap(_reduce(per_row, reduction, dt.type(n), target._shape, dt))
        tt, valid, w, wt = _class_terms(input, target, weight, ignore_index)
        with np.errstate(divide="ignore", invalid="ignore"):  # silently, as PyTorch
            shift, sums = _rows_pass.shifted_exp_sums(r) or _shifted_sums_np(r)
            per_row = -((r[np.arange(r.shape[0]), tt] - shift) - np.log(sums)) * wt
        return wrap(_reduce(per_row, reduction, wt.sum(), target._shape, dt))
    lp = _log_softmax_np(_rows(x), 1)
    m, c = lp.shape
    if target._dtype.is_floating_point:
        p = _rows(target._np()) * (1 - label_smoothing) + label_smoothing / c
        w = weight._np() if weight is not None else 1
        per_row = -(lp * p * w).sum(1)
        shape = target._shape[:1] + target._shape[2:] if target.ndim > 1 else ()
        return wrap(_reduce(per_row, reduction, m, shape, dt))
    tt, valid, w, wt = _class_terms(input, target, weight, ignore_index)
    per_row = -lp[np.arange(m), tt] * wt
    if label_smoothing > 0:
        smooth = -(lp * w).sum(1) * valid
        per_row = (1 - label_smoothing) * per_row + label_smoothing / c * smooth
    per_row = np.where(valid, per_row, 0).astype(per_row.dtype, copy=False)  # an ignored row is 0, NaN input or not
    return wrap(_reduce(per_row, reduction, wt.sum(), target._shape, dt))


cross_entropy_backward = declare("cross_entropy_backward", doc="""The gradient of cross_entropy wrt its input.

Positional signature: `cross_entropy_backward(grad, input, target, weight, reduction,
ignore_index, label_smoothing)`, grad of the loss's shape -> grad_input of input's shape. It
recomputes the softmax: grad_input = A - softmax(input) * A.sum(class dim), A = dloss/dlog_softmax.""")


@cross_entropy_backward.register("cpu")
def _cross_entropy_backward_cpu(grad, input, target, weight, reduction, ignore_index, label_smoothing):
    x = input._np()
    g = grad._np()
    if not target._dtype.is_floating_point and not label_smoothing and x.size:
        # dloss/dlog_softmax is one value per row, coef, at its target: grad_input = onehot * coef -
        # softmax * coef, computed in the softmax's own buffer
        r = _rows(x)
        m = r.shape[0]
        tt, valid, w, wt = _class_terms(input, target, weight, ignore_index)
        with np.errstate(invalid="ignore", divide="ignore"):
            coef = np.where(valid, -wt * _row_scale(g, reduction, wt.sum(), m)[:, 0], 0)
            e = _rows_pass.cross_entropy_grad_rows(r, coef)
            if e is None:
                e, _ = _exp_shifted(r)
                e *= (-coef / e.sum(1))[:, None]
        e[np.arange(m), tt] += coef
        return wrap(_unrows(e.astype(x.dtype, copy=False), x.shape))
    lp = _log_softmax_np(_rows(x), 1)
    m, c = lp.shape
    if target._dtype.is_floating_point:
        p = _rows(target._np()) * (1 - label_smoothing) + label_smoothing / c
        w = weight._np() if weight is not None else 1
        a = -(p * w) * _row_scale(g, reduction, m, m)
    else:
        tt, valid, w, wt = _class_terms(input, target, weight, ignore_index)
        a = np.zeros((m, c), dtype=lp.dtype)
        a[np.arange(m), tt] = -(1 - label_smoothing) * wt
        if label_smoothing > 0:
            a -= (label_smoothing / c) * (valid[:, None] * w)
        # ignored rows get 0, also when 'mean' divides by a total weight of 0 (all ignored), as PyTorch
        with np.errstate(invalid="ignore"):
            a = np.where(valid[:, None], a * _row_scale(g, reduction, wt.sum(), m), 0)
    gi = a - np.exp(lp) * a.sum(1, keepdims=True)
    return wrap(_unrows(gi.astype(x.dtype, copy=False), x.shape))


nll_loss_op = declare("nll_loss", doc="""Negative log likelihood of log-probabilities (PyTorch's nll_loss_forward).

Positional signature: `nll_loss(input, target, weight, reduction, ignore_index)` with input
`(N, C, d1, ...)` or `(C,)` log-probabilities and integer targets (validated in range). Returns
`(output, total_weight)`: total_weight (0-dim, no gradient) is the summed weight of non-ignored
targets. Backward: `nll_loss_backward(grad, input, target, weight, reduction, ignore_index,
total_weight)` -> grad_input.""", info=_info("nll_loss"))


@nll_loss_op.register("cpu")
def _nll_loss_cpu(input, target, weight, reduction, ignore_index):
    x = input._np()
    r = _rows(x)
    tt, valid, _, wt = _class_terms(input, target, weight, ignore_index)
    per_row = np.where(valid, -r[np.arange(r.shape[0]), tt] * wt, 0).astype(x.dtype, copy=False)
    if reduction != "none" and x.dtype.char in "eE":  # 16-bit: PyTorch's sums round at every addition
        index = np.flatnonzero(valid)
        s = cascade_sum(per_row[index], index, per_row.size)
        total = np.asarray(valid.sum(), x.dtype) if weight is None else cascade_sum(wt[index], index, per_row.size)
        return wrap(np.asarray(s / total if reduction == "mean" else s, x.dtype)), wrap(total)
    total = np.asarray(wt.sum(), dtype=x.dtype)
    return wrap(_reduce(per_row, reduction, total, target._shape, x.dtype)), wrap(total)


nll_loss_backward = declare("nll_loss_backward", doc="""The gradient of nll_loss wrt its input.

Positional signature: `nll_loss_backward(grad, input, target, weight, reduction, ignore_index,
total_weight)` -> grad_input: `-weight[target] * grad` (divided by total_weight for 'mean') at
each target position, zero elsewhere. Linear in grad.""")


@nll_loss_backward.register("cpu")
def _nll_loss_backward_cpu(grad, input, target, weight, reduction, ignore_index, total_weight):
    x = input._np()
    r = _rows(x)
    m = r.shape[0]
    tt, valid, _, wt = _class_terms(input, target, weight, ignore_index)
    a = np.zeros(r.shape, dtype=x.dtype)
    with np.errstate(invalid="ignore"):  # ignored rows get 0 even when 'mean' divides by 0 (all ignored)
        a[np.arange(m), tt] = np.where(valid, -wt * _row_scale(grad._np(), reduction, total_weight._np(), m)[:, 0], 0)
    return wrap(_unrows(a, x.shape))


binary_cross_entropy_op = declare("binary_cross_entropy", doc="""Elementwise binary cross entropy of probabilities.

Positional signature: `binary_cross_entropy(input, target)`, same shapes, input in [0, 1]:
`-(t * max(log x, -100) + (1 - t) * max(log1p(-x), -100))`, each log clamped as PyTorch does so
that x = 0 or 1 gives a finite loss. Its derivative (autograd's table) is written for the
boundary, `(x - t) / max(x (1 - x), 1e-12)`, rather than derived through the clamps (NaN at 0, 1).""")


@binary_cross_entropy_op.meta
def _binary_cross_entropy_meta(input, target):
    # PyTorch's kernel checks the range; here the meta step does, on the host, so a compiled plan
    # (ember.jit) replays the check with the op instead of breaking at a Python `bool(...)`
    for t, name in ((input, "input"), (target, "target")):
        if t.numel():
            a = np.asarray(t._host_array())
            if not ((a >= 0) & (a <= 1)).all():  # NaN is outside too
                raise RuntimeError(f"all elements of {name} should be between 0 and 1")


@binary_cross_entropy_op.register("any")
def _binary_cross_entropy_any(input, target):
    # composed of primitives, so every device runs it (kernels run below autograd's recording)
    from ember.core.ops import elementwise as ew

    log_x = ew.clamp(ew.log(input), -100.0, None)
    log_1mx = ew.clamp(ew.log1p(ew.neg(input)), -100.0, None)
    return ew.neg(ew.add(ew.mul(target, log_x), ew.mul(ew.sub(1.0, target), log_1mx)))


mse_loss_op = declare("mse_loss", doc="""The squared error of `input` against `target`, reduced.

Positional signature: `mse_loss(input, target, reduction)`, reduction "mean", "sum" or "none": `(input - target) ** 2`
and its mean or sum, one op as PyTorch's (one node, MseLossBackward0, saving input and target).""")


@mse_loss_op.register("any")
def _mse_loss_any(input, target, reduction):
    # composed of primitives, so every device runs it (kernels run below autograd's recording)
    loss = (input - target) ** 2
    return loss if reduction == "none" else loss.mean() if reduction == "mean" else loss.sum()


_KERNELS: dict = {}  # name -> the CPU kernel of sub, pow, mul, mean and sum, looked up on first use


def _cpu_kernels():
    """The CPU kernels that the composed loss kernels' ops run, by name."""
    if not _KERNELS:
        from ember.core.dispatch import get_op

        _KERNELS.update((n, get_op(n).kernels["cpu"]) for n in ("sub", "pow", "mul", "mean", "sum"))
    return _KERNELS


def _untracked(*tensors) -> bool:
    """Whether a composed loss kernel may run its ops' CPU kernels at once: nothing but autograd's hook, which passes
    its kernels' calls down, would see those ops (`dispatch.untracked`), on plain float32/float64 tensors of one
    dtype and shape (no broadcast, promotion or refusal on the way)."""
    from ember.core import dispatch

    a = tensors[0]
    return dispatch.untracked and a._dtype in _FLOAT_KERNELS and all(
        t.__class__ is Tensor and t._dtype is a._dtype and t._shape == a._shape for t in tensors)


_FLOAT_KERNELS = (dtypes.float32, dtypes.float64)


@mse_loss_op.register("cpu")
def _mse_loss_cpu(input, target, reduction):
    """`_mse_loss_any`'s ops as their CPU kernels, without dispatching them where nothing would see them: its bits."""
    if not _untracked(input, target):
        return _mse_loss_any(input, target, reduction)
    k = _cpu_kernels()
    loss = k["pow"](k["sub"](input, target), 2)
    if reduction == "none":
        return loss
    return k["mean" if reduction == "mean" else "sum"](loss, tuple(range(len(loss._shape))), False, None)


mse_loss_backward = declare("mse_loss_backward", doc="""The gradient of mse_loss w.r.t. its input.

Positional signature: `mse_loss_backward(grad_output, input, target, reduction)` -> `norm * (input - target) *
grad_output`, norm 2 (2 / numel for the mean), PyTorch's op (a double backward records MseLossBackwardBackward0).""")


@mse_loss_backward.register("any")
def _mse_loss_backward_any(grad_output, input, target, reduction):
    # composed of primitives, so every device runs it (kernels run below autograd's recording)
    norm = 2.0 / input.numel() if reduction == "mean" and input.numel() else 2.0  # an empty mean's: any (no 1/0)
    return norm * (input - target) * grad_output


@mse_loss_backward.register("cpu")
def _mse_loss_backward_cpu(grad_output, input, target, reduction):
    """`_mse_loss_backward_any`'s ops as their CPU kernels where nothing would see them: its bits."""
    if not (_untracked(input, target) and grad_output.__class__ is Tensor and grad_output._dtype is input._dtype
            and (grad_output._shape == input._shape or not grad_output._shape)):
        return _mse_loss_backward_any(grad_output, input, target, reduction)
    k = _cpu_kernels()
    mul = k["mul"]
    norm = 2.0 / input.numel() if reduction == "mean" and input.numel() else 2.0
    return mul(mul(norm, k["sub"](input, target)), grad_output)


# --- validation and the public functions --------------------------------------------------
def _implicit_dim(op: str, ndim: int, stacklevel: int | None = None) -> int:
    """PyTorch's deprecated implicit softmax dim (0 for 0-, 1- and 3-D inputs, else 1), with its warning at the
    user's line, or `stacklevel` frames above this function's (as `F._get_softmax_dim` takes it)."""
    message = (f"Implicit dimension choice for {op} has been deprecated. Change the call to include dim=X as an "
               "argument.")
    if stacklevel is None:
        warn_at_caller(message)
    else:
        warnings.warn(message, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


class _Omitted:
    """The default of `torch.softmax`'s `dim`: tells an omitted dim from an explicit None (two messages)."""

    def __repr__(self) -> str:
        return "<required>"


_OMITTED = _Omitted()


def _required_dim(op: str, dim) -> None:
    """`torch.softmax`/`Tensor.softmax` take no implicit dim (only `torch.nn.functional`'s forms do)."""
    if dim is None or dim is _OMITTED:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')


def _given_dim(op: str, dim) -> None:
    """A dim that must be given, as PyTorch's parser words it: omitted, or passed as None (not an int)."""
    if dim is None:
        raise TypeError(f"{op}(): argument 'dim' must be int, not NoneType")
    _required_dim(op, dim)


def _prep(op: str, input: Tensor, dim, dtype, stacklevel) -> tuple[Tensor, int]:
    if (dtype is None and dim.__class__ is int and stacklevel.__class__ is int and isinstance(input, Tensor)
            and input._dtype.is_floating_point and -(n := len(input._shape)) <= dim < n):  # nothing to convert
        return input, dim + n if dim < 0 else dim
    if isinstance(stacklevel, dtypes.dtype):  # torch.softmax(input, dim, dtype): dtype third
        dtype, stacklevel = stacklevel, 3
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if dim is None:
        dim = _implicit_dim(op, input.ndim)
    (d,) = normalize_dims(index_arg(dim, op, "dim"), input.ndim, op) or (0,)
    if dtype is not None:
        from ember.core.ops.layout import to

        input = to(input, dtype)
    if not input._dtype.is_floating_point and input.numel():  # (PyTorch returns an empty input as it is)
        from ember.core.ops.numeric import not_implemented_for

        kernel = ("log_softmax" if op == "log_softmax" else "softmax") + \
            ("_lastdim_kernel_impl" if d == max(input.ndim - 1, 0) else "_kernel_impl")
        raise not_implemented_for(kernel, input._dtype)
    return input, d


def _empty_like(x: Tensor) -> Tensor:
    """The result for an empty non-floating input: an empty tensor of its dtype, as PyTorch returns."""
    from ember.core.creation import empty

    return empty(x.shape, dtype=x.dtype, device=x.device)


def softmax(input: Tensor, dim: int = _OMITTED, _stacklevel: int = 3, dtype=None, *, out: Tensor | None = None
            ) -> Tensor:
    """`exp(x) / sum(exp(x), dim)`, computed stably, as `torch.softmax` (`dim` required; the implicit dim is
    `torch.nn.functional.softmax`'s).

    Args:
        input: any shape. dim: the dim that sums to one. dtype: cast the input to it first.

    Examples:
        >>> import ember.core as ec
        >>> [round(v, 4) for v in ec.softmax(ec.tensor([1.0, 2.0, 3.0]), dim=0).tolist()]
        [0.09, 0.2447, 0.6652]
    """
    _given_dim("softmax", dim)
    if out is not None:
        return _into_out(softmax_op, "softmax", input, dim, _stacklevel, dtype, out)
    x, d = _prep("softmax", input, dim, dtype, _stacklevel)
    return softmax_op(x, d) if x._dtype.is_floating_point else _empty_like(x)


def _into_out(op, name: str, input, dim, stacklevel, dtype, out: Tensor) -> Tensor:
    """`torch.softmax`/`log_softmax` with `out=`, as PyTorch's out form: the dim is checked first, then `out`'s
    dtype (exactly the result's: `dtype`, else the input's), then the kernel's; a result that requires grad leaves
    `out` PyTorch's NotImplemented node (the out form has no derivative; its backward raises)."""
    if isinstance(stacklevel, dtypes.dtype):
        dtype, stacklevel = stacklevel, 3
    if isinstance(input, Tensor):
        if dim is not None:
            normalize_dims(index_arg(dim, name, "dim"), input.ndim, name)
        check_out_dtype(out, input._dtype if dtype is None else dtypes.as_dtype(dtype))
    x, d = _prep(name, input, dim, dtype, stacklevel)
    r = op(x, d) if x._dtype.is_floating_point else _empty_like(x)
    if out._shape != r._shape:
        _resize_out(out, r._shape, None)
    out.copy_(r)
    return node_name(out, "CopyBackwards", "NotImplemented", f"derivative for aten::{name} is not implemented")


def _half_to_float(op: str, half_to_float) -> None:
    """`torch._softmax`'s third argument as PyTorch's parser and CPU kernel take it: a bool, and False."""
    if half_to_float.__class__ is not bool:
        raise TypeError(f"{op}(): argument 'half_to_float' (position 3) must be bool, not "
                        f"{type(half_to_float).__name__}")
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")


def _softmax(input: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """ATen's `torch._softmax(input, dim, half_to_float)`: softmax in the input's dtype (half_to_float is CUDA's)."""
    _half_to_float("_softmax", half_to_float)
    x, d = _prep("softmax", input, dim, None, 3)
    return softmax_op(x, d)


def _log_softmax(input: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """ATen's `torch._log_softmax(input, dim, half_to_float)` (see `_softmax`)."""
    _half_to_float("_log_softmax", half_to_float)
    x, d = _prep("log_softmax", input, dim, None, 3)
    return log_softmax_op(x, d)


def _safe_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """softmax over `dim` where a slice whose every entry is -inf gives zeros instead of NaN, as
    `torch._safe_softmax` (attention's softmax: a query with every key masked attends to nothing).

    Examples:
        >>> import ember.core as ec
        >>> ec._safe_softmax(ec.tensor([[float("-inf"), float("-inf")], [0.0, 0.0]]), -1).tolist()
        [[0.0, 0.0], [0.5, 0.5]]
    """
    x, d = _prep("softmax", input, dim, dtype, 3)
    return safe_softmax_op(x, d) if x._dtype.is_floating_point else _empty_like(x)


def log_softmax(input: Tensor, dim: int = _OMITTED, _stacklevel: int = 3, dtype=None, *, out: Tensor | None = None
                ) -> Tensor:
    """`x - logsumexp(x, dim)`, as `torch.log_softmax` (`dim` required; the implicit dim is
    `torch.nn.functional.log_softmax`'s).

    Examples:
        >>> import ember.core as ec
        >>> [round(v, 4) for v in ec.log_softmax(ec.tensor([1.0, 2.0, 3.0]), dim=0).tolist()]
        [-2.4076, -1.4076, -0.4076]
    """
    _given_dim("log_softmax", dim)
    if out is not None:
        return _into_out(log_softmax_op, "log_softmax", input, dim, _stacklevel, dtype, out)
    x, d = _prep("log_softmax", input, dim, dtype, _stacklevel)
    return log_softmax_op(x, d) if x._dtype.is_floating_point else _empty_like(x)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """`softmax(-input, dim)`, as `torch.nn.functional.softmin`."""
    from ember.core.ops import elementwise as ew

    if isinstance(input, Tensor):  # negated in its own dtype first, as PyTorch (bool refuses, uint8 wraps)
        input = ew.neg(input)
    x, d = _prep("softmin", input, dim, dtype, _stacklevel)
    return softmax_op(x, d) if x._dtype.is_floating_point else _empty_like(x)


def _softmax_method(self: Tensor, dim: int = _OMITTED, _stacklevel: int = 3, dtype=None) -> Tensor:
    """`Tensor.softmax`: the function without `out=` (PyTorch's method refuses it as an unexpected keyword)."""
    _given_dim("softmax", dim)
    x, d = _prep("softmax", self, dim, dtype, _stacklevel)
    return softmax_op(x, d) if x._dtype.is_floating_point else _empty_like(x)


def _log_softmax_method(self: Tensor, dim: int = _OMITTED, _stacklevel: int = 3, dtype=None) -> Tensor:
    """`Tensor.log_softmax`: the function without `out=` (see `_softmax_method`)."""
    _given_dim("log_softmax", dim)
    x, d = _prep("log_softmax", self, dim, dtype, _stacklevel)
    return log_softmax_op(x, d) if x._dtype.is_floating_point else _empty_like(x)


def _as_method(fn, name: str):
    """`fn` under the method's name, which Python's own argument errors print (`softmax() got an unexpected ...`)."""
    fn.__name__ = fn.__qualname__ = name
    return fn


# the methods (attach adds numpy's aliases and the bool-for-dim refusal), then the functions, whose refusal counts
# positions from `input`
attach("softmax", _as_method(_softmax_method, "softmax"))
attach("log_softmax", _as_method(_log_softmax_method, "log_softmax"))
softmax = numpy_aliases(softmax, "softmax", function=True)
log_softmax = numpy_aliases(log_softmax, "log_softmax", function=True)

_REDUCTIONS = ("none", "mean", "sum")


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """The reduction that the deprecated `size_average`/`reduce` arguments ask for, with PyTorch's warning."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if reduce and size_average else "sum" if reduce else "none"
    warn_at_caller(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.")
    return ret


def _check_loss(op: str, input, target, weight, reduction: str, probabilities: bool) -> None:
    if (not probabilities and weight is None and isinstance(input, Tensor) and isinstance(target, Tensor)
            and len(xs := input._shape) == 2 and target._shape == xs[:1] and target._dtype is dtypes.int64
            and input._dtype.is_floating_point and reduction in _REDUCTIONS):  # (N, C) scores, N class indices
        return
    for position, (name, value) in enumerate((("input", input), ("target", target)), 1):
        if not isinstance(value, Tensor):  # in the words of PyTorch's parser for the aten op it calls
            from ember.core.ops._util import tp_name as _type_name

            aten = "cross_entropy_loss" if op == "cross_entropy" else "nll_loss_nd"
            raise TypeError(f"{aten}(): argument '{name}' (position {position}) must be Tensor, not "
                            f"{_type_name(value)}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    integral = not input._dtype.is_floating_point and not input._dtype.is_complex
    if integral and op == "cross_entropy":  # PyTorch's cross_entropy starts with log_softmax over dim 1
        kernel = "log_softmax_lastdim_kernel_impl" if input.ndim <= 2 else "log_softmax_kernel_impl"
        from ember.core.ops.numeric import not_implemented_for
        raise not_implemented_for(kernel, input._dtype)
    if not input._dtype.is_floating_point and not integral:
        raise TypeError(f"{op}: expected a floating point input; got {describe(input)}")
    if input.ndim == 0:
        raise ValueError(f"{op}: input must have a class dim; got {describe(input)}")
    c = input.shape[1] if input.ndim > 1 else input.shape[0]
    if probabilities:
        if weight is not None and (weight.ndim != 1 or weight.shape[0] != c):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                               f"classes but got weight tensor of shape: {list(weight.shape)}")
        if target._dtype is not input._dtype:
            raise TypeError(f"{op}: expected class-probability targets of the input's dtype; got "
                            f"{describe(input)} and {describe(target)}")
        if target.shape != input.shape:
            raise RuntimeError(f"{op}: Expected target of the input's shape for class probabilities; got "
                               f"{describe(input)} and {describe(target)}")
        return
    # PyTorch's order: the batch size and the target's size, then its dtype, then a 1-D input's target
    if input.ndim > 1:
        if target.ndim == 0 or input.shape[0] != target.shape[0]:
            n = target.shape[0] if target.ndim else 0  # PyTorch reports a 0-D target as batch size 0
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({n}).")
        if input.ndim == 2 and target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim == 4 and target.ndim != 3:  # PyTorch's nll_loss2d checks, in its words
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.ndim}")
        if input.ndim != 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
            expected = [input.shape[0], *input.shape[2:]]
            raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
    if target._dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{dtypes.TORCH_NAMES[target._dtype.name]}")
    # PyTorch's nll_loss takes a (C,) weight; its 2-D kernel, which inputs of 3 dims and more reach, any of C elements
    # (the public functions view such a weight as (C,) before the kernels read it)
    if weight is not None and input.ndim > 2 and (weight.numel() != c or weight.ndim != 1):
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if weight is not None and input.ndim <= 2 and (weight.ndim != 1 or weight.shape[0] != c):
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    if input.ndim == 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[input._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[weight._dtype.name]}")
    if integral:  # nll_loss's kernels refuse an integer input after the checks above
        kernel = "nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame"
        from ember.core.ops.numeric import not_implemented_for
        raise not_implemented_for(kernel, input._dtype)
    if input.ndim > 2 and target._dtype is dtypes.uint8:  # PyTorch's spatial (nll_loss2d) kernels take Long only
        raise RuntimeError("expected scalar type Long but found Byte")
    if input.ndim == 1 and target.ndim != 0:
        raise RuntimeError(f"{op}: 1D target tensor expected, multi-target not supported; got "
                           f"{describe(input)} and {describe(target)}")


def _is_probabilities(target) -> bool:
    return isinstance(target, Tensor) and target._dtype.is_floating_point


def _check_probabilities_shape(input, target, weight, reduction: str) -> None:
    """PyTorch reads a target of the input's shape as class probabilities and any other as class indices: a
    floating target of another shape fails the index checks (batch size, size, "expected target dtype ...")."""
    if (isinstance(input, Tensor) and _is_probabilities(target) and target.shape != input.shape
            and input.ndim > 0):
        _check_loss("cross_entropy", input, target, weight, reduction, False)


def _check_loss_grad(op: str, grad, input: Tensor, reduction: str) -> None:
    """The incoming gradient has the loss's size: one element per row of `input` (reduction 'none'), else one."""
    c = input._shape[1] if input.ndim > 1 else input._shape[0]
    want = input.numel() // max(c, 1) if reduction == "none" and input.ndim > 1 else 1
    if not isinstance(grad, Tensor) or grad.numel() != want:
        raise RuntimeError(f"{op}: expected a gradient of {want} elements (the loss's); got {describe(grad)}")


def _check_device_targets(input: Tensor, target: Tensor, ignore_index: int) -> None:
    """Class targets on a device, read to the host (a synchronization, as PyTorch's device-side
    assert): CUDA raises the CPU's "Target 5 is out of bounds." instead of computing NaN."""
    if target._storage.device.type != "cpu" and not _is_probabilities(target) and target.numel():
        _class_terms(input, target.to("cpu"), None, ignore_index)


@cross_entropy_op.meta
def _cross_entropy_meta(input, target, weight, reduction, ignore_index, label_smoothing) -> None:
    """Target and weight against the input's rows and classes: every kernel reads them per row and class."""
    _check_loss("cross_entropy", input, target, weight, reduction, _is_probabilities(target))
    _check_device_targets(input, target, ignore_index)


@cross_entropy_backward.meta
def _cross_entropy_backward_meta(grad, input, target, weight, reduction, ignore_index, label_smoothing) -> None:
    _check_loss("cross_entropy", input, target, weight, reduction, _is_probabilities(target))
    _check_loss_grad("cross_entropy_backward", grad, input, reduction)


@nll_loss_op.meta
def _nll_loss_meta(input, target, weight, reduction, ignore_index) -> None:
    _check_loss("nll_loss", input, target, weight, reduction, False)
    _check_device_targets(input, target, ignore_index)


@nll_loss_backward.meta
def _nll_loss_backward_meta(grad, input, target, weight, reduction, ignore_index, total_weight) -> None:
    _check_loss("nll_loss", input, target, weight, reduction, False)
    _check_loss_grad("nll_loss_backward", grad, input, reduction)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits `input` against class indices or probabilities, as `F.cross_entropy`.

    Args:
        input: `(N, C)`, `(N, C, d1, ...)` or `(C,)` unnormalised scores.
        target: class indices `(N)`, `(N, d1, ...)` or `()`, or probabilities of the input's shape.
        weight: `(C,)` per-class rescaling.
        ignore_index: a target value that contributes neither loss nor gradient.
        reduction: 'none' | 'mean' | 'sum'.
        label_smoothing: in [0, 1]; mixes the target with the uniform distribution.
    Raises:
        IndexError: a class index outside [0, C) ("Target 7 is out of bounds.").
        ValueError: batch size mismatch or an unknown reduction.

    >>> import ember.core as ec
    >>> round(ec.cross_entropy(ec.tensor([[0.0, 0.0]]), ec.tensor([1])).item(), 4)
    0.6931
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if label_smoothing > 1.0:  # PyTorch checks only the upper bound, and smooths only by a positive amount
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    label_smoothing = max(float(label_smoothing), 0.0)
    if isinstance(target, Tensor) and target._dtype.is_floating_point and ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if (isinstance(input, Tensor) and isinstance(target, Tensor) and target.shape == input.shape
            and not target._dtype.is_floating_point):
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{dtypes.TORCH_NAMES.get(target._dtype.name, target._dtype.name)}")
    if isinstance(input, Tensor) and isinstance(target, Tensor) and target.shape == input.shape and ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    _check_probabilities_shape(input, target, weight, reduction)
    if (isinstance(input, Tensor) and _is_probabilities(target) and target.shape == input.shape
            and target._dtype is not input._dtype and input._dtype.is_floating_point):
        dt = dtypes.promote_types(input._dtype, target._dtype)  # PyTorch's composite promotes both
        input, target = input.to(dt), target.to(dt)
    target = _unbatched_target(input, target)
    if (label_smoothing > 0 and isinstance(weight, Tensor) and weight.ndim > 1 and isinstance(input, Tensor)
            and input.ndim > 2 and not _is_probabilities(target)):
        # after nll_loss took the weight whole, PyTorch's smoothing term views it as [1, weight.size(0), 1, ...],
        # and its mean gathers the weight at the targets, which needs a 1-D weight
        _check_loss("cross_entropy", input, target, _spatial_weight(input, target, weight), reduction, False)
        if weight.shape[0] != input.shape[1]:
            shape = [weight.shape[0] if d == 1 else 1 for d in range(input.ndim)]
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {weight.numel()}")
        if reduction == "mean":
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    weight = _spatial_weight(input, target, weight)
    if (label_smoothing == 0 and isinstance(input, Tensor) and input._dtype.name in ("float16", "bfloat16")
            and isinstance(target, Tensor) and not target._dtype.is_floating_point and input.ndim >= 1):
        # PyTorch's composite rounds the log-probabilities to the 16-bit dtype before nll_loss reads them
        return nll_loss(log_softmax(input, 1 if input.ndim > 1 else 0), target, weight, None, ignore_index, None,
                        reduction)
    if (label_smoothing > 0 and isinstance(input, Tensor) and input._dtype.name in ("float16", "bfloat16")
            and isinstance(target, Tensor) and not target._dtype.is_floating_point and input.ndim >= 1):
        return _smoothed_16bit(input, target, weight, reduction, int(ignore_index), label_smoothing)
    r = cross_entropy_op(input, target, weight, reduction, int(ignore_index), float(label_smoothing))
    if label_smoothing == 0 and not target._dtype.is_floating_point:  # PyTorch's nll_loss(log_softmax(input))
        return node_name(r, "CrossEntropyBackward0", _nll_node(input, reduction))
    # PyTorch's composites end in: the smoothed loss's sum of two terms; the soft-label loss's mean (a division)
    # or negation
    last = "AddBackward0" if not target._dtype.is_floating_point else \
        "DivBackward1" if reduction == "mean" else "NegBackward0"
    return node_name(r, "CrossEntropyBackward0", last)


def _smoothed_16bit(input, target, weight, reduction: str, ignore_index: int, label_smoothing: float) -> Tensor:
    """Label-smoothed cross entropy of a float16/bfloat16 input as PyTorch's composite computes it, each step
    rounded to the 16-bit dtype: nll_loss of the log-probabilities mixed with their (weighted) sum over classes."""
    dim = 1 if input.ndim > 1 else 0
    c = input.shape[dim]
    lp = log_softmax(input, dim)
    nll = nll_loss(lp, target, weight, None, ignore_index, None, reduction)
    ignored = target == ignore_index
    if weight is not None:
        smooth = -(lp * weight.reshape([c] + [1] * (input.ndim - 1 - dim))).sum(dim)
    else:
        smooth = -lp.sum(dim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        kept = ~ignored
        denom = weight.reshape(-1)[target[kept]].sum() if weight is not None else kept.sum()
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / c)


def _nll_node(input, reduction) -> str:
    """PyTorch's node for nll_loss: its 2-D kernel for inputs of 3 dims and more, viewed back when unreduced
    and not 4-D."""
    if input.ndim < 3:
        return "NllLossBackward0"
    return "ViewBackward0" if reduction == "none" and input.ndim != 4 else "NllLoss2DBackward0"


def _spatial_weight(input, target, weight):
    """The weight as (C,) where PyTorch's 2-D nll_loss kernel reads it (class indices, inputs of 3 dims and more):
    that kernel takes any weight of C elements."""
    if (isinstance(weight, Tensor) and weight.ndim != 1 and isinstance(input, Tensor) and input.ndim > 2
            and weight.numel() == input.shape[1] and not _is_probabilities(target)):
        from ember.core.ops.layout import reshape

        return reshape(weight, (-1,))
    return weight


def _unbatched_target(input, target):
    """PyTorch's rule for an unbatched `(C,)` input: a class-index target of one element is its 0-dim
    target; a longer one is refused."""
    if (isinstance(input, Tensor) and isinstance(target, Tensor) and input.ndim == 1 and target.ndim == 1
            and not target._dtype.is_floating_point):
        if target.numel() != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.numel()}")
        from ember.core.ops.layout import reshape

        return reshape(target, ())
    return target


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of log-probabilities `input` at class indices `target`, as `F.nll_loss`.

    >>> import ember.core as ec
    >>> ec.nll_loss(ec.tensor([[-1.0, -2.0]]), ec.tensor([1])).item()
    2.0
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    weight = _spatial_weight(input, target, weight)
    r = nll_loss_op(input, _unbatched_target(input, target), weight, reduction, int(ignore_index))[0]
    return node_name(r, "NllLossBackward0", _nll_node(input, reduction))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross entropy of probabilities `input` against `target` (same shape), as
    `F.binary_cross_entropy`: finite, with finite gradients, at inputs of exactly 0 and 1.

    >>> import ember.core as ec
    >>> round(ec.binary_cross_entropy(ec.tensor([0.0, 0.5]), ec.tensor([0.0, 1.0])).item(), 4)
    0.3466
    """
    from ember.core.ops import elementwise as ew

    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    loss = binary_cross_entropy_op(input, target)
    if weight is not None:
        loss = ew.mul(loss, weight)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()
