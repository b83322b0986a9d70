"""Every Table 1 model trains one step at a tiny size; its PyTorch twin has the same parameters."""

import math

import pytest

from ember.bench import frameworks
from ember.bench.models import MODELS
from ember.bench.workloads import make_workload


@pytest.fixture(scope="module")
def ember_fw():
    return frameworks.load("ember")


@pytest.mark.parametrize("key", list(MODELS))
def test_model_trains_one_step(ember_fw, key):
    w = make_workload(ember_fw, key, "tiny")
    before = [p.detach().clone() for p in w.model.parameters()]
    loss = w.step()
    assert math.isfinite(loss.item())
    changed = sum(not bool((p.detach() == b).all()) for p, b in zip(w.model.parameters(), before))
    assert changed > 0, "the optimizer step changed no parameter"
    assert w.items_per_step > 0 and w.num_parameters > 0


@pytest.mark.torch
@pytest.mark.parametrize("key", list(MODELS))
def test_torch_twin_has_same_parameter_shapes(ember_fw, key):
    pytest.importorskip("torch")
    torch_fw = frameworks.load("torch")
    e = make_workload(ember_fw, key, "tiny").model
    t = make_workload(torch_fw, key, "tiny").model
    assert [tuple(p.shape) for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]
    assert sum(p.numel() for p in e.parameters()) == sum(p.numel() for p in t.parameters())
