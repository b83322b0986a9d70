"""3-D (volumetric) layer functions of `torch.nn.functional`, the `*_with_indices` pools, alpha dropout
and the resampling aliases: thin PyTorch-signature wrappers over ember-core."""


from __future__ import annotations

import warnings

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops import dropout as _dropout
from ember.core.ops import pool as _pool
from ember.core.ops import upsample as _upsample
from ember.core.ops.arguments import parsed
from ember.nn.functional._extra import lp_pool_inf

__all__ = ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool3d", "lp_pool3d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "upsample", "upsample_nearest", "upsample_bilinear"]


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-D cross-correlation; input (N, C_in, D, H, W) or (C_in, D, H, W), weight (C_out, C_in / groups, kD, kH, kW)."""
    return ea.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The gradient of conv3d with respect to its input; weight (C_in, C_out / groups, kD, kH, kW)."""
    return ea.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Maximum over windows of (N, C, D, H, W) inputs; `return_indices` also gives the flat argmax."""
    return _pool.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@parsed("avg_pool3d", kernel_size="tuple of ints", stride="tuple of ints?",  # PyTorch's builtin: a keyword
         padding="tuple of ints")  # is named without a position
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over windows of (N, C, D, H, W) inputs."""
    return _pool.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Mean pooling to a fixed output size (D_out, H_out, W_out)."""
    return _pool.adaptive_avg_pool3d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling of (N, C, L) inputs to a fixed output length."""
    return _pool.adaptive_max_pool1d(input, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling to a fixed output size (D_out, H_out, W_out)."""
    return _pool.adaptive_max_pool3d(input, output_size, return_indices)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over the window of x^p)^(1/p) over (N, C, D, H, W) inputs."""
    if (limit := lp_pool_inf(max_pool3d, input, norm_type, kernel_size, stride, ceil_mode)) is not None:
        return limit
    kd, kh, kw = (kernel_size,) * 3 if isinstance(kernel_size, int) else kernel_size
    out = _pool.avg_pool3d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return (ea.sign(out) * ea.relu(out.abs()) * (kd * kh * kw)) ** (1.0 / norm_type)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability p in training; other
    ranks warn (deprecated in PyTorch) and are taken as unbatched."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() in (4, 5):
        return _dropout.dropout3d(input, p, training, inplace)
    warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will result "
                  "in an error in a future release. To retain the behavior and silence this warning, please use "
                  "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                  "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                  "inputs).", stacklevel=2)
    return ea.feature_dropout(input.unsqueeze(0), p, training).squeeze(0)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU activations' mean and variance (dropped units take SELU's saturation)."""
    return (_dropout.alpha_dropout_ if inplace else _dropout.alpha_dropout)(input, p, training)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels of (N, C, *) inputs."""
    return (_dropout.feature_alpha_dropout_ if inplace else _dropout.feature_alpha_dropout)(input, p, training)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """`max_pool1d` returning (output, indices)."""
    return _pool.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """`max_pool2d` returning (output, indices)."""
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """`max_pool3d` returning (output, indices)."""
    return _pool.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """`adaptive_max_pool1d` returning (output, indices)."""
    return _pool.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """`adaptive_max_pool2d` returning (output, indices)."""
    return _pool.adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """`adaptive_max_pool3d` returning (output, indices)."""
    return _pool.adaptive_max_pool3d(input, output_size, True)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None):
    """The deprecated `F.upsample`: `interpolate` with the same arguments."""
    return _upsample.upsample(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """The deprecated `F.upsample_nearest`: `interpolate(..., mode='nearest')`."""
    return _upsample.upsample_nearest(input, size, scale_factor)


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """The deprecated `F.upsample_bilinear`: `interpolate(..., mode='bilinear', align_corners=True)`."""
    return _upsample.upsample_bilinear(input, size, scale_factor)
