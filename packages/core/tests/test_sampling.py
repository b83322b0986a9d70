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


@pytest.mark.parametrize("value, name", [(1, "int"), (np.bool_(True), "numpy.bool"), ("yes", "str")])
def test_align_corners_must_be_a_python_bool_as_pytorchs_parser(value, name):
    """F.grid_sample/F.affine_grid hand align_corners to their op's parser, which takes a Python bool only."""
    x, g = E.zeros(1, 1, 2, 2), E.zeros(1, 1, 1, 2)
    with pytest.raises(TypeError, match=f"^grid_sampler\\(\\): argument 'align_corners' \\(position 5\\) must be bool, "
                                        f"not {name}$"):
        E.grid_sample(x, g, align_corners=value)
    with pytest.raises(TypeError, match=f"^affine_grid_generator\\(\\): argument 'align_corners' \\(position 3\\) must "
                                        f"be bool, not {name}$"):
        affine_grid(E.zeros(1, 2, 3), (1, 1, 2, 2), align_corners=value)


def test_affine_grid_refuses_a_float_size_as_pytorchs_parser():
    """A size computed as `H / 2` is refused by affine_grid_generator's parser, never truncated."""
    theta = E.zeros(1, 2, 3)
    with pytest.raises(TypeError, match="^affine_grid_generator\\(\\): argument 'size' failed to unpack the object "
                                        "at pos 3 with error \"type must be tuple of ints,but got float\"$"):
        affine_grid(theta, [1, 1, 2.0, 2], align_corners=False)
    with pytest.raises(TypeError, match="^affine_grid_generator\\(\\): argument 'size' \\(position 2\\) must be tuple "
                                        "of ints, but found element of type float at pos 0$"):
        affine_grid(theta, (1.0, 1, 2, 2), align_corners=False)
    assert affine_grid(theta, (np.int64(1), 1, 2, 3), align_corners=True).shape == (1, 2, 3, 2)
