"""The shared test harness: assert_close's tolerances and messages, make_tensor, finite differences."""

import numpy as np
import pytest

import ember.core as ec
from ember.core.testing import assert_close, make_tensor, numerical_jacobian


def test_assert_close_accepts_within_dtype_tolerance():
    x = ec.tensor([1.0, 2.0])
    assert_close(x, x + 1e-6)


def test_assert_close_reports_mismatch_count_and_index():
    with pytest.raises(AssertionError, match=r"(?s)Mismatched elements: 1 / 3 .*First mismatch at index \(2,\)"):
        assert_close(ec.tensor([1.0, 2.0, 3.0]), ec.tensor([1.0, 2.0, 3.5]))


def test_assert_close_checks_dtype_and_shape():
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(ec.ones(2), ec.ones(2, dtype=ec.float64))
    with pytest.raises(AssertionError, match="shape"):
        assert_close(ec.ones(2), ec.ones(3))


def test_make_tensor_noncontiguous_has_the_same_values_as_its_copy():
    t = make_tensor(3, 4, noncontiguous=True, seed=1)
    assert not t.is_contiguous()
    assert t.shape == (3, 4) and t.dtype is ec.float32
    np.testing.assert_array_equal(t.numpy(), np.ascontiguousarray(t.numpy()))
    assert ((t.numpy() >= -9) & (t.numpy() < 9)).all()


def test_numerical_jacobian_of_a_known_function():
    x = np.array([0.3, -1.2])
    jac = numerical_jacobian(lambda v: np.sin(v) * v[0], x)
    expected = np.diag(np.cos(x) * x[0])  # d(sin(v_i) v_0)/dv_j = cos(v_i) v_0 [i=j] + sin(v_i) [j=0]
    expected[:, 0] += np.sin(x)
    np.testing.assert_allclose(jac, expected, rtol=1e-6, atol=1e-8)


def test_assert_close_compares_imaginary_parts():
    assert_close(ec.tensor([1 + 1j]), ec.tensor([1 + 1j + 1e-7j]))
    with pytest.raises(AssertionError, match="not close"):
        assert_close(ec.tensor([1 + 1j]), ec.tensor([1 + 5j]))
