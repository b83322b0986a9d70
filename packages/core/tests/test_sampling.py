"""affine_grid's reduced-precision rounding against PyTorch 2.13's own numbers."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops.sampling import affine_grid

# F.affine_grid(theta.to(dtype), (1, 1, 4, 5), align_corners=False)[0, 0] and [0, 3] printed by PyTorch 2.13 (CPU)
_PYTORCH = {
    "bfloat16": ([[-0.79296875, -0.494140625], [-0.435546875, -0.53515625], [-0.0751953125, -0.57421875],
                  [0.28515625, -0.61328125], [0.64453125, -0.65234375]],
                 [[-0.64453125, 0.85546875], [-0.28515625, 0.8125], [0.0751953125, 0.7734375],
                  [0.435546875, 0.734375], [0.79296875, 0.6953125]]),
    "float16": ([[-0.794921875, -0.494873046875], [-0.434814453125, -0.53515625], [-0.074951171875, -0.5751953125],
                 [0.284912109375, -0.61474609375], [0.64453125, -0.65478515625]],
                [[-0.64453125, 0.85498046875], [-0.284912109375, 0.81494140625], [0.074951171875, 0.77490234375],
                 [0.434814453125, 0.73486328125], [0.794921875, 0.69482421875]]),
}


@pytest.mark.parametrize("name", sorted(_PYTORCH))
def test_reduced_precision_affine_grid_accumulates_in_float32_and_rounds_once(name):
    # PyTorch's bmm of the base grid with theta^T sums float16/bfloat16 products in float32; rounding after every
    # term (float32's rule) lands bfloat16 points one ulp away
    dtype = getattr(E, name)
    theta = E.tensor([[[0.9, 0.1, 0.0], [-0.1, 0.9, 0.1]]]).to(dtype)
    grid = affine_grid(theta, (1, 1, 4, 5), align_corners=False)
    assert grid.dtype == dtype
    first, last = _PYTORCH[name]
    np.testing.assert_array_equal(grid[0, 0].float().numpy(), np.array(first, dtype=np.float32))
    np.testing.assert_array_equal(grid[0, 3].float().numpy(), np.array(last, dtype=np.float32))
