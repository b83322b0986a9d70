"""cat, flip, tril/triu, diag_embed and the scans on both devices: CUDA must match the CPU. CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


def _both(fn, device, *args):
    expected = fn(*args)
    actual = fn(*(_on(a, device) for a in args))
    assert actual.device.type == device
    assert_close(actual, _on(expected, device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1])
def test_cat_promotes_and_handles_strided_inputs(dim, device):
    a = make_tensor(2, 3, seed=1, noncontiguous=True)
    b = make_tensor(2, 3, dtype=E.int64, seed=2).t().contiguous().t()
    _both(lambda x, y: E.cat([x, y, x], dim), device, a, b)
    _both(lambda x: E.stack([x, x], 1), device, a)


@pytest.mark.parametrize("device", DEVICES)
def test_flip_tril_triu(device):
    x = make_tensor(3, 4, seed=3, noncontiguous=True)
    _both(lambda t: E.flip(t, (0,)), device, x)
    _both(lambda t: E.flip(t, (0, 1)), device, x)
    for k in (-1, 0, 2):
        _both(lambda t, k=k: E.tril(t, k), device, x)
        _both(lambda t, k=k: E.triu(t, k), device, x)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_and_cumprod(dim, device):
    x = make_tensor(3, 4, low=0.5, high=1.5, seed=4, noncontiguous=True)
    _both(lambda t: E.cumsum(t, dim), device, x)
    _both(lambda t: E.cumprod(t, dim), device, x)
    i = E.tensor([[1, 2, 3], [4, 5, 6]], dtype=E.int32)
    _both(lambda t: E.cumsum(t, dim), device, i)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1])
def test_logcumsumexp_cummax_cummin(dim, device):
    x = E.tensor([[1.0, 3.0, 3.0, float("nan")], [-1.0, -5.0, 2.0, 2.0], [0.0, 0.0, -1.0, 4.0]])
    _both(lambda t: E.logcumsumexp(t, dim), device, x[:, :3])
    for fn in (E.cummax, E.cummin):
        want = fn(x, dim)
        got = fn(_on(x, device), dim)
        assert_close(got.values, _on(want.values, device), equal_nan=True)
        assert got.indices.tolist() == want.indices.tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("offset", "dim1", "dim2"), [(0, -2, -1), (1, 0, 2), (-1, 1, 0)])
def test_diag_embed(offset, dim1, dim2, device):
    x = make_tensor(2, 3, seed=5)
    _both(lambda t: E.diag_embed(t, offset, dim1, dim2), device, x)
