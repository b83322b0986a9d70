"""The paper's Listing 1 (a custom Module over `Parameter(randn(...))` and `mm`) and Listing 2 (a
GAN step: two Adam optimizers, `backward()` on each loss, `fake.detach()`), imports changed only."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

import ember.autograd as torch
import ember.nn as nn
import ember.optim as optim


def _tutorial(name: str):
    """A docs/tutorials script as a module: the tests check the very code the docs show."""
    path = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"tutorial_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_listing1 = _tutorial("listing1_custom_layer")
LinearLayer, FullBasicModel = _listing1.LinearLayer, _listing1.FullBasicModel


def test_listing1_custom_layer_registers_parameters_and_computes_mm_plus_b():
    torch.manual_seed(0)
    layer = LinearLayer(5, 3)
    assert [n for n, _ in layer.named_parameters()] == ["w", "b"]
    x = torch.randn(4, 5)
    np.testing.assert_allclose(layer(x).detach().numpy(),
                               x.numpy() @ layer.w.detach().numpy() + layer.b.detach().numpy(), rtol=1e-5)
    model = FullBasicModel()
    assert len(list(model.parameters())) == 4
    probs = model(torch.randn(2, 1, 3, 3))
    assert probs.shape == (2, 10)
    np.testing.assert_allclose(probs.sum(1).detach().numpy(), 1.0, rtol=1e-5)
    probs[:, 0].log().sum().neg().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())


def test_listing2_gan_step_updates_both_networks_and_detach_isolates_the_generator():
    torch.manual_seed(0)
    batch = 16
    discriminator = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
    generator = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))
    optimD = optim.Adam(discriminator.parameters())
    optimG = optim.Adam(generator.parameters())
    loss = nn.BCELoss()
    real_label, fake_label = torch.ones(batch, 1), torch.zeros(batch, 1)
    get_noise = lambda: torch.randn(batch, 3)
    seen = {}

    def step(real_sample):
        # (1) Update Discriminator
        errD_real = loss(discriminator(real_sample), real_label)
        errD_real.backward()
        fake = generator(get_noise())
        errD_fake = loss(discriminator(fake.detach()), fake_label)
        errD_fake.backward()
        seen["gen_grads_after_D"] = [p.grad for p in generator.parameters()]
        optimD.step()
        # (2) Update Generator
        errG = loss(discriminator(fake), real_label)
        errG.backward()
        optimG.step()
        return errD_real, errD_fake, errG

    d0 = [p.detach().clone() for p in discriminator.parameters()]
    g0 = [p.detach().clone() for p in generator.parameters()]
    errs = step(torch.randn(batch, 2) + 2)
    assert all(g is None for g in seen["gen_grads_after_D"])
    assert all(np.isfinite(e.item()) for e in errs)
    assert all(not np.array_equal(a.numpy(), p.detach().numpy()) for a, p in zip(d0, discriminator.parameters()))
    assert all(not np.array_equal(a.numpy(), p.detach().numpy()) for a, p in zip(g0, generator.parameters()))
    for _ in range(3):
        optimD.zero_grad()
        optimG.zero_grad()
        step(torch.randn(batch, 2) + 2)
