"""The depthwise convolution kernels' thread budget (conv.py's `_depthwise_run`): a small layer runs them on one
thread, a large one on all, with the same bits either way; values against PyTorch where it is installed."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import conv as C

# MobileNetV2's depthwise layers at the bench's small size (batch 8): (input shape, stride)
LAYERS = [((8, 36, 32, 32), 1), ((8, 36, 32, 32), 2), ((8, 48, 16, 16), 1), ((8, 144, 8, 8), 2), ((8, 240, 4, 4), 1)]


def _run_all(x: np.ndarray, w: np.ndarray, g: np.ndarray, stride: int) -> tuple:
    args = ((stride, stride), (1, 1), (1, 1), x.shape[1])
    y = C.conv2d_op(E.from_numpy(x), E.from_numpy(w), None, *args).numpy()
    gi = C.conv2d_backward_input(E.from_numpy(g), E.from_numpy(w), x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(E.from_numpy(g), E.from_numpy(x), w.shape, *args).numpy()
    return y, gi, gw


def _layer(shape: tuple, stride: int, dtype=np.float32) -> tuple:
    rng = np.random.default_rng(shape[1] + stride)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((shape[1], 1, 3, 3)).astype(dtype)
    ho = (shape[2] + 2 - 3) // stride + 1
    g = rng.standard_normal((shape[0], shape[1], ho, ho)).astype(dtype)
    return x, w, g


@pytest.fixture
def thread_calls(monkeypatch):
    """Every `numba.set_num_threads` call the depthwise launcher makes, as a list of counts."""
    import numba

    calls = []
    real = numba.set_num_threads
    monkeypatch.setattr(numba, "set_num_threads", lambda n: calls.append(n) or real(n))
    return calls


@pytest.mark.parametrize("shape,stride", LAYERS)
def test_small_layer_runs_on_one_thread_and_restores_the_count(shape, stride, thread_calls):
    import numba

    if numba.get_num_threads() < 2:
        pytest.skip("one thread only: nothing to restrict")
    before = numba.get_num_threads()
    _run_all(*_layer(shape, stride), stride)
    assert thread_calls == [1, before] * 3  # forward, input gradient, weight gradient
    assert numba.get_num_threads() == before


def test_large_layer_keeps_every_thread(thread_calls, monkeypatch):
    monkeypatch.setattr(C, "_DEPTHWISE_PARALLEL_MIN", 0)
    _run_all(*_layer((2, 8, 8, 8), 1), 1)
    assert thread_calls == []


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,stride", LAYERS)
def test_one_thread_and_all_threads_give_the_same_bits(shape, stride, dtype, monkeypatch):
    x, w, g = _layer(shape, stride, dtype)
    one = _run_all(x, w, g, stride)
    monkeypatch.setattr(C, "_DEPTHWISE_PARALLEL_MIN", 0)
    every = _run_all(x, w, g, stride)
    for a, b in zip(one, every):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape,stride", LAYERS)
def test_depthwise_forward_and_gradients_match_torch(shape, stride):
    torch = pytest.importorskip("torch")
    x, w, g = _layer(shape, stride)
    y, gi, gw = _run_all(x, w, g, stride)
    tx, tw = torch.from_numpy(x).requires_grad_(True), torch.from_numpy(w).requires_grad_(True)
    ty = torch.nn.functional.conv2d(tx, tw, None, stride, 1, 1, shape[1])
    ty.backward(torch.from_numpy(g))
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gi, tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw, tw.grad.numpy(), rtol=1e-4, atol=1e-3)  # sums over the batch's planes
