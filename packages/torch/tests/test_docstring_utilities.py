"""torch-level utilities of PyTorch's docstrings: typename and the one-tensor predicates' argument checks."""

import numpy as np
import pytest

import ember.torch as torch


def test_typename_of_tensors_classes_and_instances():
    assert torch.typename(torch.ones(1, dtype=torch.int64)) == "torch.LongTensor"
    assert torch.typename(1.5) == "float"
    assert torch.typename(int) == "int"
    assert torch.typename(np.ones(1)) == "numpy.ndarray"


@pytest.mark.parametrize("name", ["is_floating_point", "numel"])
def test_tensor_predicates_refuse_other_objects(name):
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        getattr(torch, name)([1, 2])
