"""slice_inverse's value and gradient against PyTorch (the core op is tested in core's test_tensor_extras)."""

import numpy as np
import pytest

import ember.autograd as A


@pytest.mark.torch
def test_slice_inverse_value_and_gradient_match_pytorch():
    torch = pytest.importorskip("torch")
    w = np.arange(10.0)
    a = A.tensor(np.arange(10.0), requires_grad=True)
    b = a * 1
    r = A.slice_inverse(b[2:5], b, 0, 2, 5)
    (r * A.tensor(w)).sum().backward()
    ta = torch.arange(10.0, dtype=torch.float64, requires_grad=True)
    tb = ta * 1
    tr = torch.slice_inverse(tb[2:5], tb, 0, 2, 5)
    (tr * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(r.detach().numpy(), tr.detach().numpy())
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
