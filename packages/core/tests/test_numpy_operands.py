"""numpy arrays and integers next to tensors, as PyTorch takes them: an array is no operand of a tensor's
operators (numpy computes `t * a` and wraps the result back: float64 for a float64 array), numpy's ufuncs of a
tensor give tensors (booleans as uint8), and a numpy integer is a size or a dim wherever an int is."""

import re

import numpy as np
import pytest

import ember.core as E


def test_an_array_operand_is_computed_by_numpy_and_wrapped_back():
    t = E.tensor([1.0, 2.0])
    r = t * np.array([3.0, 4.0])
    assert type(r) is E.Tensor and r.dtype is E.float64 and r.tolist() == [3.0, 8.0]
    r = E.tensor([1, 2]) + np.ones(2)
    assert r.dtype is E.float64 and r.tolist() == [2.0, 3.0]
    r = t.clone()
    r += np.ones(2)  # no in-place write: Python rebinds r to numpy's float64 sum
    assert r.dtype is E.float64 and r.tolist() == [2.0, 3.0]
    assert (t.reshape(1, 2) @ np.ones((2, 1))).dtype is E.float64


def test_the_array_on_the_left_or_a_comparison_is_refused():
    t = E.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="unsupported operand"):
        np.array([1.0, 2.0]) - t
    with pytest.raises(TypeError, match="'>' not supported between instances of 'Tensor' and 'numpy.ndarray'"):
        t > np.array(1.0)
    eq = t == np.array([1.0, 0.0])  # equality takes the array, as PyTorch's
    assert eq.dtype is E.bool and eq.tolist() == [True, False]


def test_numpy_ufuncs_of_a_tensor_give_tensors():
    t = E.tensor([1.0, 2.0])
    r = np.exp(t)
    assert type(r) is E.Tensor and r.dtype is E.float32
    np.testing.assert_allclose(r.numpy(), np.exp(np.array([1.0, 2.0], np.float32)))
    nan = np.isnan(E.tensor([1.0, float("nan")]))
    assert nan.dtype is E.uint8 and nan.tolist() == [0, 1]


def test_numpy_integers_are_sizes_and_dims():
    t = E.arange(6.0)
    assert t.view(np.int64(6)).shape == (6,) and t.view(np.int64(2), np.int64(3)).shape == (2, 3)
    assert t.view(E.tensor(6)).shape == (6,)
    assert t.view(np.int32).dtype is E.int32  # a type is view(dtype)
    with pytest.raises(TypeError, match=r"view\(\) received an invalid combination of arguments - got \(numpy.bool\)"):
        t.view(np.bool_(True))
    assert t.reshape(2, 3).movedim(np.int64(0), np.int64(1)).shape == (3, 2)


def test_numpy_bools_and_complex64_scalars_are_parsed_as_floats():
    """PyTorch's parser reads np.bool_ and np.complex64 (not Python bools or complexes) as floats."""
    i, b = E.tensor([1, 2]), E.tensor([True, False])
    for r in (i * np.bool_(True), np.bool_(True) * i, b + np.bool_(True)):
        assert r.dtype is E.float32
    assert (b + np.bool_(True)).tolist() == [2.0, 1.0]
    assert E.result_type(i, np.bool_(True)) is E.float32
    assert E.where(b, np.bool_(True), 0).dtype is E.float32
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        b & np.bool_(True)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.clone().mul_(np.bool_(True))
    with pytest.warns(np.exceptions.ComplexWarning):
        r = i + np.complex64(1j)
    assert r.dtype is E.float32 and r.tolist() == [1.0, 2.0]
    assert (i + np.complex128(1j)).dtype is E.complex64
    assert (b == np.bool_(True)).tolist() == [True, False]


def test_np_array_copies_and_np_asarray_shares():
    t = E.tensor([1.0, 2.0])
    shared, copied, cast = np.asarray(t), np.array(t), np.array(t, dtype=np.float32)
    shared[0], copied[1], cast[1] = 5.0, 6.0, 7.0
    assert t.tolist() == [5.0, 2.0]
    assert np.shares_memory(shared, t.numpy()) and not np.shares_memory(copied, t.numpy())
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_not_equal_to_an_array_is_pythons_identity_answer():
    """PyTorch's `t == array` compares elements, but both sides refuse `!=`: Python falls back to `is not`."""
    t, a = E.tensor([1.0, 2.0]), np.array([1.0, 3.0])
    assert (t != a) is True and (a != t) is True
    assert (t == a).tolist() == [True, False] and (a == t).tolist() == [True, False]
    assert (t != np.float64(1.0)).tolist() == [False, True]


