"""pad_nd and upsample (+ backward), the LSTM/GRU cells and the LSTM layer (+ backward), isclose, trace, isin,
masked_scatter and embedding_renorm_ on both devices: CUDA must match the CPU. CUDA simulator."""

from __future__ import annotations

import functools

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
    if not isinstance(expected, tuple):
        expected, actual = (expected,), (actual,)
    for a, e in zip(actual, expected, strict=True):
        assert a.device.type == device
        assert_close(a, _on(e, device), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("pad", "mode"), [((1, 2), "constant"), ((2, 1, 1, 0), "reflect"), ((1, 1), "replicate"),
                                           ((2, 2, 1, 1), "circular"), ((-1, 1), "constant")])
def test_pad_and_backward(pad, mode, device):
    x = make_tensor(2, 3, 4, seed=1, noncontiguous=True)
    _both(lambda t: get_op("pad_nd")(t, pad, mode, 0.5), device, x)
    y = get_op("pad_nd")(x, pad, mode, 0.5)
    g = make_tensor(*y.shape, seed=2)
    _both(lambda gg: get_op("pad_nd_backward")(gg, x.shape, pad, mode), device, g)


@pytest.mark.parametrize("device", DEVICES)
def test_lstm_and_gru_cells_and_backward(device):
    n, h = 3, 2
    ig, hg = make_tensor(n, 4 * h, seed=3), make_tensor(n, 4 * h, seed=4)
    cx, ib = make_tensor(n, h, seed=5), make_tensor(4 * h, seed=6)
    _both(lambda a, b, c, d: get_op("lstm_cell")(a, b, c, d, None), device, ig, hg, cx, ib)
    hy, cy, ws = get_op("lstm_cell")(ig, hg, cx, ib, None)
    ghy, gcy = make_tensor(n, h, seed=7), make_tensor(n, h, seed=8)
    _both(lambda a, b, c, d, e: get_op("lstm_cell_backward")(a, b, c, d, e), device, ghy, gcy, cx, cy, ws)
    _both(lambda a, c, d, e: get_op("lstm_cell_backward")(a, None, c, d, e), device, ghy, cx, cy, ws)
    gi, gh, hx = make_tensor(n, 3 * h, seed=9), make_tensor(n, 3 * h, seed=10), make_tensor(n, h, seed=11)
    _both(lambda a, b, c: get_op("gru_cell")(a, b, c), device, gi, gh, hx)
    _, gws = get_op("gru_cell")(gi, gh, hx)
    _both(lambda a, b: get_op("gru_cell_backward")(a, b), device, ghy, gws)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_and_backward(device, reverse):
    # the workspace is each device's own layout (the op's doc): each backward reads its own forward's, and the
    # states and every gradient must agree (in float64: float32 gradients differ by 2e-5 through the steps)
    m = functools.partial(make_tensor, dtype=E.float64)
    steps, n, n_in, h = 3, 2, 3, 2
    x = m(steps, n, n_in, seed=12, noncontiguous=True)
    w_ih, w_hh = m(4 * h, n_in, seed=13), m(4 * h, h, seed=14)
    b_ih, b_hh = m(4 * h, seed=15), m(4 * h, seed=16)
    hx, cx = m(n, h, seed=17), m(n, h, seed=18)
    g_out, ghy, gcy = m(steps, n, h, seed=19), m(n, h, seed=20), m(n, h, seed=21)

    def layer(x, w_ih, w_hh, b_ih, b_hh, hx, cx, g_out, ghy, gcy):
        hs, cs, ws = get_op("lstm_layer")(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse)
        full = get_op("lstm_layer_backward")(g_out, ghy, gcy, x, w_ih, w_hh, cx, hs, cs, ws, reverse, (True,) * 3)
        states = get_op("lstm_layer_backward")(g_out, None, None, x, w_ih, w_hh, cx, hs, cs, ws, reverse,
                                               (False,) * 3)[4:]
        return (hs, cs, *full, *states)

    _both(layer, device, x, w_ih, w_hh, b_ih, b_hh, hx, cx, g_out, ghy, gcy)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reverse", [False, True])
def test_gru_layer_and_backward(device, reverse):
    m = functools.partial(make_tensor, dtype=E.float64)
    steps, n, n_in, h = 3, 2, 3, 2
    x = m(steps, n, n_in, seed=22, noncontiguous=True)
    w_ih, w_hh = m(3 * h, n_in, seed=23), m(3 * h, h, seed=24)
    b_ih, b_hh, hx = m(3 * h, seed=25), m(3 * h, seed=26), m(n, h, seed=27)
    g_out, ghy = m(steps, n, h, seed=28), m(n, h, seed=29)

    def layer(x, w_ih, w_hh, b_ih, b_hh, hx, g_out, ghy):
        hs, ws = get_op("gru_layer")(x, w_ih, w_hh, b_ih, b_hh, hx, reverse)
        full = get_op("gru_layer_backward")(g_out, ghy, x, w_ih, w_hh, ws, reverse, (True,) * 3)
        state = get_op("gru_layer_backward")(g_out, None, x, w_ih, w_hh, ws, reverse, (False,) * 3)[5:]
        return (hs, *full, *state)

    _both(layer, device, x, w_ih, w_hh, b_ih, b_hh, hx, g_out, ghy)


@pytest.mark.parametrize("device", DEVICES)
def test_isclose_and_trace(device):
    a = E.tensor([1.0, float("nan"), float("inf"), 2.0, 1e-9])
    b = E.tensor([1.0 + 1e-7, float("nan"), float("inf"), 2.1, 0.0])
    for equal_nan in (False, True):
        got = E.isclose(_on(a, device), _on(b, device), equal_nan=equal_nan)
        assert got.tolist() == E.isclose(a, b, equal_nan=equal_nan).tolist()
    m = make_tensor(3, 3, dtype=E.int32, seed=12)
    assert E.trace(_on(m, device)).item() == E.trace(m).item()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("mode", "align"), [("nearest", False), ("bilinear", False), ("bilinear", True)])
def test_upsample_and_backward(mode, align, device):
    x = make_tensor(1, 2, 3, 4, seed=13, noncontiguous=True)
    _both(lambda t: get_op("upsample")(t, (5, 7), mode, align, None), device, x)
    g = make_tensor(1, 2, 5, 7, seed=14)
    _both(lambda gg: get_op("upsample_backward")(gg, x.shape, mode, align, None), device, g)


@pytest.mark.parametrize("device", DEVICES)
def test_isin_masked_scatter_embedding_renorm(device):
    e = E.tensor([[1, 5, 3], [7, 3, 0]])
    assert E.isin(_on(e, device), _on(E.tensor([3, 7]), device)).tolist() == E.isin(e, E.tensor([3, 7])).tolist()
    assert E.isin(_on(e, device), 5, invert=True).tolist() == E.isin(e, 5, invert=True).tolist()
    x = make_tensor(2, 3, seed=15)
    m = E.tensor([[True, False, True], [False, True, True]])
    src = make_tensor(6, seed=16)
    _both(lambda t, mm, s: t.masked_scatter(mm, s), device, x, m, src)
    w = make_tensor(4, 3, seed=17)
    wd = _on(w.clone(), device)
    get_op("embedding_renorm_")(w, E.tensor([1, 3, 1]), 1.0, 2.0)
    get_op("embedding_renorm_")(wd, _on(E.tensor([1, 3, 1]), device), 1.0, 2.0)
    assert_close(wd, _on(w, device), rtol=1e-5, atol=1e-6)
