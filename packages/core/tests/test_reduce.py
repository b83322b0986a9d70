"""Reductions, sorting and selection against numpy float64 references, and PyTorch's errors."""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close, make_tensor


def ref(x):
    return x.numpy().astype(np.float64)


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


def dims_for(ndim):
    return st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                     st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple))


@st.composite
def tensor_and_dim(draw, noncontiguous=st.booleans()):
    shape = draw(shapes)
    x = make_tensor(shape, dtype=E.float64, noncontiguous=draw(noncontiguous), seed=draw(st.integers(0, 2**16)))
    return x, draw(dims_for(len(shape))), draw(st.booleans())


def np_axis(dim, ndim):
    if dim is None:
        return None
    return tuple(d % ndim for d in dim) if isinstance(dim, tuple) else dim % ndim


# --- sum / mean / prod / amax ---------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(tensor_and_dim())
@pytest.mark.parametrize("name,npfn", [("sum", np.sum), ("mean", np.mean), ("nansum", np.nansum),
                                        ("amax", np.amax), ("amin", np.amin), ("logsumexp", None)])
def test_multi_dim_reductions_match_numpy(name, npfn, case):
    x, dim, keepdim = case
    axis = np_axis(dim, x.ndim)
    if name == "logsumexp":
        a = ref(x)
        expected = np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdim))
    else:
        expected = npfn(ref(x), axis=axis, keepdims=keepdim)
    fn = getattr(E, name)
    if dim is None and name == "logsumexp":  # PyTorch's logsumexp requires dim: all of them
        dim = tuple(range(x.ndim))
    got = fn(x, dim, keepdim) if dim is not None or name in ("sum", "mean") else fn(x, keepdim=keepdim)
    assert got.dtype is E.float64
    assert_close(got, np.asarray(expected), rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(tensor_and_dim())
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_var_and_std_match_numpy(correction, case):
    x, dim, keepdim = case
    axis = np_axis(dim, x.ndim)
    n = x.numel() if axis is None else int(np.prod([x.shape[d] for d in np.atleast_1d(axis)]))
    if n <= correction:
        return
    v = np.var(ref(x), axis=axis, ddof=correction, keepdims=keepdim)
    assert_close(E.var(x, dim, correction=correction, keepdim=keepdim), np.asarray(v), rtol=1e-10, atol=1e-10)
    assert_close(E.std(x, dim, correction=correction, keepdim=keepdim), np.sqrt(v), rtol=1e-10, atol=1e-10)
    vv, mm = E.var_mean(x, dim, correction=correction, keepdim=keepdim)
    assert_close(vv, np.asarray(v), rtol=1e-10, atol=1e-10)
    assert_close(mm, np.asarray(np.mean(ref(x), axis=axis, keepdims=keepdim)), rtol=1e-10, atol=1e-10)


def test_var_legacy_unbiased_argument():
    x = make_tensor(4, 5, seed=1)
    assert_close(x.var(1, False), np.var(ref(x), axis=1).astype(np.float32))
    assert_close(x.var(unbiased=False), np.asarray(np.var(ref(x))).astype(np.float32))
    assert_close(x.std(False), np.asarray(np.std(ref(x))).astype(np.float32))
    assert_close(x.std(dim=0, keepdim=True), np.std(ref(x), axis=0, ddof=1, keepdims=True).astype(np.float32))
    sm = E.std_mean(x, 1)
    assert_close(sm[0], np.std(ref(x), axis=1, ddof=1).astype(np.float32))


def test_var_with_too_few_elements_is_nan_with_a_warning():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        v = E.tensor([1.0]).var()
    assert math.isnan(v.item())


@pytest.mark.parametrize("op", ["var_mean", "std_mean"])
def test_moment_mean_is_nan_once_an_element_follows_an_infinity(op):
    """PyTorch's Welford update (inf + (x - inf) / n) leaves an infinite mean only where the slice's one
    infinity comes last (PyTorch 2.13: var_mean([1, inf, 2]) -> mean nan, var_mean([1, 2, inf]) -> mean inf)."""
    inf = math.inf
    f = getattr(E, op)
    assert math.isnan(f(E.tensor([1.0, inf, 2.0]))[1].item())
    assert f(E.tensor([1.0, 2.0, -inf]))[1].item() == -inf
    assert math.isnan(f(E.tensor([1.0, inf, inf]))[1].item())
    _, m = f(E.tensor([[1.0, inf, 3.0], [4.0, 5.0, inf]], dtype=E.float64), 1, keepdim=True)
    assert np.array_equal(m.numpy(), np.array([[np.nan], [inf]]), equal_nan=True)
    _, m = f(E.tensor([[1.0, 2.0], [inf, 3.0], [4.0, inf]]), 0)
    assert np.array_equal(m.numpy(), np.array([np.nan, inf], np.float32), equal_nan=True)
    assert f(E.tensor(inf))[1].item() == inf
    assert E.tensor([1.0, inf, 2.0]).mean().item() == inf  # the plain mean is no Welford reduction


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_complex_moments_warn_once_for_each_part_naming_the_op(name):
    """PyTorch computes a complex var/std from its real and imaginary parts, each warning in the op's name."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(E, name)(E.tensor([1 + 2j]))
    assert [str(w.message).split(":")[0] for w in caught] == [f"{name}()"] * 2
    with pytest.raises(TypeError, match=f"^{name}\\(\\) received an invalid combination of arguments"):
        getattr(E, name)(E.tensor([1.0, 2.0]), 0, unbiased=True, correction=1)


def test_sum_dtype_rules():
    assert E.tensor([1, 2], dtype=E.int32).sum().dtype is E.int64
    assert E.tensor([True, True, False]).sum().item() == 2
    assert E.tensor([True]).sum().dtype is E.int64
    assert E.tensor([1.5], dtype=E.float16).sum().dtype is E.float16
    assert E.tensor([1, 2]).sum(dtype=E.float64).dtype is E.float64
    assert E.tensor([3, 4], dtype=E.int8).prod().dtype is E.int64
    assert E.tensor([1, 2], dtype=E.uint8).cumsum(0).dtype is E.int64
    assert E.tensor([1, 2]).mean(dtype=E.float32).item() == 1.5


def test_float16_sum_accumulates_in_float32():
    x = E.ones(4096, dtype=E.float16)
    assert x.sum().item() == 4096.0


def test_mean_of_integers_raises_like_pytorch():
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Got: Long"):
        E.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        E.tensor([1, 2]).var()
    with pytest.raises(RuntimeError, match=r"^mean\(\): could not infer output dtype. Optional dtype must be .*Long$"):
        E.tensor([1.0]).mean(dtype=E.int64)
    with pytest.raises(RuntimeError, match=r"^nanmean\(\): expected input to have floating point or complex dtype but "
                                           r"got Long$"):
        E.nanmean(E.tensor([1, 2]), dtype=E.float32)  # the input is checked first
    with pytest.raises(RuntimeError, match=r"^nanmean\(\): could not infer output dtype. Optional dtype"):
        E.nanmean(E.tensor([1.0]), dtype=E.int64)


def test_reductions_of_empty_tensors():
    e = E.empty(0)
    assert e.sum().item() == 0
    assert e.prod().item() == 1
    assert math.isnan(e.mean().item())
    assert e.logsumexp(0).item() == -math.inf
    assert E.empty(0, 3).sum(0).tolist() == [0.0, 0.0, 0.0]
    assert E.empty(0, 3).amax(1).shape == (0,)
    assert e.all().item() is True and e.any().item() is False
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        e.max()
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        e.argmax()  # PyTorch's argmax raises IndexError here, where max() and amax() raise RuntimeError
    for name in ("amax", "amin"):
        with pytest.raises(RuntimeError, match=rf"{name}\(\): Expected reduction dim to be specified for input.numel"):
            getattr(E.empty(0, 3), name)()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size"):
        E.empty(0, 3).max(0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size"):
        E.empty(0, 3).amax(0)


def test_zero_dim_tensors_reduce_over_dim_0_and_minus_1():
    s = E.tensor(3.0)
    assert s.sum().item() == 3.0 and s.sum(0).shape == () and s.sum(-1, keepdim=True).shape == ()
    assert s.max(0).indices.item() == 0
    assert s.argmax().item() == 0 and s.cumsum(0).item() == 3.0
    with pytest.raises(IndexError, match="Dimension out of range"):
        s.sum(1)


def test_dim_errors():
    x = E.ones(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        x.sum(2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.sum((1, -1))


def test_sum_on_noncontiguous_views_and_out():
    x = make_tensor(6, 8, dtype=E.float64, noncontiguous=True, seed=3)
    t = x.t()
    assert_close(t.sum(1), ref(x).sum(0), rtol=1e-12, atol=1e-12)
    out = E.empty(8, dtype=E.float64)
    v0 = out._version
    r = E.sum(t, 1, out=out)
    assert r is out and out._version > v0
    assert_close(out, ref(x).sum(0), rtol=1e-12, atol=1e-12)


def test_prod_dim_and_nanmean():
    x = make_tensor(3, 4, dtype=E.float64, low=0.5, high=2, seed=4)
    assert_close(x.prod(1), ref(x).prod(1), rtol=1e-12, atol=0)
    assert_close(x.prod(), np.asarray(ref(x).prod()), rtol=1e-12, atol=0)
    y = E.tensor([[1.0, float("nan"), 3.0], [float("nan")] * 3])
    got = y.nanmean(1)
    assert got[0].item() == 2.0 and math.isnan(got[1].item())
    assert y.nansum().item() == 4.0


# --- max / min / argmax ----------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(tensor_and_dim(), st.sampled_from(["max", "min"]))
def test_max_min_with_dim_return_values_and_first_indices(case, name):
    x, dim, keepdim = case
    d = dim[0] if isinstance(dim, tuple) else (0 if dim is None else dim)
    a = ref(x)
    r = getattr(x, name)(d, keepdim=keepdim)
    assert type(r).__name__ == name and r.values is r[0] and r.indices is r[1]
    argfn = np.argmax if name == "max" else np.argmin
    expected_idx = argfn(a, axis=d, keepdims=keepdim)
    assert r.indices.dtype is E.int64
    np.testing.assert_array_equal(r.indices.numpy(), expected_idx)
    np.testing.assert_array_equal(r.values.numpy(), (np.amax if name == "max" else np.amin)(a, d, keepdims=keepdim))
    np.testing.assert_array_equal(getattr(x, "arg" + name)(d, keepdim=keepdim).numpy(), expected_idx)


def test_max_overloads():
    x = E.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]])
    assert x.max().item() == 7.0 and E.min(x).item() == 1.0
    assert x.max(dim=1).indices.tolist() == [1, 0]  # first occurrence
    assert E.max(x, E.tensor([3.0, 3.0, 6.0])).tolist() == [[3.0, 5.0, 6.0], [7.0, 3.0, 7.0]]
    assert x.argmax().item() == 3 and x.argmin().item() == 0
    assert x.argmax(keepdim=True).shape == (1, 1)
    mn, mx = E.aminmax(x)
    assert (mn.item(), mx.item()) == (1.0, 7.0)
    assert E.amax(x, (0, 1)).item() == 7.0


def test_max_propagates_nan_and_points_at_it():
    x = E.tensor([1.0, float("nan"), 3.0, float("nan")])
    assert math.isnan(x.max().item()) and math.isnan(x.amin().item())
    r = x.max(0)
    assert math.isnan(r.values.item()) and r.indices.item() == 1
    assert x.argmin().item() == 1


def test_max_with_tuple_out():
    x = make_tensor(3, 4, seed=5)
    v, i = E.empty(3), E.empty(3, dtype=E.int64)
    r = E.max(x, 1, out=(v, i))
    assert r.values is v and r.indices is i
    np.testing.assert_array_equal(i.numpy(), x.numpy().argmax(1))


def test_bool_and_int_max():
    b = E.tensor([[True, False], [False, False]])
    assert b.max(1).values.tolist() == [True, False] and b.any().item() and not b.all().item()
    i = E.tensor([3, -2, 9], dtype=E.int16)
    assert i.max().dtype is E.int16 and i.max().item() == 9


# --- norms, all/any, count_nonzero -------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(tensor_and_dim(), st.sampled_from([2, 1, 3, 0.5, math.inf, -math.inf, 0]))
def test_vector_norm_matches_numpy(case, p):
    x, dim, keepdim = case
    axis = np_axis(dim, x.ndim)
    a = np.abs(ref(x))
    if p == math.inf:
        expected = a.max(axis=axis, keepdims=keepdim)
    elif p == -math.inf:
        expected = a.min(axis=axis, keepdims=keepdim)
    elif p == 0:
        expected = (a != 0).sum(axis=axis, keepdims=keepdim).astype(np.float64)
    else:
        expected = (a ** p).sum(axis=axis, keepdims=keepdim) ** (1 / p)
    assert_close(E.linalg.vector_norm(x, p, dim, keepdim), np.asarray(expected), rtol=1e-10, atol=1e-10)
    assert_close(x.norm(p, dim, keepdim), np.asarray(expected), rtol=1e-10, atol=1e-10)


def test_norm_defaults_and_errors():
    x = E.tensor([[3.0, 4.0], [0.0, 0.0]])
    assert x.norm().item() == 5.0 and x.norm("fro").item() == 5.0
    assert x.norm(dim=1).tolist() == [5.0, 0.0]
    assert E.linalg.norm(x).item() == 5.0 and E.linalg.matrix_norm(x).item() == 5.0
    assert E.empty(0).norm().item() == 0.0
    m = make_tensor(3, 4, dtype=E.float64, seed=2)
    assert m.norm("nuc").item() == pytest.approx(np.linalg.norm(ref(m), "nuc"))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        E.tensor([1, 2]).norm()
    with pytest.raises(RuntimeError, match="inf norm on an empty tensor"):
        E.linalg.vector_norm(E.empty(0), math.inf)


def test_vector_norm_out_must_have_the_result_dtype():
    # PyTorch's out= of a norm is not cast: it must hold the real result's dtype already
    x = E.tensor([3.0, 4.0], dtype=E.float64)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        E.linalg.vector_norm(x, out=E.empty(()))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        E.norm(x, dim=0, out=E.empty(()))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        E.linalg.vector_norm(x.to(E.complex64), out=E.empty((), dtype=E.float64))
    out = E.empty((), dtype=E.float64)
    assert E.linalg.vector_norm(x.float(), dtype=E.float64, out=out) is out and out.item() == 5.0


def test_all_any_count_nonzero():
    x = E.tensor([[0, 1, 2], [3, 4, 5]])
    assert x.all(1).tolist() == [False, True] and x.any(0).tolist() == [True, True, True]
    assert x.all(dim=(0, 1)).item() is False
    assert x.all(1, keepdim=True).shape == (2, 1)
    assert E.tensor([1, 0], dtype=E.uint8).all().dtype is E.uint8
    assert x.count_nonzero().item() == 5 and x.count_nonzero(0).tolist() == [1, 2, 2]
    assert x.count_nonzero().dtype is E.int64


# --- cumulative ----------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(tensor_and_dim(noncontiguous=st.just(True)))
def test_cumsum_cumprod_cummax_cummin(case):
    x, dim, _ = case
    d = dim[0] if isinstance(dim, tuple) else (0 if dim is None else dim)
    a = ref(x)
    assert_close(x.cumsum(d), np.cumsum(a, d), rtol=1e-10, atol=1e-10)
    assert_close(x.cumprod(d), np.cumprod(a, d), rtol=1e-10, atol=1e-10)
    r = x.cummax(d)
    np.testing.assert_array_equal(r.values.numpy(), np.maximum.accumulate(a, d))
    np.testing.assert_array_equal(np.take_along_axis(a, r.indices.numpy(), d), r.values.numpy())
    r = E.cummin(x, d)
    np.testing.assert_array_equal(r.values.numpy(), np.minimum.accumulate(a, d))


def test_cummax_ties_take_the_latest_index_and_nan_wins():
    r = E.tensor([1.0, 3.0, 3.0, 2.0, float("nan"), 5.0]).cummax(0)
    assert r.indices.tolist() == [0, 1, 2, 2, 4, 4]
    assert math.isnan(r.values[5].item())
    assert E.tensor([True, False, True]).cummin(0).values.tolist() == [True, False, False]


def test_float32_and_complex64_scans_accumulate_in_double():
    # PyTorch's CPU cumsum/cumprod carry a double: the float32 result is each float64 partial sum rounded
    a = np.random.default_rng(0).random(100_000).astype(np.float32)
    want = np.cumsum(a, dtype=np.float64).astype(np.float32)
    np.testing.assert_array_equal(E.cumsum(E.from_numpy(a), 0).numpy(), want)
    p = a[:60] + np.float32(0.5)
    want = np.cumprod(p, dtype=np.float64).astype(np.float32)
    np.testing.assert_array_equal(E.cumprod(E.from_numpy(p), 0).numpy(), want)
    c = (a[:1000] + 1j * a[1000:2000]).astype(np.complex64)
    want = np.cumsum(c, dtype=np.complex128).astype(np.complex64)
    np.testing.assert_array_equal(E.cumsum(E.from_numpy(c), 0).numpy(), want)
    assert E.cumsum(E.from_numpy(a[:3]), 0).dtype is E.float32


def test_cumsum_inplace_and_dtype():
    x = E.tensor([1.0, 2.0, 3.0])
    v = x._version
    assert x.cumsum_(0) is x and x.tolist() == [1.0, 3.0, 6.0] and x._version > v
    assert E.tensor([1, 2]).cumsum(0, dtype=E.float64).dtype is E.float64


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_refuses_bool_results_and_mismatched_dtypes(name):
    b = E.tensor([[True, False]])
    with pytest.raises(NotImplementedError, match=f'^"{name}_out_cpu" not implemented for \'Bool\'$'):
        getattr(E, name)(b, 1, dtype=E.bool)
    with pytest.raises(NotImplementedError, match=f'^"{name}_out_cpu" not implemented for \'Bool\'$'):
        getattr(b, name + "_")(0)  # in place: the scan runs in self's dtype
    # a 0-dim or empty input is only copied
    assert getattr(E, name)(E.tensor(2.5), 0, dtype=E.bool).tolist() is True
    assert getattr(E, name)(E.ones(0, 2, dtype=E.bool), 1, dtype=E.bool).shape == (0, 2)
    assert getattr(E.tensor(True), name + "_")(0).tolist() is True
    x = E.tensor([100, 100], dtype=E.int8)
    assert getattr(x, name + "_")(0).dtype is E.int8 and x.tolist()[0] == 100
    with pytest.raises(RuntimeError, match="^Bad in-place call: input tensor dtype float and output tensor dtype "
                                           "double should match$"):
        getattr(E.tensor(1.0), name + "_")(0, dtype=E.float64)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        getattr(E, name)(E.tensor([2.5]), 0, dtype=E.float64, out=E.empty(1))
    assert getattr(E, name)(E.tensor([2.5, 1.5]), 0, out=E.empty(2, dtype=E.int64)).tolist() == (
        [2, 3] if name == "cumsum" else [2, 2])


# --- sorting and selection --------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(shapes, st.integers(0, 2**16), st.booleans(), st.booleans())
def test_sort_is_stable_in_both_directions(shape, seed, descending, noncontig):
    x = make_tensor(shape, dtype=E.int64, low=0, high=3, seed=seed, noncontiguous=noncontig)
    a = x.numpy()
    d = seed % len(shape)
    r = x.sort(d, descending=descending)
    key = -a if descending else a
    expected = np.argsort(key, axis=d, kind="stable")
    np.testing.assert_array_equal(r.indices.numpy(), expected)
    np.testing.assert_array_equal(r.values.numpy(), np.take_along_axis(a, expected, d))
    np.testing.assert_array_equal(x.argsort(d, descending=descending).numpy(), expected)


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = E.tensor([2.0, float("nan"), 1.0])
    assert x.sort().indices.tolist() == [2, 0, 1]
    assert x.sort(descending=True).indices.tolist() == [1, 0, 2]
    assert type(x.sort()).__name__ == "sort"


def test_topk_kthvalue_median_mode():
    x = E.tensor([[4.0, 1.0, 3.0, 1.0], [2.0, 2.0, 8.0, 0.0]])
    t = x.topk(2)
    # PyTorch's CPU topk (nth_element) picks the second of the tied 2.0s
    assert t.values.tolist() == [[4.0, 3.0], [8.0, 2.0]] and t.indices.tolist() == [[0, 2], [2, 1]]
    assert x.topk(1, dim=0, largest=False).values.tolist() == [[2.0, 1.0, 3.0, 0.0]]
    k = x.kthvalue(2, 1)
    assert k.values.tolist() == [1.0, 0.0 + 2.0] and k.indices.tolist() == [3, 0]
    assert x.median().item() == 2.0  # the lower of the two middle values
    m = x.median(1)
    assert m.values.tolist() == [1.0, 2.0]
    assert x[0][m.indices[0]].item() == 1.0
    mo = x.mode(1)
    assert mo.values.tolist() == [1.0, 2.0] and mo.indices.tolist() == [3, 1]
    assert E.tensor([3, 3, 1, 1, 2]).mode().values.item() == 1  # smallest of the most frequent
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(5)
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range"):
        x.kthvalue(0)


@pytest.mark.parametrize("k", [0, 1])
def test_topk_of_a_0d_tensor_gives_its_element_for_k_0_or_1(k):
    # PyTorch's 0-d result holds the one element even for k=0; ember's kernel sliced it away and failed to reshape
    r = E.tensor(3.5).topk(k, largest=bool(k))
    assert r.values.shape == () and r.values.item() == 3.5 and r.indices.item() == 0
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        E.tensor(3.5).topk(2)


def test_median_of_nan_is_nan_with_first_nan_index():
    x = E.tensor([[1.0, float("nan"), 2.0, float("nan")]])
    r = x.median(1)
    assert math.isnan(r.values.item()) and r.indices.item() == 1
    assert math.isnan(x.median().item())


@settings(max_examples=25, deadline=None)
@given(shapes, st.integers(0, 2**16))
def test_topk_and_median_match_numpy(shape, seed):
    x = make_tensor(shape, dtype=E.float64, seed=seed)
    a = x.numpy()
    d = seed % len(shape)
    k = 1 + seed % shape[d]
    t = x.topk(k, d)
    np.testing.assert_array_equal(t.values.numpy(), np.take(-np.sort(-a, d), range(k), axis=d))
    np.testing.assert_array_equal(np.take_along_axis(a, t.indices.numpy(), d), t.values.numpy())
    med = x.median(d)
    np.testing.assert_array_equal(med.values.numpy(), np.take(np.sort(a, d), (shape[d] - 1) // 2, axis=d))


def test_unique():
    x = E.tensor([[3, 1], [3, 2]])
    assert x.unique().tolist() == [1, 2, 3]
    v, inv, c = E.unique(x, return_inverse=True, return_counts=True)
    assert inv.tolist() == [[2, 0], [2, 1]] and c.tolist() == [1, 1, 2]
    assert inv.dtype is E.int64
    v, c = x.unique(return_counts=True)
    assert c.tolist() == [1, 1, 2]
    rows = E.tensor([[1, 2], [0, 5], [1, 2]]).unique(dim=0)
    assert rows.tolist() == [[0, 5], [1, 2]]
    v, c = E.tensor([1.0, float("nan"), float("nan"), 1.0]).unique(return_counts=True)
    assert c.tolist() == [2, 1, 1] and math.isnan(v[1].item())  # every NaN is distinct, as in PyTorch


# --- closeness ----------------------------------------------------------------------------------
def test_isclose_allclose_equal():
    a = E.tensor([1.0, 2.0, float("nan"), float("inf")])
    b = E.tensor([1.0 + 1e-7, 2.1, float("nan"), float("inf")])
    assert a.isclose(b).tolist() == [True, False, False, True]
    assert E.isclose(a, b, equal_nan=True).tolist() == [True, False, True, True]
    assert E.allclose(a[:1], b[:1]) is True and not E.allclose(a, b)
    assert E.allclose(a, b, rtol=0.1, equal_nan=True)
    assert E.equal(E.tensor([1, 2]), E.tensor([1, 2])) is True
    assert not E.equal(E.tensor([1, 2]), E.tensor([1, 2, 3]))
    assert not E.equal(a, a)  # NaN is never equal
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        E.isclose(E.ones(2), E.ones(2, dtype=E.float64))


def test_reductions_are_declared_once_with_flags():
    ops = E.registered_ops()
    for name in ("sum", "mean", "amax", "max_dim", "var", "std", "logsumexp", "vector_norm", "cumsum", "sort",
                 "topk", "kthvalue", "median_dim", "mode", "cummax", "unique"):  # unique: recorded, raises in backward
        assert ops[name].differentiable, name
    for name in ("argmax", "argmin", "all", "any", "count_nonzero", "isclose"):
        assert not ops[name].differentiable, name


# --- registry-driven: every primitive against its declared numpy reference ------------------------
REF_CASES = [
    ("sum", ((1,), False, None)), ("sum", ((0, 1), True, None)), ("nansum", ((0,), False, None)),
    ("mean", ((0,), False, None)), ("nanmean", ((0, 1), True, None)), ("prod", ((1,), False, None)),
    ("amax", ((0,), True)), ("amin", ((1,), False)), ("argmax", (1, False)), ("argmin", (None, False)),
    ("var", ((1,), 1, False)), ("std", ((0, 1), 0, True)), ("logsumexp", ((1,), False)), ("all", ((1,), False)),
    ("any", ((0,), True)), ("count_nonzero", ((1,),)), ("cumsum", (1, None)), ("cumprod", (0, None)),
]


@pytest.mark.parametrize("name,args", REF_CASES)
def test_primitive_matches_its_declared_reference(name, args):
    op = E.get_op(name)
    x = make_tensor(3, 4, dtype=E.float64, noncontiguous=True, seed=12, low=-2, high=2)
    np.testing.assert_allclose(op(x, *args).numpy(), op.ref(x.numpy(), *args), rtol=1e-12, atol=1e-12)


def test_every_primitive_here_has_a_cpu_kernel_and_documents_its_signature():
    mine = {"ember.core.ops.reduce", "ember.core.ops.sorting", "ember.core.ops.linalg"}
    ops = [op for op in E.registered_ops().values()
           if any(getattr(k, "__module__", None) in mine for k in op.kernels.values())]
    assert len(ops) >= 35
    for op in ops:
        assert "cpu" in op.kernels or "any" in op.kernels, op.name  # "any": one kernel over ops, every device
        assert op.doc.startswith(op.name + "("), op.name


# --- logcumsumexp, diff, cov, corrcoef ---------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(tensor_and_dim())
def test_logcumsumexp_matches_numpy(case):
    x, dim, _ = case
    d = dim[0] if isinstance(dim, tuple) else (0 if dim is None else dim)
    expected = np.log(np.cumsum(np.exp(ref(x)), axis=d))
    assert_close(x.logcumsumexp(d), expected, rtol=1e-10, atol=1e-10)


def test_logcumsumexp_does_not_overflow_and_rejects_integers():
    r = E.tensor([1000.0, 1000.0]).logcumsumexp(0)
    assert r.tolist() == pytest.approx([1000.0, 1000.0 + math.log(2)])
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        E.tensor([1, 2]).logcumsumexp(0)


def test_logcumsumexp_of_infinities_is_silent():
    # inf - inf inside logaddexp is PyTorch's silent NaN (a user's simplefilter("error") must not raise)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = E.tensor([-math.inf, math.inf, math.nan, 0.0]).logcumsumexp(0).numpy()
    assert r[0] == -np.inf and r[1] == np.inf and np.isnan(r[2:]).all()


@pytest.mark.parametrize("n,dim", [(1, -1), (2, 1), (1, 0), (3, 1)])
def test_diff_matches_numpy(n, dim):
    x = make_tensor(4, 5, dtype=E.int64, seed=13)
    np.testing.assert_array_equal(E.diff(x, n, dim).numpy(), np.diff(x.numpy(), n, axis=dim))
    pre, app = make_tensor(4, 1, dtype=E.int64, seed=14), make_tensor(4, 2, dtype=E.int64, seed=15)
    np.testing.assert_array_equal(x.diff(n, 1, prepend=pre, append=app).numpy(),
                                  np.diff(x.numpy(), n, axis=1, prepend=pre.numpy(), append=app.numpy()))


def test_diff_of_bools_and_short_inputs():
    assert E.diff(E.tensor([True, False, False])).tolist() == [True, False]
    assert E.diff(E.tensor([1.0])).shape == (0,)
    assert E.diff(E.tensor([1, 2, 3]), n=5).shape == (0,)
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        E.diff(E.tensor(1.0))


def test_cov_and_corrcoef_match_numpy():
    x = make_tensor(3, 8, dtype=E.float64, seed=16)
    a = x.numpy()
    assert_close(E.cov(x), np.cov(a), rtol=1e-12, atol=1e-12)
    assert_close(x.cov(correction=0), np.cov(a, ddof=0), rtol=1e-12, atol=1e-12)
    fw = E.tensor([1, 2, 1, 1, 3, 1, 2, 1])
    aw = make_tensor(8, dtype=E.float64, low=0.1, high=1, seed=17)
    assert_close(E.cov(x, fweights=fw, aweights=aw), np.cov(a, fweights=fw.numpy(), aweights=aw.numpy()),
                 rtol=1e-12, atol=1e-12)
    assert_close(E.corrcoef(x), np.corrcoef(a), rtol=1e-12, atol=1e-12)
    v = E.tensor([1.0, 2.0, 4.0], dtype=E.float64)
    assert E.cov(v).shape == () and E.cov(v).item() == pytest.approx(np.cov(v.numpy()))
    assert E.cov(E.tensor([[1, 2, 3], [2, 4, 7]])).dtype is E.float32
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        E.cov(E.ones(2, 1))


@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_cov_and_corrcoef_of_3d_input_name_themselves(name):
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): expected input to have two or fewer dimensions but got an "
                       "input with 3 dimensions$"):
        getattr(E, name)(E.zeros(2, 2, 2))


@pytest.mark.parametrize("name", ["sum", "nansum", "mean", "prod", "amax", "amin", "logsumexp", "var", "std"])
def test_reduction_of_a_non_tensor_raises_pytorchs_type_error(name):
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'input' \(position 1\) must be Tensor, not str"):
        getattr(E, name)("a", 0) if name == "logsumexp" else getattr(E, name)("a")


@pytest.mark.parametrize("ord", [2, 3, 0.5, 1, -2, float("inf")])
def test_vector_norm_of_one_element_is_its_modulus_exactly(ord):
    # PyTorch reduces a single element to |x| without the power: no square to overflow or underflow
    x = E.tensor([[2e30], [-1e-30], [-1.5], [float("inf")]])
    np.testing.assert_array_equal(E.linalg.vector_norm(x, ord, dim=-1).numpy(),
                                  np.array([2e30, 1e-30, 1.5, np.inf], np.float32))
    assert E.linalg.vector_norm(E.tensor([-2e30]), ord).item() == np.float32(2e30)
    assert E.linalg.vector_norm(E.tensor([3e30, 4e30]), 2).item() == float("inf")  # two elements: as PyTorch


def test_aminmax_of_nothing_raises_pytorchs_errors():
    with pytest.raises(RuntimeError, match=r"^aminmax\(\): cannot compute aminmax over an empty dimension as the "
                                           r"operation has no identity\.$"):
        E.zeros(2, 0).aminmax()
    with pytest.raises(IndexError, match=r"^aminmax: Expected reduction dim 1 to have non-zero size\.$"):
        E.zeros(2, 0).aminmax(dim=-1)
    assert tuple(E.zeros(0, 3).aminmax(dim=1).min.shape) == (0,)


@pytest.mark.parametrize("call", [lambda x: x.argmax(5), lambda x: x.sum(5), lambda x: x.softmax(5),
                                  lambda x: x.cumsum(5), lambda x: x.movedim(5, 0), lambda x: x.unfold(5, 1, 1)])
def test_a_dim_out_of_range_reads_as_pytorchs_without_an_op_prefix(call):
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but "
                                         r"got 5\)$"):
        call(E.zeros(2, 3))


def test_a_repeated_reduction_dim_reads_as_pytorchs():
    with pytest.raises(RuntimeError, match="^dim 0 appears multiple times in the list of dims$"):
        E.zeros(2, 3).sum((0, 0))


def test_cov_checks_its_weights_as_pytorch():
    x = E.ones(2, 3)
    bad = [(dict(fweights=E.tensor([1.0, 2.0, 3.0])), "expected fweights to have integral dtype but got fweights "
                                                        "with Float dtype"),
           (dict(aweights=E.tensor([1, 2, 3])), "expected aweights to have floating point dtype but got aweights "
                                                 "with Long dtype"),
           (dict(fweights=E.tensor([[1, 2, 3]])), "expected fweights to have one or fewer dimensions"),
           (dict(fweights=E.tensor([1, 2])), "expected fweights to have the same numel as there are observations "
                                             "in the input but got 2 != 3"),
           (dict(fweights=E.tensor([1, -2, 3])), "fweights cannot be negative"),
           (dict(aweights=E.tensor([1.0, -2.0, 3.0])), "aweights cannot be negative")]
    for kw, msg in bad:
        with pytest.raises(RuntimeError, match=f"^cov\\(\\): {msg}"):
            E.cov(x, **kw)


def test_cov_of_three_dims_raises_runtime_error():
    with pytest.raises(RuntimeError, match="^cov\\(\\): expected input to have two or fewer dimensions but got an "
                                           "input with 3 dimensions$"):
        E.cov(E.ones(2, 2, 2))


def test_isclose_allclose_reject_negative_tolerances():
    with pytest.raises(RuntimeError, match="^rtol must be greater than or equal to zero, but got -1$"):
        E.isclose(E.ones(1), E.ones(1), rtol=-1)
    with pytest.raises(RuntimeError, match="^atol must be greater than or equal to zero, but got -0.5$"):
        E.allclose(E.ones(1), E.ones(1), atol=-0.5)


@pytest.mark.parametrize("call, msg", [
    (lambda x: E.argmax(x, dim=(0, 1)), "argmax(): argument 'dim' must be int, not tuple"),
    (lambda x: E.cumsum(x, 1.5), "cumsum(): argument 'dim' (position 2) must be int, not float"),
    (lambda x: E.softmax(x, dim=1.0), "softmax(): argument 'dim' must be int, not float"),
    (lambda x: E.sum(x, dim=1.5), "sum() received an invalid combination of arguments - got (Tensor, dim=float), but "
                                  "expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, "
                                  "tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = "
                                  "None)\n"),
    (lambda x: E.std(x, dim=(0, 1.5)),
     "std(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got "
     "float\""),
])
def test_a_dim_that_is_not_an_int_is_refused_not_truncated(call, msg):
    # PyTorch's argument parser refuses floats and tuples where it takes one int (ember truncated dim=1.5 to 1)
    with pytest.raises(TypeError, match="^" + re.escape(msg) + "$"):
        call(E.ones(2, 3))


def test_a_zero_dim_integer_tensor_is_a_dim():
    x = E.arange(6.0).reshape(2, 3)
    assert E.sum(x, E.tensor(1)).tolist() == [3.0, 12.0] and E.argmax(x, E.tensor(0)).tolist() == [1, 1, 1]


@pytest.mark.parametrize("call, msg", [
    (lambda x: x.sum(0, 1), "sum(): argument 'keepdim' (position 2) must be bool, not int"),
    (lambda x: x.max(0, 1), "max(): argument 'keepdim' (position 2) must be bool, not int"),
    (lambda x: x.argmax(0, None), "argmax(): argument 'keepdim' (position 2) must be bool, not NoneType"),
])
def test_keepdim_must_be_a_bool(call, msg):
    # a common slip (`x.sum(0, 1)` for a sum over two dims) is PyTorch's TypeError, not keepdim=True
    with pytest.raises(TypeError, match="^" + re.escape(msg) + "$"):
        call(E.ones(2, 3))
    with pytest.raises(TypeError, match=r"must be bool, not numpy\.bool"):
        E.ones(2, 3).sum(0, np.bool_(True))


def test_logsumexp_requires_dim_with_pytorchs_type_error():
    x = E.ones(2, 3)
    with pytest.raises(TypeError, match='^logsumexp\\(\\) missing 1 required positional arguments: "dim"$'):
        E.logsumexp(x)
    with pytest.raises(TypeError, match='^special_logsumexp\\(\\) missing 1 required positional arguments: "dim"$'):
        E.special.logsumexp(x)
    assert E.special.logsumexp(x, 1).tolist() == pytest.approx([math.log(3.0) + 1.0] * 2)


def test_argmax_out_must_be_int64_and_bool_input_checks_the_dims_type_first():
    x = E.tensor([[1.0, 3.0], [4.0, 2.0]])
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
        E.argmax(x, 1, out=E.empty(2, dtype=E.int32))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got c10::Half instead"):
        E.argmin(x, 0, out=E.empty(2, dtype=E.float16))
    out = E.empty(2, dtype=E.int64)
    assert E.argmax(x, 1, out=out) is out and out.tolist() == [1, 0]
    with pytest.raises(TypeError, match="argmax\\(\\): argument 'dim' must be int, not tuple"):
        E.tensor([True]).argmax((0,))
    with pytest.raises(RuntimeError, match="argmax\\(\\): does not support bool input"):
        E.tensor([True]).argmax(0)


def test_amax_of_an_empty_tensor_names_the_dim_as_given_in_order():
    with pytest.raises(IndexError, match="amax\\(\\): Expected reduction dim -1 to have non-zero size"):
        E.zeros(2, 0).amax(-1)
    with pytest.raises(IndexError, match="amin\\(\\): Expected reduction dim 0 to have non-zero size"):
        E.zeros(0).amin((0, 1))  # the empty dim 0 is checked before dim 1 is found out of range
    assert E.zeros(2, 0).amax(0).shape == (0,)


def test_string_dim_and_dtype_name_are_refused_in_pytorchs_words():
    # a named dim (ember has none) and a dtype's name, as PyTorch's parser words them for a method call
    x = E.ones(2, 3)
    sum_overloads = (" * (*, torch.dtype dtype = None)\n"
                     " * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n")
    with pytest.raises(TypeError) as e:
        x.sum("batch")
    assert str(e.value) == ("sum() received an invalid combination of arguments - got (str), but expected one of:\n"
                            + sum_overloads)
    with pytest.raises(TypeError) as e:
        x.mean(dtype="float64")
    assert str(e.value) == ("mean() received an invalid combination of arguments - got (dtype=str, ), but expected "
                            "one of:\n" + sum_overloads)
    with pytest.raises(TypeError, match=re.escape("got (str), but expected one of:\n * (*, torch.dtype dtype = None)"
                                                  "\n * (int dim, bool keepdim")):
        x.prod("batch")
    with pytest.raises(TypeError, match=re.escape("(!str!)")):
        x.std("batch")
    dtype_words = "(): argument 'dtype' must be torch.dtype, not "
    for call, words in ((lambda: x.nansum("b"), "nansum(): argument 'dim' (position 1) must be tuple of ints, not str"),
                        (lambda: x.argmax("b"), "argmax(): argument 'dim' (position 1) must be int, not str"),
                        (lambda: x.sum(0, dtype="float64"), "sum" + dtype_words + "str"),
                        (lambda: x.cumsum(0, dtype="float64"), "cumsum" + dtype_words + "str"),
                        (lambda: x.nanmean(dtype=np.float64), "nanmean" + dtype_words + "type")):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == words
    assert x.sum(dtype=float).dtype is E.float64 and x.cumsum(1, dtype=int).dtype is E.int64  # Python's types pass


def test_keyword_string_dim_is_refused_in_pytorchs_keyword_words():
    """`x.sum(dim="b")`: PyTorch 2.13's parser says `got (dim=str, )` and names the keyword, not a position."""
    x = E.ones(2, 3)
    kw = "\n      didn't match because some of the keywords were incorrect: dim"
    for call, words in (
            (lambda: x.sum(dim="b"),
             "sum() received an invalid combination of arguments - got (dim=str, ), but expected one of:\n * (*, "
             "torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n"),
            (lambda: x.max(dim="b"),
             "max() received an invalid combination of arguments - got (dim=str, ), but expected one of:\n"
             f" * (){kw}\n * (Tensor other){kw}\n * (int dim, bool keepdim = False)\n"),
            (lambda: x.count_nonzero(dim="b"),
             "count_nonzero() received an invalid combination of arguments - got (dim=str, ), but expected one of:\n"
             f" * (int dim = None){kw}\n * (tuple of ints dim)\n      didn't match because some of the arguments "
             "have invalid types: (!dim=str!, )\n"),
            (lambda: x.std(dim="b"), "std() received an invalid combination of arguments - got (dim=str, ), "
             "but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of "
             f"ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True){kw}\n"),
            (lambda: x.nansum(dim="b"), "nansum(): argument 'dim' must be tuple of ints, not str"),
            (lambda: x.argmin(dim="b"), "argmin(): argument 'dim' must be int, not str")):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == words


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cumsum_", "cumprod_", "logcumsumexp", "cummax", "cummin"])
def test_cumulative_op_without_dim_is_pytorchs_type_error(op):
    with pytest.raises(TypeError, match=f'^{op}\\(\\) missing 1 required positional arguments: "dim"$'):
        getattr(E.ones(3), op)()
    if not op.endswith("_"):
        with pytest.raises(TypeError, match=f'^{op}\\(\\) missing 1 required positional arguments: "dim"$'):
            getattr(E, op)(E.ones(3))


def test_equal_refuses_a_non_tensor_as_pytorchs_parser():
    """PyTorch 2.13's TypeErrors (ember read `._dtype` off the number); the method counts `other` as position 1."""
    x = E.ones(2)
    for call, words in ((lambda: E.equal(x, 1), "equal(): argument 'other' (position 2) must be Tensor, not int"),
                        (lambda: E.equal(1, x), "equal(): argument 'input' (position 1) must be Tensor, not int"),
                        (lambda: x.equal("a"), "equal(): argument 'other' (position 1) must be Tensor, not str")):
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == words
    assert E.equal(x, E.ones(2)) and not x.equal(E.zeros(2))


def test_no_degrees_of_freedom_warnings_carry_pytorchs_triggered_internally_suffix():
    """PyTorch raises them from C++: its messages end in the source location of its own build."""
    suffix = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/{}.)"
    for call, name, where in [(lambda: E.ones(1).var(), "var", "ReduceOps.cpp:1861"),
                              (lambda: E.std_mean(E.ones(1)), "std_mean", "ReduceOps.cpp:1861")]:
        with pytest.warns(UserWarning) as record:
            call()
        assert str(record[0].message) == (f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                                          "than the reduction factor (input numel divided by output numel)."
                                          + suffix.format(where))
    with pytest.warns(UserWarning) as record:
        E.cov(E.ones(1, 1))
    assert str(record[0].message) == ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                                      "number of observations." + suffix.format("Correlation.cpp:129"))


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_out_must_have_the_inputs_dtype(op):
    x = E.tensor([[1, 5], [3, 2]], dtype=E.uint8)
    with pytest.raises(RuntimeError, match=re.escape("Expected the dtype for input and out to match, but got Byte "
                                                     "for input's dtype and Half for out's dtype.")):
        getattr(E, op)(x, 1, out=E.empty(2, dtype=E.float16))
    o = E.empty(2, dtype=E.uint8)
    assert getattr(E, op)(x, 1, out=o) is o and o.tolist() == ([5, 3] if op == "amax" else [1, 2])


