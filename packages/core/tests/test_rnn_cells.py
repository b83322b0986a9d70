"""Fused LSTM/GRU cell gates against float64 references of PyTorch's cell equations; their
backward ops against central differences of the forward."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import rnn_cells as R


def T(a):
    return E.from_numpy(np.array(a))


def sig(x):
    return 1 / (1 + np.exp(-x))


def ref_lstm(ig, hg, cx, bi, bh):
    i, f, g, o = np.split(ig + hg + bi + bh, 4, axis=1)
    cy = sig(f) * cx + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(cy), cy


def ref_gru(ig, hg, hx, bi, bh):
    ir, iz, in_ = np.split(ig + bi, 3, axis=1)
    hr, hz, hn = np.split(hg + bh, 3, axis=1)
    r, z = sig(ir + hr), sig(iz + hz)
    n = np.tanh(in_ + r * hn)
    return (1 - z) * n + z * hx


def vjp_check(f, x, vjp, eps=1e-6, seed=0):
    """f maps x to a scalar <g, out>; compare <vjp, v> with its directional derivative."""
    rng = np.random.default_rng(seed)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        assert np.isclose(np.sum(vjp * v), (f(x + eps * v) - f(x - eps * v)) / (2 * eps), rtol=1e-6, atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.booleans(), st.booleans(), st.booleans())
def test_lstm_cell_matches_reference_and_backward(n, h, bias, use_ghy, use_gcy):
    rng = np.random.default_rng(0)
    ig, hg = rng.standard_normal((n, 4 * h)), rng.standard_normal((n, 4 * h))
    cx = rng.standard_normal((n, h))
    bi, bh = (rng.standard_normal(4 * h), rng.standard_normal(4 * h)) if bias else (np.zeros(4 * h),) * 2
    hy, cy, ws = R.lstm_cell(T(ig), T(hg), T(cx), T(bi) if bias else None, T(bh) if bias else None)
    want_h, want_c = ref_lstm(ig, hg, cx, bi, bh)
    np.testing.assert_allclose(hy.numpy(), want_h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cy.numpy(), want_c, rtol=1e-12, atol=1e-12)
    ghy, gcy = rng.standard_normal((n, h)), rng.standard_normal((n, h))
    ghy, gcy = (ghy if use_ghy else None), (gcy if use_gcy else None)
    gg, gcx = R.lstm_cell_backward(T(ghy) if use_ghy else None, T(gcy) if use_gcy else None, T(cx), cy, ws)

    def loss(ig_, hg_, cx_):
        a, b = ref_lstm(ig_, hg_, cx_, bi, bh)
        return (np.sum(ghy * a) if use_ghy else 0.0) + (np.sum(gcy * b) if use_gcy else 0.0)

    vjp_check(lambda x: loss(x, hg, cx), ig, gg.numpy())
    vjp_check(lambda x: loss(ig, x, cx), hg, gg.numpy())
    vjp_check(lambda x: loss(ig, hg, x), cx, gcx.numpy())


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.booleans())
def test_gru_cell_matches_reference_and_backward(n, h, bias):
    rng = np.random.default_rng(1)
    ig, hg = rng.standard_normal((n, 3 * h)), rng.standard_normal((n, 3 * h))
    hx = rng.standard_normal((n, h))
    bi, bh = (rng.standard_normal(3 * h), rng.standard_normal(3 * h)) if bias else (np.zeros(3 * h),) * 2
    hy, ws = R.gru_cell(T(ig), T(hg), T(hx), T(bi) if bias else None, T(bh) if bias else None)
    np.testing.assert_allclose(hy.numpy(), ref_gru(ig, hg, hx, bi, bh), rtol=1e-12, atol=1e-12)
    assert ws.shape == (n, 5 * h)
    g = rng.standard_normal((n, h))
    gi, gh, ghx = (t.numpy() for t in R.gru_cell_backward(T(g), ws))
    vjp_check(lambda x: np.sum(g * ref_gru(x, hg, hx, bi, bh)), ig, gi)
    vjp_check(lambda x: np.sum(g * ref_gru(ig, x, hx, bi, bh)), hg, gh)
    vjp_check(lambda x: np.sum(g * ref_gru(ig, hg, x, bi, bh)), hx, ghx)
    vjp_check(lambda x: np.sum(g * ref_gru(ig, hg, hx, x, bh)), bi, gi.sum(0))
    vjp_check(lambda x: np.sum(g * ref_gru(ig, hg, hx, bi, x)), bh, gh.sum(0))


def test_cells_keep_float32_and_reject_mismatched_gates():
    rng = np.random.default_rng(2)
    hy, cy, _ = E._thnn_fused_lstm_cell(T(rng.standard_normal((2, 8)).astype(np.float32)),
                                        T(rng.standard_normal((2, 8)).astype(np.float32)),
                                        T(rng.standard_normal((2, 2)).astype(np.float32)))
    assert hy.dtype is E.float32 and cy.dtype is E.float32
    with pytest.raises(RuntimeError, match=r"gru_cell: expected input_gates and hidden_gates of shape \(N, 3\*H\)"):
        E._thnn_fused_gru_cell(E.zeros(2, 6), E.zeros(2, 5), E.zeros(2, 2))


def test_lstm_cell_saturates_without_warnings_and_propagates_nan():
    """The gates' exp-based sigmoid and tanh overflow to inf for large pre-activations: the results
    are the limits (0, 1, -1), silently, and a NaN gate stays NaN, as np.tanh and PyTorch give."""
    big = np.float32(1e4)
    ig = np.array([[big, -big, big, big], [-big, big, -big, big], [np.nan, 0, 0, 0]], np.float32)
    hg = np.zeros_like(ig)
    cx = np.array([[0.5], [0.5], [0.5]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hy, cy, ws = R.lstm_cell(T(ig), T(hg), T(cx))
    np.testing.assert_array_equal(ws.numpy()[:2], [[1, 0, 1, 1], [0, 1, -1, 1]])
    np.testing.assert_allclose(cy.numpy()[:2, 0], [1.0, 0.5])
    np.testing.assert_allclose(hy.numpy()[:2, 0], np.tanh([1.0, 0.5]), rtol=1e-6)
    assert np.isnan(ws.numpy()[2, 0]) and np.isnan(hy.numpy()[2, 0]) and np.isnan(cy.numpy()[2, 0])
    with np.errstate(over="ignore"):
        hy64, _ = ref_lstm(ig[:2].astype(np.float64), 0, cx[:2], 0, 0)
    np.testing.assert_allclose(hy.numpy()[:2], hy64, rtol=1e-6)


def ref_layer(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse):
    """float64 outputs and cell states of one LSTM layer direction, step by step."""
    hs, cs = [None] * len(x), [None] * len(x)
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        h, c = ref_lstm(x[t] @ w_ih.T, h @ w_hh.T, c, b_ih, b_hh)
        hs[t], cs[t] = h, c
    return np.stack(hs), np.stack(cs)


def _layer_args(rng, steps, n, n_in, h, scale=1.0):
    shapes = [(steps, n, n_in), (4 * h, n_in), (4 * h, h), (4 * h,), (4 * h,), (n, h), (n, h)]
    return [scale * rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_matches_reference_and_backward(reverse):
    rng = np.random.default_rng(1)
    steps, n, h = 4, 3, 2
    args = _layer_args(rng, steps, n, 3, h)
    hs, cs, ws = R.lstm_layer(*map(T, args), reverse)
    want_h, want_c = ref_layer(*args, reverse)
    np.testing.assert_allclose(hs.numpy()[:steps] if reverse else hs.numpy()[1:], want_h, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(hs.numpy()[steps if reverse else 0], args[5])
    np.testing.assert_allclose(cs.numpy(), want_c, rtol=1e-13, atol=1e-13)
    g_out, g_hn, g_cn = rng.standard_normal((steps, n, h)), rng.standard_normal((n, h)), rng.standard_normal((n, h))
    last = 0 if reverse else steps - 1

    def loss(k, a):
        full = list(args)
        full[k] = a
        o, c = ref_layer(*full, reverse)
        return np.sum(o * g_out) + np.sum(o[last] * g_hn) + np.sum(c[last] * g_cn)

    grads = [t.numpy() for t in R.lstm_layer_backward(T(g_out), T(g_hn), T(g_cn), T(args[0]), T(args[1]), T(args[2]),
                                                     T(args[6]), hs, cs, ws, reverse, (True, True, True))]
    for k, got in zip(range(7), [grads[0], grads[1], grads[2], grads[3], grads[3], grads[4], grads[5]]):
        vjp_check(lambda a, k=k: loss(k, a), args[k], got)
    masked = R.lstm_layer_backward(T(g_out), None, None, T(args[0]), T(args[1]), T(args[2]), T(args[6]), hs, cs, ws,
                                   reverse, (False, False, False))
    assert masked[:4] == (None,) * 4


def test_lstm_layer_float32_within_rounding_and_saturating():
    """float32 gates go through the kernel's own vectorized exp: within a few float32 ulps of the
    float64 reference, and gate pre-activations of +-1e4 saturate to 0 and 1 without inf or NaN."""
    rng = np.random.default_rng(2)
    args = _layer_args(rng, 5, 4, 6, 8, scale=2.0)
    hs, cs, _ = R.lstm_layer(*(T(a.astype(np.float32)) for a in args), False)
    want_h, want_c = ref_layer(*args, False)
    assert hs.dtype == E.float32
    np.testing.assert_allclose(hs.numpy()[1:], want_h, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(cs.numpy(), want_c, rtol=2e-5, atol=2e-6)
    big = [a.astype(np.float32) for a in args]
    big[1] *= 1e4
    hs, cs, ws = R.lstm_layer(*map(T, big), False)
    with np.errstate(over="ignore"):
        want_h, want_c = ref_layer(*[a.astype(np.float64) for a in big], False)
    assert np.isfinite(ws.numpy()).all()
    np.testing.assert_allclose(hs.numpy()[1:], want_h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(cs.numpy(), want_c, rtol=1e-5, atol=1e-5)


def test_lstm_layer_bad_shapes_raise():
    rng = np.random.default_rng(3)
    args = [T(a) for a in _layer_args(rng, 2, 3, 4, 2)]
    args[2] = T(rng.standard_normal((8, 3)))
    with pytest.raises(RuntimeError, match="lstm_layer: expected input"):
        R.lstm_layer(*args, False)


def _fresh_ir(cached, *args) -> str:
    """The optimized LLVM IR of a kernel compiled here on `args` with the cached kernel's options (a kernel loaded
    from Numba's disk cache has none)."""
    import numba

    kernel = numba.njit(**cached.targetoptions)(cached.py_func)
    kernel(*args)
    return "".join(kernel.inspect_llvm().values())


