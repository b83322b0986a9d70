"""multilabel_margin_loss, triplet_margin_with_distance_loss, NLLLoss2d and
AdaptiveLogSoftmaxWithLoss: values against float64 loops, gradients by finite differences,
PyTorch's values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.nn.functional as F


def ref_multilabel_margin(x, y):
    out = []
    for row, tgt in zip(np.atleast_2d(x), np.atleast_2d(y)):
        listed = []
        for v in tgt:
            if v < 0:
                break
            listed.append(v)
        total = sum(max(0.0, 1 - (row[j] - row[i])) for j in listed for i in range(len(row)) if i not in listed)
        out.append(total / len(row))
    return np.array(out)


def test_multilabel_margin_loss_against_a_loop():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 1, 4, 2, -1], [0, 1, 2, 3, 4]])  # a duplicate; every class listed
    want = ref_multilabel_margin(x, y)
    np.testing.assert_allclose(F.multilabel_margin_loss(E.tensor(x), E.tensor(y), reduction="none").numpy(), want)
    np.testing.assert_allclose(nn.MultiLabelMarginLoss()(E.tensor(x), E.tensor(y)).item(), want.mean())
    np.testing.assert_allclose(F.multilabel_margin_loss(E.tensor(x[0]), E.tensor(y[0])).item(), want[0])
    xt = E.tensor(x, requires_grad=True)
    assert E.gradcheck(lambda a: F.multilabel_margin_loss(a, E.tensor(y), reduction="sum"), (xt,))


def test_multilabel_margin_loss_errors():
    x = E.zeros(2, 4)
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(x, E.tensor([[3, 0, -1, 1], [1, 2, 4, -1]]))
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[1, 4\] for input of size: \[2, 4\]"):
        F.multilabel_margin_loss(x, E.tensor([[3, 0, -1, 1]]))
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        F.multilabel_margin_loss(x, E.zeros(2, 4, dtype=E.int32))


def test_triplet_margin_with_distance_loss():
    rng = np.random.default_rng(1)
    a, p, n = (rng.standard_normal((4, 3)) for _ in range(3))

    def d(u, v):
        return np.sqrt(((u - v + 1e-6) ** 2).sum(-1))

    want = np.maximum(0.5 + d(a, p) - np.minimum(d(a, n), d(p, n)), 0)
    got = F.triplet_margin_with_distance_loss(E.tensor(a), E.tensor(p), E.tensor(n), margin=0.5, swap=True,
                                              reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    l1 = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1), margin=2.0)
    want = np.maximum(2.0 + np.abs(a - p).sum(-1) - np.abs(a - n).sum(-1), 0).mean()
    np.testing.assert_allclose(l1(E.tensor(a), E.tensor(p), E.tensor(n)).item(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_with_distance_loss(E.tensor(a), E.tensor(p), E.tensor(n), margin=0)
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=-1)
    with pytest.raises(RuntimeError, match="anchor 2D, positive 2D, and negative 1D inputs"):
        F.triplet_margin_with_distance_loss(E.tensor(a), E.tensor(p), E.tensor(n[0]))


def test_nll_loss_2d_is_nll_loss():
    x = E.tensor(np.random.default_rng(2).standard_normal((2, 3, 2, 2))).log_softmax(1)
    y = E.tensor(np.random.default_rng(3).integers(0, 3, (2, 2, 2)))
    assert nn.NLLLoss2d()(x, y).item() == nn.NLLLoss()(x, y).item()


def _asm_ref(m, x, y):
    """Every class's log-probability from the module's weights, in float64 numpy."""
    w = lambda lin: lin.weight.detach().numpy()  # noqa: E731

    def logsoftmax(z):
        return z - np.log(np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True)) - z.max(1, keepdims=True)

    head = logsoftmax(x @ w(m.head).T)
    parts = [head[:, :m.shortlist_size]]
    for i, seq in enumerate(m.tail):
        parts.append(logsoftmax(x @ w(seq[0]).T @ w(seq[1]).T) + head[:, m.shortlist_size + i:m.shortlist_size + i + 1])
    full = np.concatenate(parts, 1)
    return full, full[np.arange(len(y)), y]


def test_adaptive_log_softmax_against_numpy_and_finite_differences():
    E.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0).double()
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((5, 8)), np.array([0, 4, 9, 2, 7])
    full, picked = _asm_ref(m, x, y)
    out, loss = m(E.tensor(x), E.tensor(y))
    np.testing.assert_allclose(out.detach().numpy(), picked, rtol=1e-12)
    np.testing.assert_allclose(loss.item(), -picked.mean(), rtol=1e-12)
    np.testing.assert_allclose(m.log_prob(E.tensor(x)).detach().numpy(), full, rtol=1e-12)
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(m.predict(E.tensor(x)).numpy(), full.argmax(1))
    single = m(E.tensor(x[1]), E.tensor(4))
    np.testing.assert_allclose(single.output.item(), picked[1], rtol=1e-12)
    xt = E.tensor(x, requires_grad=True)
    assert E.gradcheck(lambda a: m(a, E.tensor(y)).loss, (xt,))


def test_adaptive_log_softmax_errors():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        m(E.zeros(2, 8), E.tensor([1, 10]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        m(E.zeros(2, 8), E.zeros(2, 1, dtype=E.int64))


@pytest.mark.torch
def test_losses_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 1, 4, 2, -1], [4, -1, 0, 0, 0]])
    for red in ("none", "mean", "sum"):
        want = torch.nn.functional.multilabel_margin_loss(torch.tensor(x), torch.tensor(y), reduction=red)
        got = F.multilabel_margin_loss(E.tensor(x), E.tensor(y), reduction=red)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    a, p, n = (rng.standard_normal((4, 3)) for _ in range(3))
    want = torch.nn.functional.triplet_margin_with_distance_loss(torch.tensor(a), torch.tensor(p), torch.tensor(n),
                                                                 swap=True, reduction="none")
    got = F.triplet_margin_with_distance_loss(E.tensor(a), E.tensor(p), E.tensor(n), swap=True, reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.torch
def test_adaptive_log_softmax_matches_pytorch_from_the_same_weights():
    torch = pytest.importorskip("torch")
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=True).double()
    em = nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=True).double()
    em.load_state_dict({k: E.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((6, 8)), np.array([0, 5, 11, 2, 8, 3])
    tx, ex = torch.tensor(x, requires_grad=True), E.tensor(x, requires_grad=True)
    tout, tloss = tm(tx, torch.tensor(y))
    eout, eloss = em(ex, E.tensor(y))
    tloss.backward()
    eloss.backward()
    np.testing.assert_allclose(eout.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(em.head.weight.grad.numpy(), tm.head.weight.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(em.log_prob(E.tensor(x)).detach().numpy(), tm.log_prob(torch.tensor(x)).detach().numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_fused_losses_and_pairwise_distance_carry_pytorchs_node_names(reduction):
    x = E.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], requires_grad=True)
    y = E.tensor([0, 2])
    assert F.soft_margin_loss(x, -E.ones(2, 3), reduction=reduction).grad_fn.name() == "SoftMarginLossBackward0"
    assert F.multi_margin_loss(x, y, reduction=reduction).grad_fn.name() == "MultiMarginLossBackward0"
    assert F.multi_margin_loss(x[0], y[:1], reduction=reduction).grad_fn.name() == "MultiMarginLossBackward0"
    assert F.pairwise_distance(x, x.flip(0), keepdim=reduction == "none").grad_fn.name() == "NormBackward1"


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss_node_has_pytorchs_name(reduction):
    x = E.tensor([[0.1, 0.2, 0.4]], requires_grad=True)
    loss = F.multilabel_margin_loss(x, E.tensor([[0, -1, 1]]), reduction=reduction)
    assert loss.grad_fn.name() == "MultilabelMarginLossBackward0"
