"""The shared test harness: assert_close's tolerances and messages, make_tensor, finite differences."""

import numpy as np
import pytest

import ember.core as ec
from ember.core.testing import assert_close, make_tensor, numerical_jacobian


def test_assert_close_accepts_within_dtype_tolerance():
    x = ec.tensor([1.0, 2.0])
    assert_close(x, x + 1e-6)


def test_assert_close_reports_mismatch_count_and_greatest_differences_as_pytorch():
    with pytest.raises(AssertionError) as info:
        assert_close(ec.tensor([[1.0, 2.0], [3.0, 4.0]]), ec.tensor([[1.0, 2.0], [3.1, 4.2]]))
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\n"
        "Greatest absolute difference: 0.19999980926513672 at index (1, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.04761900380253792 at index (1, 1) (up to 1.3e-06 allowed)")


def test_assert_close_integers_are_compared_for_equality():
    with pytest.raises(AssertionError) as info:
        assert_close(ec.tensor([1, 2, 3]), ec.tensor([1, 2, 4]))
    assert str(info.value) == ("Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
                               "Greatest absolute difference: 1 at index (2,)\n"
                               "Greatest relative difference: 0.25 at index (2,)")


def test_assert_close_scalars_and_nested_items_name_the_failure():
    with pytest.raises(AssertionError) as info:
        assert_close({"w": [ec.tensor(1.0), ec.tensor(5.0)]}, {"w": [ec.tensor(1.0), ec.tensor(5.5)]})
    assert str(info.value) == (
        "Scalars are not close!\n\nExpected 5.5 but got 5.0.\nAbsolute difference: 0.5 (up to 1e-05 allowed)\n"
        "Relative difference: 0.09090909090909091 (up to 1.3e-06 allowed)\n\n"
        "The failure occurred for item ['w'][1]")
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close([1.0], [1.5], msg="custom")


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


def test_assert_close_python_numbers_check_type_and_booleans_and_bfloat16_differences():
    with pytest.raises(AssertionError, match=r"^The \(d\)types do not match: <class 'float'> != <class 'int'>\.$"):
        assert_close(1.0, 1)
    with pytest.raises(AssertionError, match="^Booleans mismatch: True is not False$"):
        assert_close(True, False)
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 0\.1015625 at index \(0,\)"):
        assert_close(ec.tensor([1.0], dtype=ec.bfloat16), ec.tensor([1.1], dtype=ec.bfloat16))


def test_make_tensor_shapes_dtypes_and_bounds_as_pytorchs():
    """0-d stays 0-d (numpy's ascontiguousarray made it (1,)), complex dtypes work, bounds are checked."""
    assert make_tensor((), dtype=ec.bool).shape == () and make_tensor([], dtype=ec.float32).shape == ()
    c = make_tensor((3, 3), dtype=ec.complex64, low=-1, high=1, seed=0)
    v = c.numpy()
    assert c.dtype == ec.complex64 and (np.abs(v.real) <= 1).all() and (np.abs(v.imag) <= 1).all()
    assert (make_tensor((50,), dtype=ec.int8, low=-1, high=1, exclude_zero=True, seed=1).numpy() != 0).all()
    with pytest.raises(ValueError, match=r"`low` must be less than `high`, but got 2.0 >= 1.0"):
        make_tensor((2,), low=2.0, high=1.0)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor((2,), low=float("nan"))
    with pytest.raises(ValueError, match="not supported for boolean and integral dtypes"):
        make_tensor((2,), dtype=ec.int64, requires_grad=True)


def test_make_tensor_requires_grad_makes_a_leaf():
    pytest.importorskip("ember.autograd")  # requires_grad_ is autograd's (core alone has no graph)
    g = make_tensor(2, dtype=ec.float64, requires_grad=True)
    assert g.requires_grad and g.is_leaf


def test_assert_close_pairs_none_as_pytorchs_none_pair():
    assert_close(None, None)
    assert_close([None, 1.0], [None, 1.0])
    with pytest.raises(AssertionError, match="None mismatch: None is not 1"):
        assert_close(None, 1)