def test_layer_step_kernel_vectorizes_its_gate_loops():
    # forward_step calls the float32 exp (not inlined by Numba, to compile faster): LLVM must still inline and
    # vectorize it, or each gate is one scalar exp at a time
    n, h, t = 2, 16, 2
    rng = np.random.default_rng(0)
    f = np.float32
    gates, gi = rng.standard_normal((n, 4 * h)).astype(f), rng.standard_normal((t, n, 4 * h)).astype(f)
    hs, cs, ws = np.zeros((t, n, h), f), np.zeros((t, n, h), f), np.zeros((t, n, 5 * h), f)
    ir = _fresh_ir(R._layer_kernels()[0], 0, -1, 0, gates, gi, np.zeros(4 * h, f), hs, cs,
                   rng.standard_normal((n, h)).astype(f), ws)
    assert re.search(r"<(4|8|16) x float>", ir)


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_gemms_read_w_hh_in_place_with_the_batch_as_the_short_side(monkeypatch, reverse):
    """NOTE [ lstm_layer's gate-major steps ]: the forward is the input projection and one W_hh @ h_prev^T per step,
    whose left operand is weight_hh's own buffer (no transposed copy per call) and whose result is (4H, N); the
    backward one W_hh^T @ gates' gradient (H, N) per step, all from one row-major copy of W_hh^T made per call (a
    transposed view makes OpenBLAS repack it transposed at every step), and one GEMM each for the input's and the
    weights' gradients over all the steps."""
    rng = np.random.default_rng(4)
    steps, n, h = 6, 3, 5
    args = [T(a.astype(np.float32)) for a in _layer_args(rng, steps, n, 7, h)]
    w_hh = args[2]._np()
    seen, lefts, matmul = [], [], np.matmul

    def recording(a, b, *rest, **kwargs):
        seen.append((a.shape, b.shape, np.shares_memory(a, w_hh)))
        lefts.append(a)
        return matmul(a, b, *rest, **kwargs)

    monkeypatch.setattr(np, "matmul", recording)
    hs, cs, ws = R.lstm_layer(*args, reverse)
    assert seen == [((4 * h, 7), (7, steps * n), False)] + [((4 * h, h), (h, n), True)] * steps
    seen.clear()
    lefts.clear()
    R.lstm_layer_backward(hs[:steps] if reverse else hs[1:], None, None, args[0], args[1], args[2], args[6], hs, cs,
                          ws, reverse, (True, True, True))
    assert seen == [((h, 4 * h), (4 * h, n), False)] * steps + [
        ((steps * n, 4 * h), (4 * h, 7), False), ((4 * h, steps * n), (steps * n, h), False),
        ((4 * h, steps * n), (steps * n, 7), False)]
    w_hh_t = lefts[0]
    assert w_hh_t.flags.c_contiguous and np.array_equal(w_hh_t, w_hh.T)
    assert all(a is w_hh_t for a in lefts[:steps])  # one copy for all the steps


