"""The peak-memory row: a step's resident-set growth, measured in a child process per framework."""

import pytest

from ember.bench import step_memory


@pytest.mark.skipif(not step_memory.supported(), reason="needs Linux's /proc peak resident set")
def test_step_growth_sees_a_cnns_activations_and_an_mlps_gradients_are_not_copied():
    lenet, mlp = step_memory.run_step_memory(["lenet", "mlp"], ["ember"])
    # LeNet, batch 64: the 32x26x26 and 64x24x24 float32 activations alone are 5.3 and 9 MiB
    assert 8 < lenet["ember"] < 128, lenet
    # the MLP step frees last step's gradients before making this step's, so it grows by little
    # (PyTorch: 0.2 MiB); cloning its 1.3 MiB of weight gradients into .grad again would show here
    assert 0 <= mlp["ember"] < 1.0, mlp
    table = step_memory.markdown([mlp, {"row": "resnet18", "ember": 42.0, "torch": 35.0, "ratio": 1.2}])
    assert "| mlp | — | " in table and "| resnet18 | 35.0 MiB | 42.0 MiB | 1.20 | ≤ 1.20 |" in table
