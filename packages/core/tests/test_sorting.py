"""Searching, counting and order statistics (searchsorted, bucketize, bincount, histc, isin,
unique_consecutive, nanmedian, quantile) against numpy; sort/topk/median live in test_reduce.py."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close, make_tensor

NAN = float("nan")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.booleans())
def test_searchsorted_and_bucketize_match_numpy(seed, right):
    rng = np.random.default_rng(seed)
    seq = np.sort(rng.integers(0, 10, 8))
    vals = rng.integers(-1, 12, (3, 4))
    side = "right" if right else "left"
    expected = np.searchsorted(seq, vals, side=side)
    got = E.searchsorted(E.from_numpy(seq), E.from_numpy(vals), right=right)
    assert got.dtype is E.int64
    np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(E.searchsorted(E.from_numpy(seq), E.from_numpy(vals), side=side).numpy(), expected)
    np.testing.assert_array_equal(E.bucketize(E.from_numpy(vals), E.from_numpy(seq), right=right).numpy(), expected)
    rows = np.sort(rng.standard_normal((3, 6)), axis=1)
    v = rng.standard_normal((3, 2))
    got = E.searchsorted(E.from_numpy(rows), E.from_numpy(v), right=right)
    np.testing.assert_array_equal(got.numpy(), np.stack([np.searchsorted(rows[i], v[i], side) for i in range(3)]))


def test_searchsorted_steps_over_nans_as_pytorchs_binary_search():
    # PyTorch's values: a NaN value lands past the end; a NaN boundary compares false, so the search steps right
    v = E.tensor([NAN, -1.0, 0.5, 1.0, 1.5, 2.0, 2.5, 9.0])
    assert E.searchsorted(E.tensor([1.0, 2.0, NAN]), v).tolist() == [3, 0, 0, 0, 1, 1, 3, 3]
    assert E.searchsorted(E.tensor([1.0, NAN, 2.0, 3.0]), v, right=True).tolist() == [4, 2, 2, 2, 2, 3, 3, 4]
    assert E.bucketize(v, E.tensor([NAN, 1.0, 2.0])).tolist() == [3, 1, 1, 1, 2, 2, 3, 3]
    rows = E.tensor([[1.0, NAN, 3.0], [0.0, 1.0, 2.0]])
    assert E.searchsorted(rows, E.tensor([[NAN, 2.0], [1.0, NAN]])).tolist() == [[3, 2], [1, 3]]
    shuffled = E.tensor([3.0, NAN, 1.0])
    assert E.searchsorted(shuffled, E.tensor([2.0, NAN]), sorter=E.tensor([2, 0, 1])).tolist() == [1, 3]
    assert E.searchsorted(E.zeros(2, 0), E.ones(2, 3)).tolist() == [[0, 0, 0], [0, 0, 0]]


def test_searchsorted_options_and_errors():
    seq = E.tensor([1, 3, 5, 7])
    assert E.searchsorted(seq, 5).item() == 2 and E.searchsorted(seq, 5).shape == ()
    assert E.searchsorted(seq, E.tensor([5]), out_int32=True).dtype is E.int32
    unsorted = E.tensor([5, 1, 7, 3])
    assert E.searchsorted(unsorted, E.tensor([4]), sorter=E.argsort(unsorted)).tolist() == [2]
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        E.searchsorted(seq, 3, right=True, side="left")
    with pytest.raises(RuntimeError, match="input value can be a scalar only when boundaries tensor dimension is 1"):
        E.searchsorted(E.ones(2, 3), 1.0)
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        E.searchsorted(E.ones(2, 3), E.ones(3, 3))


@pytest.mark.parametrize("seq, values, msg", [  # PyTorch 2.13's words
    (E.ones(2, 3), 1.0, "input value can be a scalar only when boundaries tensor dimension is 1, but we got "
                        "boundaries tensor dim(2) and input value's dim(0) numel(1)"),
    (E.ones(2, 3), E.tensor(1.0), "input value can be a scalar only when boundaries tensor dimension is 1, but we "
                                  "got boundaries tensor dim(2) and input value's dim(0) numel(1)"),
    (E.tensor(1.0), E.ones(2), "boundaries tensor should have positive dimension, but got 0 dimension"),
])
def test_searchsorted_refuses_scalars_and_0dim_boundaries_in_pytorchs_words(seq, values, msg):
    with pytest.raises(RuntimeError, match=f"^{re.escape('torch.searchsorted(): ' + msg)}$"):
        E.searchsorted(seq, values)


def test_bincount():
    x = E.tensor([4, 3, 6, 3, 4])
    assert x.bincount().tolist() == [0, 0, 0, 2, 2, 0, 1] and x.bincount().dtype is E.int64
    assert E.bincount(x, minlength=9).shape == (9,)
    w = E.tensor([0.5, 1.0, 1.0, 0.25, 0.5])
    r = E.bincount(x, w)
    assert r.dtype is E.float32 and r.tolist() == [0, 0, 0, 1.25, 1.0, 0, 1.0]
    assert E.bincount(x, E.tensor([1, 1, 1, 1, 1])).dtype is E.float64
    assert E.bincount(E.tensor([], dtype=E.int64)).tolist() == []
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
        E.bincount(E.tensor([-1, 2]))
    with pytest.raises(NotImplementedError, match="\"bincount_cpu\" not implemented for 'Float'"):
        E.bincount(E.tensor([1.0]))
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
        E.bincount(E.tensor([[1]]))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 12))
def test_histc_matches_numpy_histogram(seed, bins):
    x = make_tensor(50, dtype=E.float64, seed=seed, low=-3, high=3)
    got = E.histc(x, bins=bins, min=-2, max=2)
    a = x.numpy()
    expected = np.histogram(a[(a >= -2) & (a <= 2)], bins=bins, range=(-2, 2))[0]
    np.testing.assert_array_equal(got.numpy(), expected)
    assert got.dtype is E.float64
    auto = E.histc(x, bins=bins)
    assert auto.sum().item() == 50


def test_histc_errors_and_constant_input():
    assert E.histc(E.tensor([2.0, 2.0]), bins=2).tolist() == [0.0, 2.0]
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        E.histc(E.tensor([1, 2]))


def test_isin():
    e = E.tensor([[1, 2], [3, 4]])
    assert E.isin(e, E.tensor([2, 3])).tolist() == [[False, True], [True, False]]
    assert E.isin(e, 4).tolist() == [[False, False], [False, True]]
    assert E.isin(e, E.tensor([2, 3]), invert=True).tolist() == [[True, False], [False, True]]


@pytest.mark.parametrize("args, got", [((1, 2), "int, int"), ((1.5, [1]), "float, list"),
                                       ((E.ones(1), [1]), "Tensor, list"), ((None, E.ones(1)), "NoneType, Tensor")])
def test_isin_without_a_tensor_or_with_a_list_is_pytorchs_type_error(args, got):
    with pytest.raises(TypeError) as err:
        E.isin(*args)
    kw = "*, bool assume_unique = False, bool invert = False, Tensor out = None"
    assert str(err.value) == (f"isin() received an invalid combination of arguments - got ({got}), but expected one "
                              f"of:\n * (Tensor elements, Tensor test_elements, {kw})\n * (Number element, Tensor "
                              f"test_elements, {kw})\n * (Tensor elements, Number test_element, {kw})\n")
    assert E.isin(2, E.tensor([1, 2])).tolist() is True


def test_unique_consecutive():
    x = E.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    v, inv, c = E.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert v.tolist() == [1, 2, 3, 1, 2] and inv.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and c.tolist() == [2, 2, 1, 2, 1]
    assert x.unique_consecutive().tolist() == [1, 2, 3, 1, 2]
    rows = E.tensor([[1, 2], [1, 2], [3, 4], [1, 2]])
    assert E.unique_consecutive(rows, dim=0).tolist() == [[1, 2], [3, 4], [1, 2]]
    v, c = E.unique_consecutive(rows.t(), return_counts=True, dim=1)
    assert v.tolist() == [[1, 3, 1], [2, 4, 2]] and c.tolist() == [2, 1, 1]


@pytest.mark.parametrize("fn", [E.unique, E.unique_consecutive])
def test_unique_along_a_dim_of_an_empty_tensor_refused_as_pytorch(fn):
    with pytest.raises(RuntimeError, match="^There are 0 sized dimensions, and they aren't selected, so unique "
                                           "cannot be applied$"):
        fn(E.zeros(2, 0), dim=0)
    with pytest.raises(RuntimeError, match="^Number of zero sized dimensions is more than one, so unique cannot be "
                                           "applied $"):
        fn(E.zeros(0, 0), dim=1)
    v, inv, c = fn(E.zeros(0, 2), dim=0, return_inverse=True, return_counts=True)  # the empty dim selected: fine
    assert v.shape == (0, 2) and inv.shape == (0,) and c.shape == (0,)


def test_nanmedian_ignores_nan():
    x = E.tensor([[3.0, NAN, 1.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 1.0, 2.0, 3.0]])
    r = x.nanmedian(1)
    assert r.values[0].item() == 2.0 and math.isnan(r.values[1].item()) and r.values[2].item() == 2.0
    assert x[0][r.indices[0]].item() == 2.0
    assert x.nanmedian().item() == 2.0
    assert type(r).__name__ == "nanmedian"
    assert E.tensor([5, 1, 3]).nanmedian().item() == 3


def test_nanmedian_of_an_all_nan_row_names_the_index_pytorchs_nth_element_leaves():
    # PyTorch 2.13's indices for all-NaN rows of 1..20 elements (its introselect over elements that all compare equal)
    want = [0, 0, 0, 2, 2, 3, 5, 6, 7, 8, 8, 9, 8, 9, 9, 10, 10, 11, 11, 12]
    assert [E.full((n,), NAN).nanmedian(0).indices.item() for n in range(1, 21)] == want
    x = E.full((3, 7, 5), NAN)
    x[1, 2, 3] = 1.0
    r = x.nanmedian(1)
    assert r.indices[1].tolist() == [5, 5, 5, 2, 5] and r.values[1, 3].item() == 1.0


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (0, False), (1, True), (-1, False)])
def test_quantile_matches_numpy(interpolation, dim, keepdim):
    x = make_tensor(4, 7, dtype=E.float64, seed=3)
    a = x.numpy()
    for q in (0.0, 0.3, 0.5, 1.0):
        expected = np.quantile(a, q, axis=dim, keepdims=keepdim, method=interpolation)
        assert_close(E.quantile(x, q, dim, keepdim, interpolation=interpolation), E.from_numpy(np.asarray(expected)))
    qs = E.tensor([0.1, 0.5, 0.9], dtype=E.float64)
    expected = np.quantile(a, qs.numpy(), axis=dim, keepdims=keepdim, method=interpolation)
    assert_close(x.quantile(qs, dim, keepdim, interpolation=interpolation), E.from_numpy(np.asarray(expected)))


@pytest.mark.parametrize("fn", [E.quantile, E.nanquantile])
def test_quantile_of_a_1d_q_is_pytorchs_permuted_view(fn):
    # PyTorch's quantiles lie along a last dim moved to the front: (3, 1, 4) with strides (1, 12, 3), not contiguous
    x = make_tensor(2, 3, 4, dtype=E.float64, seed=1)
    qs = E.tensor([0.2, 0.5, 0.7], dtype=E.float64)
    r = fn(x, qs, dim=0, keepdim=True)
    assert r.shape == (3, 1, 3, 4) and r.stride() == (1, 36, 12, 3) and not r.is_contiguous()
    assert fn(x, qs, dim=2).stride() == (1, 9, 3)
    assert fn(x, qs, dim=None, keepdim=True).stride() == (1, 3, 3, 3)
    assert fn(x, 0.5, dim=0).is_contiguous()
    expected = np.quantile(x.numpy(), qs.numpy(), axis=2)
    assert_close(fn(x, qs, dim=2), E.from_numpy(expected))
    with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor's size and stride"):
        fn(x, qs, dim=2).view(-1)


def test_quantile_and_nanquantile_write_out_as_pytorch():
    x = E.tensor([[4.0, 1.0], [NAN, 3.0]])
    out = E.empty(0)
    assert E.quantile(x, 0.5, dim=0, out=out) is out and out.shape == (2,)
    assert math.isnan(out[0].item()) and out[1].item() == 2.0
    res = E.empty(3)  # resized, with PyTorch's warning
    with pytest.warns(UserWarning, match=r"had shape \[3\], which does not match the required output shape \[2\]"):
        E.nanquantile(x, E.tensor([0.0, 1.0]), out=res)
    assert res.tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match=r"^quantile\(\) out tensor must be same dtype as the input tensor$"):
        E.nanquantile(x, 0.5, out=E.empty((), dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"q must be in the range \[0, 1\] but got 2$"):  # checked before out
        E.quantile(x, 2.0, out=E.empty((), dtype=E.float64))


def test_quantile_nan_handling_and_errors():
    x = E.tensor([[3.0, NAN, 1.0, 2.0], [NAN] * 4, [4.0, 1.0, 2.0, 3.0]])
    q = E.quantile(x, 0.5, dim=1)
    assert math.isnan(q[0].item()) and math.isnan(q[1].item()) and q[2].item() == 2.5
    nq = E.nanquantile(x, 0.5, dim=1)
    assert nq[0].item() == 2.0 and math.isnan(nq[1].item()) and nq[2].item() == 2.5
    # PyTorch's exact messages: a scalar q is named, and nanquantile's say quantile() too
    with pytest.raises(RuntimeError, match=r"^quantile\(\) q must be in the range \[0, 1\] but got 1.5$"):
        E.quantile(E.ones(3), 1.5)
    with pytest.raises(RuntimeError, match=r"^quantile\(\) q must be in the range \[0, 1\] but got 2$"):
        E.nanquantile(E.ones(3), 2.0)
    with pytest.raises(RuntimeError, match=r"^quantile\(\) q values must be in the range \[0, 1\]$"):
        E.quantile(E.ones(3), E.tensor([0.5, -1.0]))
    with pytest.raises(RuntimeError, match="input tensor must be either float or double dtype"):
        E.quantile(E.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match="q tensor must be same dtype as the input tensor"):
        E.quantile(E.ones(3), E.tensor([0.5], dtype=E.float64))
    with pytest.raises(RuntimeError, match="interpolation must be one of .*nearest, but got cubic$"):
        E.quantile(E.ones(3), 0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="^quantile\\(\\) input tensor is too large$"):  # PyTorch's 2**24 limit
        E.nanquantile(E.zeros(2**24 + 1), 0.5)
    wide = E.zeros(1, 1).expand(2, 2**23 + 1)  # more than 2**24 elements, but each sorted length is 2
    assert E.quantile(wide, 0.5, dim=0).shape == (2**23 + 1,)
    with pytest.raises(RuntimeError, match="^quantile\\(\\) input tensor is too large$"):
        E.quantile(E.zeros(1, 1).expand(2, 2**24 + 1), 0.5, dim=1)
    with pytest.raises(IndexError, match="^median\\(\\): Expected reduction dim 0 to have non-zero size.$"):
        E.empty(0, 3).nanmedian(0)  # PyTorch's words for nanmedian too


def test_empty_inputs():
    e2 = E.empty(0, 3)
    assert e2.cummax(0).values.shape == (0, 3) and e2.cummin(1).indices.shape == (0, 3)
    assert E.empty(0).unique_consecutive().shape == (0,)
    assert E.unique_consecutive(e2, dim=0).shape == (0, 3)
    assert e2.mode(1).values.shape == (0,)
    assert e2.sort(0).values.shape == (0, 3) and E.empty(0).topk(0).values.shape == (0,)
    assert math.isnan(E.empty(0).median().item())
    with pytest.raises(IndexError, match="mode"):
        e2.mode(0)


def test_histc_refusals_name_pytorchs_kernels():
    with pytest.raises(NotImplementedError, match="\"linspace_cpu\" not implemented for 'Bool'"):
        E.histc(E.tensor([True]), bins=4, min=0, max=4)
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'ComplexFloat'"):
        E.histc(E.tensor([1j]), bins=4, min=0, max=4)
    with pytest.raises(NotImplementedError, match="\"aminmax_cpu\" not implemented for 'ComplexFloat'"):
        E.histc(E.tensor([1j]), bins=4)
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Int'"):
        E.histc(E.tensor([1], dtype=E.int32), bins=4)


def test_bucketize_of_bools_and_unique_dim_of_complex_refused_as_pytorch():
    with pytest.raises(NotImplementedError, match="\"searchsorted_out_cpu\" not implemented for 'Bool'"):
        E.bucketize(E.tensor([True]), E.tensor([True]))
    assert E.bucketize(E.tensor([1, 2]), E.tensor([True])).tolist() == [0, 1]  # int input: computed
    with pytest.raises(NotImplementedError, match="\"unique_dim\" not implemented for 'ComplexFloat'"):
        E.unique(E.tensor([1j, 2]), dim=0)
    with pytest.raises(NotImplementedError, match="\"unique\" not implemented for 'ComplexFloat'"):
        E.unique(E.tensor([1j, 2]))


def test_quantile_interpolates_as_pytorch_at_infinities_and_float32_ranks():
    """PyTorch lerps at an exact rank too (an infinite neighbour gives nan) and computes ranks in the input's
    dtype (q = 2/3 over 4 float32 values is rank 2 exactly)."""
    inf, nan = float("inf"), float("nan")
    x = E.tensor([[-inf, 1.0, 2.0, inf], [1.0, 2.0, 3.0, 4.0]])
    q = E.tensor([0.0, 0.3, 0.5, 2 / 3, 1.0])
    want = {"linear": [[nan, -inf, 1.5, 2.0, nan], [1.0, 1.9, 2.5, 3.0, 4.0]],
            "midpoint": [[nan, -inf, 1.5, 2.0, nan], [1.0, 1.5, 2.5, 3.0, 4.0]],
            "higher": [[-inf, 1.0, 2.0, 2.0, inf], [1.0, 2.0, 3.0, 3.0, 4.0]]}
    for interpolation, expect in want.items():
        got = E.quantile(x, q, dim=1, interpolation=interpolation).numpy().T
        np.testing.assert_allclose(got, np.array(expect, dtype=np.float32), rtol=1e-6)
    assert np.isnan(E.nanquantile(E.tensor([1.0, nan, 3.0, -inf, 2.0]), 0.1).item())


def test_searchsorted_and_bucketize_write_out_as_pytorch():
    o = E.empty(0, dtype=E.int64)
    r = E.searchsorted(E.tensor([1, 2, 3]), E.tensor([2, 5]), right=True, out=o)
    assert r is o and o.tolist() == [2, 3]
    o32 = E.empty(2, dtype=E.int32)
    assert E.bucketize(E.tensor([2, 5]), E.tensor([1, 3]), out_int32=True, out=o32).tolist() == [1, 2]
    msg = ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending "
           "on whether out_int32 flag is True, but we got output tensor's dtype Int and out_int32 flag is False")
    with pytest.raises(RuntimeError, match=f"^{re.escape(msg)}$"):
        E.bucketize(E.tensor([2]), E.tensor([1, 3]), out=o32)


@pytest.mark.parametrize("fn", [E.unique, E.unique_consecutive])
@pytest.mark.parametrize("dim", [0, -1, 1])
def test_unique_along_a_dim_of_a_0dim_tensor_is_an_index_error(fn, dim):
    with pytest.raises(IndexError, match=f"^Dimension specified as {dim} but tensor has no dimensions$"):
        fn(E.tensor(5), dim=dim)



@pytest.mark.parametrize("fn, out, message", [
    (lambda x, out: E.logcumsumexp(x, 0, out=out), E.empty(2, dtype=E.float64), "Float but found Double"),
    (lambda x, out: E.logcumsumexp(x, 0, out=out), E.empty(2, dtype=E.int64), "Float but found Long"),
    (lambda x, out: E.cummax(x, 0, out=out), (E.empty(2), E.empty(2, dtype=E.int32)), "Long but found Int"),
    (lambda x, out: E.cummin(x, 0, out=out), (E.empty(2, dtype=E.float64), E.empty(2, dtype=E.int32)),
     "Float but found Double"),  # the values first
])
def test_scans_refuse_an_out_of_another_dtype(fn, out, message):
    with pytest.raises(RuntimeError, match=f"^expected scalar_type {message}$"):
        fn(E.tensor([1.0, 2.0]), out)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_scans_without_dim_raise_pytorchs_typeerror(name):
    x = E.tensor([1.0, 2.0])
    for call in (lambda: getattr(E, name)(x), lambda: getattr(x, name)()):
        with pytest.raises(TypeError, match=f'^{name}\\(\\) missing 1 required positional arguments: "dim"$'):
            call()


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin_of_a_scalar_refuse_other_dims_in_their_words(name):
    s = E.tensor(2.0)
    for dim in (0, -1):
        assert getattr(E, name)(s, dim).values.item() == 2.0
    for dim in (1, -2):
        message = f"^{name}\\(\\): Expected reduction dim -1 or 0 for scalar but got {dim}$"
        with pytest.raises(IndexError, match=message):
            getattr(s, name)(dim)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 1"):
        getattr(E, name)(E.tensor([2.0]), 1)  # a 1-D input wraps as every op does


@pytest.mark.parametrize(("call", "message"), [
    (lambda x, v, i: E.kthvalue(x, 3, out=(v, i)), "output values must be of same type as input"),
    (lambda x, v, i: E.median(x, 0, out=(v, i)),
     r"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
     r"torch.FloatTensor does not equal torch.DoubleTensor \(while checking arguments for median\)"),
    (lambda x, v, i: E.nanmedian(x, 0, out=(v, i)), r".* \(while checking arguments for median\)"),
    (lambda x, v, i: E.mode(x, 0, out=(v, i)), "expected scalar type 'Double' but got 'Float' for values output"),
    (lambda x, v, i: E.sort(x, out=(v.expand(10), i.expand(10))),
     "Expected out tensor to have dtype double, but got float instead"),
    (lambda x, v, i: E.topk(x, 1, out=(v.view(1), i.view(1))),
     "Expected out tensor to have dtype double, but got float instead"),
    (lambda x, v, i: E.max(x, 0, out=(v, i)), "Expected out tensor to have dtype double, but got float instead"),
    (lambda x, v, i: E.aminmax(x, out=(v, v)), "Expected out tensor to have dtype double, but got float instead"),
])
def test_values_and_indices_out_of_another_dtype_raise_pytorchs_words(call, message):
    x = E.arange(10, dtype=E.float64)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        call(x, E.empty(()), E.empty((), dtype=E.int64))


@pytest.mark.parametrize(("call", "message"), [
    (lambda x, v, i: E.kthvalue(x, 3, out=(v, i)), "output indices must be of scalar type Long"),
    (lambda x, v, i: E.median(x, 0, out=(v, i)),
     r"Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.IntTensor instead "
     r"\(while checking arguments for median\)"),
    (lambda x, v, i: E.mode(x, 0, out=(v, i)), "expected scalar type 'Long' but got 'Int' for indices output"),
    (lambda x, v, i: E.min(x, 0, out=(v, i)), "Expected out tensor to have dtype long int, but got int instead"),
])
def test_indices_out_must_be_int64_in_pytorchs_words(call, message):
    x = E.arange(10, dtype=E.float64)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        call(x, E.empty((), dtype=E.float64), E.empty((), dtype=E.int32))


def test_both_out_dtypes_wrong_names_the_one_pytorch_checks_first():
    # PyTorch 2.13: median's and nanmedian's kernels check the indices first, the others the values
    x = E.arange(10, dtype=E.float64)
    v, i = E.empty((), dtype=E.int32), E.empty((), dtype=E.int32)
    for fn in (E.median, E.nanmedian):
        with pytest.raises(RuntimeError, match="^Expected tensor for argument #1 'indices' to have scalar type Long"):
            fn(x, 0, out=(v, i))
    with pytest.raises(RuntimeError, match="^output values must be of same type as input$"):
        E.kthvalue(x, 3, out=(v, i))


@pytest.mark.parametrize(("fn", "q", "got"), [("quantile", [0.5], "list"), ("nanquantile", (0.5,), "tuple"),
                                              ("quantile", "a", "str")])
def test_quantile_of_a_q_neither_float_nor_tensor_is_pytorchs_type_error(fn, q, got):
    with pytest.raises(TypeError, match=rf"^{fn}\(\) received an invalid combination of arguments - got \(Tensor, "
                                        rf"{got}\), but expected one of:\n \* \(Tensor input, Tensor q, "):
        getattr(E, fn)(E.arange(4.0), q)
    assert E.quantile(E.arange(5.0), 1).item() == 4.0 and E.quantile(E.arange(5.0), np.float64(0.5)).item() == 2.0


@pytest.mark.parametrize(("kwargs", "got"), [({"dim": (0, 1)}, "dim=tuple"), ({"dim": 1.0}, "dim=float"),
                                             ({"dim": True}, "dim=bool"), ({"keepdim": None}, "keepdim=NoneType"),
                                             ({"interpolation": 1}, "interpolation=int")])
def test_quantile_of_a_dim_keepdim_or_interpolation_of_another_type_is_pytorchs_type_error(kwargs, got):
    # PyTorch's parser matches no overload (int dim, bool keepdim, str interpolation): it names them all
    for fn in ("quantile", "nanquantile"):
        with pytest.raises(TypeError, match=rf"^{fn}\(\) received an invalid combination of arguments - got \(Tensor, "
                                            rf"float, {got}\), but expected one of:\n \* \(Tensor input, Tensor q, "):
            getattr(E, fn)(E.ones(3, 4), 0.5, **kwargs)
    assert tuple(E.quantile(E.ones(3, 4), 0.5, dim=np.int64(1), keepdim=np.True_).shape) == (3, 1)


def test_stable_beside_positional_arguments_is_refused_in_pytorchs_words_for_methods_and_functions():
    x = E.tensor([3, 1, 2])
    overloads = (" * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = "
                 "False)\n      didn't match because some of the keywords were incorrect: stable\n")
    for name in ("sort", "argsort"):
        with pytest.raises(TypeError) as err:
            getattr(x, name)(0, stable=True)
        assert str(err.value) == (f"{name}() received an invalid combination of arguments - got (int, stable=bool), "
                                  f"but expected one of:\n{overloads}")
        with pytest.raises(TypeError, match=f"^{name}\\(\\) takes from 1 to 0 positional arguments but 2 were given$"):
            getattr(x, name)(0, True, stable=True)
    with pytest.raises(TypeError) as err:
        E.argsort(x, 0, stable=True)
    assert str(err.value) == (
        "argsort() received an invalid combination of arguments - got (Tensor, int, stable=bool), but expected one "
        "of:\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)\n"
        " * (Tensor input, int dim = -1, bool descending = False)\n"
        "      didn't match because some of the keywords were incorrect: stable\n")
    with pytest.raises(TypeError, match=r"^argsort\(\) takes from 2 to 1 positional arguments but 4 were given$"):
        E.argsort(x, 0, True, True)
    assert E.argsort(x, 0, True).tolist() == [0, 2, 1] and x.argsort(stable=True, descending=True).tolist() == [0, 2, 1]
    assert x.sort(0, True).indices.tolist() == [0, 2, 1] and x.sort(stable=True).values.tolist() == [1, 2, 3]


def test_argsort_takes_a_bool_stable_only_where_sort_takes_none():
    x = E.tensor([3, 1, 2])
    function = (" * (Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)\n"
                " * (Tensor input, int dim = -1, bool descending = False)\n")
    with pytest.raises(TypeError) as err:
        E.argsort(x, stable=None)
    assert str(err.value) == ("argsort() received an invalid combination of arguments - got (Tensor, stable=NoneType),"
                              f" but expected one of:\n{function}")
    with pytest.raises(TypeError) as err:
        x.argsort(stable=None, dim=0)
    assert str(err.value) == (
        "argsort() received an invalid combination of arguments - got (dim=int, stable=NoneType, ), but expected one "
        "of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n"
        "      didn't match because some of the keywords were incorrect: dim, stable\n")
    with pytest.raises(TypeError, match=r"^argsort\(\): argument 'stable' must be bool, not int$"):
        E.argsort(x, stable=1, dim=0, descending=True)  # only the keyword overload takes four arguments
    assert x.sort(stable=None).indices.tolist() == [1, 2, 0] and E.argsort(x, stable=False).tolist() == [1, 2, 0]
    assert x.argsort().tolist() == [1, 2, 0] and x.argsort(0, True).tolist() == [0, 2, 1]


def test_quantile_refuses_a_q_of_another_type_in_pytorchs_words():
    # PyTorch 2.13's messages: the other arguments listed (keywords in its C++ map's order); the method's overloads
    x = E.arange(6.0).reshape(2, 3)
    fn = (" * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\", Tensor "
          "out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "
          "\"linear\", Tensor out = None)\n")
    meth = (" * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\")\n"
            " * (float q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\")\n")
    for call, want in ((lambda: E.quantile(x, "a", dim=1, keepdim=True), "quantile() received an invalid combination "
                        "of arguments - got (Tensor, str, keepdim=bool, dim=int), but expected one of:\n" + fn),
                       (lambda: E.nanquantile(x, "a", 0, True), "nanquantile() received an invalid combination of "
                        "arguments - got (Tensor, str, int, bool), but expected one of:\n" + fn),
                       (lambda: x.quantile([0.5], 1), "quantile() received an invalid combination of arguments - got "
                        "(list, int), but expected one of:\n" + meth),
                       (lambda: x.nanquantile("a", interpolation="lower"), "nanquantile() received an invalid "
                        "combination of arguments - got (str, interpolation=str), but expected one of:\n" + meth)):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == want
    assert x.quantile(0.5, 1).tolist() == [1.0, 4.0] and E.quantile(x, E.tensor([0.0, 1.0])).tolist() == [0.0, 5.0]


def test_searchsorted_warns_once_per_non_contiguous_operand_as_pytorch(monkeypatch):
    """PyTorch copies a non-contiguous value, boundary or sorter tensor and says so once per process each."""
    import warnings

    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    seq = E.arange(10.0).reshape(2, 5)
    with pytest.warns(UserWarning, match=r"^torch.searchsorted\(\): input value tensor is non-contiguous, .* This "
                                         r"message will only appear once per program. \(Triggered internally at "
                                         r".*BucketizationUtils.h:32.\)$"):
        E.searchsorted(seq, E.rand(3, 2).t())
    with pytest.warns(UserWarning, match=r"^torch.searchsorted\(\): boundary tensor is non-contiguous, this will "
                                         r"lower the performance .* please use contiguous boundary tensor if"):
        np.testing.assert_array_equal(E.bucketize(E.tensor([0.5, 7.0]), E.arange(10.0)[::2]).numpy(), [1, 4])
    with pytest.warns(UserWarning, match=r"^torch.searchsorted\(\): sorter tensor is non-contiguous"):
        E.searchsorted(E.arange(5.0), E.tensor([1.5]), sorter=E.stack([E.arange(5), E.arange(5)], 1)[:, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.searchsorted(seq, E.rand(3, 2).t())  # once only
        E.searchsorted(seq, E.rand(2, 3))


def test_bincount_refuses_wrong_kinds_as_pytorchs_parser():
    """A float minlength or a list of weights is PyTorch's TypeError (positions after `self` for the method), not
    numpy's complaint or a silent conversion."""
    x = E.tensor([1, 2, 2])
    cases = [
        (lambda: E.bincount(x, minlength=2.0), "bincount(): argument 'minlength' must be int, not float"),
        (lambda: E.bincount(x, None, 2.0), "bincount(): argument 'minlength' (position 3) must be int, not float"),
        (lambda: x.bincount(None, 2.0), "bincount(): argument 'minlength' (position 2) must be int, not float"),
        (lambda: x.bincount(minlength=True), "bincount(): argument 'minlength' must be int, not bool"),
        (lambda: x.bincount([1.0, 2.0, 3.0]), "bincount(): argument 'weights' (position 1) must be Tensor, not list"),
        (lambda: E.bincount([1, 2]), "bincount(): argument 'input' (position 1) must be Tensor, not list"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
    assert E.bincount(x, minlength=E.tensor(4)).tolist() == [0, 1, 2, 0]


@pytest.mark.parametrize("dim, name", [(1.0, "float"), ("1", "str"), (True, "bool")])
def test_unique_of_a_non_int_dim_is_pytorchs_unique_dim_parser_error(dim, name):
    """torch.unique hands `dim` to _VF.unique_dim positionally: PyTorch's words name its position."""
    x = E.ones(2, 3)
    msg = f"^unique_dim\\(\\): argument 'dim' \\(position 2\\) must be int, not {name}$"
    with pytest.raises(TypeError, match=msg):
        E.unique(x, dim=dim)
    with pytest.raises(TypeError, match=msg):
        x.unique(dim=dim)
