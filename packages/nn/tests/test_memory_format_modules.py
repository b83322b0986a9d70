"""channels_last inputs and `Module.to(memory_format=)`: same values as the row-major layout."""

import numpy as np
import pytest

import ember.autograd as ea
import ember.nn as nn


def _x(*shape, seed=0):
    return ea.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_conv_pool_batchnorm_on_channels_last_inputs_match_row_major():
    ea.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                          nn.AvgPool2d(2), nn.Conv2d(4, 2, 1))
    x = _x(2, 3, 8, 8)
    xc = x.contiguous(memory_format=ea.channels_last)
    assert xc.stride() == (192, 1, 24, 3)
    ref = model(x)
    out = model(xc)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_module_to_channels_last_converts_4d_params_and_keeps_values():
    ea.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4 * 2 * 2, 2))
    x = _x(1, 3, 4, 4)
    ref = model(x).detach().numpy()
    w = model[0].weight.detach().numpy().copy()
    assert model.to(memory_format=ea.channels_last) is model
    assert model[0].weight.is_contiguous(memory_format=ea.channels_last)
    assert model[0].weight.stride() == (27, 1, 9, 3)
    assert isinstance(model[0].weight, nn.Parameter)
    assert model[2].weight.stride() == (16, 1)
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), w)
    np.testing.assert_allclose(model(x).detach().numpy(), ref, rtol=1e-6, atol=1e-6)


def test_gradient_flows_through_a_channels_last_copy():
    a = _x(2, 3, 4, 5).requires_grad_(True)
    b = a.contiguous(memory_format=ea.channels_last)
    w = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    (b * ea.tensor(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), w)
    z = ea.zeros_like(b, requires_grad=True)
    assert z.requires_grad and z.is_leaf and z.stride() == (60, 1, 15, 3)


@pytest.mark.torch
def test_channels_last_conv_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((4, 3, 3, 3)).astype(np.float32)
    ours = nn.functional.conv2d(ea.tensor(x).contiguous(memory_format=ea.channels_last),
                                ea.tensor(w).contiguous(memory_format=ea.channels_last))
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).contiguous(memory_format=torch.channels_last),
                                     torch.from_numpy(w).contiguous(memory_format=torch.channels_last))
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
