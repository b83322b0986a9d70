"""The nn kernels against PyTorch itself (skipped without it): values, indices, running
statistics and the backward ops against torch.autograd, in float64."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import conv as C
from ember.core.ops import pool as P
from ember.core.ops import rnn_cells as R
from ember.core.ops import softmax as S

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.torch


def e(a):
    return E.from_numpy(np.array(a))


def t(a, requires_grad=False):
    return torch.tensor(np.array(a), requires_grad=requires_grad)


def close(ours, theirs):
    a = ours.numpy() if isinstance(ours, E.Tensor) else np.asarray(ours)
    b = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True)


def vjp(y, rng):
    """Backpropagate a random cotangent through torch's `y`; returns it."""
    go = rng.standard_normal(tuple(y.shape))
    y.backward(t(go))
    return go


@pytest.mark.parametrize("s,p,d,g", [(1, 1, 1, 1), (2, 0, 1, 2), (1, 2, 2, 1), (2, 1, 1, 4), (1, 1, 1, 4)])
def test_conv2d_and_its_backward_ops(s, p, d, g):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 4, 9, 8)), rng.standard_normal((8, 4 // g, 3, 4)), rng.standard_normal(8)
    xt, wt = t(x, True), t(w, True)
    yt = TF.conv2d(xt, wt, t(b), s, p, d, g)
    close(E.conv2d(e(x), e(w), e(b), s, p, d, g), yt)
    go = vjp(yt, rng)
    args = ((s, s), (p, p), (d, d), g)
    close(C.conv2d_backward_input(e(go), e(w), x.shape, *args), xt.grad)
    close(C.conv2d_backward_weight(e(go), e(x), w.shape, *args), wt.grad)


@pytest.mark.parametrize("s,p,op,g,d", [(2, 1, 1, 1, 1), (3, 0, 2, 2, 1), (1, 1, 0, 1, 2), (2, 0, 0, 2, 2)])
def test_conv_transpose2d(s, p, op, g, d):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((4, 3, 3, 3))
    close(E.conv_transpose2d(e(x), e(w), None, s, p, op, g, d), TF.conv_transpose2d(t(x), t(w), None, s, p, op, g, d))


def test_same_padding_unfold_and_fold():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 3, 10)), rng.standard_normal((5, 3, 4))
    close(E.conv1d(e(x), e(w), padding="same", dilation=2), TF.conv1d(t(x), t(w), padding="same", dilation=2))
    x = rng.standard_normal((2, 8, 3, 4))
    close(C.unfold(e(x), (2, 3), 1, 1, (1, 2)), TF.unfold(t(x), (2, 3), 1, 1, (1, 2)))
    u = rng.standard_normal((2, 48, 8))
    close(E.fold(e(u), (3, 4), (2, 3), 1, 1, (1, 2)), TF.fold(t(u), (3, 4), (2, 3), 1, 1, (1, 2)))
    close(E.pixel_shuffle(e(x), 2), TF.pixel_shuffle(t(x), 2))


@pytest.mark.parametrize("k,s,p,d,ceil", [(3, 2, 1, 1, True), (2, None, 0, 1, True), (3, 3, 1, 2, True),
                                          (3, 2, 0, 1, False), (4, 3, 2, 1, True)])
def test_max_pool2d_values_indices_and_backward(k, s, p, d, ceil):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 11, 10))
    xt = t(x, True)
    yt, it = TF.max_pool2d(xt, k, s, p, d, ceil, return_indices=True)
    y, i = E.max_pool2d(e(x), k, s, p, d, ceil, return_indices=True)
    close(y, yt)
    np.testing.assert_array_equal(i.numpy(), it.numpy())
    go = vjp(yt, rng)
    close(P.max_pool2d_backward(e(go), i, x.shape), xt.grad)


@pytest.mark.parametrize("k,s,p,ceil,cip,div", [(3, 2, 1, True, True, None), (3, 2, 1, True, False, None),
                                                (2, 3, 1, True, False, None), (3, 2, 1, False, True, 5),
                                                (4, 3, 2, True, False, None)])
def test_avg_pool2d_and_backward(k, s, p, ceil, cip, div):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 11, 10))
    xt = t(x, True)
    yt = TF.avg_pool2d(xt, k, s, p, ceil, cip, div)
    close(E.avg_pool2d(e(x), k, s, p, ceil, cip, div), yt)
    go = vjp(yt, rng)
    close(P.avg_pool2d_backward(e(go), x.shape, (k, k), (s, s), (p, p), ceil, cip, div), xt.grad)


