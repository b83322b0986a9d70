"""CUDA kernels of max/avg/adaptive 2-D pooling and their backward ops (`kernels.pool`); inputs
are made contiguous `(planes, H, W)` first, as the CPU kernels do."""

from __future__ import annotations

import math

import numpy as np

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import pool as KP
from ember.core.dispatch import get_op
from ember.core.ops import pool as P
from ember.core.tensor import Tensor

__all__ = ["register"]


def _dense(x: Tensor) -> Tensor:
    return x if lu.is_dense(x, x._shape) else get_op("clone")(x)


def _flat(t: Tensor):
    return lu.typed(t)[t._offset:t._offset + t.numel()]


def _acc(t: Tensor):
    return lu.compute_type(t._dtype)


def _launch(kernel, total: int, *args) -> None:
    if total:
        blocks, threads = lu.grid(total)
        kernel[blocks, threads, lu.stream()](total, *args)


def _geom(h, w, ho, wo, kernel_size, stride, padding, dilation=(1, 1), count_include_pad=True, divisor=0):
    return lu.meta(((h, w, ho, wo, *kernel_size, *stride, *padding, *dilation, int(bool(count_include_pad)),
                     int(divisor or 0)),))[0]


def _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode):
    x = _dense(input)
    h, w = x._shape[-2:]
    ho = P._pool_out(h, kernel_size[0], stride[0], padding[0], dilation[0], ceil_mode)
    wo = P._pool_out(w, kernel_size[1], stride[1], padding[1], dilation[1], ceil_mode)
    shape = x._shape[:-2] + (ho, wo)
    out = lu.empty(shape, x._dtype, x._storage.device)
    idx = lu.empty(shape, dtypes.int64, x._storage.device)
    low = -math.inf if x._dtype.is_floating_point else int(np.iinfo(x._dtype.np).min)  # an empty window's value
    _launch(KP.max_pool(_acc(x)), out.numel(), _geom(h, w, ho, wo, kernel_size, stride, padding, dilation),
            _flat(x), _flat(out), _flat(idx), low)
    return out, idx


def _max_pool2d_backward(grad, indices, input_shape, input=None):
    g, idx = _dense(grad), _dense(indices)
    plane_in = input_shape[-2] * input_shape[-1]
    plane_out = g._shape[-2] * g._shape[-1]
    acc_dt = grad._dtype if grad._dtype in (dtypes.float32, dtypes.float64) else dtypes.float32
    out = lu.empty(tuple(input_shape), acc_dt, grad._storage.device).fill_(0)
    if g._dtype is not acc_dt:
        g = get_op("to_dtype")(g, acc_dt)
    if plane_out:
        _launch(KP.max_pool_backward(), g.numel(), plane_out, plane_in, _flat(g), _flat(idx), _flat(out))
    return out if acc_dt is grad._dtype else get_op("to_dtype")(out, grad._dtype)


def _avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    x = _dense(input)
    h, w = x._shape[-2:]
    ho = P._pool_out(h, kernel_size[0], stride[0], padding[0], 1, ceil_mode)
    wo = P._pool_out(w, kernel_size[1], stride[1], padding[1], 1, ceil_mode)
    out = lu.empty(x._shape[:-2] + (ho, wo), x._dtype, x._storage.device)
    _launch(KP.avg_pool(_acc(x)), out.numel(),
            _geom(h, w, ho, wo, kernel_size, stride, padding, (1, 1), count_include_pad, divisor_override),
            _flat(x), _flat(out))
    return out


def _avg_pool2d_backward(grad, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override):
    g = _dense(grad)
    h, w = input_shape[-2:]
    ho, wo = g._shape[-2:]
    out = lu.empty(tuple(input_shape), grad._dtype, grad._storage.device)
    _launch(KP.avg_pool_backward(_acc(g)), out.numel(),
            _geom(h, w, ho, wo, kernel_size, stride, padding, (1, 1), count_include_pad, divisor_override),
            _flat(g), _flat(out))
    return out


def _adaptive(input, output_size, is_max: bool):
    x = _dense(input)
    h, w = x._shape[-2:]
    ho, wo = output_size
    shape = x._shape[:-2] + (ho, wo)
    out = lu.empty(shape, x._dtype, x._storage.device)
    idx = lu.empty(shape if is_max else (1,), dtypes.int64, x._storage.device)
    _launch(KP.adaptive_pool(_acc(x), is_max), out.numel(), h, w, ho, wo, _flat(x), _flat(out),
            lu.typed(idx)[idx._offset:])
    return (out, idx) if is_max else out


def _adaptive_avg_pool2d(input, output_size):
    return _adaptive(input, output_size, False)


def _adaptive_max_pool2d(input, output_size):
    return _adaptive(input, output_size, True)


def _adaptive_avg_pool2d_backward(grad, input_shape):
    g = _dense(grad)
    h, w = input_shape[-2:]
    ho, wo = g._shape[-2:]
    out = lu.empty(tuple(input_shape), grad._dtype, grad._storage.device)
    _launch(KP.adaptive_avg_backward(_acc(g)), out.numel(), h, w, ho, wo, _flat(g), _flat(out))
    return out


def register() -> None:
    for name, fn in (("max_pool2d_with_indices", _max_pool2d), ("max_pool2d_backward", _max_pool2d_backward),
                     ("avg_pool2d", _avg_pool2d), ("avg_pool2d_backward", _avg_pool2d_backward),
                     ("adaptive_avg_pool2d", _adaptive_avg_pool2d), ("adaptive_max_pool2d", _adaptive_max_pool2d),
                     ("adaptive_avg_pool2d_backward", _adaptive_avg_pool2d_backward)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    i, g, idx = T.int64, T.int64[::1], T.int64[::1]
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                            ("float16", T.float16[::1], T.float32)):
        yield (f"max_pool2d[{label}]", KP.max_pool_function(acc), (i, g, arr, arr, idx, acc))
        yield (f"avg_pool2d[{label}]", KP.avg_pool_function(acc), (i, g, arr, arr))
        yield (f"avg_pool2d_backward[{label}]", KP.avg_pool_backward_function(acc), (i, g, arr, arr))
        yield (f"adaptive_max_pool2d[{label}]", KP.adaptive_pool_function(acc, True), (i, i, i, i, i, arr, arr, idx))
        yield (f"adaptive_avg_pool2d[{label}]", KP.adaptive_pool_function(acc, False),
               (i, i, i, i, i, arr, arr, idx))
        yield (f"adaptive_avg_pool2d_backward[{label}]", KP.adaptive_avg_backward_function(acc),
               (i, i, i, i, i, arr, arr))
    for label, arr in (("float32", T.float32[::1]), ("float64", T.float64[::1])):
        yield (f"max_pool2d_backward[{label}]", KP.max_pool_backward_function(), (i, i, i, arr, idx, arr))
