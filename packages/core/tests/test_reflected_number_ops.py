"""A Python number as the first operand of a binary op on a float tensor (`1.0 - y`, `2 * y`): numpy's values and
dtype, the tensor's layout, and PyTorch's refusals where its signature takes no number as `input`."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import elementwise as ew


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,ref", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                      ("div", np.divide), ("remainder", np.remainder),
                                      ("floor_divide", np.floor_divide)])
@pytest.mark.parametrize("number", [1.0, 3, -0.25])
def test_number_first_matches_numpy_bits(name, ref, number, dtype):
    y = np.random.default_rng(0).standard_normal((5, 7)).astype(dtype)
    got = getattr(ew, name)(number, E.from_numpy(y))
    assert got.dtype is E.from_numpy(y).dtype
    np.testing.assert_array_equal(got.numpy(), ref(number, y))


def test_number_first_keeps_a_transposed_tensor_layout():
    y = E.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4)).t()
    got = ew.sub(1.0, y)
    assert got.stride() == (y - 1.0).stride() == y.stride()
    np.testing.assert_array_equal(got.numpy(), 1.0 - y.numpy())


def test_number_first_where_pytorch_takes_no_number_still_raises():
    y = E.from_numpy(np.ones((2, 2), dtype=np.float32))
    with pytest.raises(TypeError):
        ew.fmax(1.5, y)
    with pytest.raises(TypeError):
        ew.bitwise_and(1, y)


def test_number_first_pow_keeps_its_path():
    y = E.from_numpy(np.array([0.5, 2.0], dtype=np.float32))
    np.testing.assert_array_equal(ew.pow(2.0, y).numpy(), np.power(np.float32(2.0), y.numpy()))
