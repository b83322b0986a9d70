"""Reductions on both devices, over any dims of strided inputs: CUDA must match the CPU.

Run in Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) with tiny shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]
# (dim, keepdim) pairs
DIMS = [(None, False), (0, False), (1, True), ((0, 2), False), ((-1,), True)]


def _on(t, device):
    return t if device == "cpu" else t.to(device)


def _check(fn, x, device, **tol):
    expected = fn(x)
    actual = fn(_on(x, device))
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected, strict=True):
            assert a.device.type == device
            assert_close(a, _on(e, device), equal_nan=True, **tol)
    else:
        assert actual.device.type == device
        assert_close(actual, _on(expected, device), equal_nan=True, **tol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("dim", "keepdim"), DIMS)
@pytest.mark.parametrize("name", ["sum", "mean", "prod", "nansum", "nanmean", "amax", "amin", "logsumexp",
                                  "var", "std", "all", "any"])
def test_float_reductions_match_cpu(name, dim, keepdim, device):
    x = make_tensor(2, 3, 4, low=0.5, high=1.5, seed=11, noncontiguous=True)
    if name in ("nansum", "nanmean"):
        x[0, 1, 2] = float("nan")
    if name in ("all", "any"):
        x = x > 1.0
    fn = getattr(E, name)
    if name == "prod" and isinstance(dim, tuple):
        dim = dim[0]
    if dim is None and name in ("amax", "amin", "logsumexp"):
        dim = (0, 1, 2)
    _check(lambda t: fn(t) if dim is None else fn(t, dim, keepdim=keepdim), x, device, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [E.int32, E.bool, E.float16, E.float64])
def test_sum_and_prod_dtype_rules(dtype, device):
    x = make_tensor(3, 4, dtype=dtype, low=0, high=3, seed=12)
    _check(lambda t: E.sum(t, 1), x, device, rtol=1e-3, atol=1e-3)
    _check(lambda t: E.prod(t, 0), x, device, rtol=1e-3, atol=1e-3)
    _check(lambda t: t.sum(dtype=E.float64), x, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_with_indices_take_the_first_extreme(dim, keepdim, device):
    x = E.tensor([[3.0, 1.0, 3.0, 0.0], [2.0, 2.0, float("nan"), 5.0], [1.0, 7.0, 7.0, 7.0]])
    _check(lambda t: tuple(E.max(t, dim, keepdim=keepdim)), x, device)
    _check(lambda t: tuple(E.min(t, dim, keepdim=keepdim)), x, device)
    _check(lambda t: E.argmax(t, dim, keepdim=keepdim), x, device)
    _check(lambda t: E.argmin(t, dim, keepdim=keepdim), x, device)


@pytest.mark.parametrize("device", DEVICES)
def test_argmax_of_the_flattened_tensor_and_full_max(device):
    x = make_tensor(3, 5, dtype=E.int64, seed=13, noncontiguous=True)
    _check(lambda t: E.argmax(t), x, device)
    _check(lambda t: E.argmin(t, keepdim=True), x, device)
    _check(lambda t: E.max(t), x, device)


@pytest.mark.parametrize("device", DEVICES)
def test_var_mean_std_mean_and_correction(device):
    x = make_tensor(4, 6, dtype=E.float64, seed=14)
    _check(lambda t: E.var_mean(t, 1), x, device)
    _check(lambda t: E.std_mean(t, 0, keepdim=True), x, device)
    _check(lambda t: E.var(t, 1, correction=0), x, device)
    _check(lambda t: E.std(t, unbiased=False), x, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ord", [1, 2, 3.5, 0, float("inf"), -float("inf")])
def test_vector_norm(ord, device):
    x = make_tensor(3, 4, seed=15)
    _check(lambda t: E.vector_norm(t, ord, 1), x, device, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_count_nonzero_and_empty_reductions(device):
    x = _on(E.tensor([[0, 1, 2], [0, 0, 3]]), device)
    assert E.count_nonzero(x, 1).tolist() == [2, 1]
    e = _on(E.zeros(0, 3), device)
    assert e.sum(0).tolist() == [0.0, 0.0, 0.0]
    assert e.prod(0).tolist() == [1.0, 1.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert all(np.isnan(v) for v in e.mean(0).tolist())
    with pytest.raises(IndexError, match="non-zero size"):
        E.amax(e, 0)
    with pytest.raises(RuntimeError, match="floating point"):
        E.mean(_on(E.tensor([1, 2]), device))


@pytest.mark.parametrize("device", DEVICES)
def test_reduction_out_argument(device):
    x = _on(E.ones(2, 3), device)
    out = _on(E.empty(2), device)
    assert E.sum(x, 1, out=out) is out and out.tolist() == [3.0, 3.0]


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=4), data=st.data())
def test_sum_and_amax_over_any_dims_match_numpy(shape, data):
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    perm = data.draw(st.permutations(range(len(shape))))
    x = E.from_numpy(a).cuda().permute(*perm)
    ref = np.transpose(a, perm).astype(np.float64)
    assert_close(x.sum(dims).cpu(), E.from_numpy(np.asarray(ref.sum(dims), np.float32)), rtol=1e-5, atol=1e-5)
    assert_close(x.amax(dims).cpu(), E.from_numpy(np.asarray(ref.max(dims), np.float32)))


def test_logsumexp_of_a_nan_is_nan_as_on_the_cpu():
    x = E.tensor([[float("nan"), 1.0], [2.0, 3.0]])
    for d in ((0, 1), -1):  # dim=() of a 2-D input raises, as in PyTorch
        assert_close(E.logsumexp(x.cuda(), d).cpu(), E.logsumexp(x, d), equal_nan=True)
