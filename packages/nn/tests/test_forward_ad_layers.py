"""Forward AD through layers under no_grad: PyTorch's tangents do not depend on grad mode, so a dual input takes
F.linear's dispatched ops (its untracked path would drop the tangent) while plain no_grad calls keep that path."""

import numpy as np

import ember.autograd as ea
import ember.autograd.forward_ad as fwAD
import ember.nn as nn
import ember.nn.functional as F


def test_linear_of_a_dual_under_no_grad_has_its_tangent(untracked_calls):
    rng = np.random.default_rng(0)
    x, t, w, b = (rng.standard_normal(s) for s in ((4, 3), (4, 3), (2, 3), (2,)))
    with ea.no_grad():
        F.linear(ea.tensor(x), ea.tensor(w), ea.tensor(b))
    assert untracked_calls[0] == 1
    with fwAD.dual_level(), ea.no_grad():
        y = F.linear(fwAD.make_dual(ea.tensor(x), ea.tensor(t)), ea.tensor(w, requires_grad=True), ea.tensor(b))
        primal, tangent = fwAD.unpack_dual(y)
    assert untracked_calls[0] == 1
    np.testing.assert_allclose(primal.numpy(), x @ w.T + b, rtol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), t @ w.T, rtol=1e-12)
    assert not primal.requires_grad and not tangent.requires_grad  # PyTorch's in no_grad
    with ea.no_grad():
        F.linear(ea.tensor(x), ea.tensor(w), ea.tensor(b))
    assert untracked_calls[0] == 2


def test_a_module_under_no_grad_has_grad_modes_tangent():
    ea.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    x, t = ea.randn(4, 3, dtype=ea.float64), ea.randn(4, 3, dtype=ea.float64)
    model = model.double()
    got = {}
    for mode in (ea.no_grad, ea.enable_grad):
        with fwAD.dual_level(), mode():
            got[mode] = fwAD.unpack_dual(model(fwAD.make_dual(x, t))).tangent.detach().numpy()
    eps = 1e-6
    with ea.no_grad():
        fd = (model(x + eps * t).numpy() - model(x - eps * t).numpy()) / (2 * eps)
    np.testing.assert_allclose(got[ea.no_grad], got[ea.enable_grad], rtol=1e-12)
    np.testing.assert_allclose(got[ea.no_grad], fd, rtol=1e-6, atol=1e-8)