def test_lstm_layer_cell_states_are_a_view_of_its_workspace():
    """lstm_layer's cs is no copy: a strided (L, N, H) view of the c rows the CPU workspace (L, 6H, N) keeps."""
    rng = np.random.default_rng(6)
    steps, n, h = 4, 3, 5
    args = [T(a.astype(np.float32)) for a in _layer_args(rng, steps, n, 7, h)]
    hs, cs, ws = R.lstm_layer(*args, False)
    assert cs._storage is ws._storage and tuple(cs.shape) == (steps, n, h)
    np.testing.assert_array_equal(cs.numpy(), ws.numpy()[:, 5 * h:].transpose(0, 2, 1))
    empty = R.lstm_layer(T(np.zeros((0, n, 7), np.float32)), *args[1:], False)[1]
    assert tuple(empty.shape) == (0, n, h) and empty.numpy().size == 0


def ref_gru_layer(x, w_ih, w_hh, b_ih, b_hh, h, reverse):
    hs = [None] * len(x)
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        h = ref_gru(x[t] @ w_ih.T, h @ w_hh.T, h, b_ih, b_hh)
        hs[t] = h
    return np.stack(hs)


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_layer_matches_reference_and_backward(reverse):
    rng = np.random.default_rng(5)
    steps, n, h = 4, 3, 2
    shapes = [(steps, n, 3), (3 * h, 3), (3 * h, h), (3 * h,), (3 * h,), (n, h)]
    args = [rng.standard_normal(s) for s in shapes]
    hs, ws = R.gru_layer(*map(T, args), reverse)
    np.testing.assert_allclose(hs.numpy()[:steps] if reverse else hs.numpy()[1:], ref_gru_layer(*args, reverse),
                               rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(hs.numpy()[steps if reverse else 0], args[5])
    g_out, g_hn = rng.standard_normal((steps, n, h)), rng.standard_normal((n, h))
    last = 0 if reverse else steps - 1

    def loss(k, a):
        full = list(args)
        full[k] = a
        o = ref_gru_layer(*full, reverse)
        return np.sum(o * g_out) + np.sum(o[last] * g_hn)

    grads = R.gru_layer_backward(T(g_out), T(g_hn), T(args[0]), T(args[1]), T(args[2]), ws, reverse,
                                 (True, True, True))
    for k, got in zip((0, 1, 2, 3, 4, 5), grads):
        vjp_check(lambda a, k=k: loss(k, a), args[k], got.numpy())
    masked = R.gru_layer_backward(T(g_out), None, T(args[0]), T(args[1]), T(args[2]), ws, reverse,
                                  (False, False, False))
    assert masked[:5] == (None,) * 5


def test_gru_layer_float32_within_rounding_and_bad_shapes_raise():
    rng = np.random.default_rng(6)
    shapes = [(5, 4, 6), (24, 6), (24, 8), (24,), (24,), (4, 8)]
    args = [2.0 * rng.standard_normal(s) for s in shapes]
    hs, _ = R.gru_layer(*(T(a.astype(np.float32)) for a in args), False)
    assert hs.dtype == E.float32
    np.testing.assert_allclose(hs.numpy()[1:], ref_gru_layer(*args, False), rtol=2e-5, atol=2e-6)
    bad = [T(a) for a in args]
    bad[2] = T(rng.standard_normal((24, 7)))
    with pytest.raises(RuntimeError, match="gru_layer: expected input"):
        R.gru_layer(*bad, False)


def test_gru_layer_weight_gradients_are_one_gemm_each_over_all_steps(monkeypatch):
    """gru_layer's backward: one W_hh^T @ hidden gates' gradient (H, N) per step, all from one row-major copy of W_hh^T,
    then one GEMM each for the input's and both weights' gradients over all the steps (the recorded steps took a GEMM
    per step and weight)."""
    rng = np.random.default_rng(7)
    steps, n, h = 6, 3, 5
    shapes = [(steps, n, 7), (3 * h, 7), (3 * h, h), (3 * h,), (3 * h,), (n, h)]
    args = [T(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    w_hh = args[2]._np()
    seen, lefts, matmul = [], [], np.matmul

    def recording(a, b, *rest, **kwargs):
        seen.append((a.shape, b.shape, np.shares_memory(a, w_hh)))
        lefts.append(a)
        return matmul(a, b, *rest, **kwargs)

    monkeypatch.setattr(np, "matmul", recording)
    hs, ws = R.gru_layer(*args, False)
    assert seen == [((3 * h, 7), (7, steps * n), False)] + [((3 * h, h), (h, n), True)] * steps
    seen.clear()
    lefts.clear()
    R.gru_layer_backward(hs[1:], None, args[0], args[1], args[2], ws, False, (True, True, True))
    assert lefts[0].flags.c_contiguous and np.array_equal(lefts[0], w_hh.T)
    assert all(a is lefts[0] for a in lefts[:steps])
    assert seen == [((h, 3 * h), (3 * h, n), False)] * steps + [
        ((steps * n, 3 * h), (3 * h, 7), False), ((3 * h, steps * n), (steps * n, h), False),
        ((3 * h, steps * n), (steps * n, 7), False)]


def test_gate_major_layer_step_vectorizes_its_gate_loops():
    # lstm_layer's gate-major step: its flat activation loops call the float32 exp and must stay SIMD loops
    n, h, t = 4, 16, 2
    rng = np.random.default_rng(0)
    f = np.float32
    gates, gi = rng.standard_normal((4 * h, n)).astype(f), rng.standard_normal((4 * h, t * n)).astype(f)
    hs, ws = np.zeros((t, h, n), f), np.zeros((t, 6 * h, n), f)
    ir = _fresh_ir(R._layer_kernels()[1], 0, -1, 0, gates, gi, np.zeros(4 * h, f), hs,
                   rng.standard_normal((h, n)).astype(f), ws)
    assert re.search(r"<(4|8|16) x float>", ir)
