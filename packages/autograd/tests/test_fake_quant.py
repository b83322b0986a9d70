"""fake_quantize_per_tensor_affine / _per_channel_affine: values against a numpy reference of PyTorch's formula
(zero_point + nearbyint(x * float32(1 / scale)), clamped), the straight-through gradient, PyTorch's errors, and
PyTorch itself where installed."""

import numpy as np
import pytest

import ember.autograd as E


def reference(x, scale, zp, qmin, qmax):
    inv = np.float32(1.0) / np.float32(scale)
    q = np.rint(x * inv) + zp
    return ((np.clip(q, qmin, qmax) - zp) * np.float32(scale)).astype(x.dtype), (q >= qmin) & (q <= qmax)


def test_per_tensor_values_and_straight_through_gradient():
    x_np = np.random.default_rng(0).standard_normal(50).astype(np.float32) * 2
    x = E.tensor(x_np, requires_grad=True)
    y = E.fake_quantize_per_tensor_affine(x, 0.13, 3, -8, 7)
    want, mask = reference(x_np, 0.13, 3, -8, 7)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=0, atol=1e-6)
    assert 0 < mask.sum() < mask.size  # both clamped and passed elements
    y.backward(E.ones(50) * 2)
    np.testing.assert_array_equal(x.grad.numpy(), 2.0 * mask)
    assert y.grad_fn.name() == "FakeQuantizePerTensorAffineCachemaskBackward0"


def test_per_channel_uses_each_channels_qparams():
    x_np = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    x = E.tensor(x_np, requires_grad=True)
    scales, zps = [0.1, 0.2, 0.05], [0, 1, -2]
    y = E.fake_quantize_per_channel_affine(x, E.tensor(scales), E.tensor(zps, dtype=E.int32), 0, -4, 3)
    for i in range(3):
        want, mask = reference(x_np[i], scales[i], zps[i], -4, 3)
        np.testing.assert_allclose(y[i].detach().numpy(), want, atol=1e-6)
    y.sum().backward()
    assert y.grad_fn.name() == "FakeQuantizePerChannelAffineCachemaskBackward0"
    assert x.grad.tolist() == [[0.0] * 4, [1.0] * 4, [0.0] * 4]  # rows 0 and 2 clamp, row 1 fits


def test_errors_are_pytorchs():
    x = E.ones(3)
    with pytest.raises(RuntimeError, match="`quant_min` should be less than or +equal to `quant_max`."):
        E.fake_quantize_per_tensor_affine(x, 0.1, 0, 4, 3)
    with pytest.raises(RuntimeError, match="^`zero_point` must be between `quant_min` and `quant_max`.$"):
        E.fake_quantize_per_tensor_affine(x, 0.1, 9, -4, 3)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        E.fake_quantize_per_tensor_affine(E.ones(3, dtype=E.int64), 0.1, 0, -4, 3)
    with pytest.raises(RuntimeError, match="^Zero-point must be Int32, Float or Half, found Long$"):
        E.fake_quantize_per_channel_affine(E.ones(2, 3), E.tensor([0.1, 0.2]), E.tensor([0, 0]), 0, -4, 3)


@pytest.mark.torch
def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    x_np = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    for lib in (E, torch):
        x = lib.tensor(x_np, requires_grad=True)
        y = lib.fake_quantize_per_tensor_affine(x, 0.07, -2, -16, 15)
        (y * y).sum().backward()
        if lib is E:
            ours = (y.detach().numpy(), x.grad.numpy())
    np.testing.assert_allclose(ours[0], y.detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(ours[1], x.grad.numpy(), atol=1e-6)
