"""The training-kernel rows: each model trains, its PyTorch twin has the same parameters, and the
table renders ratio and target."""

import math

import pytest

from ember.bench import frameworks
from ember.bench.training import TRAIN_ROWS, make_train_step, markdown


@pytest.fixture(scope="module")
def ember_fw():
    return frameworks.load("ember")


def test_mlp_row_trains(ember_fw):
    step = make_train_step(ember_fw, "mlp")
    F = ember_fw.functional
    row = TRAIN_ROWS["mlp"]
    assert row.batch == 128 and row.target == 0.95
    step()  # runs row.steps SGD steps without error
    model = row.builder(ember_fw)
    x = ember_fw.lib.ones(2, 784)
    assert math.isfinite(F.cross_entropy(model(x), ember_fw.lib.tensor([1, 2])).item())


@pytest.mark.torch
@pytest.mark.parametrize("key", list(TRAIN_ROWS))
def test_torch_twin_has_same_parameter_shapes(ember_fw, key):
    pytest.importorskip("torch")
    torch_fw = frameworks.load("torch")
    e, t = TRAIN_ROWS[key].builder(ember_fw), TRAIN_ROWS[key].builder(torch_fw)
    assert [tuple(p.shape) for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]


def test_markdown_shows_ratio_and_target():
    row = {"model": "MLP", "target": 0.95, "ember": {"median": 900.0, "spread": 10.0},
           "torch": {"median": 1000.0, "spread": 20.0}, "ratio": 0.9}
    text = markdown([row])
    assert "| MLP | 1,000 ± 20 | 900 ± 10 | 0.90 | ≥ 0.95 |" in text
