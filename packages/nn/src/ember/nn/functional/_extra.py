"""More of `torch.nn.functional`: 1-D pooling, shrinkage activations, PReLU, RMS norm, distances,
pixel shuffling and channel dropout; ember-core kernels where they exist, else compositions."""

from __future__ import annotations

import numpy as np

from ember import autograd as ea
from ember.core import Tensor
from ember.core.dispatch import composite, node_name
from ember.core.ops import conv as _conv
from ember.core.ops._util import int_tuple_param, internally, warn_once
from ember.core.ops.arguments import parsed
from ember.core.ops.memfmt import channels_last_as, grad_format_from, grad_laid_out
from ember.nn.functional._attention import _cpp_name
from ember.nn.functional._layers import _verify_spatial_size

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool2d", "conv_transpose1d",
           "hardshrink", "softshrink", "selu_", "celu_", "threshold_", "prelu", "rms_norm", "pairwise_distance",
           "pdist", "pixel_shuffle", "pixel_unshuffle", "dropout1d", "instance_norm", "gumbel_softmax", "unfold",
           "fold", "lp_pool1d", "lp_pool2d", "channel_shuffle"]


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Maximum over windows of (N, C, L) inputs."""
    return ea.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@parsed("avg_pool1d", kernel_size="tuple of ints", stride="tuple of ints?",  # PyTorch's builtin: a keyword
         padding="tuple of ints")  # is named without a position
def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of (N, C, L) inputs."""
    return ea.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


@parsed("adaptive_avg_pool1d", output_size="tuple of ints")  # PyTorch's builtin, as avg_pool1d
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    return ea.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    return ea.adaptive_max_pool2d(input, output_size, return_indices)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """Transposed 1-D convolution; weight (C_in, C_out / groups, k)."""
    return ea.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def hardshrink(input: Tensor, lambd: float = 0.5, *, out: Tensor | None = None) -> Tensor:
    """x where |x| > lambd, else 0 (`out=` as torch.hardshrink)."""
    return ea.hardshrink(input, lambd, out=out)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd * sign(x) where |x| > lambd, else 0."""
    return ea.softshrink(input, lambd)


def selu_(input: Tensor) -> Tensor:
    return ea.selu(input, True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return ea.celu(input, alpha, True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return ea.threshold(input, threshold, value, True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or shared."""
    return ea.prelu(input, weight)


