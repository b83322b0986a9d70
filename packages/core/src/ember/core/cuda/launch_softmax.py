"""CUDA kernels of softmax/log_softmax (+ backward), cross_entropy (+ backward) and nll_loss
(+ backward). Class-index cross entropy is one fused row kernel; class-probability targets
compose log_softmax with elementwise ops and a sum. The 'mean'/'sum' reductions run on the
device too, so a loss never synchronizes."""

from __future__ import annotations

from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import softmax as KS
from ember.core.cuda.launch_reduce import fold
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__ = ["register"]

_T = lu.REDUCE_THREADS


def _rows(x: Tensor, dim: int):
    """(number of rows, their index shape, the kept dims) for row kernels along `dim` of `x`."""
    kept = tuple(d for d in range(x.ndim) if d != dim)
    shape = tuple(x._shape[d] for d in kept)
    nrows = 1
    for s in shape:
        nrows *= s
    return nrows, shape, kept


def _strides(t: Tensor, kept) -> tuple[int, ...]:
    return tuple(t._strides[d] for d in kept)


def _grid(nrows: int) -> int:
    return lu.grid(nrows, 1)[0]


def _softmax_any(x: Tensor, dim: int, log_: bool) -> Tensor:
    out = lu.empty(x._shape, x._dtype, x._storage.device)
    if x.ndim == 0:
        return out.fill_(0.0 if log_ else 1.0)
    nrows, shape, kept = _rows(x, dim)
    n = x._shape[dim]
    if nrows == 0 or n == 0:
        return out
    km = lu.meta((shape, _strides(out, kept), _strides(x, kept)))
    rm = lu.meta(((x._strides[dim], out._strides[dim]),))
    k = KS.softmax(_T, lu.compute_type(x._dtype))
    k[_grid(nrows), _T, lu.stream()](nrows, n, km, rm, lu.typed(out), out._offset, lu.typed(x), x._offset, log_)
    return out


def _softmax(x, dim):
    return _softmax_any(x, dim, False)


def _log_softmax(x, dim):
    return _softmax_any(x, dim, True)


def _backward_any(grad: Tensor, y: Tensor, dim: int, log_: bool) -> Tensor:
    out = lu.empty(y._shape, y._dtype, y._storage.device)
    if y.ndim == 0:
        return out.fill_(0.0)
    grad = grad.expand(y._shape) if grad._shape != y._shape else grad
    nrows, shape, kept = _rows(y, dim)
    n = y._shape[dim]
    if nrows == 0 or n == 0:
        return out
    km = lu.meta((shape, _strides(out, kept), _strides(grad, kept), _strides(y, kept)))
    rm = lu.meta(((grad._strides[dim], out._strides[dim], y._strides[dim]),))
    k = KS.softmax_backward(_T, lu.compute_type(y._dtype))
    k[_grid(nrows), _T, lu.stream()](nrows, n, km, rm, lu.typed(out), out._offset, lu.typed(grad), grad._offset,
                                     lu.typed(y), y._offset, log_)
    return out


def _softmax_backward(grad, output, dim):
    return _backward_any(grad, output, dim, False)


def _log_softmax_backward(grad, output, dim):
    return _backward_any(grad, output, dim, True)


