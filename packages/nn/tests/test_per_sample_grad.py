"""call_for_per_sample_grads (torch.nn.utils._per_sample_grad): per-example gradients in `grad_sample`, checked
against one backward per example, with PyTorch 2.13's errors."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
from ember import nn
from ember.nn import functional as F
from ember.nn.utils._per_sample_grad import call_for_per_sample_grads


def _loop_grads(model, x, y):
    out = []
    for i in range(x.shape[0]):
        model.zero_grad()
        F.cross_entropy(model(x[i:i + 1]), y[i:i + 1], reduction="sum").backward()
        out.append([p.grad.clone() for p in model.parameters()])
    model.zero_grad(set_to_none=True)
    return [E.stack(gs) for gs in zip(*out)]


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_grad_sample_is_each_examples_gradient_and_grad_stays_none(reduction):
    E.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.Tanh(), nn.Flatten(), nn.Linear(12, 4))
    x, y = E.randn(5, 2, 6), E.tensor([0, 3, 1, 1, 2])
    want = _loop_grads(model, x, y)
    xg = x.clone().requires_grad_()
    F.cross_entropy(call_for_per_sample_grads(model, loss_reduction=reduction)(xg), y, reduction=reduction).backward()
    for p, w in zip(model.parameters(), want):
        assert p.grad is None and p.grad_sample.shape == (5, *p.shape)
        np.testing.assert_allclose(p.grad_sample.numpy(), w.numpy(), rtol=1e-4, atol=1e-6)
    ref = x.clone().requires_grad_()
    F.cross_entropy(model(ref), y, reduction=reduction).backward()
    np.testing.assert_allclose(xg.grad.numpy(), ref.grad.numpy(), rtol=1e-5, atol=1e-7)  # inputs get their grads


def test_frozen_parameters_get_no_grad_sample_and_errors_are_pytorchs():
    lin = nn.Linear(3, 2)
    lin.bias.requires_grad_(False)
    call_for_per_sample_grads(lin)(E.randn(4, 3)).sum().backward()
    assert lin.weight.grad_sample.shape == (4, 2, 3) and not hasattr(lin.bias, "grad_sample")
    with pytest.raises(RuntimeError, match="^Current Expanded Weights accumulates the gradients"):
        call_for_per_sample_grads(lin)
    with pytest.raises(RuntimeError, match="^Expected loss_reduction argument to be sum or mean, got max$"):
        call_for_per_sample_grads(nn.Linear(2, 2), loss_reduction="max")
    with pytest.raises(RuntimeError, match="^Batch size must be positive, got 0$"):
        call_for_per_sample_grads(nn.Linear(2, 2), batch_size=0)
    with pytest.raises(RuntimeError, match="^When computing batch size, found at least one input with batch size 3 "
                                           "and one with batch size 4"):
        call_for_per_sample_grads(nn.Bilinear(2, 2, 1))(E.ones(3, 2), E.ones(4, 2))


def test_a_trainable_batch_norm_is_refused_as_pytorch_refuses_it():
    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    with pytest.raises(RuntimeError, match="^Expanded Weights encountered but cannot handle function batch_norm$"):
        call_for_per_sample_grads(model)(E.randn(4, 3))
    frozen = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3, affine=False)).eval()
    call_for_per_sample_grads(frozen)(E.randn(4, 3)).sum().backward()
    assert frozen[0].weight.grad_sample.shape == (4, 3, 3)
