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


def test_non_finite_inputs_land_where_pytorchs_kernels_put_them():
    nan, inf = float("nan"), float("inf")
    x = E.tensor([nan, inf, -inf, 0.3], requires_grad=True)
    y = E.fake_quantize_per_tensor_affine(x, 0.1, 0, -8, 7)  # NaN at quant_min, +-inf clamped
    assert y.detach().tolist() == pytest.approx([-0.8, 0.7, -0.8, 0.3])
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0]
    scale, zp = E.tensor([0.1, 0.2]), E.tensor([0, 0], dtype=E.int32)
    pc = E.fake_quantize_per_channel_affine(x.detach().view(2, 2), scale, zp, 0, -8, 7)  # int64 cast: all at min
    assert pc.flatten().tolist() == pytest.approx([-0.8, -0.8, -1.6, 0.4])
    fz = E.fake_quantize_per_channel_affine(x.detach().view(2, 2), scale, E.tensor([0.0, 1.0]), 0, -8, 7)
    assert fz.flatten().tolist() == pytest.approx([-0.8, -0.8, -1.8, 0.2])


def test_zero_scale_is_silent_and_a_scalar_input_has_no_channel_axis():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert E.fake_quantize_per_tensor_affine(E.tensor([0.3, 1.0]), 0.0, 0, -8, 7).tolist() == [0.0, 0.0]
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        E.fake_quantize_per_channel_affine(E.tensor(0.5), E.tensor([0.1]), E.tensor([0], dtype=E.int32), 0, -8, 7)


def test_per_channel_float_zero_point_joins_before_rounding():
    # PyTorch: (clamp(nearbyint(x / s + zp)) - zp) * s for a float zero_point, with no range check on it
    x = E.tensor([[-1.3, -0.26, 0.04, 0.55, 2.49], [0.151, -0.049, 0.3, 0.35, 0.45]], requires_grad=True)
    y = E.fake_quantize_per_channel_affine(x, E.tensor([0.1, 0.2]), E.tensor([0.4, -1.6]), 0, -5, 5)
    want = [[-0.54, -0.24, 0.06, 0.46, 0.46], [0.12, -0.08, 0.32, 0.32, 0.52]]  # PyTorch 2.13's values
    np.testing.assert_allclose(y.detach().numpy(), want, atol=1e-6)
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0, 0.0, 0.0], [1.0] * 5]
    far = E.fake_quantize_per_channel_affine(x.detach(), E.tensor([0.1, 0.2]), E.tensor([9.7, 0.0]), 0, -5, 5)
    np.testing.assert_allclose(far[0].numpy(), [-1.27, -0.47, -0.47, -0.47, -0.47], atol=1e-6)


def test_per_channel_float_zero_point_scales_back_in_float64():
    # PyTorch 2.13's bits: (q - zp) * scale is computed in double, then rounded once to float32
    x = E.tensor([[0.04, 0.17, -0.33, 0.5]])
    y = E.fake_quantize_per_channel_affine(x, E.tensor([0.1]), E.tensor([0.4]), 0, -128, 127)
    assert [f"{v:.11f}" for v in y[0].tolist()] == ["0.05999999866", "0.15999999642", "-0.34000000358",
                                                     "0.46000000834"]
    q = np.rint(x.numpy().astype(np.float32) * (np.float32(1) / np.float32(0.1)) + np.float32(0.4))
    want = ((q.astype(np.float64) - np.float64(np.float32(0.4))) * np.float64(np.float32(0.1))).astype(np.float32)
    np.testing.assert_array_equal(y.numpy(), want)


def test_qparams_requiring_grad_and_argument_errors():
    x = E.ones(2, 3)
    s = E.tensor([0.1, 0.2], requires_grad=True)
    with pytest.raises(RuntimeError, match="^The function 'fake_quantize_per_channel_affine_cachemask' is not "
                                           "differentiable with respect to argument 'scale'. This input cannot have "
                                           "requires_grad True.$"):
        E.fake_quantize_per_channel_affine(x, s, E.zeros(2, dtype=E.int32), 0, -4, 3)
    with E.no_grad():
        E.fake_quantize_per_channel_affine(x, s, E.zeros(2, dtype=E.int32), 0, -4, 3)
    with pytest.raises(RuntimeError, match="argument 'zero_point'"):
        E.fake_quantize_per_tensor_affine(x, E.tensor(0.1), E.tensor(0.0, requires_grad=True), -4, 3)
    with pytest.raises(RuntimeError, match="^Scale must be Float or BFloat16, found Double$"):
        E.fake_quantize_per_channel_affine(x, E.tensor([0.1, 0.2], dtype=E.float64), E.zeros(2), 0, -4, 3)
    with pytest.raises(RuntimeError, match="^scale should be a 1-D tensor$"):
        E.fake_quantize_per_channel_affine(x, E.ones(2, 1), E.zeros(2), 0, -4, 3)
    with pytest.raises(RuntimeError, match="^scale and zero-point need to have the same dimensions$"):
        E.fake_quantize_per_channel_affine(x, E.ones(2), E.zeros(1), 0, -4, 3)
    with pytest.raises(RuntimeError, match="^`axis` must be between 0 and number of dimensions of input$"):
        E.fake_quantize_per_channel_affine(x, E.ones(2), E.zeros(2), -2, -4, 3)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], "
                                         r"but got 2\)$"):
        E.fake_quantize_per_channel_affine(x, E.ones(2), E.zeros(2), 2, -4, 3)
    want = ("fake_quantize_per_tensor_affine() received an invalid combination of arguments - got (Tensor, float, "
            "float, int, int), but expected one of:\n"
            " * (Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max)\n"
            "      didn't match because some of the arguments have invalid types: "
            "(Tensor, !float!, !float!, int, int)\n"
            " * (Tensor input, float scale, int zero_point, int quant_min, int quant_max)\n"
            "      didn't match because some of the arguments have invalid types: (Tensor, float, !float!, int, int)\n")
    with pytest.raises(TypeError) as info:
        E.fake_quantize_per_tensor_affine(x, 0.1, 0.0, -4, 3)
    assert str(info.value) == want