_COMBINATION = "received an invalid combination of arguments - got "


@pytest.mark.parametrize("call, message", [  # PyTorch 2.13's words: its methods take no `out=`, numpy passes one
    (lambda t: np.sum(t), "sum() got an unexpected keyword argument 'axis'"),
    (lambda t: np.sum(t, axis=0, keepdims=True), "sum() got an unexpected keyword argument 'axis'"),
    (lambda t: np.mean(t), "mean() got an unexpected keyword argument 'axis'"),
    (lambda t: np.max(t), "max(): argument 'dim' must be int, not NoneType"),
    (lambda t: np.amin(t), "min(): argument 'dim' must be int, not NoneType"),
    (lambda t: np.prod(t, axis=0), "prod() got an unexpected keyword argument 'axis'"),
    (lambda t: np.max(t, keepdims=True), f"max() {_COMBINATION}(keepdims=bool, out=NoneType, axis=NoneType, )"),
    (lambda t: np.std(t), f"std() {_COMBINATION}(ddof=int, dtype=NoneType, out=NoneType, axis=NoneType, )"),
    (lambda t: np.var(t, axis=0), f"var() {_COMBINATION}(ddof=int, dtype=NoneType, out=NoneType, axis=int, )"),
    (lambda t: np.any(t), f"any() {_COMBINATION}(out=NoneType, axis=NoneType, )"),
    (lambda t: np.all(t), f"all() {_COMBINATION}(out=NoneType, axis=NoneType, )"),
    (lambda t: t.sum(out=None), f"sum() {_COMBINATION}(out=NoneType, )"),
])
def test_numpys_reductions_of_a_tensor_are_pytorchs_type_errors(call, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        call(E.ones(2, 2))


def test_the_function_forms_take_numpys_keywords():
    t, o = E.ones(2, 2), E.empty(2)
    assert E.sum(t, axis=0, out=o) is o and o.tolist() == [2.0, 2.0]
    assert t.sum(axis=0, dtype=E.float64).tolist() == [2.0, 2.0] and t.max(axis=0).values.tolist() == [1.0, 1.0]


def test_a_numpy_alpha_is_checked_as_pytorchs():
    i = E.ones(2, dtype=E.int64)
    for alpha in (np.bool_(True), np.float64(1.0)):
        for op in (E.add, E.sub):
            with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating "
                                                   "point number."):
                op(i, i, alpha=alpha)
    assert E.add(i, i, alpha=np.int64(2)).tolist() == [3, 3]
    assert E.add(E.ones(2), E.ones(2), alpha=np.bool_(True)).tolist() == [2.0, 2.0]


def test_numpys_reductions_list_pytorchs_overloads_in_full():
    # PyTorch 2.13's whole message; a method given `out=` beside a `dim` names the keyword its one overload lacks
    with pytest.raises(TypeError) as e:
        np.any(E.ones(2, 2))
    assert str(e.value) == (
        f"any() {_COMBINATION}(out=NoneType, axis=NoneType, ), but expected one of:\n * ()\n"
        " * (tuple of ints dim = None, bool keepdim = False)\n"
        "      didn't match because some of the keywords were incorrect: out, axis\n"
        " * (int dim, bool keepdim = False)\n"
        "      didn't match because some of the keywords were incorrect: out, axis\n")
    with pytest.raises(TypeError) as e:
        np.std(E.ones(2, 2))
    assert "\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n      didn't match " \
           "because some of the keywords were incorrect: ddof, dtype, out, axis\n * (bool unbiased = True)\n" in \
           str(e.value)
    with pytest.raises(TypeError, match=r"^sum\(\) got an unexpected keyword argument 'out'$"):
        E.ones(2, 3).sum(dim=0, out=E.empty(3))
