"""gather/scatter/index_* /masked_fill/embedding on both devices: CUDA must match the CPU, repeated
indices accumulate (atomics). Run in the CUDA simulator."""

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
    assert actual.device.type == device
    assert_close(actual, _on(expected, device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1])
def test_gather_and_scatter_family(dim, device):
    x = make_tensor(3, 4, seed=1, noncontiguous=True)
    idx = E.tensor([[0, 2, 1], [2, 2, 0]]) if dim == 0 else E.tensor([[3, 0, 3], [1, 1, 2]])
    src = make_tensor(2, 3, seed=2)
    _both(lambda a, i: E.gather(a, dim, i), device, x, idx)
    _both(lambda a, i, s: E.scatter(a, dim, i, s), device, x, idx[:, :1] if dim == 0 else idx[:1], src)
    _both(lambda a, i, s: E.scatter_add(a, dim, i, s), device, x, idx, src)
    _both(lambda a, i: E.scatter(a, dim, i, 2.5), device, x, idx)
    _both(lambda a, i, s: E.scatter(a, dim, i, s, reduce="add"), device, x, idx, src)


@pytest.mark.parametrize("device", DEVICES)
def test_inplace_scatter_add_with_repeats_accumulates(device):
    x = _on(E.zeros(3), device)
    x.scatter_add_(0, _on(E.tensor([0, 0, 2, 0]), device), _on(E.ones(4), device))
    assert x.tolist() == [3.0, 0.0, 1.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_add_copy_fill(dim, device):
    x = make_tensor(3, 4, seed=3, noncontiguous=True)
    d = dim % 2
    idx = E.tensor([2, 0, 2]) if d == 0 else E.tensor([3, 1, 3])
    src = make_tensor(*((3, 4) if d == 0 else (3, 3)), seed=4)
    _both(lambda a, i: E.index_select(a, dim, i), device, x, idx)
    _both(lambda a, i, s: E.index_add(a, dim, i, s, alpha=2), device, x, idx, src)
    uniq = idx[:2]
    _both(lambda a, i, s: E.index_copy(a, dim, i, s), device, x, uniq, src.narrow(d, 0, 2))
    _both(lambda a, i: E.index_fill(a, dim, i, -1.0), device, x, idx)
    _both(lambda a, i, v: E.index_fill(a, dim, i, v), device, x, idx, E.tensor(7.0))


@pytest.mark.parametrize("device", DEVICES)
def test_masked_fill(device):
    x = make_tensor(2, 3, seed=5)
    m = E.tensor([[True, False, True]])
    _both(lambda a, mm: E.masked_fill(a, mm, 0.5), device, x, m)
    y = _on(x.clone(), device)
    y.masked_fill_(_on(m, device), _on(E.tensor(-2.0), device))
    assert_close(y.cpu(), E.masked_fill(x, m, -2.0))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("padding_idx", "freq"), [(-1, False), (1, True)])
def test_embedding_and_its_backward(padding_idx, freq, device):
    w = make_tensor(5, 3, seed=6)
    idx = E.tensor([[1, 4, 1], [0, 1, 3]])
    _both(lambda a, i: get_op("embedding")(a, i, padding_idx, freq), device, w, idx)
    g = make_tensor(2, 3, 3, seed=7)
    _both(lambda gg, i: get_op("embedding_backward")(gg, i, 5, padding_idx, freq), device, g, idx)


def test_out_of_range_cuda_index_raises_before_the_kernel_and_leaves_self_untouched():
    x = E.arange(4.0, device="cuda")
    with pytest.raises(RuntimeError, match="index 9 is out of bounds for dimension 0 with size 4"):
        x.scatter_(0, E.tensor([1, 9], device="cuda"), 7.0)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert E.gather(x, 0, E.tensor([1, 3], device="cuda")).tolist() == [1.0, 3.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self, device):
    x = make_tensor(3, 4, seed=8)
    idx = E.tensor([[0, 2, 0, 1], [2, 2, 0, 1]])
    src = make_tensor(2, 4, seed=9)
    _both(lambda a, i, s: E.scatter_reduce(a, 0, i, s, reduce, include_self=include_self), device, x, idx, src)
    xi = make_tensor(3, 4, dtype=E.int64, seed=10)
    si = make_tensor(2, 4, dtype=E.int64, seed=11)
    _both(lambda a, i, s: E.scatter_reduce(a, 0, i, s, reduce, include_self=include_self), device, xi, idx, si)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize(("include_last", "padding_idx"), [(False, -1), (True, 2)])
def test_embedding_bag_and_backward(mode, include_last, padding_idx, device):
    w = make_tensor(5, 3, seed=12)
    idx = E.tensor([1, 2, 4, 4, 0, 2, 3])
    off = E.tensor([0, 3, 3, 5] + ([7] if include_last else []))
    psw = make_tensor(7, seed=13) if mode == "sum" else None
    args = (mode, psw, include_last, padding_idx)
    want = get_op("embedding_bag")(w, idx, off, *args)
    got = get_op("embedding_bag")(_on(w, device), _on(idx, device), _on(off, device), mode, _on(psw, device),
                                  include_last, padding_idx)
    for a, e in zip(got, want, strict=True):
        assert_close(a, _on(e, device), rtol=1e-5, atol=1e-6)
    g = make_tensor(*want[0].shape, seed=14)
    bargs = (5, mode, psw, include_last, padding_idx)
    gw = get_op("embedding_bag_backward")(g, idx, off, want[1], want[2], *bargs)
    gd = get_op("embedding_bag_backward")(_on(g, device), _on(idx, device), _on(off, device), _on(want[1], device),
                                          _on(want[2], device), 5, mode, _on(psw, device), include_last, padding_idx)
    assert_close(gd, _on(gw, device), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_backward_of_no_indices_and_a_raw_padding_idx(device):
    # no indices at all (an empty table's padding_idx 0) is an empty gradient; aten's padding_idx is compared with
    # the indices as given (-3 of 4 rows is no row)
    g = get_op("embedding_backward")(E.ones(0, 3, device=device), E.tensor([], dtype=E.int64, device=device), 0, 0)
    assert tuple(g.shape) == (0, 3) and g.device.type == device
    g = get_op("embedding_backward")(E.ones(2, 3, device=device), E.tensor([1, 3], device=device), 4, -3)
    assert g.cpu().tolist() == [[0.0] * 3, [1.0] * 3, [0.0] * 3, [1.0] * 3]