# --- losses --------------------------------------------------------------------------------
def _as_rows(x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """`(C,)` inputs as one row `(1, C)`; targets as a contiguous flat int tensor in row order."""
    if x.ndim == 1:
        x = x.unsqueeze(0)
    t = target.reshape(-1)
    return x, (t if lu.is_dense(t, t._shape) else t.clone())


def _flat(t: Tensor):
    return lu.typed(t)[t._offset:t._offset + max(t.numel(), 1)]


def _weight(weight: Tensor | None, x: Tensor):
    if weight is None:
        return lu.typed(x)[:1], False
    return _flat(weight if lu.is_dense(weight, weight._shape) else weight.clone()), True


def _row_losses(x: Tensor, target: Tensor, weight, ignore_index: int, smoothing: float, nll: bool):
    """(per-row loss, per-row weight) as flat tensors of the rows of `x` (class dim 1)."""
    x, t = _as_rows(x, target)
    nrows, shape, kept = _rows(x, 1)
    dev = x._storage.device
    loss = lu.empty((nrows,), x._dtype, dev)
    wt = lu.empty((nrows,), x._dtype, dev)
    if nrows == 0:
        return loss, wt
    c = x._shape[1]
    km = lu.meta((shape, (0,) * len(shape), _strides(x, kept)))
    rm = lu.meta(((x._strides[1], 0),))
    w, has_w = _weight(weight, x)
    acc_t = lu.compute_type(x._dtype)
    args = (nrows, c, km, rm, lu.typed(x), x._offset, _flat(t), w, has_w, ignore_index)
    if nll:
        blocks, threads = lu.grid(nrows)
        KS.nll(acc_t)[blocks, threads, lu.stream()](*args, _flat(loss), _flat(wt))
    else:
        KS.cross_entropy(_T, acc_t)[_grid(nrows), _T, lu.stream()](*args, float(smoothing), _flat(loss), _flat(wt))
    return loss, wt


def _reduce(per_row: Tensor, wt: Tensor, reduction: str, target_shape):
    if reduction == "none":
        return per_row.view(target_shape)
    s = fold(per_row, (0,), False, None, per_row._dtype, "sum", "x", "add", "keep", 0)
    if reduction == "sum":
        return s
    return get_op("div")(s, fold(wt, (0,), False, None, wt._dtype, "sum", "x", "add", "keep", 0))


def _cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing):
    if target._dtype.is_floating_point:
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing)
    loss, wt = _row_losses(input, target, weight, ignore_index, label_smoothing, nll=False)
    return _reduce(loss, wt, reduction, target._shape)


def _smoothed(input, target, weight, label_smoothing):
    c = input._shape[1] if input.ndim > 1 else input._shape[0]
    mul, add = get_op("mul"), get_op("add")
    p = add(mul(target, 1 - label_smoothing), label_smoothing / c) if label_smoothing else target
    if weight is not None:
        p = mul(p, weight.view((c,) + (1,) * (input.ndim - 2)) if input.ndim > 1 else weight)
    return p


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing):
    dim = 1 if input.ndim > 1 else 0
    pw = _smoothed(input, target, weight, label_smoothing)
    per = get_op("neg")(fold(get_op("mul")(_log_softmax(input, dim), pw), (dim,), False, None, input._dtype, "sum",
                             "x", "add", "keep", 0))
    if reduction == "none":
        return per
    s = fold(per, tuple(range(per.ndim)), False, None, per._dtype, "sum", "x", "add", "keep", 0)
    rows = per.numel() if per.ndim else 1
    return s if reduction == "sum" else get_op("div")(s, rows)


def _ones(x: Tensor):
    """A one-element device array holding 1: the divisor of the 'sum' reduction's gradient."""
    return _flat(lu.empty((1,), x._dtype, x._storage.device).fill_(1))


def _grad_rows(grad: Tensor) -> Tensor:
    g = grad.reshape(-1)
    return g if lu.is_dense(g, g._shape) else g.clone()


def _cross_entropy_backward(grad, input, target, weight, reduction, ignore_index, label_smoothing):
    if target._dtype.is_floating_point:
        return _cross_entropy_probabilities_backward(grad, input, target, weight, reduction, label_smoothing)
    x, t = _as_rows(input, target)
    dev = x._storage.device
    out = lu.empty(x._shape, x._dtype, dev)
    nrows, shape, kept = _rows(x, 1)
    if nrows == 0 or x._shape[1] == 0:
        return out.view(input._shape)
    denom = _ones(x)
    if reduction == "mean":
        _, wt = _row_losses(input, target, weight, ignore_index, label_smoothing, nll=False)
        denom = _flat(fold(wt, (0,), False, None, wt._dtype, "sum", "x", "add", "keep", 0))
    km = lu.meta((shape, _strides(out, kept), _strides(x, kept)))
    rm = lu.meta(((x._strides[1], out._strides[1]),))
    w, has_w = _weight(weight, x)
    g = _grad_rows(grad)
    k = KS.cross_entropy_backward(_T, lu.compute_type(x._dtype))
    k[_grid(nrows), _T, lu.stream()](nrows, x._shape[1], km, rm, lu.typed(out), out._offset, lu.typed(x), x._offset,
                                     _flat(t), w, has_w, ignore_index, float(label_smoothing), _flat(g),
                                     reduction == "none", denom)
    return out.view(input._shape)