def test_learnable_per_tensor_gradients_are_pytorchs():
    # PyTorch 2.13's numbers: forward rounds zp half-to-even, backward truncates zp + 0.5
    x = [-1.3, -0.26, 0.04, 0.55, 2.49]
    cases = {0.0: ([-0.5, -0.3, 0.0, 0.5, 0.5], 15.24, -0.1), 0.5: ([-0.5, -0.3, 0.0, 0.5, 0.5], 14.24, -0.1),
             1.5: ([-0.7, -0.3, 0.0, 0.3, 0.3], 13.64, 0.02), -2.6: ([-0.2, -0.2, 0.0, 0.6, 0.8], 13.16, -0.12)}
    for zp, (y_want, ds, dz) in cases.items():
        xt = E.tensor(x, requires_grad=True)
        s, z = E.tensor([0.1], requires_grad=True), E.tensor([zp], requires_grad=True)
        y = E._fake_quantize_learnable_per_tensor_affine(xt, s, z, -5, 5, 1.0)
        assert repr(y.grad_fn).startswith("<FakeQuantizeLearnablePerTensorAffineBackward0 object at")
        y.pow(2).sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), y_want, atol=1e-6)
        np.testing.assert_allclose([s.grad.item(), z.grad.item()], [ds, dz], atol=1e-5)
        assert s.grad.shape == (1,)
    with pytest.raises(IndexError, match="^select\\(\\) cannot be applied to a 0-dim tensor.$"):
        E._fake_quantize_learnable_per_tensor_affine(xt, E.tensor(0.1), E.tensor(0.0), -5, 5)


def test_learnable_per_channel_reduces_qparam_gradients_per_channel():
    x = E.tensor([[-1.3, -0.26, 0.04, 0.55, 2.49], [0.151, -0.049, 0.3, 0.35, 0.45]], requires_grad=True)
    s, z = E.tensor([0.1, 0.2], requires_grad=True), E.tensor([0.4, -1.6], requires_grad=True)
    y = E._fake_quantize_learnable_per_channel_affine(x, s, z, 0, -5, 5, 0.5)
    y.pow(2).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [[-0.5, -0.3, 0, 0.5, 0.5], [0.2, 0, 0.4, 0.4, 0.4]], atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [[0, -0.6, 0, 0, 0], [0.4, 0, 0.8, 0.8, 0.8]], atol=1e-6)
    np.testing.assert_allclose(s.grad.numpy(), [7.62, 0.249], atol=1e-5)
    np.testing.assert_allclose(z.grad.numpy(), [-0.05, 0.0], atol=1e-6)
    assert y.grad_fn.name() == "FakeQuantizeLearnablePerChannelAffineBackward0"


def test_learnable_gradients_count_values_past_int64_as_clamped_below():
    # PyTorch 2.13 (x86): the int64 cast of the grid value sends NaN, +-inf and |x / scale| >= 2**63 to INT64_MIN
    for learnable in (lambda x, s, z: E._fake_quantize_learnable_per_tensor_affine(x, s, z, -8, 7, 1.0),
                      lambda x, s, z: E._fake_quantize_learnable_per_channel_affine(x, s, z, 0, -8, 7, 1.0)):
        x = E.tensor([[float("nan"), float("inf"), float("-inf"), 1e20, 1e17, 0.3]], requires_grad=True)
        s, z = E.tensor([0.1], requires_grad=True), E.tensor([0.0], requires_grad=True)
        learnable(x, s, z).sum().backward()
        assert s.grad.item() == -8 * 4 + 7
        np.testing.assert_allclose(z.grad.numpy(), [-0.5], atol=1e-6)
        assert x.grad.tolist() == [[0, 0, 0, 0, 0, 1]]


def test_per_channel_sends_values_past_int64_to_quant_min():
    x = E.tensor([[1e20, -1e20, 1e17, float("inf"), 0.3]])
    want = [[-0.8, -0.8, 0.7, -0.8, 0.3]]  # PyTorch 2.13's
    for zp in (E.tensor([0], dtype=E.int32), E.tensor([0.0])):
        y = E.fake_quantize_per_channel_affine(x, E.tensor([0.1]), zp, 0, -8, 7)
        np.testing.assert_allclose(y.numpy(), want, atol=1e-6)
    np.testing.assert_allclose(E.fake_quantize_per_tensor_affine(x, 0.1, 0, -8, 7).numpy(),
                               [[0.7, -0.8, 0.7, 0.7, 0.3]], atol=1e-6)
