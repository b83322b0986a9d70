"""batch/layer/group norm and their fused backward ops for every device without a kernel of its
own (their `"any"` kernels, NOTE [ Composite kernels ] in `ember.core.dispatch`; the CPU keeps its
Numba kernels), composed from the primitives (means, sums, elementwise ops), as the house style
starts composites: on CUDA every step queues on the stream, nothing synchronizes. A fused kernel
is the next step once a benchmark shows the composition's extra passes over memory matter."""

from __future__ import annotations

from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__: list[str] = []  # kernels only: the public functions are in ember.core.ops.normalization


def _op(name: str):
    return get_op(name)


def _bshape(x: Tensor) -> tuple[int, ...]:
    return (1, x._shape[1]) + (1,) * (x.ndim - 2)


def _channel_axes(x: Tensor) -> tuple[int, ...]:
    return (0,) + tuple(range(2, x.ndim))


def _sum(x: Tensor, dims, keepdim: bool = False) -> Tensor:
    return _op("sum")(x, tuple(dims), keepdim)


def _mean(x: Tensor, dims, keepdim: bool = False) -> Tensor:
    return _op("mean")(x, tuple(dims), keepdim)


def _centred(x: Tensor, mean: Tensor, axes) -> Tensor:
    """x - mean over `axes`, in two steps: a float32 mean of 1e4 +- 1e-2
    is off by 5e-4, but the deviations from it are exact (Sterbenz) and small, so their own mean
    removes that error: 1e-7 of the spread instead of 5%, for one more pass over the data."""
    d = _op("sub")(x, mean)
    return _op("sub")(d, _mean(d, axes, True), out=d)


def _stat_dtype(input: Tensor, *params):
    """The parameters' dtype: float32 for a float16/bfloat16 input in "mixed dtype" mode, which computes in it."""
    return next((t._dtype for t in params if t is not None), input._dtype)


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    sdt = _stat_dtype(input, weight, bias, running_mean, running_var)
    if sdt is not input._dtype:
        out, mean, invstd = _batch_norm(input.to(sdt), weight, bias, running_mean, running_var, training, momentum,
                                        eps)
        return out.to(input._dtype), mean, invstd
    x = input
    axes, bs = _channel_axes(x), _bshape(x)
    mul, add = _op("mul"), _op("add")
    if training:
        mean = _mean(x, axes)
        d = _centred(x, mean.view(bs), axes)
        var = _mean(mul(d, d), axes)  # of exact deviations: a float32 Welford pass carries the mean's error
        n = x.numel() // max(x._shape[1], 1)
        for t, v in ((running_mean, mean), (running_var, mul(var, n / max(n - 1, 1)))):
            if t is not None:
                _op("lerp")(t, v, momentum, out=t)
    else:
        mean, var = running_mean, running_var
        d = _op("sub")(x, mean.view(bs))
    invstd = _op("rsqrt")(add(var, eps))
    scale = mul(invstd, weight) if weight is not None else invstd
    # centred first: x * scale - mean * scale cancels when the mean is large against the spread
    out = mul(d, scale.view(bs), out=d)
    if bias is not None:
        out = add(out, bias.view(bs), out=out)
    return out, mean if training else _op("clone")(mean), invstd


def _batch_norm_backward(grad, input, weight, save_mean, save_invstd, training):
    if save_mean._dtype is not input._dtype:
        gi, gw, gb = _batch_norm_backward(grad.to(save_mean._dtype), input.to(save_mean._dtype), weight, save_mean,
                                          save_invstd, training)
        return gi.to(input._dtype), gw, gb
    x, g = input, grad
    axes, bs = _channel_axes(x), _bshape(x)
    mul, sub, div = _op("mul"), _op("sub"), _op("div")
    d = _centred(x, save_mean.view(bs), axes) if training else sub(x, save_mean.view(bs))
    xhat = mul(d, save_invstd.view(bs), out=d)
    gb = _sum(g, axes)
    gw = _sum(mul(g, xhat), axes)
    k = mul(save_invstd, weight) if weight is not None else save_invstd
    if training:
        m = x.numel() // max(x._shape[1], 1)
        inner = sub(sub(g, div(gb, m).view(bs)), mul(xhat, div(gw, m).view(bs)))
        gi = mul(k.view(bs), inner)
    else:
        gi = mul(g, k.view(bs))
    return gi, gw, gb


def _normalize_rows(x: Tensor, axes: tuple[int, ...], eps: float):
    """(mean, rstd, x - mean) over `axes`, keepdim, the variance from the exactly centred values."""
    mean = _mean(x, axes, True)
    d = _centred(x, mean, axes)
    rstd = _op("rsqrt")(_op("add")(_mean(_op("mul")(d, d), axes, True), eps))
    return mean, rstd, d


def _affine_backward(g: Tensor, xhat: Tensor, w, rstd: Tensor, axes) -> Tensor:
    mul, sub = _op("mul"), _op("sub")
    gx = mul(g, w) if w is not None else g
    return mul(rstd, sub(sub(gx, _mean(gx, axes, True)), mul(xhat, _mean(mul(gx, xhat), axes, True))))


def _layer_norm(input, normalized_shape, weight, bias, eps):
    x = input
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    mean, rstd, d = _normalize_rows(x, axes, eps)
    out = _op("mul")(d, rstd, out=d)
    if weight is not None:
        out = _op("mul")(out, weight, out=out)
    if bias is not None:
        out = _op("add")(out, bias, out=out)
    return out, mean, rstd


def _layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight):
    x = input
    k = len(normalized_shape)
    axes = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    xhat = _op("mul")(_centred(x, mean, axes), rstd)
    gi = _affine_backward(grad, xhat, weight, rstd, axes)
    return gi, _sum(_op("mul")(grad, xhat), lead), _sum(grad, lead)


def _grouped(x: Tensor, groups: int) -> Tensor:
    return x.reshape(x._shape[0], groups, -1)


def _group_norm(input, weight, bias, num_groups, eps):
    x = input
    xg = _grouped(x, num_groups)
    mean, rstd, d = _normalize_rows(xg, (2,), eps)
    out = _op("mul")(d, rstd, out=d).reshape(x._shape)
    bs = _bshape(x)
    if weight is not None:
        out = _op("mul")(out, weight.view(bs), out=out)
    if bias is not None:
        out = _op("add")(out, bias.view(bs), out=out)
    n = x._shape[0]
    return out, mean.view(n, num_groups), rstd.view(n, num_groups)


def _group_norm_backward(grad, input, mean, rstd, weight, num_groups):
    x = input
    n = x._shape[0]
    bs = _bshape(x)
    r = rstd.reshape(n, num_groups, 1)
    xhat = _op("mul")(_centred(_grouped(x, num_groups), mean.reshape(n, num_groups, 1), (2,)), r)
    gx = _op("mul")(grad, weight.view(bs)) if weight is not None else grad
    gi = _affine_backward(_grouped(gx, num_groups), xhat, None, r, (2,)).reshape(x._shape)
    axes = _channel_axes(x)
    xh = xhat.reshape(x._shape)
    return gi, _sum(_op("mul")(grad, xh), axes), _sum(grad, axes)


for _name, _kernel in (("batch_norm", _batch_norm), ("batch_norm_backward", _batch_norm_backward),
                       ("layer_norm", _layer_norm), ("layer_norm_backward", _layer_norm_backward),
                       ("group_norm", _group_norm), ("group_norm_backward", _group_norm_backward)):
    get_op(_name).register("any")(_kernel)
