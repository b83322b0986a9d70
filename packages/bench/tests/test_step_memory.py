"""The peak-memory row: a step's resident-set growth, measured in a child process per framework."""

import pytest

from ember.bench import step_memory


@pytest.mark.skipif(not step_memory.supported(), reason="needs Linux's /proc peak resident set")
def test_an_mlp_step_grows_the_resident_set_by_at_least_its_activations():
    (rec,) = step_memory.run_step_memory(["mlp"], ["ember"])
    # batch 128: three 128x512 float32 activations (fc1, relu, fc2) alone are 768 KiB, and their
    # gradients as much again; the whole step stays far below 64 MiB
    assert 0.75 < rec["ember"] < 64, rec
    table = step_memory.markdown([rec, {"row": "resnet18", "ember": 42.0, "torch": 35.0, "ratio": 1.2}])
    assert "| mlp | — | " in table and "| resnet18 | 35.0 MiB | 42.0 MiB | 1.20 | ≤ 1.20 |" in table
