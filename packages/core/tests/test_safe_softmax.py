"""`_safe_softmax`: softmax with all -inf slices as zeros, bitwise the composition it replaced in attention
(`where(all(x == -inf), 0, softmax(where(all(x == -inf), 0, x)))`), on the row passes and the numpy path."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import elementwise as ew

NEG = -np.inf


def _composition(x: E.Tensor, dim: int) -> E.Tensor:
    empty = E.all(x == NEG, dim, keepdim=True)
    return ew.where(empty, 0.0, E.softmax(ew.where(empty, 0.0, x), dim))


def _scores(shape, dtype, seed) -> np.ndarray:
    """Random scores with masked (-inf) keys, whole masked rows, a NaN row, a row with one NaN among -inf,
    a row with NaN and finite entries, and a +inf entry."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype) * 4
    x[rng.random(shape) < 0.3] = NEG
    rows = x.reshape(-1, shape[-1])
    n = rows.shape[0]
    rows[rng.choice(n, max(n // 5, 1), replace=False)] = NEG
    rows[0] = NEG
    rows[1] = np.nan
    rows[2] = NEG
    rows[2, -1] = np.nan
    rows[3, 0] = np.nan
    rows[4, 1] = np.inf
    return x


def _same(a: E.Tensor, b: E.Tensor) -> None:
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.numpy().view(np.uint8), b.numpy().view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(6, 7), (2, 3, 40, 70), (4, 2, 64, 64)], ids=["small", "mid", "rows-pass"])
def test_bitwise_the_composition_it_replaces(shape, dtype):
    x = E.from_numpy(_scores(shape, dtype, 0))
    got = E._safe_softmax(x, -1)
    _same(got, _composition(x, -1))
    a = got.numpy().reshape(-1, shape[-1])
    assert (a[0] == 0).all() and all(np.isnan(a[i]).all() for i in (1, 2, 3, 4))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_other_dims_and_layouts_match_the_composition(dtype):
    x = E.from_numpy(_scores((5, 6, 8), dtype, 1))
    for dim in (0, 1):
        _same(E._safe_softmax(x, dim), _composition(x, dim))
    xt = x.transpose(0, 2)
    _same(E._safe_softmax(xt, -1), _composition(xt, -1))


def test_all_masked_rows_are_zeros_others_sum_to_one_against_float64():
    x = _scores((64, 300), np.float64, 2)
    x[1:5] = np.random.default_rng(3).standard_normal((4, 300))  # the special rows made plain
    got = E._safe_softmax(E.from_numpy(x.astype(np.float32)), 1).numpy().astype(np.float64)
    empty = (x == NEG).all(1)
    with np.errstate(invalid="ignore"):  # the empty rows, selected away
        e = np.exp(x - x.max(1, keepdims=True, where=~empty[:, None], initial=-np.inf))
        ref = np.where(empty[:, None], 0.0, e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)
    assert (got[empty] == 0).all() and empty.any()


def test_dtype_half_zero_dim_and_empty():
    x = E.tensor([[NEG, NEG], [0.0, 0.0]])
    assert E._safe_softmax(x, 1, dtype=E.float64).dtype == E.float64
    h = x.to(E.float16)
    _same(E._safe_softmax(h, 1), _composition(h, 1))
    assert E._safe_softmax(E.tensor(NEG), 0).item() == 0.0 and E._safe_softmax(E.tensor(2.0), 0).item() == 1.0
    assert tuple(E._safe_softmax(E.zeros(0, 3), 1).shape) == (0, 3)


def test_integer_input_raises_as_softmax():
    with pytest.raises(NotImplementedError, match="softmax_lastdim_kernel_impl"):
        E._safe_softmax(E.tensor([[1, 2]]), 1)
    with pytest.raises(IndexError):
        E._safe_softmax(E.zeros(2, 3), 2)


@pytest.mark.torch
def test_matches_torch():
    torch = pytest.importorskip("torch")
    x = _scores((8, 9), np.float64, 4)
    np.testing.assert_allclose(E._safe_softmax(E.from_numpy(x), 1).numpy(),
                               torch._safe_softmax(torch.from_numpy(x), 1).numpy(), rtol=1e-12, atol=0)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cuda_matches_the_cpu(dtype):
    x = _scores((6, 5), dtype, 5)
    cpu = E._safe_softmax(E.from_numpy(x), 1).numpy()
    got = E._safe_softmax(E.from_numpy(x).to("cuda"), 1).to("cpu").numpy()
    np.testing.assert_allclose(got, cpu, rtol=1e-6 if dtype == np.float32 else 1e-13, atol=1e-7)
    assert (got[0] == 0).all() and np.isnan(got[1]).all() and np.isnan(got[2]).all()
