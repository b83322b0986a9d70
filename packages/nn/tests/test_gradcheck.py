"""Gradients by float64 finite differences (ember.autograd.gradcheck): layers in their functional
form (weights as inputs), recurrences, attention, losses; and module backward hooks."""

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F
from ember.nn.func import functional_call




def rand(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.Linear(4, 3), (2, 4)),
    (lambda: nn.Conv2d(2, 3, 3, padding=1, stride=2), (2, 2, 5, 5)),
    (lambda: nn.LayerNorm(4), (3, 4)),
    (lambda: nn.GroupNorm(2, 4), (2, 4, 3)),
    (lambda: nn.BatchNorm1d(3), (5, 3)),
    (lambda: nn.Embedding(5, 3), None),
])
def test_layer_input_and_weight_gradients(make, shape):
    torch.manual_seed(0)
    mod = make().double()
    weights = [p for p in mod.parameters()]
    if shape is None:
        idx = torch.tensor([[0, 4], [2, 2]])
        assert torch.gradcheck(lambda w: F.embedding(idx, w), (weights[0],))
        return
    x = rand(*shape)
    assert torch.gradcheck(lambda x, *ws: _functional(mod, x, ws), (x, *weights))


def _functional(mod, x, ws):
    if isinstance(mod, nn.Linear):
        return F.linear(x, *ws)
    if isinstance(mod, nn.Conv2d):
        return F.conv2d(x, ws[0], ws[1], mod.stride, mod.padding)
    if isinstance(mod, nn.LayerNorm):
        return F.layer_norm(x, mod.normalized_shape, *ws)
    if isinstance(mod, nn.GroupNorm):
        return F.group_norm(x, mod.num_groups, *ws)
    return F.batch_norm(x, None, None, ws[0], ws[1], training=True)


def test_lstm_gradients_through_time():
    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3, num_layers=1, bidirectional=True).double()
    x = rand(4, 2, 2)
    assert torch.gradcheck(lambda x: lstm(x)[0], (x,))
    gru = nn.GRU(2, 3, batch_first=True).double()
    assert torch.gradcheck(lambda x: gru(x)[1], (x,))


def test_lstm_layer_gradients_of_every_input_and_weight():
    """The whole-sequence LSTM node: gradients of input, h0, c0 and every weight and bias, through
    two bidirectional layers, against finite differences, and the double backward (create_graph)."""
    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3, num_layers=2, bidirectional=True).double()
    names = [n for n, _ in lstm.named_parameters()]
    x, h0, c0 = rand(4, 2, 2), rand(4, 2, 3), rand(4, 2, 3)

    def f(x, h0, c0, *ws):
        out, (h, c) = functional_call(lstm, dict(zip(names, ws)), (x, (h0, c0)))
        return out, h, c

    ws = tuple(p.detach().clone().requires_grad_() for p in lstm.parameters())
    assert torch.gradcheck(f, (x, h0, c0, *ws))
    small = nn.LSTM(2, 2, bias=False).double()
    args = (rand(3, 1, 2), rand(1, 1, 2), rand(1, 1, 2))
    assert torch.gradcheck(lambda x, h0, c0: small(x, (h0, c0))[1][1], args)
    assert torch.gradgradcheck(lambda x, h0, c0: small(x, (h0, c0))[0], args)


def test_gru_layer_gradients_of_every_input_and_weight():
    """The whole-sequence GRU node: gradients of input, h0 and every weight and bias, through two bidirectional
    layers, against finite differences, and the double backward (create_graph); its outputs may change in place."""
    torch.manual_seed(0)
    gru = nn.GRU(2, 3, num_layers=2, bidirectional=True).double()
    names = [n for n, _ in gru.named_parameters()]
    x, h0 = rand(4, 2, 2), rand(4, 2, 3)

    def f(x, h0, *ws):
        return functional_call(gru, dict(zip(names, ws)), (x, h0))

    ws = tuple(p.detach().clone().requires_grad_() for p in gru.parameters())
    assert torch.gradcheck(f, (x, h0, *ws))
    small = nn.GRU(2, 2, bias=False).double()
    args = (rand(3, 1, 2), rand(1, 1, 2))
    assert torch.gradcheck(lambda x, h0: small(x, h0)[1], args)
    assert torch.gradgradcheck(lambda x, h0: small(x, h0)[0], args)
    out, h = small(*args)
    out.mul_(2)
    (out.sum() + h.sum()).backward()
    assert type(out.grad_fn).__name__ == "MulBackward0" and args[0].grad is not None


