"""nll_loss's 16-bit reductions replay PyTorch's cascade sum (NOTE [ nll_loss's cascade sum ]), checked against a
literal transcription of PyTorch's loop and against PyTorch 2.13's printed losses."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops._cascade_sum import cascade_sum

ml_dtypes = pytest.importorskip("ml_dtypes")


def _pytorch_loop(values, counted, dt):
    """PyTorch's nll_loss_out_frame summation, element by element in `dt`."""
    n = len(values)
    power = max(4, (n - 1).bit_length() // 8)
    mask = (1 << power) - 1
    parts = [dt.type(0)] * 8
    for i in range(n):
        if not counted[i]:
            continue
        parts[0] = dt.type(parts[0] + values[i])
        for j in range(7):
            if i & (mask << (j * power)):
                break
            parts[j + 1] = dt.type(parts[j + 1] + parts[j])
            parts[j] = dt.type(0)
    total = dt.type(0)
    for p in parts:
        total = dt.type(total + p)
    return total


@pytest.mark.parametrize("dt", [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)])
@pytest.mark.parametrize("n", [1, 17, 300, 5000])
def test_cascade_sum_is_pytorchs_loop(dt, n):
    rng = np.random.default_rng(n)
    values = (rng.standard_normal(n) * 4).astype(dt)
    counted = rng.random(n) > 0.25
    counted[::16] &= rng.random(counted[::16].size) > 0.5  # ignored elements at flush positions skip the flush
    index = np.flatnonzero(counted)
    got = cascade_sum(values[index], index, n)
    assert got.dtype == dt
    assert float(got) == float(_pytorch_loop(values, counted, dt))


@pytest.mark.parametrize("dt", [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)])
def test_cascade_sum_with_every_flush_position_ignored_runs_in_order(dt):
    n = 3000
    values = (np.random.default_rng(1).standard_normal(n) * 4).astype(dt)
    counted = np.arange(n) % 16 != 0  # no run ever closes: one long left-to-right sum per level
    index = np.flatnonzero(counted)
    assert float(cascade_sum(values[index], index, n)) == float(_pytorch_loop(values, counted, dt))


def _inputs():
    x = (E.sin(E.arange(2 * 3 * 40, dtype=E.float32) * 0.7) * 3).reshape(2, 3, 40)
    t = (E.arange(80) * 7 % 3).reshape(2, 40)
    t[:, ::9] = -100
    return x, t


@pytest.mark.parametrize("dt, want", [
    (E.bfloat16, [154.0, 2.203125, 2.171875, 2.25, 212.0]),
    (E.float16, [154.625, 2.208984375, 2.162109375, 2.2578125, 211.5]),
])
def test_16bit_spatial_losses_print_pytorchs_values(dt, want):
    x, t = _inputs()
    lp = x.log_softmax(1).to(dt)
    w = E.tensor([0.5, 1.5, 2.0], dtype=dt)
    got = [E.nll_loss(lp, t, reduction="sum"), E.nll_loss(lp, t), E.nll_loss(lp, t, weight=w),
           E.cross_entropy(x.to(dt), t, label_smoothing=0.2),
           E.cross_entropy(x.to(dt), t, label_smoothing=0.2, weight=w, reduction="sum")]
    assert [g.dtype for g in got] == [dt] * 5
    assert [g.item() for g in got] == want


def test_spatial_weight_is_checked_by_count_in_pytorchs_words():
    x, t = _inputs()
    with pytest.raises(RuntimeError, match=r"^weight tensor should be defined either for all or no classes$"):
        E.cross_entropy(x, t, weight=E.ones(4))
    with pytest.raises(RuntimeError, match=r"^cross_entropy: weight tensor should be defined either for all 3 "
                                           r"classes or no classes but got weight tensor of shape: \[2\]$"):
        E.cross_entropy(x, x.softmax(1), weight=E.ones(2))
    flat = E.nll_loss(x.log_softmax(1), t, weight=E.tensor([0.5, 1.5, 2.0]))
    assert E.nll_loss(x.log_softmax(1), t, weight=E.tensor([[0.5], [1.5], [2.0]])).item() == flat.item()
