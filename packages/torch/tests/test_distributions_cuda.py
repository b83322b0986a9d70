"""Distributions with parameters on a CUDA device (Numba's simulator here, a GPU elsewhere): samples, log
densities and gradients stay on the device and agree with the same computation on the CPU."""

import numpy as np
import pytest

import ember.autograd as torch
import ember.torch.distributions as D

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device or simulator")]


def _pair(values):
    return (torch.tensor(values, dtype=torch.float64, requires_grad=True),
            torch.tensor(values, dtype=torch.float64, device="cuda", requires_grad=True))


def test_normal_rsample_and_log_prob_on_cuda():
    loc_cpu, loc = _pair([0.5, -1.0])
    scale = torch.tensor([1.0, 2.0], dtype=torch.float64, device="cuda")
    d = D.Normal(loc, scale)
    x = d.rsample((3,))
    assert x.device.type == "cuda" and tuple(x.shape) == (3, 2)
    lp = d.log_prob(x)
    lp_cpu = D.Normal(loc_cpu, scale.cpu()).log_prob(x.detach().cpu())
    np.testing.assert_allclose(lp.detach().cpu().numpy(), lp_cpu.detach().numpy(), rtol=1e-12)
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.cpu().numpy(), [3.0, 3.0])


def test_gamma_rsample_gradient_and_kl_on_cuda():
    _, conc = _pair([2.0, 3.0])
    g = D.Gamma(conc, torch.tensor(1.0, dtype=torch.float64, device="cuda"))
    y = g.rsample((4,))
    assert y.device.type == "cuda" and bool((y > 0).all())
    y.sum().backward()
    assert conc.grad.device.type == "cuda" and np.isfinite(conc.grad.cpu().numpy()).all()
    p = D.Beta(torch.tensor(2.0, device="cuda"), torch.tensor(3.0, device="cuda"))
    q = D.Beta(torch.tensor(1.0, device="cuda"), torch.tensor(3.0, device="cuda"))
    kl = D.kl_divergence(p, q)
    expected = D.kl_divergence(D.Beta(torch.tensor(2.0), torch.tensor(3.0)),
                               D.Beta(torch.tensor(1.0), torch.tensor(3.0)))
    assert kl.device.type == "cuda" and abs(float(kl.cpu()) - float(expected)) < 1e-6


def test_discrete_samples_on_cuda():
    for d in (D.Categorical(logits=torch.zeros(3, device="cuda")), D.Bernoulli(torch.tensor([0.3], device="cuda")),
              D.Binomial(5, torch.tensor([0.3], device="cuda")), D.Poisson(torch.tensor([0.3], device="cuda"))):
        s = d.sample((4,))
        assert s.device.type == "cuda" and bool(d.support.check(s).all())
