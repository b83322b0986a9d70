"""mse_loss and its backward op on the CPU run their composed ops' kernels at once where nothing would see those ops
(`dispatch.untracked`), with the dispatched ops' bits; call budgets (counted calls, not time) guard the gain.

Measured when set (Python/C calls) on 10x10 float32, against the dispatched ops (in brackets): forward 23/34 (36/73),
recorded 27/50 (40/74), recorded with `.backward()` 70/151 (91/188). The budgets leave about 15%.
"""

import numpy as np
import pytest

import ember.autograd as E
from call_budget import count_calls as _count, cpu_only_process  # noqa: F401 - the fixture
from ember.core.dispatch import get_op
from ember.core.testing import watching

pytestmark = pytest.mark.usefixtures("cpu_only_process")

mse_loss = get_op("mse_loss")


def _bytes(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _run(a, b, reduction, grad, watch):
    x, t = E.tensor(a, requires_grad=grad), E.tensor(b)
    if watch:
        with watching():
            y = mse_loss(x, t, reduction)
            if grad:
                (y.sum() if reduction == "none" else y).backward()
    else:
        y = mse_loss(x, t, reduction)
        if grad:
            (y.sum() if reduction == "none" else y).backward()
    return y.detach().numpy(), None if x.grad is None else x.grad.numpy()


@pytest.mark.parametrize("shape", [(32, 64), (7,), (), (3, 5, 1000), (0, 3)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_same_bits_as_the_dispatched_ops(shape, dt, reduction):
    rng = np.random.default_rng(len(shape))
    a, b = rng.standard_normal(shape).astype(dt), rng.standard_normal(shape).astype(dt)
    if a.size > 2:
        a.flat[0], a.flat[1] = np.inf, np.nan  # silently, as the dispatched kernels
    for grad in (False, True):
        (y, g), (wy, wg) = _run(a, b, reduction, grad, False), _run(a, b, reduction, grad, True)
        assert y.dtype == wy.dtype and y.shape == wy.shape and _bytes(y) == _bytes(wy)
        assert (g is None) == (wg is None) == (not grad)
        if grad:
            assert _bytes(g) == _bytes(wg)


def test_empty_mean_has_an_empty_gradient():
    """PyTorch's gradient of an empty mean is empty (its norm 2 / 0 is never used): no ZeroDivisionError."""
    x = E.zeros(0, 3, requires_grad=True)
    mse_loss(x, E.zeros(0, 3), "mean").backward()
    assert x.grad.shape == (0, 3)


def test_broadcast_and_mixed_dtypes_dispatch_the_ops():
    """Operands of another shape or dtype take the composed ops (their broadcast and promotion), with numpy's
    values."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.0, 2.0, 4.0])
    got = mse_loss(E.tensor(a), E.tensor(b), "none")
    assert got.dtype == E.float64
    np.testing.assert_array_equal(got.numpy(), (a - b) ** 2)


BUDGETS = {"forward": (27, 40), "recorded": (31, 58), "recorded and backward": (81, 174)}


@pytest.mark.parametrize("name", list(BUDGETS))
def test_call_stays_within_its_budget(name):
    rng = np.random.default_rng(0)
    a = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
    b = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
    ag = a.clone().requires_grad_(True)
    fn = {"forward": lambda: mse_loss(a, b, "mean"), "recorded": lambda: mse_loss(ag, b, "mean"),
          "recorded and backward": lambda: mse_loss(ag, b, "mean").backward()}[name]
    got, budget = _count(fn), BUDGETS[name]
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{name}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")