def test_logsumexp_out_must_be_floating_or_complex():
    x = E.tensor([0.0, 0.0])
    with pytest.raises(RuntimeError, match=re.escape("logsumexp(): Expected floating point type for result tensor, "
                                                     "but got: Long")):
        E.logsumexp(x, 0, out=E.empty((), dtype=E.int64))
    o = E.empty((), dtype=E.float64)
    E.logsumexp(E.arange(2), 0, out=o)
    assert abs(o.item() - math.log(math.e + 1)) < 1e-6  # computed in float32 (the default dtype), as PyTorch


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_method_with_a_dim_of_no_overload_is_the_parsers_combination_error(op):
    with pytest.raises(TypeError) as e:
        getattr(E.zeros(2, 3), op)(dim=(0, 1))
    assert str(e.value) == (
        f"{op}() received an invalid combination of arguments - got (dim=tuple, ), but expected one of:\n"
        " * ()\n      didn't match because some of the keywords were incorrect: dim\n"
        " * (Tensor other)\n      didn't match because some of the keywords were incorrect: dim\n"
        " * (int dim, bool keepdim = False)\n")
    with pytest.raises(TypeError, match=re.escape("got (NoneType), but expected one of:")):
        getattr(E.zeros(2, 3), op)(None)


def test_max_function_with_a_tuple_dim_lists_the_functions_overloads():
    with pytest.raises(TypeError, match=re.escape("max() received an invalid combination of arguments - got (Tensor, "
                                                  "tuple), but expected one of:\n * (Tensor input, *, Tensor out = "
                                                  "None)\n")):
        E.max(E.zeros(2, 3), (0, 1))
    assert E.max(E.zeros(2, 3), 1).values.tolist() == [0.0, 0.0] and E.zeros(2).max(dim=0).indices.item() == 0


