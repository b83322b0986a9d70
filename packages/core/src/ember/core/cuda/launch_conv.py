"""CUDA kernels of conv2d, its backward ops and conv_transpose2d: im2col + the tiled GEMM.

Per group g, the output is W_g (Og, K) @ cols_g (K, Ho*Wo) for every image (the weight
broadcast over the batch by a zero batch stride); grad_input is col2im(W_g^T @ grad_g) and
grad_weight is the batch sum of grad_g @ cols_g^T.
"""

from __future__ import annotations

from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import conv as KC
from ember.core.cuda.launch_linalg import gemm
from ember.core.cuda.launch_reduce import fold
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__ = ["register"]


def _out_hw(h: int, w: int, kh: int, kw: int, stride, padding, dilation) -> tuple[int, int]:
    return ((h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1,
            (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1)


def _geom(c, h, w, kh, kw, ho, wo, stride, padding, dilation):
    return lu.meta(((c, h, w, kh, kw, ho, wo, *stride, *padding, *dilation),))[0]


def _im2col(x: Tensor, kh: int, kw: int, stride, padding, dilation) -> Tensor:
    n, c, h, w = x._shape
    ho, wo = _out_hw(h, w, kh, kw, stride, padding, dilation)
    cols = lu.empty((n, c * kh * kw, ho * wo), x._dtype, x._storage.device)
    total = cols.numel()
    if total:
        blocks, threads = lu.grid(total)
        KC.im2col()[blocks, threads, lu.stream()](total, _geom(c, h, w, kh, kw, ho, wo, stride, padding, dilation),
                                                  lu.typed(x), x._offset, *x._strides, lu.typed(cols))
    return cols


def _conv2d(input, weight, bias, stride, padding, dilation, groups):
    n = input._shape[0]
    o, cg, kh, kw = weight._shape
    cols = _im2col(input, kh, kw, stride, padding, dilation)
    ho, wo = _out_hw(*input._shape[2:], kh, kw, stride, padding, dilation)
    out = lu.empty((n, o, ho, wo), input._dtype, input._storage.device)
    og, k = o // groups, cg * kh * kw
    w2 = weight.reshape(o, k)
    flat = out.view(n, o, ho * wo)
    for g in range(groups):
        gemm(w2[g * og:(g + 1) * og].unsqueeze(0).expand(n, og, k), cols[:, g * k:(g + 1) * k],
             flat[:, g * og:(g + 1) * og])
    if bias is not None:
        get_op("add")(out, bias.view(1, o, 1, 1), out=out)
    return out


def _backward_input(grad, weight, input_shape, stride, padding, dilation, groups):
    n, c, h, w = input_shape
    o, cg, kh, kw = weight._shape
    ho, wo = grad._shape[2:]
    og, k = o // groups, cg * kh * kw
    dev = grad._storage.device
    cols = lu.empty((n, c * kh * kw, ho * wo), grad._dtype, dev)
    w2 = weight.reshape(o, k)
    g3 = grad.reshape(n, o, ho * wo)
    for g in range(groups):
        gemm(w2[g * og:(g + 1) * og].t().unsqueeze(0).expand(n, k, og), g3[:, g * og:(g + 1) * og],
             cols[:, g * k:(g + 1) * k])
    out = lu.empty(tuple(input_shape), grad._dtype, dev)
    total = out.numel()
    if total:
        blocks, threads = lu.grid(total)
        KC.col2im(lu.compute_type(grad._dtype))[blocks, threads, lu.stream()](
            total, _geom(c, h, w, kh, kw, ho, wo, stride, padding, dilation), lu.typed(cols), lu.typed(out))
    return out


def _backward_weight(grad, input, weight_shape, stride, padding, dilation, groups):
    o, cg, kh, kw = weight_shape
    n = input._shape[0]
    cols = _im2col(input, kh, kw, stride, padding, dilation)
    og, k = o // groups, cg * kh * kw
    ho, wo = grad._shape[2:]
    g3 = grad.reshape(n, o, ho * wo)
    per_image = lu.empty((n, o, k), grad._dtype, grad._storage.device)
    for g in range(groups):
        gemm(g3[:, g * og:(g + 1) * og], cols[:, g * k:(g + 1) * k].transpose(1, 2), per_image[:, g * og:(g + 1) * og])
    gw = fold(per_image, (0,), False, None, grad._dtype, "conv2d_backward_weight", "x", "add", "keep", 0)
    return gw.view(tuple(weight_shape))


def register() -> None:
    for name, fn in (("conv2d", _conv2d), ("conv2d_backward_input", _backward_input),
                     ("conv2d_backward_weight", _backward_weight)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    i, g = T.int64, T.int64[::1]
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                            ("float16", T.float16[::1], T.float32)):
        yield (f"im2col[{label}]", KC.im2col_function(), (i, g, arr, i, i, i, i, i, arr))
        yield (f"col2im[{label}]", KC.col2im_function(acc), (i, g, arr, arr))
