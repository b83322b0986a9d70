"""softmax/log_softmax and cross_entropy/nll_loss with their backward ops on both devices: CUDA must
match the CPU; the CPU is checked against float64 finite differences elsewhere. CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]
TOL = {"rtol": 1e-5, "atol": 1e-6}


def _on(t, device):
    return t if device == "cpu" else (t.to(device) if t is not None else None)


def _both(fn, device, *args):
    expected = fn(*args)
    actual = fn(*(_on(a, device) if isinstance(a, E.Tensor) else a for a in args))
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected, strict=True):
            assert_close(a, _on(e, device), equal_nan=True, **TOL)
    else:
        assert actual.device.type == device
        assert_close(actual, _on(expected, device), equal_nan=True, **TOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_and_backward_along_any_dim(name, dim, device):
    x = make_tensor(2, 3, 5, low=-3, high=3, seed=1, noncontiguous=True)
    g = make_tensor(2, 3, 5, seed=2)
    op, bop = get_op(name), get_op(f"{name}_backward")
    _both(lambda t: op(t, dim), device, x)
    y = op(x, dim)
    _both(lambda a, b: bop(a, b, dim), device, g, y)


@pytest.mark.parametrize("device", DEVICES)
def test_softmax_of_infinities_and_zero_dim(device):
    x = E.tensor([[float("-inf"), 0.0, 1.0], [float("-inf")] * 3])
    _both(lambda t: get_op("softmax")(t, 1), device, x)
    _both(lambda t: get_op("log_softmax")(t, 1), device, x)
    assert get_op("softmax")(_on(E.tensor(2.0), device), 0).item() == 1.0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize(("weighted", "smoothing"), [(False, 0.0), (True, 0.2)])
def test_cross_entropy_class_indices_forward_and_backward(reduction, weighted, smoothing, device):
    x = make_tensor(4, 5, 2, seed=3)
    t = E.tensor([[0, 4], [2, -100], [1, 1], [3, 0]])
    w = make_tensor(5, low=0.5, high=2, seed=4) if weighted else None

    def args(d):  # the weight on the inputs' device: tensors on two devices raise
        return (None if w is None else w.to(d), reduction, -100, smoothing)

    _both(lambda a, b: get_op("cross_entropy")(a, b, *args(a.device)), device, x, t)
    g = make_tensor(4, 2, seed=5) if reduction == "none" else E.tensor(1.5)
    _both(lambda gg, a, b: get_op("cross_entropy_backward")(gg, a, b, *args(a.device)), device, g, x, t)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_probabilities_and_1d_input(reduction, device):
    x = make_tensor(3, 4, seed=6)
    p = E.softmax(make_tensor(3, 4, seed=7), 1)
    args = (None, reduction, -100, 0.1)
    _both(lambda a, b: get_op("cross_entropy")(a, b, *args), device, x, p)
    g = make_tensor(3, seed=8) if reduction == "none" else E.tensor(2.0)
    _both(lambda gg, a, b: get_op("cross_entropy_backward")(gg, a, b, *args), device, g, x, p)
    _both(lambda a: E.cross_entropy(a, E.tensor(2, device=a.device)), device, make_tensor(4, seed=9))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_forward_and_backward(reduction, device):
    x = E.log_softmax(make_tensor(5, 3, seed=10), 1)
    t = E.tensor([0, 2, -100, 1, 2])
    w = make_tensor(3, low=0.5, high=2, seed=11)
    _both(lambda a, b, c: get_op("nll_loss")(a, b, c, reduction, -100), device, x, t, w)
    _, total = get_op("nll_loss")(x, t, w, reduction, -100)
    g = make_tensor(5, seed=12) if reduction == "none" else E.tensor(0.5)
    _both(lambda gg, a, b, c, tw: get_op("nll_loss_backward")(gg, a, b, c, reduction, -100, tw), device, g, x, t, w,
          total)


def test_out_of_range_cuda_target_raises_as_on_the_cpu():
    x = E.zeros(2, 3, device="cuda")
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        E.cross_entropy(x, E.tensor([1, 7], device="cuda"), reduction="none")
    loss = E.cross_entropy(x, E.tensor([1, -100], device="cuda"), reduction="none")  # ignored: no error
    assert abs(loss.tolist()[0] - 1.0986123) < 1e-5 and loss.tolist()[1] == 0.0