def test_lstm_biases_get_their_own_grads_and_accumulate():
    """bias_ih and bias_hh have one gradient value; each `.grad` is its own tensor, so a second
    backward adds into each once."""
    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3).double()
    x = rand(4, 2, 2)
    lstm(x)[0].sum().backward()
    first = lstm.bias_hh_l0.grad.numpy().copy()
    assert lstm.bias_ih_l0.grad is not lstm.bias_hh_l0.grad
    np.testing.assert_array_equal(lstm.bias_ih_l0.grad.numpy(), first)
    lstm(x)[0].sum().backward()
    np.testing.assert_allclose(lstm.bias_ih_l0.grad.numpy(), 2 * first, rtol=1e-12)
    np.testing.assert_allclose(lstm.bias_hh_l0.grad.numpy(), 2 * first, rtol=1e-12)


def test_lstm_weight_changed_in_place_before_backward_raises():
    lstm = nn.LSTM(2, 3).double()
    out, _ = lstm(rand(4, 1, 2))
    with torch.no_grad():
        lstm.weight_hh_l0.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_attention_gradients():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2).double()
    q, kv = rand(3, 2, 4), rand(5, 2, 4)
    assert torch.gradcheck(lambda q, kv: mha(q, kv, kv)[0], (q, kv))


PROBS = torch.softmax(torch.arange(12, dtype=torch.float64).reshape(4, 3) / 5, 1)


@pytest.mark.parametrize("loss", [
    lambda x, y: F.mse_loss(x, y),
    lambda x, y: F.smooth_l1_loss(x, y, beta=0.5),
    lambda x, y: F.huber_loss(x, y, delta=0.3),
    lambda x, y: F.binary_cross_entropy_with_logits(x, torch.sigmoid(y), pos_weight=torch.full((3,), 2.0,
                                                                                               dtype=torch.float64)),
    lambda x, y: F.binary_cross_entropy(torch.sigmoid(x), torch.sigmoid(y)),
    lambda x, y: F.kl_div(torch.log_softmax(x, 1), torch.softmax(y, 1), reduction="batchmean"),
    lambda x, y: F.cosine_embedding_loss(x, y, torch.tensor([1, -1, 1, -1]), margin=-0.5),
    lambda x, y: F.cross_entropy(x, PROBS, label_smoothing=0.1) * y.sum(),
    lambda x, y: F.cross_entropy(x, torch.tensor([0, 2, 1, 2]), label_smoothing=0.2),
    lambda x, y: F.cosine_similarity(x, y),
    lambda x, y: F.normalize(x),
], ids=["mse", "smooth_l1", "huber", "bce_logits", "bce", "kl_div", "cosine_embedding", "ce_probs", "ce_ids",
        "cosine_similarity", "normalize"])
def test_loss_gradients(loss):
    torch.manual_seed(1)
    x, y = rand(4, 3), rand(4, 3)
    assert torch.gradcheck(loss, (x, y))


def test_full_backward_hook_sees_and_replaces_grad_input():
    lin = nn.Linear(3, 2).double()
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append((module, grad_input, grad_output))
        return (grad_input[0] * 2,)

    handle = lin.register_full_backward_hook(hook)
    pre = []
    lin.register_full_backward_pre_hook(lambda m, go: pre.append(go[0].shape))
    x = rand(4, 3)
    lin(x).sum().backward()
    module, gi, go = seen[0]
    assert module is lin and pre == [(4, 2)]
    np.testing.assert_allclose(go[0].numpy(), np.ones((4, 2)))
    np.testing.assert_allclose(gi[0].numpy(), np.ones((4, 2)) @ lin.weight.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * gi[0].numpy(), rtol=1e-12)
    handle.remove()
    x.grad = None
    lin(x).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(x.grad.numpy(), gi[0].numpy(), rtol=1e-12)


def test_full_backward_hook_without_input_grad_gets_none():
    lin = nn.Linear(3, 2)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
    lin(torch.randn(2, 3)).sum().backward()
    assert seen == [(None,)]
    assert lin.weight.grad is not None
