"""Derivatives of the neural-network kernels and of their backward ops (double backward).

Each nn primitive of ember-core documents its backward op (`conv2d_backward_input` ...); the
first-order rules call those. The backward ops are themselves differentiable: linear in the
incoming gradient (their "transpose" is the forward op or a gather), and for activations the
second derivative is written out. Second derivatives ember does not have raise when needed.
"""



from __future__ import annotations

import math
from types import SimpleNamespace

from ember.core.dispatch import get_op, node_name
from ember.core.ops import elementwise as ew
from ember.core.ops.dropout import dropout_scale
from ember.core.ops.memfmt import channels_last_as
from ember.core.ops.reduce import sum_untracked

from ember.autograd.derivatives import _recompute as rc
from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._entry import inplace
from ember.autograd.derivatives._helpers import cj, not_implemented, where0, zeros_with
from ember.autograd.grad_mode import is_grad_enabled
from ember.autograd.untracked import plain

__all__ = ["op", "conv2d", "conv2d_backward_input", "conv2d_backward_weight", "ENTRIES"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_BCE_EPS = 1e-12


def op(name: str):
    """The primitive `name`, looked up on use (ops of optional core modules stay optional)."""
    return lambda *args, **kwargs: get_op(name)(*args, **kwargs)


conv2d = op("conv2d")
conv2d_backward_input = op("conv2d_backward_input")
conv2d_backward_weight = op("conv2d_backward_weight")


def _bwd(name: str):
    return op(f"{name}_backward")


def _zero_in_input(grad):
    """The piecewise-linear activations' backward (a mask times grad_output) as a function of the input: zero,
    though connected (PyTorch's `self: zeros_like(grad)`), so a gradient penalty's grad reaches the input."""
    return zeros_with(tuple(grad.shape), grad)


def _leaky_relu_from_result(grad, result, negative_slope):
    if negative_slope < 0:  # the result's sign no longer tells the input's
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope")
    return _bwd("leaky_relu")(grad, result, negative_slope)


def _elu_from_result(grad, result, alpha, scale, input_scale):
    if alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    # d/dx scale * alpha * expm1(x * input_scale) = input_scale * (result + alpha * scale) where x <= 0
    return ew.where(result <= 0, grad * (input_scale * (result + alpha * scale)), grad * scale)


def _elu2(grad, grad_output, input, alpha, scale, input_scale):
    k = scale * alpha * input_scale * input_scale
    return grad * grad_output * where0(input < 0, k * ew.exp(input * input_scale))  # PyTorch's mask: 0 at 0


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + ew.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def _gelu2(grad, grad_output, input, approximate):
    if approximate != "none":
        return rc.second_order(_gelu_tanh, grad_output, [input], [grad])[1]
    return grad * grad_output * ew.exp(-0.5 * input * input) * _INV_SQRT_2PI * (2.0 - input * input)


def _hardswish2(grad, grad_output, input):
    return grad * grad_output * where0(ew.logical_and(input > -3.0, input < 3.0), 1.0 / 3.0 + 0.0 * input)


def _mish(grad, input):
    """Under create_graph, PyTorch's infinitely differentiable composite (its graph: MulBackward0, AddBackward0 ...);
    otherwise the fused mish_backward."""
    if not is_grad_enabled():
        return _bwd("mish")(grad, input)
    tsp = ew.tanh(ew.log1p(ew.exp(input)))
    return grad * (tsp + input * ew.sigmoid(input) * (1.0 - tsp * tsp))


def _log_sigmoid2(grad, grad_output, input):
    s = ew.sigmoid(input)
    return -grad * grad_output * s * (1.0 - s)


def _silu2(grad, grad_output, input):
    s = ew.sigmoid(input)
    return grad * grad_output * s * (1.0 - s) * (2.0 + input * (1.0 - 2.0 * s))


def _softplus2(grad, grad_output, input, beta, threshold):
    s = ew.sigmoid(input * beta)
    return grad * grad_output * where0(input * beta <= threshold, beta * s * (1.0 - s))


def _softsign2(grad, grad_output, input):
    a = 1.0 + ew.abs(input)
    return grad * grad_output * -2.0 * ew.sign(input) / (a * a * a)


def _tanhshrink2(grad, grad_output, input):
    t = ew.tanh(input)
    return grad * grad_output * 2.0 * t * (1.0 - t * t)


def _linear_transpose(unit_fn, gg, grad_output, class_dim):
    """VJP w.r.t. the per-sample scale `grad_output` of a backward op linear in it."""
    from ember.core import ones_like

    unit = unit_fn(ones_like(grad_output))
    prod = gg * unit
    return prod.sum() if grad_output.ndim == 0 else prod.sum(class_dim)


def _ce_grad_output(grad, grad_output, input, target, weight, reduction, ignore_index, label_smoothing):
    return _linear_transpose(lambda g: get_op("cross_entropy_backward")(g, input, target, weight, reduction,
                                                                         ignore_index, label_smoothing),
                             grad, grad_output, 1 if input.ndim >= 2 else 0)


def _max_pool_gather(grad, indices):
    """max_pool2d_backward's transpose: `grad` (the input's shape) read at the pooled `indices`."""
    flat = grad.flatten(-2)
    return flat.gather(-1, indices.flatten(-2)).reshape(tuple(indices.shape))


def _dropout_scale(grad, p: float) -> float:
    """The multiplier of dropout's gradient: the CPU forward's noise (PyTorch's `x * noise`, 1 / (1 - p) computed in
    the dtype), the CUDA kernel's float64 `1 / (1 - p)`; 0 for p = 1."""
    if p >= 1:
        return 0.0
    return dropout_scale(grad.dtype, p) if grad.device.type == "cpu" else 1.0 / (1.0 - p)


def _bag_transpose(grad, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx):
    if mode == "max":
        return not_implemented("embedding_bag_backward w.r.t. grad_output (mode='max')")()
    return get_op("embedding_bag")(grad, indices, offsets, mode, per_sample_weights, include_last_offset,
                                   padding_idx)[0]


def _embedding_transpose(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """embedding_backward is linear in its gradient; its transpose reads rows back at `indices`
    (zero at padding_idx, divided by each index's count when scaled by frequency)."""
    from ember.core import ones, zeros

    rows = get_op("embedding")(grad, indices, -1, False)
    scale = None
    if scale_grad_by_freq:
        flat = indices.reshape(-1)
        counts = zeros(num_weights, dtype=grad.dtype, device=grad.device).index_add(
            0, flat, ones(flat.shape[0], dtype=grad.dtype, device=grad.device))
        scale = 1.0 / counts.index_select(0, flat).reshape(tuple(indices.shape))
    if padding_idx >= 0:
        keep = (indices != padding_idx).to(grad.dtype)
        scale = keep if scale is None else scale * keep
    return rows if scale is None else rows * scale.unsqueeze(-1)


def _bag_by_freq(grad_weight, indices, scale_grad_by_freq: bool):
    """embedding_bag's weight gradient with scale_grad_by_freq, as PyTorch's CPU kernel computes it: the k-th
    distinct index's row is divided by the count of the k-th smallest index (not its own; the two differ once an
    index repeats below it), so that a program sees PyTorch's numbers."""
    if not scale_grad_by_freq or indices.numel() == 0:
        return grad_weight
    from ember.core import ones

    srt = indices.sort().values
    uniq = srt.unique()
    counts = srt.bincount(minlength=grad_weight.shape[0]).to(grad_weight.dtype)
    scale = ones(grad_weight.shape[0], dtype=grad_weight.dtype, device=grad_weight.device)
    scale = scale.index_put((uniq,), 1.0 / counts.index_select(0, srt[:uniq.shape[0]]))
    return grad_weight * scale.unsqueeze(1)


def _bag_per_sample_weights(grad, weight, indices, offsets, mode, include_last_offset, padding_idx):
    """mode='sum': each weight's gradient is its bag's gradient dotted with the row it scaled."""
    from ember.core import arange

    if mode != "sum":
        raise RuntimeError("embedding_bag: per_sample_weights is only supported for mode='sum'")
    starts = offsets[:-1] if include_last_offset else offsets
    pos = arange(indices.shape[0], device=indices.device)
    bag = (starts.unsqueeze(0) <= pos.unsqueeze(1)).sum(1) - 1
    rows, grads = weight.index_select(0, indices), grad.index_select(0, bag)
    if rows.dtype.itemsize == 2 and rows.dtype.is_floating_point:  # PyTorch's 16-bit dot: float32 products and sum
        g = (rows.float() * grads.float()).sum(1).to(rows.dtype)
    else:
        g = (rows * grads).sum(1)
    return ew.where(indices == padding_idx, 0.0, g) if padding_idx >= 0 else g


def _lstm(grads, cx, result1, result2):
    gates, gcx = get_op("lstm_cell_backward")(grads[0], grads[1], cx, result1, result2)
    if len(grads) > 2 and grads[2] is not None:  # the workspace is used (double backward)
        gates = gates + grads[2] * _lstm_activation_slopes(result2)
    bias = _batch_sum(gates)  # one sum for both biases, as PyTorch's fused cell returns one grad_bias twice
    return gates, gates, gcx, bias, bias


def _batch_sum(g):
    """`g.sum(0)`: at once in a plain backward (NOTE [ Backward products computed at once ])."""
    return sum_untracked(g, (0,)) if plain(g) else g.sum(0)


def _lstm_activation_slopes(ws):
    """d(activated gates)/d(gates) from the activated gates: s(1 - s) for i, f, o, 1 - g^2 for g."""
    from ember.core import cat

    i, f, g, o = (ws.narrow(-1, k * (ws.shape[-1] // 4), ws.shape[-1] // 4) for k in range(4))
    return cat([i * (1.0 - i), f * (1.0 - f), 1.0 - g * g, o * (1.0 - o)], -1)


def _gru(grads, result1):
    gi, gh, ghx = get_op("gru_cell_backward")(grads[0], result1) if grads[0] is not None else (None,) * 3
    if len(grads) > 1 and grads[1] is not None:  # the workspace is used (double backward)
        wi, wh, whx = _gru_workspace_grads(grads[1], result1)
        gi, gh, ghx = (w if a is None else a + w for a, w in ((gi, wi), (gh, wh), (ghx, whx)))
    return gi, gh, ghx, _batch_sum(gi), _batch_sum(gh)


def _gru_workspace_grads(gw, ws):
    """Gradients of the gates and hx from a gradient of the workspace [r, z, n, h_n, hx]."""
    from ember.core import cat

    h = ws.shape[-1] // 5
    r, z, n, hn, _ = (ws.narrow(-1, k * h, h) for k in range(5))
    wr, wz, wn, whn, whx = (gw.narrow(-1, k * h, h) for k in range(5))
    pre_n = wn * (1.0 - n * n)
    pre_r = (wr + pre_n * hn) * r * (1.0 - r)
    pre_z = wz * z * (1.0 - z)
    return cat([pre_r, pre_z, pre_n], -1), cat([pre_r, pre_z, pre_n * r + whn], -1), whx


def _norm_double(fn, grads, grad_output, input, weight, n_affine: tuple):
    """(d/d grad_output, d/d input, d/d weight) of a fused normalization backward (see _recompute)."""
    bias = zeros_with(n_affine, input)
    r = rc.second_order(fn, grad_output, [input, weight, bias], list(grads))
    return r[0], r[1], r[2]


def _layer_norm_double(grads, grad_output, input, normalized_shape, rstd, weight):
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    fn = rc.layer_norm_fn(tuple(normalized_shape), rc.eps_from(input, dims, rstd))
    return _norm_double(fn, grads, grad_output, input, weight, tuple(normalized_shape))


def _group_norm_double(grads, grad_output, input, rstd, weight, num_groups):
    x = input.reshape(input.shape[0], num_groups, -1)
    fn = rc.group_norm_fn(num_groups, rc.eps_from(x, (2,), rstd))
    return _norm_double(fn, grads, grad_output, input, weight, (input.shape[1],))


def _batch_norm_double(grads, grad_output, input, weight, save_mean, save_invstd, training):
    dims = tuple(d for d in range(input.ndim) if d != 1)
    eps = rc.eps_from(input, dims, save_invstd) if training else 0.0
    fn = rc.batch_norm_fn(training, eps, save_mean, save_invstd)
    return _norm_double(fn, grads, grad_output, input, weight, (input.shape[1],))


def _bce_input(grad, input, target):
    """PyTorch's rule, written for the boundary: finite where x(1 - x) underflows (x = 0 or 1)."""
    return grad * (input - target) / ew.clamp((1.0 - input) * input, _BCE_EPS, None)


def _mse_norm(input, reduction) -> float:
    return 2.0 / input.numel() if reduction == "mean" else 2.0


def _mse_input(grad, input, target, reduction):
    """`norm * (input - target) * grad`, norm 2 (2 / numel for the mean): mse_loss_backward's gradient w.r.t. its
    grad_output (the engine sums it to grad_output's shape)."""
    return _mse_norm(input, reduction) * (input - target) * grad


def _bce_target(grad, input):
    return grad * (ew.clamp(ew.log1p(-input), -100.0, None) - ew.clamp(ew.log(input), -100.0, None))


def _per_element_grad(grad, input, cdim: int, reduction: str):
    """The loss's incoming gradient as each element of a class-probability cross entropy sees it."""
    if reduction == "none":
        return grad.unsqueeze(cdim)
    if reduction == "mean":
        return grad / (input.numel() // input.shape[cdim])
    return grad


def _ce_target(grad, input, target, weight, reduction, label_smoothing):
    """d loss / d target for class probabilities: -(1 - smoothing) * weight * log_softmax(input)."""
    cdim = 1 if input.ndim >= 2 else 0
    logp = get_op("log_softmax")(input, cdim)
    if weight is not None:
        logp = logp * weight.reshape(tuple(input.shape[cdim] if d == cdim else 1 for d in range(input.ndim)))
    g = _per_element_grad(grad, input, cdim, reduction)
    return -(1.0 - label_smoothing) * logp * g


def _ce_weight(grad, input, target, reduction, label_smoothing):
    """d loss / d weight for class probabilities (PyTorch's composite -sum(log_softmax * target' * weight), target'
    the smoothed target); the class-id path goes through nll_loss, whose weight is not differentiable."""
    if not target.is_floating_point():
        return None
    cdim = 1 if input.ndim >= 2 else 0
    logp = get_op("log_softmax")(input, cdim)
    t = target * (1.0 - label_smoothing) + label_smoothing / input.shape[cdim] if label_smoothing else target
    g = _per_element_grad(grad, input, cdim, reduction)
    per = -(logp * t * g)
    dims = tuple(d for d in range(input.ndim) if d != cdim)
    return per.sum(dims) if dims else per


def _ce_double(grad, grad_output, input, target, weight, reduction, ignore_index, label_smoothing):
    """Second derivatives of cross_entropy w.r.t. (input, probability target), by recomputation."""
    def fn(x, t):
        return rc.cross_entropy_fn(target if t is None else t, weight, reduction, ignore_index, label_smoothing)(x)

    probs = target if target.is_floating_point() else None
    r = rc.second_order(fn, grad_output, [input, probs], [grad, None])
    return r[1], r[2]

def _like_input(g, input_geometry):
    """`g` laid out channels_last when the input it is the gradient of was: PyTorch's CPU pooling, resizing,
    padding and norm kernels answer grad_input in the input's suggested memory format."""
    if g is None:
        return g
    return channels_last_as(g, SimpleNamespace(_shape=tuple(input_geometry[0]), _strides=tuple(input_geometry[1])))


def _resized_like(g, grad, input_geometry, mode):
    """An upsample's input gradient in PyTorch's CPU layout: its bicubic and volumetric nearest kernels answer
    row-major, its area mode (adaptive pooling) the input's format, the others the incoming gradient's."""
    if mode.startswith("bicubic") or (mode.startswith("nearest") and len(input_geometry[0]) == 5):
        return g
    return _like_input(g, input_geometry) if mode == "area" else channels_last_as(g, grad)


def _first_like_input(grads, input_geometry):
    return (_like_input(grads[0], input_geometry), *grads[1:])


def _crop_to(g, input_shape):
    """`g` cut to the input's spatial size: with stride 1, an output_padding (allowed below the dilation)
    adds output rows that the convolution of the gradient maps past the input."""
    h, w = input_shape[-2:]
    if g.shape[-2] > h:
        g = g.narrow(-2, 0, h)
    return g.narrow(-1, 0, w) if g.shape[-1] > w else g



def _hardsigmoid_double():
    """PyTorch records hardsigmoid's backward as its `NotImplemented` node, which refuses a second derivative."""
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")

ENTRIES = [
    # every convolution is bilinear: a complex gradient takes the other operand's conjugate (cj), as PyTorch's
    d("conv2d(input, weight, bias, stride, padding, dilation, groups)", name="ConvolutionBackward0",
      input=lambda grad, input, weight, input_shape, stride, padding, dilation, groups: channels_last_as(
          conv2d_backward_input(grad, cj(weight), input_shape, stride, padding, dilation, groups), input, weight),
      weight=lambda grad, input, weight, weight_shape, stride, padding, dilation, groups: channels_last_as(
          conv2d_backward_weight(grad, cj(input), weight_shape, stride, padding, dilation, groups), input, weight),
      bias=lambda grad: grad.sum((0, 2, 3))),
    # PyTorch's one convolution_backward op, here one op per gradient; both carry its node's name
    d("conv2d_backward_input(grad_output, weight, input_shape, stride, padding, dilation, groups)",
      name="ConvolutionBackwardBackward0",
      grad_output=lambda grad, weight, stride, padding, dilation, groups: conv2d(
          grad, cj(weight), None, stride, padding, dilation, groups),
      weight=lambda grad, grad_output, weight_shape, stride, padding, dilation, groups: conv2d_backward_weight(
          cj(grad_output), grad, weight_shape, stride, padding, dilation, groups)),
    d("conv2d_backward_weight(grad_output, input, weight_shape, stride, padding, dilation, groups)",
      name="ConvolutionBackwardBackward0",
      grad_output=lambda grad, input, stride, padding, dilation, groups: conv2d(
          cj(input), grad, None, stride, padding, dilation, groups),
      input=lambda grad, grad_output, input_shape, stride, padding, dilation, groups: conv2d_backward_input(
          cj(grad_output), grad, input_shape, stride, padding, dilation, groups)),
    d("conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)",
      name="ConvolutionBackward0",
      input=lambda grad, input, weight, input_shape, stride, padding, dilation, groups: channels_last_as(_crop_to(
          conv2d(grad, cj(weight), None, stride, padding, dilation, groups), input_shape), input, weight),
      weight=lambda grad, input, weight, weight_shape, stride, padding, dilation, groups: channels_last_as(
          conv2d_backward_weight(cj(input), grad, weight_shape, stride, padding, dilation, groups), input, weight),
      bias=lambda grad: grad.sum((0, 2, 3))),

    d("im2col(input, kernel_size, dilation, padding, stride)", name="Im2ColBackward0",
      input=lambda grad, input_shape, kernel_size, dilation, padding, stride: get_op("col2im")(
          grad, tuple(input_shape[-2:]), kernel_size, dilation, padding, stride)),
    d("col2im(input, output_size, kernel_size, dilation, padding, stride)", name="Col2ImBackward0",
      input=lambda grad, kernel_size, dilation, padding, stride: get_op("im2col")(
          grad, kernel_size, dilation, padding, stride)),
    d("max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)",
      name="MaxPool2DWithIndicesBackward0",
      input=lambda grad, result1, input: channels_last_as(get_op("max_pool2d_backward")(grad, result1, input._shape,
                                                                                       input), input)),
    d("max_pool2d_backward(grad_output, indices, input_shape, input=None)", indices=None,
      name="MaxPool2DWithIndicesBackwardBackward0",
      grad_output=lambda grad, indices: _max_pool_gather(grad, indices),
      input=lambda grad, input_shape: zeros_with(tuple(input_shape), grad)),
    d("adaptive_max_pool2d(input, output_size)", name="AdaptiveMaxPool2DBackward0",
      input=lambda grad, result1, input: node_name(channels_last_as(get_op("max_pool2d_backward")(
          grad, result1, input._shape, input), input), "MaxPool2DWithIndicesBackwardBackward0",
          "AdaptiveMaxPool2DBackwardBackward0")),
    d("avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)",
      name="AvgPool2DBackward0",
      input=lambda grad, input_geometry, kernel_size, stride, padding, ceil_mode, count_include_pad,
      divisor_override: _like_input(get_op("avg_pool2d_backward")(grad, input_geometry[0], kernel_size, stride,
                                                                  padding, ceil_mode, count_include_pad,
                                                                  divisor_override), input_geometry)),
    d("avg_pool2d_backward(grad_output, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad, "
      "divisor_override)", name="AvgPool2DBackwardBackward0",
      grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
      get_op("avg_pool2d")(grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)),
    d("adaptive_avg_pool2d(input, output_size)", name="AdaptiveAvgPool2DBackward0",
      input=lambda grad, input_geometry: _like_input(get_op("adaptive_avg_pool2d_backward")(
          grad, input_geometry[0]), input_geometry)),
    d("adaptive_avg_pool2d_backward(grad_output, input_shape)", name="AdaptiveAvgPool2DBackwardBackward0",
      grad_output=lambda grad, grad_output_shape: get_op("adaptive_avg_pool2d")(grad, tuple(grad_output_shape[-2:]))),
    d("upsample(input, output_size, mode, align_corners, scales)",
      input=lambda grad, input_geometry, mode, align_corners, scales: _resized_like(get_op(
          "upsample_backward")(grad, input_geometry[0], mode, align_corners, scales), grad, input_geometry, mode)),
    d("upsample_backward(grad_output, input_shape, mode, align_corners, scales)",
      grad_output=lambda grad, grad_output_shape, mode, align_corners, scales: get_op("upsample")(
          grad, tuple(grad_output_shape[2:]), mode, align_corners, scales)),
    d("pad_nd(input, pad, mode, value)", name="PadBackward0",
      input=lambda grad, input_geometry, pad, mode: _like_input(get_op("pad_nd_backward")(
          grad, input_geometry[0], pad, mode), input_geometry) if mode != "circular" else get_op("pad_nd_backward")(
          grad, input_geometry[0], pad, mode)),
    d("pad_nd_backward(grad_output, input_shape, pad, mode)",
      grad_output=lambda grad, pad, mode: get_op("pad_nd")(grad, pad, mode, 0.0)),

    d("softmax(input, dim)", input=lambda grad, result, dim: get_op("softmax_backward")(grad, result, dim)),
    d("_safe_softmax(input, dim)", name="SafeSoftmaxBackward0",
      input=lambda grad, result, dim: get_op("softmax_backward")(grad, result, dim)),
    d("softmax_backward(grad_output, output, dim)", name="SoftmaxBackwardDataBackward0",
      grad_output=lambda grad, output, dim: get_op("softmax_backward")(grad, output, dim),
      output=lambda grad, grad_output, output, dim: grad * (grad_output - (grad_output * output).sum(dim, True))
      - grad_output * (grad * output).sum(dim, True)),
    d("log_softmax(input, dim)",
      input=lambda grad, result, dim: get_op("log_softmax_backward")(grad, result, dim)),
    d("log_softmax_backward(grad_output, output, dim)", name="LogSoftmaxBackwardDataBackward0",
      grad_output=lambda grad, output, dim: grad - (grad * ew.exp(output)).sum(dim, True),
      output=lambda grad, grad_output, output, dim: -grad * ew.exp(output) * grad_output.sum(dim, True)),
    d("cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)", weight=_ce_weight,
      input=lambda grad, input, target, weight, reduction, ignore_index, label_smoothing: get_op(
          "cross_entropy_backward")(grad, input, target, weight, reduction, ignore_index, label_smoothing),
      target=_ce_target),
    d("cross_entropy_backward(grad_output, input, target, weight, reduction, ignore_index, label_smoothing)",
      weight=None, grad_output=_ce_grad_output, **{"input, target": _ce_double}),
    d("binary_cross_entropy(input, target)", input=_bce_input, target=_bce_target),
    # PyTorch's rules: the target's gradient is mse_loss_backward with input and target swapped
    d("mse_loss(input, target, reduction)", name="MseLossBackward0",
      input=lambda grad, input, target, reduction: get_op("mse_loss_backward")(grad, input, target, reduction),
      target=lambda grad, input, target, reduction: get_op("mse_loss_backward")(grad, target, input, reduction)),
    d("mse_loss_backward(grad_output, input, target, reduction)", grad_output=_mse_input,
      input=lambda grad, grad_output, input, reduction: _mse_norm(input, reduction) * grad * grad_output,
      target=lambda grad, grad_output, input, reduction: -_mse_norm(input, reduction) * grad * grad_output),
    d("nll_loss(input, target, weight, reduction, ignore_index)", name="NllLossBackward0", target=None, weight=None,
      input=lambda grad, input, target, weight, reduction, ignore_index, result1: get_op("nll_loss_backward")(
          grad, input, target, weight, reduction, ignore_index, result1)),
    d("nll_loss_backward(grad_output, input, target, weight, reduction, ignore_index, total_weight)",
      input=None, target=None, weight=None, total_weight=None,
      grad_output=lambda grad, target, weight, reduction, ignore_index: get_op("nll_loss")(
          grad, target, weight, reduction, ignore_index)[0]),

    d("batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)",
      name="NativeBatchNormBackward0", running_mean=None, running_var=None,
      **{"input, weight, bias": lambda grad, input, weight, result1, result2, training: _first_like_input(get_op(
          "batch_norm_backward")(grad, input, weight, result1, result2, training), (input._shape, input._strides))}),
    d("batch_norm_backward(grad_output, input, weight, save_mean, save_invstd, training)", save_mean=None,
      name="NativeBatchNormBackwardBackward0",
      save_invstd=None, **{"grad_output, input, weight": _batch_norm_double}),
    # `bias` is named though unused: PyTorch's node saves it (a pack hook sees bias, input, weight, mean, rstd)
    d("layer_norm(input, normalized_shape, weight, bias, eps)", name="NativeLayerNormBackward0",
      **{"input, weight, bias": lambda grad, input, normalized_shape, weight, bias, result1, result2: get_op(
          "layer_norm_backward")(grad, input, normalized_shape, result1, result2, weight)}),
    d("layer_norm_backward(grad_output, input, normalized_shape, mean, rstd, weight)", mean=None, rstd=None,
      name="NativeLayerNormBackwardBackward0",
      **{"grad_output, input, weight": _layer_norm_double}),
    d("group_norm(input, weight, bias, num_groups, eps)", name="NativeGroupNormBackward0",
      **{"input, weight, bias": lambda grad, input, weight, num_groups, result1, result2: _first_like_input(get_op(
          "group_norm_backward")(grad, input, result1, result2, weight, num_groups), (input._shape, input._strides))}),
    d("group_norm_backward(grad_output, input, mean, rstd, weight, num_groups)", mean=None, rstd=None,
      name="NativeGroupNormBackwardBackward0",
      **{"grad_output, input, weight": _group_norm_double}),

    d("embedding(weight, indices, padding_idx, scale_grad_by_freq)", indices=None,
      weight=lambda grad, indices, weight_shape, padding_idx, scale_grad_by_freq: get_op("embedding_backward")(
          grad, indices, weight_shape[0], padding_idx, scale_grad_by_freq)),
    d("embedding_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq=False)", indices=None,
      name="EmbeddingDenseBackwardBackward0",
      grad_output=_embedding_transpose),
    d("embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, "
      "scale_grad_by_freq=False)",
      indices=None, offsets=None,
      weight=lambda grad, indices, offsets, result1, result2, weight_shape, mode, per_sample_weights,
      include_last_offset, padding_idx, scale_grad_by_freq: _bag_by_freq(get_op("embedding_bag_backward")(
          grad, indices, offsets, result1, result2, weight_shape[0], mode, per_sample_weights, include_last_offset,
          padding_idx), indices, scale_grad_by_freq),
      per_sample_weights=_bag_per_sample_weights),
    d("embedding_bag_backward(grad_output, indices, offsets, bag_size, max_indices, num_weights, mode, "
      "per_sample_weights, include_last_offset, padding_idx)",
      indices=None, offsets=None, bag_size=None, max_indices=None,
      per_sample_weights=not_implemented("embedding_bag_backward w.r.t. per_sample_weights"),
      grad_output=lambda grad, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx:
      _bag_transpose(grad, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx)),

    d("native_dropout(input, p, generator)",
      input=lambda grad, result1, p: get_op("native_dropout_backward")(grad, result1, _dropout_scale(grad, p))),
    d("native_dropout_backward(grad_output, mask, scale)", mask=None,
      grad_output=lambda grad, mask, scale: get_op("native_dropout_backward")(grad, mask, scale)),

    d("lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None)",
      **{"input_gates, hidden_gates, cx, input_bias, hidden_bias": _lstm}),
    d("lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace)", **{
        "grad_hy, grad_cy, cx, cy, workspace": lambda grads, grad_hy, grad_cy, cx, cy, workspace: rc.vjp_of(
            rc.lstm_backward_fn, [grad_hy, grad_cy, cx, cy, workspace], list(grads))}),
    d("gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None)",
      **{"input_gates, hidden_gates, hx, input_bias, hidden_bias": _gru}),
    d("gru_cell_backward(grad_hy, workspace)", **{
        "grad_hy, workspace": lambda grads, grad_hy, workspace: rc.vjp_of(rc.gru_backward_fn, [grad_hy, workspace],
                                                                        list(grads))}),

    d("sigmoid_backward(grad_output, output)",
      grad_output=lambda grad, output: get_op("sigmoid_backward")(grad, output),
      output=lambda grad, grad_output, output: grad * grad_output * (1.0 - 2.0 * output)),
    d("tanh_backward(grad_output, output)",
      grad_output=lambda grad, output: get_op("tanh_backward")(grad, output),
      output=lambda grad, grad_output, output: -2.0 * grad * grad_output * output),
    d("silu_backward(grad_output, input)",
      grad_output=lambda grad, input: get_op("silu_backward")(grad, input),
      input=_silu2),
    inplace(d("elu(input, alpha, scale, input_scale)", input=lambda grad, input, alpha, scale, input_scale: _bwd(
        "elu")(grad, input, alpha, scale, input_scale)),
            d("elu(input, alpha, scale, input_scale)", name="EluBackward1", input=_elu_from_result)),
    d("elu_backward(grad_output, input, alpha, scale, input_scale)", input=_elu2,
      grad_output=lambda grad, input, alpha, scale, input_scale: _bwd("elu")(grad, input, alpha, scale, input_scale)),
    d("gelu(input, approximate)", input=lambda grad, input, approximate: _bwd("gelu")(grad, input, approximate)),
    d("gelu_backward(grad_output, input, approximate)", input=_gelu2,
      grad_output=lambda grad, input, approximate: _bwd("gelu")(grad, input, approximate)),
    d("hardshrink(input, lambd)", input=lambda grad, input, lambd: _bwd("hardshrink")(grad, input, lambd)),
    d("hardshrink_backward(grad_output, input, lambd)", input=_zero_in_input,
      grad_output=lambda grad, input, lambd: _bwd("hardshrink")(grad, input, lambd)),
    d("hardsigmoid(input)", input=lambda grad, input: _bwd("hardsigmoid")(grad, input)),
    d("hardsigmoid_backward(grad_output, input)", name="NotImplemented",
      **{"grad_output, input": _hardsigmoid_double}),
    d("hardswish(input)", input=lambda grad, input: _bwd("hardswish")(grad, input)),
    d("hardswish_backward(grad_output, input)", input=_hardswish2,
      grad_output=lambda grad, input: _bwd("hardswish")(grad, input)),
    inplace(d("hardtanh(input, min_val, max_val)",
              input=lambda grad, input, min_val, max_val: _bwd("hardtanh")(grad, input, min_val, max_val)),
            d("hardtanh(input, min_val, max_val)",  # the result is the input inside (min_val, max_val)
              input=lambda grad, result, min_val, max_val: _bwd("hardtanh")(grad, result, min_val, max_val))),
    d("hardtanh_backward(grad_output, input, min_val, max_val)", input=_zero_in_input,
      grad_output=lambda grad, input, min_val, max_val: _bwd("hardtanh")(grad, input, min_val, max_val)),
    inplace(d("leaky_relu(input, negative_slope)",
              input=lambda grad, input, negative_slope: _bwd("leaky_relu")(grad, input, negative_slope)),
            d("leaky_relu(input, negative_slope)", name="LeakyReluBackward1", input=_leaky_relu_from_result)),
    d("leaky_relu_backward(grad_output, input, negative_slope)", input=_zero_in_input,
      grad_output=lambda grad, input, negative_slope: _bwd("leaky_relu")(grad, input, negative_slope)),
    d("log_sigmoid(input)", input=lambda grad, input: _bwd("log_sigmoid")(grad, input)),
    d("log_sigmoid_backward(grad_output, input)", input=_log_sigmoid2,
      grad_output=lambda grad, input: _bwd("log_sigmoid")(grad, input)),
    d("mish(input)", input=_mish),
    d("mish_backward(grad_output, input)", input=lambda grad, grad_output, input: rc.second_order(
        lambda x: x * ew.tanh(ew.where(x > 20.0, x, ew.log1p(ew.exp(x)))), grad_output, [input], [grad])[1],
      grad_output=lambda grad, input: _bwd("mish")(grad, input)),
    d("softplus(input, beta, threshold)",
      input=lambda grad, input, beta, threshold: _bwd("softplus")(grad, input, beta, threshold)),
    d("softplus_backward(grad_output, input, beta, threshold)", input=_softplus2,
      grad_output=lambda grad, input, beta, threshold: _bwd("softplus")(grad, input, beta, threshold)),
    d("softshrink(input, lambd)", input=lambda grad, input, lambd: _bwd("softshrink")(grad, input, lambd)),
    d("softshrink_backward(grad_output, input, lambd)", input=_zero_in_input,
      grad_output=lambda grad, input, lambd: _bwd("softshrink")(grad, input, lambd)),
    d("softsign(input)", input=lambda grad, input: _bwd("softsign")(grad, input)),
    d("softsign_backward(grad_output, input)", input=_softsign2,
      grad_output=lambda grad, input: _bwd("softsign")(grad, input)),
    d("tanhshrink(input)", input=lambda grad, input: _bwd("tanhshrink")(grad, input)),
    d("tanhshrink_backward(grad_output, input)", input=_tanhshrink2,
      grad_output=lambda grad, input: _bwd("tanhshrink")(grad, input)),
    d("threshold(input, threshold, value)",
      input=lambda grad, input, threshold: _bwd("threshold")(grad, input, threshold)),
    d("threshold_backward(grad_output, input, threshold)", input=_zero_in_input,
      grad_output=lambda grad, input, threshold: _bwd("threshold")(grad, input, threshold)),
]
