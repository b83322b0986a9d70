"""Issue 21: the paper's listings and the digits tutorial run compiled (`ember.jit.compile`) with eager's loss
trajectory, bit for bit, and are captured (a plan, not a fallback to eager)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import ember.jit as jit

TUTORIALS = Path(__file__).resolve().parents[1] / "docs" / "tutorials"


def _tutorial(name: str, tag: str):
    """A fresh copy of a docs/tutorials script as a module (its globals: models, optimizers, made anew)."""
    spec = importlib.util.spec_from_file_location(f"compiled_{name}_{tag}", TUTORIALS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _listing1(compiled: bool):
    m = _tutorial("listing1_custom_layer", str(compiled))
    torch = m.torch
    torch.manual_seed(0)
    model = m.FullBasicModel()
    forward = jit.compile(model) if compiled else model
    x, target = torch.randn(4, 1, 3, 3), torch.tensor([0, 1, 2, 3])
    probs, losses = forward(x), []
    for _ in range(8):  # the listing's loop: gradient descent by hand on the previous forward's output
        loss = -(probs[torch.arange(4), target] + 1e-9).log().mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
        probs = forward(x)
        losses.append(loss.item())
    return losses, forward


def test_listing1_compiled_model_gives_eager_losses():
    eager, _ = _listing1(False)
    compiled, forward = _listing1(True)
    assert compiled == eager and eager[-1] < eager[0]
    ex = forward.explain()
    assert ex.graph_count == 1 and not ex.break_reasons and "conv2d" in ex.ops_per_graph[0]


def _listing2(compiled: bool):
    m = _tutorial("listing2_gan_step", str(compiled))
    m.torch.manual_seed(1)
    step = jit.compile(m.step) if compiled else m.step
    out = []
    for _ in range(12):
        m.optimD.zero_grad()
        m.optimG.zero_grad()
        out.append(step(m.get_real_sample()))
    return out, step, m


def test_listing2_compiled_gan_step_gives_eager_losses_and_parameters():
    eager, _, me = _listing2(False)
    compiled, step, mc = _listing2(True)
    assert compiled == eager
    for a, b in zip([*me.discriminator.parameters(), *me.generator.parameters()],
                    [*mc.discriminator.parameters(), *mc.generator.parameters()]):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    text = str(step.explain())  # the two updates are one compiled segment; the `.item()` sums run eagerly
    assert "Segment 0 (lines 49-58): compiled, 1 plan(s)" in text and "Adam.step (one pass)" in text


def test_digits_tutorial_compiled_model_gives_eager_accuracy_and_weights(monkeypatch):
    pytest.importorskip("sklearn")
    results = []
    for compiled in (False, True):
        m = _tutorial("digits_classifier", str(compiled))
        models = []
        make = m.make_model

        def make_model(mlp, make=make, compiled=compiled, models=models):
            model = make(mlp)
            models.append(model)
            models.append(jit.compile(model) if compiled else model)
            return models[-1]

        monkeypatch.setattr(m, "make_model", make_model)
        acc = m.train(mlp=False, epochs=1, max_train=256)
        results.append((acc, [p.detach().numpy().copy() for p in models[0].parameters()], models[1]))
    (acc_e, w_e, _), (acc_c, w_c, forward) = results
    assert acc_c == acc_e and all(np.array_equal(a, b) for a, b in zip(w_e, w_c))
    ex = forward.explain()  # a plan for training mode (full batches) and one for evaluation
    assert ex.graph_count >= 2 and not ex.break_reasons and any("conv2d" in ops for ops in ex.ops_per_graph)
