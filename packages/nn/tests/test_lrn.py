"""local_response_norm, LocalResponseNorm and CrossMapLRN2d: values against float64 loops,
gradients by finite differences, PyTorch's values and gradients, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.nn.functional as F


def ref_lrn(x, size, alpha, beta, k):
    out = np.empty_like(x)
    c_n = x.shape[1]
    for c in range(c_n):
        lo, hi = max(0, c - size // 2), min(c_n, c + (size - 1) // 2 + 1)
        s = (x[:, lo:hi] ** 2).sum(1)
        out[:, c] = x[:, c] / (k + alpha / size * s) ** beta
    return out


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 6, 3, 2), (1, 4, 2, 2, 3)])
@pytest.mark.parametrize("size", [1, 2, 3, 4, 9])
def test_local_response_norm_against_a_loop(shape, size):
    x = np.random.default_rng(size).standard_normal(shape) * 3
    got = F.local_response_norm(E.tensor(x), size, alpha=0.2, beta=0.6, k=1.5).numpy()
    np.testing.assert_allclose(got, ref_lrn(x, size, 0.2, 0.6, 1.5), rtol=1e-12)
    mod = nn.LocalResponseNorm(size, alpha=0.2, beta=0.6, k=1.5)(E.tensor(x)).numpy()
    np.testing.assert_array_equal(mod, got)


def test_local_response_norm_gradient_and_empty_input():
    x = E.tensor(np.random.default_rng(0).standard_normal((2, 5, 3)), requires_grad=True)
    assert E.gradcheck(lambda a: F.local_response_norm(a, 3, alpha=0.5, beta=0.75, k=1.0), (x,))
    empty = E.zeros(2, 0, 3)
    assert F.local_response_norm(empty, 2) is empty
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality {26}input \(got 2 dimensions\)"):
        F.local_response_norm(E.zeros(2, 3), 2)


def test_cross_map_lrn2d_gradient_and_errors():
    x = E.tensor(np.random.default_rng(1).standard_normal((1, 6, 2, 2)), requires_grad=True)
    assert E.gradcheck(lambda a: nn.CrossMapLRN2d(3, alpha=0.5)(a), (x,))
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        nn.CrossMapLRN2d(3)(E.zeros(2, 3, 4))


@pytest.mark.torch
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8])
def test_lrn_layers_match_pytorch(size):
    """Values of both layers and gradients of LocalResponseNorm; CrossMapLRN2d's gradient is the exact one
    (gradcheck above), where PyTorch's hand-written backward fails its own gradcheck."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(size).standard_normal((2, 7, 3, 2)) * 2
    tx, ex = torch.tensor(x, requires_grad=True), E.tensor(x, requires_grad=True)
    want, got = torch.nn.LocalResponseNorm(size, 0.3, 0.7, 2.0)(tx), nn.LocalResponseNorm(size, 0.3, 0.7, 2.0)(ex)
    g = np.random.default_rng(9).standard_normal(x.shape)
    want.backward(torch.tensor(g))
    got.backward(E.tensor(g))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-13)
    want = torch.nn.CrossMapLRN2d(size, 0.3, 0.7, 2.0)(torch.tensor(x))
    got = nn.CrossMapLRN2d(size, 0.3, 0.7, 2.0)(E.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
