"""batch/layer/group norm and their backward ops on both devices: CUDA must match the CPU, the
running statistics included. CUDA simulator."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]
TOL = {"rtol": 1e-4, "atol": 1e-5}


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


def _close_all(actual, expected, device):
    for a, e in zip(actual, expected, strict=True):
        assert a.device.type == device
        assert_close(a, _on(e, device), **TOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_and_backward(training, affine, device):
    x = make_tensor(3, 2, 2, 2, seed=1)
    w, b = (make_tensor(2, seed=2), make_tensor(2, seed=3)) if affine else (None, None)
    rm, rv = make_tensor(2, seed=4), make_tensor(2, low=0.5, high=2, seed=5)
    rm_d, rv_d = _on(rm.clone(), device), _on(rv.clone(), device)
    args = (training, 0.1, 1e-5)
    want = get_op("batch_norm")(x, w, b, rm, rv, *args)
    got = get_op("batch_norm")(_on(x, device), _on(w, device), _on(b, device), rm_d, rv_d, *args)
    _close_all(got, want, device)
    _close_all((rm_d, rv_d), (rm, rv), device)
    g = make_tensor(*x.shape, seed=6)
    want_b = get_op("batch_norm_backward")(g, x, w, want[1], want[2], training)
    got_b = get_op("batch_norm_backward")(_on(g, device), _on(x, device), _on(w, device), _on(want[1], device),
                                          _on(want[2], device), training)
    _close_all(got_b, want_b, device)


@pytest.mark.parametrize("device", DEVICES)
def test_layer_norm_and_backward(device):
    x = make_tensor(2, 3, 4, seed=7)
    w, b = make_tensor(3, 4, seed=8), make_tensor(3, 4, seed=9)
    want = get_op("layer_norm")(x, (3, 4), w, b, 1e-5)
    got = get_op("layer_norm")(_on(x, device), (3, 4), _on(w, device), _on(b, device), 1e-5)
    _close_all(got, want, device)
    g = make_tensor(2, 3, 4, seed=10)
    want_b = get_op("layer_norm_backward")(g, x, (3, 4), want[1], want[2], w)
    got_b = get_op("layer_norm_backward")(_on(g, device), _on(x, device), (3, 4), _on(want[1], device),
                                          _on(want[2], device), _on(w, device))
    _close_all(got_b, want_b, device)


@pytest.mark.parametrize("device", DEVICES)
def test_group_norm_and_backward(device):
    x = make_tensor(2, 4, 3, seed=11)
    w, b = make_tensor(4, seed=12), make_tensor(4, seed=13)
    want = get_op("group_norm")(x, w, b, 2, 1e-5)
    got = get_op("group_norm")(_on(x, device), _on(w, device), _on(b, device), 2, 1e-5)
    _close_all(got, want, device)
    g = make_tensor(2, 4, 3, seed=14)
    want_b = get_op("group_norm_backward")(g, x, want[1], want[2], w, 2)
    got_b = get_op("group_norm_backward")(_on(g, device), _on(x, device), _on(want[1], device),
                                          _on(want[2], device), _on(w, device), 2)
    _close_all(got_b, want_b, device)


def _large_mean(*shape):
    """1e4 +- 1e-2: a float32 mean is off by 5e-4, 5% of the spread."""
    rng = np.random.default_rng(7)
    return E.tensor((1e4 + 1e-2 * rng.standard_normal(shape)).astype(np.float32))


def _normalized(x: np.ndarray, axes) -> np.ndarray:
    x = x.astype(np.float64)
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_norms_of_a_large_mean_match_float64(device):
    x = _large_mean(4, 3, 5)
    a = x.numpy()
    cases = [(get_op("batch_norm")(_on(x, device), None, None, None, None, True, 0.1, 1e-5)[0], (0, 2)),
             (get_op("layer_norm")(_on(x, device), (3, 5), None, None, 1e-5)[0], (1, 2)),
             (get_op("group_norm")(_on(x, device), None, None, 3, 1e-5)[0], (2,))]
    for out, axes in cases:
        np.testing.assert_allclose(out.cpu().numpy(), _normalized(a, axes), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_norm_backward_of_a_large_mean_matches_float64(device):
    x, g = _large_mean(6, 2), make_tensor(6, 2, seed=9)
    _, mean, invstd = get_op("batch_norm")(x, None, None, None, None, True, 0.1, 1e-5)
    gi = get_op("batch_norm_backward")(_on(g, device), _on(x, device), None, _on(mean, device),
                                       _on(invstd, device), True)[0]
    a, ga = x.numpy().astype(np.float64), g.numpy().astype(np.float64)
    xhat = _normalized(a, (0,))
    r = 1 / np.sqrt(a.var(0) + 1e-5)
    want = r * (ga - ga.mean(0) - xhat * (ga * xhat).mean(0))
    np.testing.assert_allclose(gi.cpu().numpy(), want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("training", [True, False])
def test_mixed_dtype_batch_norm_on_cuda_matches_the_cpu(training):
    # a float16 input with float32 parameters and statistics: the output and input gradient float16, the
    # statistics and parameter gradients float32, the CPU kernels' values
    x = make_tensor(3, 2, 2, 2, seed=1).half()
    w, b = make_tensor(2, seed=2), make_tensor(2, seed=3)
    rm, rv = make_tensor(2, seed=4), make_tensor(2, low=0.5, high=2, seed=5)
    rm_d, rv_d = _on(rm.clone(), "cuda"), _on(rv.clone(), "cuda")
    want = get_op("batch_norm")(x, w, b, rm, rv, training, 0.1, 1e-5)
    got = get_op("batch_norm")(_on(x, "cuda"), _on(w, "cuda"), _on(b, "cuda"), rm_d, rv_d, training, 0.1, 1e-5)
    assert [t.dtype for t in got] == [E.float16, E.float32, E.float32]
    assert_close(got[0].float(), _on(want[0].float(), "cuda"), rtol=2e-3, atol=2e-3)
    _close_all(got[1:], want[1:], "cuda")
    _close_all((rm_d, rv_d), (rm, rv), "cuda")
    g = make_tensor(*x.shape, seed=6).half()
    want_b = get_op("batch_norm_backward")(g, x, w, want[1], want[2], training)
    got_b = get_op("batch_norm_backward")(_on(g, "cuda"), _on(x, "cuda"), _on(w, "cuda"), got[1], got[2], training)
    assert [t.dtype for t in got_b] == [E.float16, E.float32, E.float32]
    assert_close(got_b[0].float(), _on(want_b[0].float(), "cuda"), rtol=2e-3, atol=2e-3)
    _close_all(got_b[1:], want_b[1:], "cuda")