@composite("rms_norm")
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape` dims (eps: the dtype's epsilon)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("rms_norm", input.dtype)
    if len(shape) > input.dim():
        raise ValueError(f"Input tensor must have at least {len(shape)} dimensions, but got {input.dim()}")
    if tuple(input.shape[input.dim() - len(shape):]) != shape:  # PyTorch's words: no ", " after the "*"
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*"
                           f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    if weight is not None and weight.dtype != input.dtype:
        _warn_unfused(input, weight)
    # PyTorch computes half and bfloat16 in float32 (its eps too) and rounds once, to the input's dtype
    x = input.float() if input.dtype in (ea.float16, ea.bfloat16) else input
    if eps is None:
        eps = float(np.finfo(x.dtype.np).eps)
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    # PyTorch's composite adds eps as a Scalar: AddBackward1
    out = x * ea.rsqrt(node_name((x * x).mean(dims, keepdim=True) + eps, "AddBackward0", "AddBackward1"))
    # PyTorch's composite ends in `contiguous()`: a transposed input gives a row-major result (CloneBackward0)
    return (out * weight if weight is not None else out).to(input.dtype).contiguous()


def _warn_unfused(input: Tensor, weight: Tensor) -> None:
    """PyTorch's once-per-process warning that a weight of another dtype takes rms_norm off its fused kernel."""
    warn_once(internally(f"Mismatch dtype between input and weight: input dtype = {_cpp_name(input.dtype)}, weight "
                         f"dtype = {_cpp_name(weight.dtype)}, Cannot dispatch to fused implementation.",
                         "aten/src/ATen/native/layer_norm.cpp:346"), site="rms_norm mismatched weight")


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dimension."""
    diff = node_name(x1 - x2 + eps, "AddBackward0", "AddBackward1")  # eps added as a Scalar, as PyTorch's
    return node_name(ea.vector_norm(diff, p, -1, keepdim), "LinalgVectorNormBackward0", "NormBackward1")


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between the rows i < j of input (N, M): (N (N - 1) / 2,)."""
    return ea.pdist(input, p)


@parsed("pixel_shuffle", upscale_factor="int")  # a keyword is named without its position, as PyTorch's
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    return ea.pixel_shuffle(input, upscale_factor)


@parsed("pixel_unshuffle", downscale_factor="int")
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    return ea.pixel_unshuffle(input, downscale_factor)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability p in training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return ea.dropout1d(input, p, training, inplace)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial dims."""
    if use_input_stats:
        _verify_spatial_size(input.shape)
    return ea.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau); `hard` returns one-hot samples whose gradient is
    the soft sample's (straight-through estimator)."""
    gumbels = -ea.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = ea.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _check_pairs(op: str, **sizes) -> None:
    """The sizes as F.unfold/F.fold hand them to im2col/col2im (one value doubled, all by position): what is not ints
    is refused in its parser's words, then a sequence of another length than two (one value too), not spread over
    both dims."""
    for position, (name, v) in enumerate(sizes.items(), 2):
        int_tuple_param(v if isinstance(v, list | tuple) else (v, v), op, name, position)
    for name, v in sizes.items():
        if isinstance(v, list | tuple) and len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding blocks of (N, C, H, W) as columns: (N, C * kH * kW, L) (im2col)."""
    _check_pairs("im2col", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    return _conv.unfold(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns (N, C * kH * kW, L) back into an (N, C, H, W) image (col2im, unfold's adjoint)."""
    _check_pairs("col2im", output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding,
                 stride=stride)
    return _conv.fold(input, output_size, kernel_size, dilation, padding, stride)


def _lp_finish(out: Tensor, window: int, norm_type: float) -> Tensor:
    return (ea.sign(out) * ea.relu(out.abs()) * window) ** (1.0 / norm_type)


def lp_pool_inf(max_pool, input: Tensor, norm_type, kernel_size, stride, ceil_mode: bool) -> Tensor | None:
    """An infinite norm's limit, as PyTorch's lp_pool: the max of |x| (of -|x| negated for -inf) over each window;
    None for a finite norm."""
    if norm_type.__class__ not in (int, float) or abs(norm_type) != float("inf"):
        return None
    if norm_type > 0:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over the window of x^p)^(1/p) over (N, C, L) inputs."""
    if (limit := lp_pool_inf(ea.max_pool1d, input, norm_type, kernel_size, stride, ceil_mode)) is not None:
        return limit
    out = ea.avg_pool1d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, kernel_size if isinstance(kernel_size, int) else kernel_size[0], norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over the window of x^p)^(1/p) over (N, C, H, W) inputs."""
    if (limit := lp_pool_inf(ea.max_pool2d, input, norm_type, kernel_size, stride, ceil_mode)) is not None:
        return limit
    out = ea.avg_pool2d(input ** norm_type, kernel_size, stride, 0, ceil_mode)  # (which refuses a float size)
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    return _lp_finish(out, kh * kw, norm_type)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of `groups` groups: (N, g * k, *) -> channels ordered k-major."""
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(f"channel_shuffle(): argument 'groups' (position 2) must be int, not {type(groups).__name__}")
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    fmt = [None]  # the input's gradient is dense, in its incoming gradient's format, as PyTorch's kernel
    x = grad_laid_out(input, fmt)
    out = x.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)
    out = node_name(out, type(out.grad_fn).__name__, "ChannelShuffleBackward0") if out.grad_fn is not None else out
    return grad_format_from(channels_last_as(out, input), fmt)  # (PyTorch's kernel keeps a channels_last input's)
