"""Sampling, unpooling and pooling-with-indices functions of `torch.nn.functional`: grid_sample,
affine_grid, max_unpool1d/2d/3d, the `*_with_indices` pools and the deprecated upsample names
(ember-core's kernels)."""

from __future__ import annotations

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.sampling import (
    GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES, affine_grid, grid_sample,
)
from ember.core.ops.unpool import max_unpool1d, max_unpool2d, max_unpool3d
from ember.core.ops.upsample import upsample, upsample_bilinear, upsample_nearest

__all__ = ["grid_sample", "affine_grid", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "upsample", "upsample_nearest", "upsample_bilinear"]


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """`max_pool1d` returning `(output, indices)` (PyTorch's `return_indices=True` spelling)."""
    return ea.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """`max_pool2d` returning `(output, indices)` (flat `h * W + w` positions)."""
    return ea.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive maximum of (N, C, L) or (C, L) inputs to `output_size` positions."""
    return ea.adaptive_max_pool1d(input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """`adaptive_max_pool1d` returning `(output, indices)`."""
    return ea.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """`adaptive_max_pool2d` returning `(output, indices)`."""
    return ea.adaptive_max_pool2d(input, output_size, True)
