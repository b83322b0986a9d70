"""Sampling and unpooling functions of `torch.nn.functional`: grid_sample, affine_grid and the
GRID_SAMPLE_* mode tables (ember-core's sampling kernels)."""

from __future__ import annotations

from ember.core.ops.sampling import (
    GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES, affine_grid, grid_sample,
)

__all__ = ["grid_sample", "affine_grid", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]
