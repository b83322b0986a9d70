"""kthvalue, median, take/put, searchsorted/bucketize, bincount, histc and im2col/col2im
(F.unfold/F.fold) on both devices: CUDA must match the CPU. CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


def _both(fn, device, *args):
    expected = fn(*args)
    actual = fn(*(_on(a, device) for a in args))
    if not isinstance(expected, tuple):
        expected, actual = (expected,), (actual,)
    for a, e in zip(actual, expected, strict=True):
        assert a.device.type == device
        assert_close(a, _on(e, device), equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1])
def test_kthvalue_and_median(dim, device):
    x = E.tensor([[3.0, 1.0, 2.0, 2.0], [float("nan"), 0.0, 5.0, float("nan")], [4.0, 4.0, -1.0, 0.5]])
    _both(lambda t: E.kthvalue(t, 2, dim).values, device, x)  # which tied index: the CPU's is PyTorch's quickselect
    k = E.kthvalue(_on(x, device), 2, dim)
    assert_close(x.gather(dim, k.indices.cpu().unsqueeze(dim)).squeeze(dim), k.values.cpu(), equal_nan=True)
    _both(lambda t: tuple(E.median(t, dim, keepdim=True)), device, x)
    _both(lambda t: E.median(t), device, x)
    _both(lambda t: E.median(t), device, x[0])


@pytest.mark.parametrize("device", DEVICES)
def test_take_and_put(device):
    x = make_tensor(3, 4, seed=1, noncontiguous=True)
    idx = E.tensor([[0, 11], [-1, 5]])
    _both(lambda t, i: E.take(t, i), device, x, idx)
    src = make_tensor(2, 2, seed=2)
    _both(lambda t, i, s: t.put(i, s), device, x, E.tensor([[0, 11], [3, 5]]), src)
    _both(lambda t, i, s: t.put(i, s, accumulate=True), device, x, E.tensor([[0, 0], [3, 5]]), src)


@pytest.mark.parametrize("device", DEVICES)
def test_im2col_and_col2im(device):
    x = make_tensor(2, 2, 4, 5, seed=3)
    args = ((2, 3), (1, 1), (1, 0), (2, 1))
    _both(lambda t: get_op("im2col")(t, *args), device, x)
    cols = get_op("im2col")(x, *args)
    _both(lambda c: get_op("col2im")(c, (4, 5), *args), device, cols)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize(right, device):
    seq = E.tensor([1.0, 2.0, 2.0, 5.0])
    v = E.tensor([[0.0, 2.0, 6.0], [5.0, 1.5, 2.0]])
    assert E.searchsorted(_on(seq, device), _on(v, device), right=right).tolist() == \
        E.searchsorted(seq, v, right=right).tolist()
    seq2 = E.tensor([[1.0, 3.0, 5.0], [0.0, 0.0, 9.0]])
    assert E.searchsorted(_on(seq2, device), _on(v, device), right=right, out_int32=True).tolist() == \
        E.searchsorted(seq2, v, right=right, out_int32=True).tolist()
    assert E.bucketize(_on(v, device), _on(seq, device)).tolist() == E.bucketize(v, seq).tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_bincount_and_histc(device):
    x = E.tensor([1, 3, 3, 0, 7])
    w = E.tensor([0.5, 1.0, 1.0, 2.0, 0.25])
    _both(lambda t: E.bincount(t), device, x)
    _both(lambda t, ww: E.bincount(t, ww, minlength=10), device, x, w)
    y = E.tensor([0.0, 1.0, 1.5, 2.0, 3.0, float("inf"), -1.0])
    _both(lambda t: E.histc(t, 4, 0, 2), device, y)
    _both(lambda t: E.histc(t, 3), device, y[:5])


@pytest.mark.parametrize("device", DEVICES)
def test_nanmedian(device):
    x = E.tensor([[float("nan"), 1.0, 3.0, 2.0], [float("nan")] * 4, [5.0, 4.0, float("nan"), 4.0]])
    _both(lambda t: tuple(E.nanmedian(t, 1)), device, x)
    _both(lambda t: E.nanmedian(t), device, x)


def test_multinomial_on_cuda_draws_from_the_right_support():
    E.manual_seed(0)
    p = E.tensor([[0.0, 1.0, 3.0, 0.0], [2.0, 0.0, 0.0, 2.0]], device="cuda")
    with_rep = E.multinomial(p, 64, replacement=True).cpu().numpy()
    assert set(with_rep[0].tolist()) <= {1, 2} and set(with_rep[1].tolist()) <= {0, 3}
    assert (with_rep[0] == 2).mean() > 0.5
    without = E.multinomial(p, 2).cpu().numpy()
    assert sorted(without[0].tolist()) == [1, 2] and sorted(without[1].tolist()) == [0, 3]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1])
def test_mode(dim, device):
    x = E.tensor([[1, 3, 3, 2, 1], [4, 4, 0, 0, 7], [5, 5, 5, 1, 5]])
    want = E.mode(x, dim, keepdim=dim == 1)
    got = E.mode(_on(x, device), dim, keepdim=dim == 1)
    assert got.values.tolist() == want.values.tolist() and got.indices.tolist() == want.indices.tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_unique_and_unique_consecutive(device):
    x = E.tensor([[3.0, 1.0, 3.0], [float("nan"), 1.0, 1.0]])
    for fn in (lambda t: E.unique(t, return_inverse=True, return_counts=True),
               lambda t: E.unique_consecutive(t, return_inverse=True, return_counts=True),
               lambda t: E.unique_consecutive(t, return_inverse=True, return_counts=True, dim=1)):
        want, got = fn(x), fn(_on(x, device))
        for a, e in zip(got, want, strict=True):
            assert_close(a, _on(e, device), equal_nan=True)
