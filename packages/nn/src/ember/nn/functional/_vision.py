"""Sampling, unpooling, pooling-with-indices and channel-normalization functions of
`torch.nn.functional`: grid_sample, affine_grid, max_unpool1d/2d/3d, the `*_with_indices` pools,
the deprecated upsample names (ember-core's kernels) and local_response_norm (a composition)."""

from __future__ import annotations

import numpy as np

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.sampling import (
    GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES, affine_grid, grid_sample,
)
from ember.core.ops.fractional_pool import fractional_max_pool2d, fractional_max_pool3d
from ember.core.ops.unpool import max_unpool1d, max_unpool2d, max_unpool3d
from ember.core.ops.upsample import upsample, upsample_bilinear, upsample_nearest

__all__ = ["grid_sample", "affine_grid", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "upsample", "upsample_nearest", "upsample_bilinear",
           "local_response_norm", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Tensor | None = None):
    """`fractional_max_pool2d` returning `(output, indices)`."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Tensor | None = None):
    """`fractional_max_pool3d` returning `(output, indices)`."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def channel_window_sum(sq: Tensor, window: np.ndarray) -> Tensor:
    """`sum_c' window[c, c'] * sq[:, c']` for every channel c of `(N, C, *)`: one matmul over the channels."""
    w = ea.tensor(window, dtype=sq.dtype, device=sq.device)
    return ea.matmul(sq.movedim(1, -1), w.t()).movedim(-1, 1)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha / size * sum of squares over `size` neighbouring channels)^beta.

    Args:
        input: `(N, C, *)`, at least 3-D. size: the channel window, `size // 2` channels before each
            channel and `(size - 1) // 2` after (zeros beyond the edges, still divided by `size`).
    """
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    if not input.dtype.is_floating_point:  # PyTorch's own composition: int64 averages truncated, others refused
        from ember.core.ops.normalization import local_response_norm as pooled

        return pooled(input, size, alpha, beta, k)
    c = input.shape[1]
    offset = np.arange(c)[None, :] - np.arange(c)[:, None]  # c' - c
    window = ((offset >= -(size // 2)) & (offset <= (size - 1) // 2)).astype(np.float64)
    div = channel_window_sum(input * input, window) * (alpha / size) + k
    return input / div ** beta
