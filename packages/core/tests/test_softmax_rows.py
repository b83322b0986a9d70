"""The float32 row passes of softmax, log_softmax, their backward ops and class-index cross_entropy
(ember.core.ops.softmax_rows) against float64 numpy, PyTorch's non-finite rows, and core's exp32."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import softmax as S
from ember.core.ops import softmax_rows

INF, NAN = np.inf, np.nan


def T(a):
    return E.from_numpy(np.ascontiguousarray(a))


def ulps(got, ref):
    """|got - ref| in units of the float32 spacing at ref (ref float64)."""
    return np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)


def _x(shape, seed=0, scale=3.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _shifted(x):
    """x - rowmax rounded to float32 as every float32 kernel computes it, then in float64."""
    return (x - x.max(-1, keepdims=True)).astype(np.float64)


@pytest.mark.parametrize("shape", [(4096, 64), (200, 100), (3, 70, 81)])  # 100, 81: rows not a multiple of 8
def test_softmax_and_log_softmax_within_a_few_ulp_of_float64(shape):
    x = _x(shape)
    assert x.size >= softmax_rows._MIN_NUMEL
    z = _shifted(x)
    ref = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    got = E.softmax(T(x), -1).numpy()
    assert got.dtype == np.float32 and got.flags.c_contiguous
    assert ulps(got, ref).max() <= 8  # exp32 within 2 ulp, the sum and the reciprocal: 5 measured
    lref = z - np.log(np.exp(z).sum(-1, keepdims=True))
    lgot = E.log_softmax(T(x), -1).numpy()
    # log of the float32 sum (a few eps absolute), then rounded: 2.1 measured, numpy's float32 path 1.9
    assert (np.abs(lgot - lref) <= 4 * np.finfo(np.float32).eps * (1 + np.abs(lref))).all()


def test_causally_masked_rows_within_a_few_ulp_and_exactly_zero_where_masked():
    # -inf scores (and shifted values just past exp32's cut) take the pass that skips exp32's denormal products
    x = _x((4096, 64), 3)
    x[:, 40:] = -INF
    x[::7, 30:40] = x[::7, :1] - np.float32(104.5)
    z = _shifted(x)
    ref = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    got = E.softmax(T(x), -1).numpy()
    assert (got[:, 40:] == 0).all() and (got[::7, 30:40] == 0).all()
    assert ulps(got[:, :30], ref[:, :30]).max() <= 8
    lgot = E.log_softmax(T(x), -1).numpy()
    assert (lgot[:, 40:] == -INF).all()


def test_backward_ops_match_float64():
    x, g = _x((4096, 64), 1), _x((4096, 64), 2, 1.0)
    y = E.softmax(T(x), 1).numpy()
    got = S.softmax_backward(T(g), T(y), 1).numpy()
    y64, g64 = y.astype(np.float64), g.astype(np.float64)
    ref = g64 * y64 - y64 * (g64 * y64).sum(1, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=0, atol=4e-7 * np.abs(g64).max())
    ly = E.log_softmax(T(x), 1).numpy()
    got = S.log_softmax_backward(T(g), T(ly), 1).numpy()
    ref = g64 - np.exp(ly.astype(np.float64)) * g64.sum(1, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=0, atol=2e-6 * np.abs(ref).max())


def test_cross_entropy_forward_and_backward_match_float64():
    x = _x((1024, 256), 3)
    t = np.random.default_rng(4).integers(0, 256, 1024)
    t[::7] = -100
    w = np.random.default_rng(5).uniform(0.5, 2, 256).astype(np.float32)
    lp = _shifted(x) - np.log(np.exp(_shifted(x)).sum(1, keepdims=True))
    valid = t != -100
    tt = np.where(valid, t, 0)
    wt = w[tt].astype(np.float64) * valid
    for reduction in ("none", "sum", "mean"):
        got = E.cross_entropy(T(x), T(t), weight=T(w), reduction=reduction).numpy()
        per_row = -lp[np.arange(1024), tt] * wt
        ref = {"none": per_row, "sum": per_row.sum(), "mean": per_row.sum() / wt.sum()}[reduction]
        np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-6)
    gi = S.cross_entropy_backward(T(np.float32(1.0)), T(x), T(t), T(w), "sum", -100, 0.0).numpy()
    ref = (np.exp(lp) - np.eye(256)[tt]) * wt[:, None]
    np.testing.assert_allclose(gi, ref, rtol=0, atol=1e-6)
    assert (gi[~valid] == 0).all()


NON_FINITE = np.array([[1, 2, 3, 4, 5, 6, 7, 8, 9], [-INF, 1, 2, -INF, 3, 4, 5, 6, 7], [-INF] * 9,
                       [1, NAN, 2, 3, 4, 5, 6, 7, 8], [1, INF, 2, 3, 4, 5, 6, 7, 8], [NAN] * 9,
                       [-INF, -INF, 0, -INF, -INF, -INF, -INF, -INF, -INF],
                       [100, -100, 50, 0, 80, 90, 100, 1e30, -1e30]], np.float32)


def test_non_finite_rows_as_pytorch(monkeypatch):
    monkeypatch.setattr(softmax_rows, "_MIN_NUMEL", 0)  # the kernels at this small size
    x = NON_FINITE
    sm, ls = E.softmax(T(x), 1).numpy(), E.log_softmax(T(x), 1).numpy()
    assert np.isnan(sm[2:6]).all() and np.isnan(ls[2:6]).all()  # all -inf, NaN, +inf, all NaN: NaN rows
    assert not np.isnan(sm[[0, 1, 6, 7]]).any() and not np.isnan(ls[[0, 1, 6, 7]]).any()
    assert (sm[1, [0, 3]] == 0).all() and (ls[1, [0, 3]] == -INF).all()  # -inf logits: 0, -inf
    np.testing.assert_array_equal(sm[6], np.eye(9)[2])
    np.testing.assert_array_equal(ls[6], np.where(np.eye(9)[2] == 1, 0, -INF))
    assert sm[7, 7] == 1 and ls[7, 7] == 0 and ls[7, 8] == np.float32(-2e30)
    t = np.array([0, 1, 2, 3, 4, 5, 2, 7])
    loss = E.cross_entropy(T(x), T(t), reduction="none").numpy()
    assert np.isnan(loss[2:6]).all() and loss[6] == 0 and loss[7] == 0
    gi = S.cross_entropy_backward(T(np.ones(8, np.float32)), T(x), T(t), None, "none", -100, 0.0).numpy()
    assert np.isnan(gi[2:6]).all() and not np.isnan(gi[[0, 1, 6, 7]]).any()
    g = np.ones_like(x)
    assert np.isnan(S.softmax_backward(T(g), T(sm), 1).numpy()[2:6]).all()
    assert np.isnan(S.log_softmax_backward(T(g), T(ls), 1).numpy()[2:6]).all()


@pytest.mark.torch
def test_non_finite_rows_against_torch(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(softmax_rows, "_MIN_NUMEL", 0)
    x, t = NON_FINITE, np.array([0, 1, 2, 3, 4, 5, 2, 7])
    tx = torch.from_numpy(x.copy()).requires_grad_()
    for ours, theirs in ((E.softmax(T(x), 1), torch.softmax(tx, 1)), (E.log_softmax(T(x), 1), torch.log_softmax(tx, 1)),
                         (E.cross_entropy(T(x), T(t), reduction="none"),
                          torch.nn.functional.cross_entropy(tx, torch.from_numpy(t), reduction="none"))):
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-7)
    torch.nn.functional.cross_entropy(tx, torch.from_numpy(t), reduction="sum").backward()
    gi = S.cross_entropy_backward(T(np.float32(1.0)), T(x), T(t), None, "sum", -100, 0.0).numpy()
    np.testing.assert_allclose(gi, tx.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.torch
def test_float32_rows_against_torch():
    torch = pytest.importorskip("torch")
    x = _x((1024, 256), 6)
    t = np.random.default_rng(7).integers(0, 256, 1024)
    tx = torch.from_numpy(x).requires_grad_()
    np.testing.assert_allclose(E.softmax(T(x), 1).numpy(), torch.softmax(tx, 1).detach().numpy(), rtol=2e-6, atol=1e-9)
    np.testing.assert_allclose(E.log_softmax(T(x), 1).numpy(), torch.log_softmax(tx, 1).detach().numpy(), rtol=0,
                               atol=4e-6)
    loss = torch.nn.functional.cross_entropy(tx, torch.from_numpy(t))
    loss.backward()
    np.testing.assert_allclose(E.cross_entropy(T(x), T(t)).item(), loss.item(), rtol=1e-6)
    gi = S.cross_entropy_backward(T(np.float32(1.0)), T(x), T(t), None, "mean", -100, 0.0).numpy()
    np.testing.assert_allclose(gi, tx.grad.numpy(), rtol=0, atol=1e-9)


def test_other_dims_and_empty_keep_numpys_path():
    x = _x((128, 256), 8)
    # dim 0: numpy's passes, bit for bit; a transposed input along its last dim: numpy's too
    m = x.max(0, keepdims=True)
    e = np.exp(x - m)
    np.testing.assert_array_equal(E.softmax(T(x), 0).numpy(), e / e.sum(0, keepdims=True))
    x64 = x.astype(np.float64)
    e64 = np.exp(x64 - x64.max(1, keepdims=True))
    got = E.softmax(T(x.T).transpose(0, 1), 1).numpy()
    assert got.flags.c_contiguous
    np.testing.assert_allclose(got, e64 / e64.sum(1, keepdims=True), rtol=2e-6)
    for shape in ((0, 64), (64, 0), (0,)):
        for f in (E.softmax, E.log_softmax):
            r = f(T(np.zeros(shape, np.float32)), -1)
            assert r.shape == shape and r.dtype is E.float32


def test_float64_rows_within_a_few_ulp_of_long_double():
    x = _x((512, 96), 10).astype(np.float64)
    z = (x - x.max(1, keepdims=True)).astype(np.longdouble)  # exact: differences of float32 values
    e = np.exp(z)
    ref = (e / e.sum(1, keepdims=True)).astype(np.float64)
    got = E.softmax(T(x), 1).numpy()
    assert got.dtype == np.float64
    assert (np.abs(got - ref) <= 8 * np.spacing(ref)).all()  # 5 measured, as numpy's float64 path
    lref = (z - np.log(e.sum(1, keepdims=True))).astype(np.float64)
    assert (np.abs(E.log_softmax(T(x), 1).numpy() - lref) <= 4 * np.finfo(np.float64).eps * (1 + np.abs(lref))).all()
    t = np.arange(512) % 96
    np.testing.assert_allclose(E.cross_entropy(T(x), T(t), reduction="none").numpy(), -lref[np.arange(512), t],
                               rtol=1e-14, atol=1e-15)
    g = _x((512, 96), 11).astype(np.float64)
    gi = S.softmax_backward(T(g), T(ref), 1).numpy()
    gy = g.astype(np.longdouble) * ref
    np.testing.assert_allclose(gi, (gy - ref * gy.sum(1, keepdims=True)).astype(np.float64), rtol=0,
                               atol=4 * np.finfo(np.float64).eps * np.abs(g).max())


def test_row_passes_decline_what_they_cannot_do():
    x = _x((256, 128), 9)
    assert softmax_rows.softmax_rows(x.astype(np.float16)) is None
    assert softmax_rows.softmax_rows(x.T) is None  # not row-major
    assert softmax_rows.softmax_rows(x[:8]) is None  # too small to pay
    assert softmax_rows.softmax_backward_rows(x, x.astype(np.float64)) is None
    assert softmax_rows.shifted_exp_sums(x.reshape(2, 128, 128)) is None
    assert softmax_rows.cross_entropy_grad_rows(x, np.ones(256, np.float64)) is None


def test_core_exp32_within_two_ulp_of_float64():
    import numba

    from ember.core.ops.vector_exp import exp32

    @numba.njit(error_model="numpy")
    def run(a, o):
        for i in range(a.shape[0]):
            o[i] = exp32(a[i])

    a = np.concatenate([np.linspace(-103.9, 88.7, 1_000_001, dtype=np.float32),
                        np.float32([0.0, -0.0, 1e-30, -1e-30, 88.72, -87.3])])
    o = np.empty_like(a)
    run(a, o)
    ref = np.exp(a.astype(np.float64))
    assert ulps(o, ref).max() <= 2  # down to the denormals, whose spacing is fixed
    s = np.float32([NAN, INF, -INF, 89.0, -105.0])
    o = np.empty_like(s)
    run(s, o)
    np.testing.assert_array_equal(o, [NAN, INF, 0.0, INF, 0.0])


@pytest.mark.parametrize("c", [1, 2, 7, 8, 9, 17])
def test_short_rows(monkeypatch, c):
    monkeypatch.setattr(softmax_rows, "_MIN_NUMEL", 0)  # rows shorter than the eight lanes, and their tails
    x = _x((5, c), c)
    z = _shifted(x)
    ref = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    assert ulps(E.softmax(T(x), 1).numpy(), ref).max() <= 8
    lref = z - np.log(np.exp(z).sum(-1, keepdims=True))
    assert (np.abs(E.log_softmax(T(x), 1).numpy() - lref) <= 4 * np.finfo(np.float32).eps * (1 + np.abs(lref))).all()
    t = np.arange(5) % c
    np.testing.assert_allclose(E.cross_entropy(T(x), T(t), reduction="none").numpy(), -lref[np.arange(5), t],
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kernels", [False, True])
def test_softmax_backward_gives_a_zero_output_pytorchs_signed_zero(monkeypatch, kernels):
    """PyTorch's `(g - sum(g y)) * y`: where y is 0 (a masked logit) the entry is -0.0 when g < sum(g y)."""
    if kernels:
        monkeypatch.setattr(softmax_rows, "_MIN_NUMEL", 0)
    y = np.array([[0.6, 0.0, 0.4], [0.0, 0.5, 0.5]], np.float32)
    g = np.array([[0.5, 0.0, 0.5], [1.0, 0.0, 0.0]], np.float32)
    got = S.softmax_backward(T(g), T(y), 1).numpy()
    assert np.signbit(got[0, 1]) and got[0, 1] == 0  # 0 - 0.5 < 0
    assert not np.signbit(got[1, 0]) and got[1, 0] == 0  # 1 - 0 > 0
    want = (g - (g * y).sum(1, keepdims=True)) * y
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