def _cross_entropy_probabilities_backward(grad, input, target, weight, reduction, label_smoothing):
    dim = 1 if input.ndim > 1 else 0
    mul, sub = get_op("mul"), get_op("sub")
    a = get_op("neg")(_smoothed(input, target, weight, label_smoothing))
    if reduction == "none":
        scale = grad.unsqueeze(dim) if input.ndim > 1 else grad
    else:
        rows = input.numel() // input._shape[dim] if input._shape[dim] else 0
        scale = grad if reduction == "sum" else get_op("div")(grad, max(rows, 1))
    a = mul(a, scale)
    sa = fold(a, (dim,), True, None, a._dtype, "sum", "x", "add", "keep", 0)
    return sub(a, mul(_softmax(input, dim), sa))


def _nll_loss(input, target, weight, reduction, ignore_index):
    loss, wt = _row_losses(input, target, weight, ignore_index, 0.0, nll=True)
    total = fold(wt, (0,), False, None, wt._dtype, "sum", "x", "add", "keep", 0)
    if reduction == "none":
        return loss.view(target._shape), total
    s = fold(loss, (0,), False, None, loss._dtype, "sum", "x", "add", "keep", 0)
    return (s if reduction == "sum" else get_op("div")(s, total)), total


def _nll_loss_backward(grad, input, target, weight, reduction, ignore_index, total_weight):
    x, t = _as_rows(input, target)
    out = lu.empty(x._shape, x._dtype, x._storage.device).fill_(0)
    nrows, shape, kept = _rows(x, 1)
    if nrows == 0:
        return out.view(input._shape)
    km = lu.meta((shape, _strides(out, kept), _strides(x, kept)))
    rm = lu.meta(((x._strides[1], out._strides[1]),))
    w, has_w = _weight(weight, x)
    tw = total_weight if total_weight._storage.device.type == "cuda" else total_weight.to(x._storage.device)
    denom = _flat(tw) if reduction == "mean" else _ones(x)
    blocks, threads = lu.grid(nrows)
    KS.nll_backward(lu.compute_type(x._dtype))[blocks, threads, lu.stream()](
        nrows, x._shape[1], km, rm, lu.typed(out), out._offset, _flat(t), w, has_w, ignore_index,
        _flat(_grad_rows(grad)), reduction == "none", denom)
    return out.view(input._shape)


def register() -> None:
    for name, fn in (("softmax", _softmax), ("log_softmax", _log_softmax), ("softmax_backward", _softmax_backward),
                     ("log_softmax_backward", _log_softmax_backward), ("cross_entropy", _cross_entropy),
                     ("cross_entropy_backward", _cross_entropy_backward), ("nll_loss", _nll_loss),
                     ("nll_loss_backward", _nll_loss_backward)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    m, i, b = T.int64[:, ::1], T.int64, T.boolean
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                            ("float16", T.float16[::1], T.float32)):
        yield (f"softmax[{label}]", KS.softmax_function(_T, acc), (i, i, m, m, arr, i, arr, i, b))
        yield (f"softmax_backward[{label}]", KS.softmax_backward_function(_T, acc),
               (i, i, m, m, arr, i, arr, i, arr, i, b))
        yield (f"cross_entropy[{label}]", KS.cross_entropy_function(_T, acc),
               (i, i, m, m, arr, i, T.int64[::1], arr, b, i, T.float64, arr, arr))
        yield (f"cross_entropy_backward[{label}]", KS.cross_entropy_backward_function(_T, acc),
               (i, i, m, m, arr, i, arr, i, T.int64[::1], arr, b, i, T.float64, arr, b, arr))
        yield (f"nll_loss[{label}]", KS.nll_function(acc), (i, i, m, m, arr, i, T.int32[::1], arr, b, i, arr, arr))
        yield (f"nll_loss_backward[{label}]", KS.nll_backward_function(acc),
               (i, i, m, m, arr, i, T.int64[::1], arr, b, i, arr, b, arr))
