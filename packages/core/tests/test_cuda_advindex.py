"""Advanced indexing on both devices (`x[idx]`, `x[i, :, j]`, masks, `x[idx] = v`, index_put_ with
accumulate, nonzero, masked_select): CUDA must match the CPU. CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


KEYS = [
    lambda d: (E.tensor([2, 0, -1], device=d),),
    lambda d: (slice(None), E.tensor([[1, 2], [0, 0]], device=d)),
    lambda d: (E.tensor([0, 2], device=d), slice(None), E.tensor([1, 2], device=d)),
    lambda d: (E.tensor([1], device=d), E.tensor([[0], [2]], device=d)),
    lambda d: (Ellipsis, E.tensor([3, 0], device=d)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", range(len(KEYS)))
def test_getitem_and_setitem_with_index_tensors(key, device):
    x = make_tensor(3, 3, 4, seed=1, noncontiguous=True)
    want = x[KEYS[key]("cpu")]
    xd = _on(x, device)
    got = xd[KEYS[key](device)]
    assert got.device.type == device
    assert_close(got, _on(want, device))
    y, yd = x.clone(), xd.clone()
    y[KEYS[key]("cpu")] = 7.0
    yd[KEYS[key](device)] = 7.0
    assert_close(yd, _on(y, device))


@pytest.mark.parametrize("device", DEVICES)
def test_masks_nonzero_and_masked_select(device):
    x = make_tensor(3, 4, seed=2)
    m = x > 0
    xd, md = _on(x, device), _on(m, device)
    assert_close(xd[md], _on(x[m], device))
    assert E.nonzero(md).tolist() == E.nonzero(m).tolist()
    assert_close(E.masked_select(xd, md), _on(E.masked_select(x, m), device))
    y, yd = x.clone(), xd.clone()
    y[m] = 0.0
    yd[md] = 0.0
    assert_close(yd, _on(y, device))
    assert_close(xd[md[:, 0]], _on(x[m[:, 0]], device))


@pytest.mark.parametrize("device", DEVICES)
def test_index_put_accumulates_repeated_indices(device):
    x = _on(E.zeros(4), device)
    x.index_put_((_on(E.tensor([0, 0, 3, 0]), device),), _on(E.tensor([1.0, 2.0, 3.0, 4.0]), device),
                 accumulate=True)
    assert x.tolist() == [7.0, 0.0, 0.0, 3.0]
    z = _on(E.zeros(2, 3), device)
    z[_on(E.tensor([1, 0]), device)] = _on(E.tensor([[1.0, 2.0, 3.0]]), device)
    assert z.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