def test_logsumexp_over_an_empty_dim_list_is_pytorchs_broadcast_error_unless_kept_or_empty():
    """PyTorch reduces every dim for `dim=()` and then fails to write its (1, 1) result into a 0-dim output."""
    x = E.ones(2, 3)
    with pytest.raises(RuntimeError, match=re.escape("output with shape [] doesn't match the broadcast shape [1, 1]")):
        E.logsumexp(x, ())
    assert E.logsumexp(x, (), keepdim=True).shape == (1, 1)
    assert abs(E.logsumexp(x, [], keepdim=True).item() - (1 + math.log(6))) < 1e-6
    assert E.logsumexp(E.ones(0, 3), ()).item() == -math.inf and E.logsumexp(E.tensor(1.0), ()).item() == 1.0


@pytest.mark.parametrize("call", [
    lambda x: x.sum(1), lambda x: x.mean(0), lambda x: x.sum(-1, keepdim=True), lambda x: x.prod(1),
    lambda x: x.nansum(1), lambda x: x.var(1), lambda x: E.std_mean(x, 0)[1], lambda x: x.amax(1),
    lambda x: x.all(1), lambda x: x.count_nonzero(1), lambda x: E.logsumexp(x, 1), lambda x: x.int().sum(1),
    lambda x: x.to(E.bfloat16).sum(1), lambda x: E.linalg.vector_norm(x, dim=0)])
