"""torch.func.functional_call: a module run with swapped-in parameters, restored after; per-sample
gradients by vmap(grad(functional_call)) equal the batch gradient's rows."""

import pytest

import ember.torch as torch
from ember.torch.func import functional_call, grad, vmap


def test_functional_call_uses_the_given_tensors_and_restores_the_module():
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    w = torch.zeros(2, 3)
    out = functional_call(m, {"weight": w}, (torch.ones(1, 3),))
    assert torch.allclose(out, m.bias.detach().unsqueeze(0))
    assert m.weight is not w and m.weight.abs().sum().item() > 0
    # an unknown name is set on the module for the call (PyTorch's non-strict behaviour), then removed
    functional_call(m, {"nope": w}, (torch.ones(1, 3),))
    assert not hasattr(m, "nope")
    with pytest.raises(RuntimeError, match="Unexpected key"):
        functional_call(m, {"nope": w, "weight": w, "bias": w[0]}, (torch.ones(1, 3),), strict=True)
    with pytest.raises(RuntimeError, match="Missing key"):
        functional_call(m, {"weight": w}, (torch.ones(1, 3),), strict=True)


def test_per_sample_gradients():
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 1)
    params = {k: v.detach() for k, v in m.named_parameters()}
    x = torch.randn(4, 3)

    def loss(p, xi):
        return functional_call(m, p, (xi.unsqueeze(0),)).pow(2).sum()

    per = vmap(grad(loss), in_dims=(None, 0))(params, x)
    m(x).pow(2).sum().backward()
    assert per["weight"].shape == (4, 1, 3)
    assert torch.allclose(per["weight"].sum(0), m.weight.grad, atol=1e-6)
    assert torch.allclose(per["bias"].sum(0), m.bias.grad, atol=1e-6)
    assert torch.vmap is torch.func.vmap
