"""Which of several equal values sort, topk, kthvalue and mode return first, and at which index: as
PyTorch's CPU kernels (NOTE [ Order among equal elements ] in ember.core.ops._sort_kernels). The
expected lists below were printed by PyTorch 2.13; the property test compares with PyTorch itself."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E

NAN = float("nan")


def test_topk_among_ties_picks_as_nth_element():
    # the docs' beam-search example: PyTorch's [2, 4, 1], not the stable [1, 2, 4]
    assert E.tensor([1.0, 3, 3, 2, 3]).topk(3).indices.tolist() == [2, 4, 1]
    assert E.tensor([[4.0, 1, 3, 1], [2, 2, 8, 0]]).topk(2).indices.tolist() == [[0, 2], [2, 1]]
    # k * 64 <= n takes the heap (partial sort) path; otherwise nth_element, unsorted when asked
    assert E.tensor([2.0] * 300).topk(3).indices.tolist() == [0, 1, 2]
    assert E.tensor([2.0] * 100).topk(3, sorted=False).indices.tolist() == [67, 66, 65]


def test_sort_is_introsort_above_16_elements_and_stable_on_request():
    x = E.tensor([0.0, 1] * 10)
    assert x.sort().indices.tolist() == [0, 2, 18, 4, 6, 16, 8, 10, 14, 12, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1]
    assert x.sort(descending=True).indices.tolist() == [1, 19, 17, 15, 13, 11, 9, 7, 5, 3, 8, 6, 10, 12, 4, 14,
                                                        16, 2, 18, 0]
    assert x.sort(stable=True).indices.tolist() == list(range(0, 20, 2)) + list(range(1, 20, 2))
    assert x.argsort(stable=True, descending=True).tolist() == list(range(1, 20, 2)) + list(range(0, 20, 2))
    assert E.tensor([3.0, 1, 3, 1]).sort().indices.tolist() == [1, 3, 0, 2]  # insertion sort: stable


def test_sort_keeps_order_where_pytorch_is_stable():
    # a 1-D ascending integer sort of 32768+ elements is fbgemm's (stable) radix sort; a stride-0 dim is 0..n-1
    assert E.tensor([0, 1] * 20000).sort().indices[:3].tolist() == [0, 2, 4]
    assert E.tensor([0, 1] * 20000).sort(descending=True).indices[:3].tolist() == [22211, 22237, 22235]
    assert E.zeros(1).expand(20).sort().indices.tolist() == list(range(20))


def test_kthvalue_and_mode_among_ties():
    assert E.tensor([5.0] * 6).kthvalue(3).indices.item() == 0
    assert E.tensor([1.0, 2, 1, 2, 1, 2]).kthvalue(2).indices.item() == 2
    assert E.tensor([NAN, NAN, NAN]).kthvalue(1).indices.item() == 1
    assert E.tensor([1, 2] * 12).mode().indices.item() == 16  # std::sort's order of the 1s, not the last one
    assert E.tensor([1, 2] * 6).mode().indices.item() == 10


def test_tie_kernels_keep_values_and_dtypes():
    rng = np.random.default_rng(0)
    for dt in (E.float16, E.bfloat16, E.bool, E.uint8, E.int32, E.float64):
        a = rng.integers(0, 3, (5, 40))
        x = E.tensor(a, dtype=dt)
        s = x.sort(1)
        assert s.values.dtype is dt and s.indices.dtype is E.int64
        np.testing.assert_array_equal(s.values.to(E.float64).numpy(), np.sort(x.to(E.float64).numpy(), 1))
        np.testing.assert_array_equal(x.gather(1, s.indices).to(E.float64).numpy(), s.values.to(E.float64).numpy())
        if dt is not E.bool:
            t = x.topk(3, 0 if dt is E.int32 else 1, largest=dt is not E.uint8)
            assert t.values.dtype is dt


def _tied(rng, shape, dtype):
    a = rng.integers(0, 4, shape).astype(dtype)
    if a.dtype.kind == "f" and rng.random() < 0.3:
        a[rng.random(shape) < 0.2] = np.nan
    return a


@pytest.mark.parametrize("seed", range(4))
def test_indices_among_ties_match_pytorch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    for _ in range(75):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 300 if nd == 1 else 24, nd))
        a = _tied(rng, shape, rng.choice(["float32", "float64", "int64", "int16"]))
        e, t = E.tensor(a), torch.from_numpy(a)
        if nd > 1 and rng.random() < 0.5:  # not contiguous along the dim
            e, t = e.transpose(0, -1), t.transpose(0, -1)
        dim = int(rng.integers(-e.ndim, e.ndim))
        n = e.shape[dim]

        def same(got, want):
            np.testing.assert_array_equal(got.numpy(), want.numpy())

        for desc in (False, True):
            same(e.sort(dim, descending=desc).indices, t.sort(dim, descending=desc).indices)
            same(e.sort(dim=dim, descending=desc, stable=True).indices,
                 t.sort(dim=dim, descending=desc, stable=True).indices)
        for k in {1, 2, max(n // 64, 1), n // 2, n} & set(range(1, n + 1)):
            for largest in (True, False):
                for srt in (True, False):
                    got, want = e.topk(k, dim, largest, srt), t.topk(k, dim, largest, srt)
                    same(got.indices, want.indices)
                    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
            same(e.kthvalue(k, dim).indices, t.kthvalue(k, dim).indices)
        for name in ("median", "max", "min"):
            same(getattr(e, name)(dim).indices, getattr(t, name)(dim).indices)
        if not np.isnan(a.astype(np.float64)).any():  # PyTorch's mode compares NaN with a plain `<`
            same(e.mode(dim).indices, t.mode(dim).indices)


def test_sort_takes_stable_only_with_dim_and_descending_by_keyword():
    # PyTorch's overloads: (dim, descending) positional, or (*, stable, dim, descending); its TypeError otherwise
    x = E.tensor([3.0, 1.0, 2.0, 1.0])
    assert x.sort(dim=0, stable=True).indices.tolist() == [1, 3, 2, 0]
    assert E.sort(x, stable=True, descending=True).values.tolist() == [3.0, 2.0, 1.0, 1.0]
    assert x.sort(0, True).values.tolist() == [3.0, 2.0, 1.0, 1.0]
    with pytest.raises(TypeError, match=re.escape(
            "sort() received an invalid combination of arguments - got (Tensor, int, stable=bool), but expected one "
            "of:\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = "
            "None)\n * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)\n")):
        E.sort(x, 0, stable=True)
    with pytest.raises(TypeError, match=re.escape("got (Tensor, int, bool, bool), but expected one of")):
        E.sort(x, 0, True, False)
    with pytest.raises(TypeError, match=r"^sort\(\) takes from 1 to 0 positional arguments but 3 were given$"):
        x.sort(0, True, False)  # PyTorch 2.13's method parser, word for word
