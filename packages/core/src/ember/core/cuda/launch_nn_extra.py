"""CUDA kernels of the functional layer's ops: grid_sampler and its backward (`kernels.sampling`,
inputs made contiguous float32/float64 first) and ctc_loss and its backward (`kernels.ctc`; the
targets are padded and checked on the host, as the CPU kernel does). max_unpool and
fractional_max_pool run on their composites in `ember.core.ops.composite_kernels`."""

from __future__ import annotations

import math

import numpy as np

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.dispatch import get_op

__all__ = ["register"]


def _work(t):
    """`t` dense in float32/float64 (half types compute in float32, as the CPU kernels do)."""
    if t._dtype not in (dtypes.float32, dtypes.float64):
        t = get_op("to_dtype")(t, dtypes.float32)
    return t if lu.is_dense(t, t._shape) else get_op("clone")(t)


def _like(t, dt):
    return t if t._dtype is dt else get_op("to_dtype")(t, dt)


def _flat(t):
    return lu.typed(t)[t._offset:t._offset + t.numel()]


def _geom(input, grid, mode, padding, align):
    n, c, *sp = input._shape
    sp = [1] * (5 - input.ndim) + list(sp)
    out = [1] * (5 - input.ndim) + list(grid._shape[1:-1])
    single = int(input._dtype.name != "float64")  # coordinates in the input's precision, as PyTorch's kernels
    return lu.meta(((n, c, *sp, *out, grid._shape[-1], mode, padding, int(bool(align)), single),))[0]


def _launch(kernel, total: int, *args) -> None:
    if total:
        blocks, threads = lu.grid(total)
        kernel[blocks, threads, lu.stream()](total, *args)


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    from ember.core.cuda.kernels import sampling as KS

    x, g = _work(input), _work(grid)
    out = lu.empty(tuple(input._shape[:2]) + tuple(grid._shape[1:-1]), x._dtype, x._storage.device)
    kernel = KS.bicubic_forward() if interpolation_mode == 2 else KS.forward()
    _launch(kernel, g.numel() // g._shape[-1], _geom(x, g, interpolation_mode, padding_mode, align_corners),
            _flat(x), _flat(g), _flat(out))
    return out if out._dtype is input._dtype else get_op("to_dtype")(out, input._dtype)


def _grid_sampler_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners):
    from ember.core.cuda.kernels import sampling as KS

    x, g = _work(input), _work(grid)
    go = _work(grad_output)
    if go._dtype is not x._dtype:
        go = get_op("to_dtype")(go, x._dtype)
    gin = get_op("fill_")(lu.empty(tuple(x._shape), x._dtype, x._storage.device), 0)
    ggrid = lu.empty(tuple(g._shape), g._dtype, g._storage.device)
    acc = lu.compute_type(x._dtype)
    kernel = KS.bicubic_backward(acc) if interpolation_mode == 2 else KS.backward(acc)
    _launch(kernel, g.numel() // g._shape[-1], _geom(x, g, interpolation_mode, padding_mode, align_corners),
            _flat(go), _flat(x), _flat(g), _flat(gin), _flat(ggrid))
    if gin._dtype is not input._dtype:
        gin = get_op("to_dtype")(gin, input._dtype)
    if ggrid._dtype is not grid._dtype:
        ggrid = get_op("to_dtype")(ggrid, grid._dtype)
    return gin, ggrid


def _ctc_inputs(log_probs, targets, input_lengths, target_lengths):
    from ember.core.creation import from_numpy
    from ember.core.ops import ctc as CTC

    dev = log_probs._storage.device
    lp = _work(log_probs)
    tg = CTC._padded(targets.cpu() if targets._storage.device.type != "cpu" else targets, target_lengths,
                     lp._shape[2])
    ints = [from_numpy(np.ascontiguousarray(a, dtype=np.int64)).to(dev)
            for a in (tg.reshape(-1) if tg.size else np.zeros(1), input_lengths, target_lengths)]
    n_t, n_b, n_c = lp._shape
    geom = lu.meta(((n_t, n_b, n_c, tg.shape[1], 2 * tg.shape[1] + 1),))[0]
    return lp, ints, geom, 2 * tg.shape[1] + 1


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    from ember.core.cuda.kernels import ctc as KC

    lp, (tg, il, tl), geom, width = _ctc_inputs(log_probs, targets, input_lengths, target_lengths)
    n_t, n_b = lp._shape[:2]
    dev = lp._storage.device
    log_alpha = get_op("fill_")(lu.empty((n_b, n_t, width), lp._dtype, dev), -math.inf)
    nll = lu.empty((n_b,), lp._dtype, dev)
    if n_b:
        KC.forward()[n_b, KC.THREADS, lu.stream()](geom, _flat(lp), _flat(tg), _flat(il), _flat(tl), int(blank),
                                                   _flat(log_alpha), _flat(nll))
    if lp._dtype is not log_probs._dtype:
        nll, log_alpha = (get_op("to_dtype")(t, log_probs._dtype) for t in (nll, log_alpha))
    return nll, log_alpha


def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                       blank, zero_infinity):
    from ember.core.cuda.kernels import ctc as KC

    lp, (tg, il, tl), geom, width = _ctc_inputs(log_probs, targets, input_lengths, target_lengths)
    n_t, n_b = lp._shape[:2]
    dev = lp._storage.device
    if log_alpha._shape[2] != width:
        log_alpha = get_op("narrow")(log_alpha, 2, 0, width)
    g, nll, la = (_like(_work(t), lp._dtype) for t in (grad, neg_log_likelihood, log_alpha))
    log_beta = get_op("fill_")(lu.empty((n_b, n_t, width), lp._dtype, dev), -math.inf)
    out = get_op("fill_")(lu.empty(tuple(lp._shape), lp._dtype, dev), 0)
    if n_b:
        KC.backward()[n_b, KC.THREADS, lu.stream()](geom, _flat(g), _flat(lp), _flat(tg), _flat(il), _flat(tl),
                                                    int(blank), _flat(nll), _flat(la), _flat(log_beta),
                                                    bool(zero_infinity), _flat(out))
    return out if out._dtype is log_probs._dtype else get_op("to_dtype")(out, log_probs._dtype)


def register() -> None:
    get_op("ctc_loss").register("cuda")(_ctc_loss)
    get_op("ctc_loss_backward").register("cuda")(_ctc_loss_backward)
    get_op("grid_sampler").register("cuda")(_grid_sampler)
    get_op("grid_sampler_backward").register("cuda")(_grid_sampler_backward)


def ptx_cases():
    from numba import types as T

    from ember.core.cuda.kernels import ctc as KC
    from ember.core.cuda.kernels import sampling as KS

    i, geom = T.int64, T.int64[::1]
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64)):
        yield (f"grid_sampler[{label}]", KS.forward_function(), (i, geom, arr, arr, arr))
        yield (f"grid_sampler_backward[{label}]", KS.backward_function(acc), (i, geom, arr, arr, arr, arr, arr))
        yield (f"grid_sampler_bicubic[{label}]", KS.bicubic_forward_function(), (i, geom, arr, arr, arr))
        yield (f"grid_sampler_bicubic_backward[{label}]", KS.bicubic_backward_function(acc),
               (i, geom, arr, arr, arr, arr, arr))
        ints = T.int64[::1]
        yield (f"ctc_loss[{label}]", KC.forward_function(), (geom, arr, ints, ints, ints, i, arr, arr))
        yield (f"ctc_loss_backward[{label}]", KC.backward_function(),
               (geom, arr, arr, ints, ints, ints, i, arr, arr, arr, T.boolean, arr))