def test_reductions_of_a_permuted_input_are_row_major_as_pytorchs(call):
    # numpy keeps the input's layout in a reduction's result; PyTorch writes a fresh row-major tensor
    base = E.arange(4096.0).reshape(16, 16, 16)
    x = base.permute(2, 1, 0)
    got = call(x)
    assert got.is_contiguous(), got.stride()
    assert_close(got.float(), call(x.contiguous()).float(), rtol=1e-6, atol=1e-3)


_SPECIALS = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e38, -1e38, 3.0]


@pytest.mark.parametrize("call", [
    lambda x: x.sum(), lambda x: x.double().sum(), lambda x: x.sum(0, dtype=E.float64), lambda x: x.mean(),
    lambda x: x.prod(), lambda x: E.nansum(x), lambda x: E.nanmean(x), lambda x: x.cumsum(0), lambda x: x.cumprod(0),
    lambda x: E.group_norm(x[None, :, None], 1),
    lambda x: E.interpolate(x[None, None], scale_factor=2, mode="linear"),
    lambda x: E.sigmoid_backward(E.full_like(x, math.inf), E.sigmoid(x))])
def test_inf_and_nan_give_nan_without_numpys_runtime_warning(call):
    # PyTorch computes inf - inf and inf * 0 silently; numpy warned ("invalid value encountered in reduce") even
    # under a user's warnings filter, which `-W error` turned into an exception
    x = E.tensor(_SPECIALS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = call(x)
    assert bool(E.isnan(r).any())


def test_empty_inputs_warn_nothing_pytorch_does_not():
    from ember.core.ops.normalization import layer_norm_op

    # an empty 1-D q gives an empty quantile (it raised "stack expects a non-empty TensorList"); layer norm over no
    # elements warned numpy's "Mean of empty slice"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert E.quantile(E.tensor([1.0, 2.0]), E.tensor([])).shape == (0,)
        assert E.quantile(E.tensor([[1.0, 2.0], [3.0, 4.0]]), E.tensor([]), dim=1, keepdim=True).shape == (0, 2, 1)
        out, mean, rstd = layer_norm_op(E.zeros(2, 0), (0,), None, None, 1e-5)
    assert out.shape == (2, 0) and mean.tolist() == [[0.0], [0.0]]
    assert all(math.isnan(v) for v in rstd.flatten().tolist())
