"""`torch.nested` through ember.torch: the namespace, and nn layers and attention on jagged tensors against
PyTorch 2.13's stored numbers."""

import numpy as np
import pytest

import ember.torch as torch

nn = torch.nn
F = torch.nn.functional

A = torch.arange(8.0).reshape(2, 4) / 4
B = torch.arange(12.0).reshape(3, 4) / 6 - 1


def _nt():
    return torch.nested.nested_tensor([A, B], layout=torch.jagged)


def test_namespace_is_pytorchs():
    assert sorted(n for n in dir(torch.nested) if not n.startswith("_") and n not in ("annotations",)) == [
        "as_nested_tensor", "masked_select", "narrow", "nested_tensor", "nested_tensor_from_jagged",
        "to_padded_tensor"]
    assert repr(torch.jagged).endswith(".jagged") and _nt().layout is torch.jagged


def test_linear_and_layer_norm_match_pytorch():
    w, bias = torch.arange(12.0).reshape(3, 4) / 10, torch.tensor([0.5, -0.5, 1.0])
    np.testing.assert_allclose(F.linear(_nt(), w, bias).values().tolist(), [
        [0.85, 0.45, 2.55], [1.45, 2.65, 6.35], [0.133333, -2.066667, -1.766667], [0.533333, -0.6, 0.766667],
        [0.933333, 0.866667, 3.3]], atol=1e-5)
    np.testing.assert_allclose(F.layer_norm(_nt(), (4,)).values()[2].tolist(),
                               [-1.341448, -0.447149, 0.447149, 1.341448], atol=1e-5)
    lin = nn.Linear(4, 3)
    out = lin(_nt())
    assert out.is_nested and out.offsets() is not None and tuple(out.values().shape) == (5, 3)
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[3, 4\], expected input with shape \[\*, 3, 4\], "
                                           r"but got input of size\[5, 4\]$"):
        F.layer_norm(_nt(), (3, 4))


def test_attention_per_component_matches_pytorch():
    parts = [torch.arange(12.0).reshape(3, 2, 2).sin(), torch.arange(4.0).reshape(1, 2, 2).cos()]
    q = torch.nested.nested_tensor(parts, layout=torch.jagged).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, q, q)
    assert out.offsets() is q.offsets() and out.size(1) == 2 and out.size(2) is q.size(2)
    np.testing.assert_allclose(out.transpose(1, 2).values().tolist(), [
        [[0.239497, 0.393065], [0.315961, 0.061215]], [[-0.446381, -0.539626], [0.009889, 0.121704]],
        [[0.475812, 0.396543], [-0.254215, -0.508216]], [[1.0, 0.540302], [-0.416147, -0.989992]]], atol=1e-5)
    with pytest.raises(RuntimeError, match="^No viable backend for scaled_dot_product_attention was found.$"):
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
    with pytest.raises(ValueError, match="^Expected query, key, and value to be nested tensors, but got"):
        F.scaled_dot_product_attention(q, torch.ones(2, 2, 3, 2), q)


def test_ragged_reductions_match_pytorch():
    np.testing.assert_allclose(torch.softmax(_nt(), 1).to_padded_tensor(0.0)[1, :, 0].tolist(),
                               [0.148337, 0.288921, 0.562742], atol=1e-6)
    np.testing.assert_allclose(_nt().mean(1).tolist(), [[0.5, 0.75, 1.0, 1.25], [-0.333333, -0.166667, 0.0, 0.166667]],
                               atol=1e-6)
    np.testing.assert_allclose(F.log_softmax(_nt(), -1).values()[0].tolist(), [-1.800016, -1.550016, -1.300016,
                                                                                -1.050016], atol=1e-6)
