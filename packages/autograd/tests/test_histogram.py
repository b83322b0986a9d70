"""histogram / histogramdd of tensors that require grad: PyTorch's refusing `NotImplemented` node on every result."""

import pytest

import ember.autograd as E


def test_histogram_results_carry_a_refusing_node():
    w = E.tensor([0.1, 0.5, 0.9, 0.3], requires_grad=True)
    hist, edges = E.histogram(w, 3)
    assert hist.requires_grad and edges.requires_grad
    assert type(hist.grad_fn).__name__ == type(edges.grad_fn).__name__ == "NotImplemented"
    assert repr(hist.grad_fn).startswith("<NotImplemented object at 0x")
    assert hist.tolist() == [2.0, 1.0, 1.0]  # the counts are core's
    with pytest.raises(RuntimeError, match="^derivative for aten::histogram is not implemented$"):
        hist.sum().backward()
    assert type(w.histogram(E.tensor([0.0, 0.5, 1.0])).hist.grad_fn).__name__ == "NotImplemented"
    weighted = E.histogram(E.tensor([1.0, 2.0]), 3, weight=w[:2])
    assert weighted.bin_edges.requires_grad


def test_histogram_records_nothing_without_grad():
    w = E.tensor([0.1, 0.5], requires_grad=True)
    with E.no_grad():
        assert not E.histogram(w, 2).hist.requires_grad
    assert E.histogram(w.detach(), 2).hist.grad_fn is None


def test_histogramdd_names_its_aten_op():
    w = E.tensor([[0.1, 0.5], [0.9, 0.3]], requires_grad=True)
    r = E.histogramdd(w, [2, 2])
    assert [type(e.grad_fn).__name__ for e in (r.hist, *r.bin_edges)] == ["NotImplemented"] * 3
    with pytest.raises(RuntimeError, match="^derivative for aten::_histogramdd_from_bin_cts is not implemented$"):
        r.hist.sum().backward()
    r = E.histogramdd(w, [E.tensor([0.0, 1.0]), E.tensor([0.0, 1.0])])
    with pytest.raises(RuntimeError, match="aten::_histogramdd_from_bin_tensors is not"):
        r.hist.sum().backward()
