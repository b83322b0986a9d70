"""The `"any"` kernels of `ember.core.ops.composite_kernels` and `einsum_composite` (what CUDA
runs) give the CPU kernels' values when run on CPU tensors: one composition, checked without a
device; the simulator tests (test_cuda_composite.py) check them on CUDA."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor


def _both(name: str, *args, **kwargs):
    op = get_op(name)
    return op.kernels["any"](*args, **kwargs), op.kernels["cpu"](*args, **kwargs)


def _same(got, want, **tol):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert_close(g, w, equal_nan=True, **tol)


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk", [(2, 2, 3), (3, 2)]),
    ("ijk,kj->i", [(2, 3, 4), (4, 3)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("...->", [(2, 3)]),  # ellipsis dims the output drops are summed
    ("i...->i", [(2, 3, 2)]),
    ("i...,i...->i", [(2, 3), (2, 1)]),
    ("ij,jk->ik", [(2, 1), (3, 4)]),  # a size-1 dim broadcasts
])
def test_einsum_composite_matches_numpy(equation, shapes):
    ops = [make_tensor(*s, dtype=E.float64, seed=k) for k, s in enumerate(shapes)]
    _same(*_both("einsum", equation, *ops), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("equation, shapes, dts", [
    ("i,i->i", [(3,), (3,)], ("float32", "float64")),
    ("i,j->", [(3,), (2,)], ("float32", "float64")),
    ("i,i->i", [(3,), (3,)], ("bool", "int32")),
    ("ij->i", [(2, 3)], ("bool",)),
    ("i,i->i", [(3,), (3,)], ("int64", "float32")),
])
def test_einsum_composite_of_mixed_dtypes_matches_the_cpu(equation, shapes, dts):
    ops = [make_tensor(*s, dtype=getattr(E, d), seed=k) for k, (s, d) in enumerate(zip(shapes, dts, strict=True))]
    _same(*_both("einsum", equation, *ops), rtol=1e-6, atol=1e-6)


def test_isclose_isin_and_trace_composites_match():
    a = E.tensor([1.0, float("nan"), float("inf"), 2.0, -0.0])
    b = E.tensor([1.0 + 1e-6, float("nan"), float("inf"), 2.1, 0.0])
    for equal_nan in (False, True):
        _same(*_both("isclose", a, b, 1e-5, 1e-8, equal_nan))
    ints = E.tensor([3, 5, 7])
    _same(*_both("isclose", ints, E.tensor([3, 6, 7]), 0.0, 0.0))
    _same(*_both("isin", E.tensor([[1, 2], [3, 4]]), E.tensor([4, 1, 9]), False))
    _same(*_both("isin", E.tensor([1, 2]), E.tensor([2]), True))
    for x in (make_tensor(3, 4, seed=1), E.tensor([[1, 2], [3, 4]]), E.tensor([[True, False], [True, True]])):
        _same(*_both("trace", x))


def test_take_and_put_composites_match():
    x = make_tensor(3, 4, seed=2, noncontiguous=True)
    idx = E.tensor([[0, 11], [-1, 5]])
    _same(*_both("take", x, idx))
    src = make_tensor(2, 2, seed=3)
    for accumulate in (False, True):
        _same(*_both("put", x, E.tensor([[0, 0], [3, 5]]), src, accumulate))


def test_masked_scatter_composite_matches():
    x = make_tensor(2, 3, seed=4)
    mask = E.tensor([[True, False, True], [False, True, True]])
    _same(*_both("masked_scatter", x, mask, make_tensor(6, seed=5)))


def test_pad_composite_matches():
    x = make_tensor(1, 2, 3, 4, seed=6)
    for mode, value in (("constant", 1.5), ("reflect", 0.0), ("replicate", 0.0), ("circular", 0.0)):
        _same(*_both("pad_nd", x, (1, 2, 2, 1), mode, value), rtol=0, atol=0)


def test_fused_cell_composites_match():
    rng = np.random.default_rng(7)
    n, h = 3, 2
    ig, hg = (E.tensor(rng.standard_normal((n, 4 * h))) for _ in range(2))
    cx = E.tensor(rng.standard_normal((n, h)))
    _same(*_both("lstm_cell", ig, hg, cx), rtol=1e-12, atol=1e-12)
    ig, hg = (E.tensor(rng.standard_normal((n, 3 * h))) for _ in range(2))
    bias = E.tensor(rng.standard_normal(3 * h))
    _same(*_both("gru_cell", ig, hg, cx, bias, bias), rtol=1e-12, atol=1e-12)


def test_unpool_and_fractional_pool_composites_match():
    x = make_tensor(2, 3, 6, 5, seed=8)
    samples = E.tensor(np.random.default_rng(9).random((2, 3, 2)), dtype=E.float32)
    got, want = _both("fractional_max_pool", x, (2, 2), (3, 3), samples)
    _same(got, want, rtol=0, atol=0)
    vals, idx = want
    _same(*_both("max_unpool", vals, idx, (6, 5)), rtol=0, atol=0)


def test_norm_composites_match():
    x = make_tensor(4, 3, 5, dtype=E.float64, seed=10)
    w, b = make_tensor(3, dtype=E.float64, seed=11), make_tensor(3, dtype=E.float64, seed=12)
    g = make_tensor(4, 3, 5, dtype=E.float64, seed=13)
    tol = {"rtol": 1e-10, "atol": 1e-12}
    for training in (True, False):
        stats = [(E.tensor([0.1, -0.2, 0.3], dtype=E.float64), E.tensor([1.0, 2.0, 0.5], dtype=E.float64))
                 for _ in range(2)]
        op = get_op("batch_norm")
        got = op.kernels["any"](x, w, b, *stats[0], training, 0.1, 1e-5)
        want = op.kernels["cpu"](x, w, b, *stats[1], training, 0.1, 1e-5)
        _same(got, want, **tol)
        _same(stats[0], stats[1], **tol)  # the running statistics, updated in training
        _same(*_both("batch_norm_backward", g, x, w, want[1], want[2], training), **tol)
    ln = _both("layer_norm", x, (5,), make_tensor(5, dtype=E.float64, seed=14), None, 1e-5)
    _same(*ln, **tol)
    _same(*_both("layer_norm_backward", g, x, (5,), ln[1][1], ln[1][2], None), **tol)
    x6 = make_tensor(2, 6, 4, dtype=E.float64, seed=15)
    w6 = make_tensor(6, dtype=E.float64, seed=16)
    gn = _both("group_norm", x6, w6, None, 3, 1e-5)
    _same(*gn, **tol)
    _same(*_both("group_norm_backward", make_tensor(2, 6, 4, dtype=E.float64, seed=17), x6, gn[1][1], gn[1][2],
                 w6, 3), **tol)
    mask = E.tensor([[True, False], [True, True]])
    _same(*_both("native_dropout_backward", make_tensor(2, 2, dtype=E.float64, seed=18), mask, 2.0), **tol)


@pytest.mark.parametrize("dtype", [E.float32, E.float64])
def test_embedding_renorm_composite_scales_in_double_as_the_cpu(dtype):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((50, 7)) * 3
    idx = E.tensor([3, 0, 49, 3, 17, 8, 21])
    got, want = (E.tensor(w, dtype=dtype) for _ in range(2))
    get_op("embedding_renorm_").kernels["any"](got, idx, 0.7, 2.0)
    get_op("embedding_renorm_").kernels["cpu"](want, idx, 0.7, 2.0)
    _same(got, want, rtol=0, atol=0)