@pytest.mark.parametrize("size", [(3, 4), (7, 13), 1, (None, 3)])
def test_adaptive_pools(size):
    x = np.random.default_rng(5).standard_normal((2, 3, 11, 10))
    close(E.adaptive_avg_pool2d(e(x), size), TF.adaptive_avg_pool2d(t(x), size))
    (a, ai), (b, bi) = E.adaptive_max_pool2d(e(x), size, True), TF.adaptive_max_pool2d(t(x), size, True)
    close(a, b)
    np.testing.assert_array_equal(ai.numpy(), bi.numpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll_with_class_indices(reduction, smoothing, weighted):
    rng = np.random.default_rng(6)
    x, tg = rng.standard_normal((4, 5, 3)), rng.integers(0, 5, (4, 3))
    tg[0, 0] = -100
    w = rng.random(5) + 0.5 if weighted else None
    xt = t(x, True)
    yt = TF.cross_entropy(xt, torch.tensor(tg), None if w is None else t(w), reduction=reduction,
                          label_smoothing=smoothing)
    close(E.cross_entropy(e(x), e(tg), None if w is None else e(w), reduction=reduction, label_smoothing=smoothing),
          yt)
    go = vjp(yt, rng)
    close(S.cross_entropy_backward(e(go), e(x), e(tg), None if w is None else e(w), reduction, -100, smoothing),
          xt.grad)
    close(E.nll_loss(e(x), e(tg), None if w is None else e(w), reduction=reduction),
          TF.nll_loss(t(x), torch.tensor(tg), None if w is None else t(w), reduction=reduction))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_probabilities(reduction):
    rng = np.random.default_rng(7)
    x, pr, w = rng.standard_normal((4, 5, 3)), rng.random((4, 5, 3)), rng.random(5) + 0.5
    pr /= pr.sum(1, keepdims=True)
    xt = t(x, True)
    yt = TF.cross_entropy(xt, t(pr), t(w), reduction=reduction, label_smoothing=0.2)
    close(E.cross_entropy(e(x), e(pr), e(w), reduction=reduction, label_smoothing=0.2), yt)
    go = vjp(yt, rng)
    close(S.cross_entropy_backward(e(go), e(x), e(pr), e(w), reduction, -100, 0.2), xt.grad)


def test_normalizations_and_running_statistics():
    rng = np.random.default_rng(8)
    x, rm, rv = rng.standard_normal((4, 3, 5, 2)), rng.standard_normal(3), rng.random(3) + 0.5
    ours, theirs = (e(rm), e(rv)), (t(rm), t(rv))
    close(E.batch_norm(e(x), *ours, e(rm), e(rv), True, 0.3), TF.batch_norm(t(x), *theirs, t(rm), t(rv), True, 0.3))
    close(ours[0], theirs[0])
    close(ours[1], theirs[1])
    close(E.batch_norm(e(x), *ours), TF.batch_norm(t(x), *theirs))
    wl, bl = rng.standard_normal((5, 2)), rng.standard_normal((5, 2))
    close(E.layer_norm(e(x), (5, 2), e(wl), e(bl)), TF.layer_norm(t(x), (5, 2), t(wl), t(bl)))
    wg = rng.standard_normal(6)
    close(E.group_norm(e(x.reshape(4, 6, 5)), 3, e(wg)), TF.group_norm(t(x.reshape(4, 6, 5)), 3, t(wg)))
    ours, theirs = (e(np.zeros(3)), e(np.ones(3))), (t(np.zeros(3)), t(np.ones(3)))
    close(E.instance_norm(e(x), *ours, momentum=0.4), TF.instance_norm(t(x), *theirs, momentum=0.4))
    close(ours[1], theirs[1])
    close(E.local_response_norm(e(x), 3, 0.1, 0.6, 1.5), TF.local_response_norm(t(x), 3, 0.1, 0.6, 1.5))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag(mode, padding_idx):
    rng = np.random.default_rng(9)
    w, idx, offs = rng.standard_normal((10, 4)), rng.integers(0, 10, 12), np.array([0, 3, 3, 7])
    close(E.embedding_bag(e(idx), e(w), e(offs), mode=mode, padding_idx=padding_idx),
          TF.embedding_bag(torch.tensor(idx), t(w), torch.tensor(offs), mode=mode, padding_idx=padding_idx))


@pytest.mark.parametrize("kwargs", [dict(scale_factor=2.5), dict(size=(3, 11)), dict(scale_factor=0.6),
                                    dict(scale_factor=1.7, recompute_scale_factor=True)])
@pytest.mark.parametrize("mode,align_corners", [("nearest", None), ("nearest-exact", None), ("bilinear", False),
                                                ("bilinear", True), ("area", None)])
def test_interpolate(kwargs, mode, align_corners):
    x = np.random.default_rng(10).standard_normal((1, 2, 5, 7))
    close(E.interpolate(e(x), mode=mode, align_corners=align_corners, **kwargs),
          TF.interpolate(t(x), mode=mode, align_corners=align_corners, **kwargs))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(mode):
    x = np.random.default_rng(11).standard_normal((1, 2, 5, 7))
    close(E.pad(e(x), (2, 1, 1, 3), mode), TF.pad(t(x), (2, 1, 1, 3), mode))


@pytest.mark.parametrize("name,kwargs", [
    ("leaky_relu", {}), ("elu", {"alpha": 0.7}), ("selu", {}), ("celu", {"alpha": 1.3}), ("gelu", {}),
    ("gelu", {"approximate": "tanh"}), ("hardtanh", {}), ("relu6", {}), ("hardsigmoid", {}), ("hardswish", {}),
    ("softplus", {"beta": 2, "threshold": 3}), ("mish", {}), ("logsigmoid", {}), ("softsign", {}), ("tanhshrink", {}),
    ("hardshrink", {}), ("softshrink", {}), ("glu", {}), ("rrelu", {})])
def test_activations(name, kwargs):
    x = np.random.default_rng(12).standard_normal(50) * 4
    close(getattr(E, name)(e(x), **kwargs), getattr(TF, name)(t(x), **kwargs))


def test_lstm_and_gru_cells_match_torch_cells():
    rng = np.random.default_rng(13)
    x, h, c = rng.standard_normal((3, 4)), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    cell = torch.nn.LSTMCell(4, 2).double()
    th, tc = cell(t(x), (t(h), t(c)))
    p = {k: v.detach().numpy() for k, v in cell.named_parameters()}
    hy, cy, _ = R.lstm_cell(e(x @ p["weight_ih"].T), e(h @ p["weight_hh"].T), e(c), e(p["bias_ih"]), e(p["bias_hh"]))
    close(hy, th)
    close(cy, tc)
    cell = torch.nn.GRUCell(4, 2).double()
    p = {k: v.detach().numpy() for k, v in cell.named_parameters()}
    hy, _ = R.gru_cell(e(x @ p["weight_ih"].T), e(h @ p["weight_hh"].T), e(h), e(p["bias_ih"]), e(p["bias_hh"]))
    close(hy, cell(t(x), t(h)))


def _error(fn) -> str:
    try:
        fn()
    except Exception as ex:
        return f"{type(ex).__name__}: {ex}"
    return "no error"


ERRORS = {
    "conv channels": (lambda M, F: F.conv2d(M.zeros(32, 4, 32, 32), M.zeros(64, 3, 3, 3))),
    "conv groups": (lambda M, F: F.conv2d(M.zeros(1, 6, 5, 5), M.zeros(3, 3, 3, 3), groups=2)),
    "conv bias": (lambda M, F: F.conv2d(M.zeros(1, 3, 5, 5), M.zeros(64, 3, 3, 3), M.zeros(32))),
    "conv too small": (lambda M, F: F.conv2d(M.zeros(1, 3, 2, 2), M.zeros(64, 3, 3, 3))),
    "conv dims": (lambda M, F: F.conv2d(M.zeros(3, 5), M.zeros(64, 3, 3, 3))),
    "conv_transpose output_padding": (lambda M, F: F.conv_transpose2d(M.zeros(1, 3, 5, 5), M.zeros(3, 2, 3, 3),
                                                                      output_padding=1)),
    "target out of bounds": (lambda M, F: F.cross_entropy(M.zeros(2, 5), M.tensor([1, 7]))),
    "batch mismatch": (lambda M, F: F.cross_entropy(M.zeros(2, 5), M.tensor([1, 2, 3]))),
    "target size": (lambda M, F: F.cross_entropy(M.zeros(2, 5, 3), M.zeros(2, 4, dtype=M.int64))),
    "reduction": (lambda M, F: F.nll_loss(M.zeros(2, 5), M.tensor([1, 2]), reduction="foo")),
    "layer_norm shape": (lambda M, F: F.layer_norm(M.zeros(2, 4), [5])),
    "group_norm groups": (lambda M, F: F.group_norm(M.zeros(2, 5, 3), 2)),
    "running_mean size": (lambda M, F: F.batch_norm(M.zeros(2, 3), M.zeros(4), M.ones(3))),
    "max_pool pad": (lambda M, F: F.max_pool2d(M.zeros(1, 1, 4, 4), 2, padding=2)),
    "max_pool dilated pad": (lambda M, F: F.max_pool2d(M.zeros(1, 1, 9, 9), 3, padding=2, dilation=2)),
    "max_pool output": (lambda M, F: F.max_pool2d(M.zeros(1, 1, 2, 2), 3, dilation=2, padding=1)),
    "embedding index": (lambda M, F: F.embedding(M.tensor([4]), M.zeros(4, 2))),
    "dropout p": (lambda M, F: F.dropout(M.ones(3), 1.5)),
    "reflect pad": (lambda M, F: F.pad(M.zeros(1, 1, 3), (3, 3), mode="reflect")),
    "interpolate args": (lambda M, F: F.interpolate(M.zeros(1, 1, 4, 4), size=2, scale_factor=2)),
    "glu": (lambda M, F: F.glu(M.zeros(2, 3), 1)),
    "prelu": (lambda M, F: F.prelu(M.zeros(2, 3, 4), M.zeros(2))),
    "fold blocks": (lambda M, F: F.fold(M.ones(1, 4, 5), (3, 3), 2)),
    "pixel_shuffle": (lambda M, F: F.pixel_shuffle(M.zeros(1, 5, 2, 2), 2)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_have_pytorchs_type_and_message(case):
    ours = _error(lambda: ERRORS[case](E, E))
    theirs = _error(lambda: ERRORS[case](torch, TF))
    assert ours == theirs != "no error"
