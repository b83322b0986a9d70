"""NOTE [ An LSTM layer's batch split over the threads ] (rnn_cells.py): at more than one thread `lstm_layer`,
`gru_layer` and their backwards run the batch's column pieces on threads of their own, with the unsplit layer's
results and gradients, one fork and one join each."""

import numpy as np
import pytest

import ember.core as E
from ember.core import parallel
from ember.core.ops import rnn_cells as R
from ember.core.ops import workers

STEPS, N, N_IN, H = 8, 37, 24, 128  # 8 * 37 * 128^2 * 4 step multiply-adds: above the split's 2^24


@pytest.fixture
def threads(monkeypatch):
    """Set ember's thread count as the layers read it (`parallel.get_num_threads`), and record every
    `workers.run_all` call's piece count."""
    forks: list[int] = []
    real = workers.run_all
    monkeypatch.setattr(workers, "run_all", lambda calls: forks.append(len(calls)) or real(calls))

    def use(n: int) -> list[int]:
        monkeypatch.setattr(parallel, "get_num_threads", lambda: n)
        forks.clear()
        return forks
    return use


def _args(gates: int, dtype, seed: int) -> list:
    rng = np.random.default_rng(seed)
    shapes = [(STEPS, N, N_IN), (gates * H, N_IN), (gates * H, H), (gates * H,), (gates * H,)] + [(N, H)] * (gates - 2)
    return [E.from_numpy((0.3 * rng.standard_normal(s)).astype(dtype)) for s in shapes]


def _lstm(args, reverse: bool, seed: int) -> list[np.ndarray]:
    hs, cs, ws = R.lstm_layer(*args, reverse)
    rng = np.random.default_rng(seed)
    g_out, g_h, g_c = (E.from_numpy(rng.standard_normal(s).astype(args[0].numpy().dtype))
                       for s in [(STEPS, N, H), (N, H), (N, H)])
    grads = R.lstm_layer_backward(g_out, g_h, g_c, args[0], args[1], args[2], args[6], hs, cs, ws, reverse,
                                  (True, True, True))
    return [t.numpy() for t in (hs, cs, ws, *grads)]


def _gru(args, reverse: bool, seed: int) -> list[np.ndarray]:
    hs, ws = R.gru_layer(*args, reverse)
    rng = np.random.default_rng(seed)
    g_out, g_h = (E.from_numpy(rng.standard_normal(s).astype(args[0].numpy().dtype)) for s in [(STEPS, N, H), (N, H)])
    grads = R.gru_layer_backward(g_out, g_h, args[0], args[1], args[2], ws, reverse, (True, True, True))
    return [t.numpy() for t in (hs, ws, *grads)]


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("layer,gates", [(_lstm, 4), (_gru, 3)])
def test_split_layer_matches_the_unsplit_one(threads, layer, gates, reverse, dtype, rtol):
    args = _args(gates, dtype, 7)
    forks = threads(1)
    want = layer(args, reverse, 8)
    assert forks == []
    forks = threads(2)
    got = layer(args, reverse, 8)
    assert forks == [2, 2]  # the forward's pieces and the backward's, one fork each
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def test_split_lstm_keeps_its_cell_states_a_view_of_the_workspace(threads):
    threads(2)
    hs, cs, ws = R.lstm_layer(*_args(4, np.float32, 3), False)
    assert cs._storage is ws._storage
    np.testing.assert_array_equal(cs.numpy(), ws.numpy()[:, 5 * H:].transpose(0, 2, 1))


def test_batch_parts_and_column_slices(threads):
    threads(4)
    assert R._batch_parts(STEPS, N, H) == 2  # at most one piece a 16 columns
    assert R._batch_parts(STEPS, 64, H) == 4
    assert R._batch_parts(STEPS, 31, H) == 1  # pieces under 16 columns cost more than they gain
    assert R._batch_parts(2, 32, 32) == 1  # 2^17 step multiply-adds: not worth a worker's wake-up
    assert workers._executor(1).submit(R._batch_parts, STEPS, 64, H).result() == 1  # a worker runs its piece whole
    threads(1)
    assert R._batch_parts(STEPS, 64, H) == 1
    assert R._column_slices(37, 2) == [slice(0, 16), slice(16, 37)]
    assert R._column_slices(64, 3) == [slice(0, 16), slice(16, 32), slice(32, 64)]
