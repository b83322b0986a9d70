"""Gradients through channels_last and permuted inputs, whose elementwise results keep the inputs' layout
(NOTE [ Elementwise result layout ] in ember.core.ops.memfmt): the values are those of the row-major
computation, checked by float64 finite differences and against numpy's closed forms."""

import numpy as np
import pytest

import ember.autograd as E

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4, 5))
B = RNG.standard_normal((2, 3, 4, 5))

FNS = {
    "exp": lambda x, y: x.exp(),
    "mul": lambda x, y: x * y,
    "add bias": lambda x, y: x + y[:, :, :1, :1],
    "sigmoid": lambda x, y: x.sigmoid(),
    "where": lambda x, y: E.where(x > 0, x, y),
    "div": lambda x, y: x / (y.abs() + 1),
    "square": lambda x, y: x ** 2,
    "clamp": lambda x, y: x.clamp(-0.5, 0.5),
    "mixed layouts": lambda x, y: (x + 1) * y.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
}


def _leaves():
    x = E.tensor(A).contiguous(memory_format=E.channels_last).requires_grad_(True)
    y = E.tensor(B).requires_grad_(True)
    return x, y


@pytest.mark.parametrize("name", list(FNS))
def test_gradients_by_finite_differences(name):
    x, y = _leaves()
    assert x.stride() == (60, 1, 15, 3)
    assert E.autograd.gradcheck(FNS[name], (x, y), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", list(FNS))
def test_gradients_equal_the_row_major_computation(name):
    x, y = _leaves()
    g = E.tensor(RNG.standard_normal((2, 3, 4, 5)))
    FNS[name](x, y).backward(g)
    xc, yc = E.tensor(A).requires_grad_(True), E.tensor(B).requires_grad_(True)
    FNS[name](xc, yc).backward(g)
    np.testing.assert_allclose(x.grad.numpy(), xc.grad.numpy(), rtol=1e-14, atol=1e-14)
    assert (y.grad is None) == (yc.grad is None)
    if y.grad is not None:
        np.testing.assert_allclose(y.grad.numpy(), yc.grad.numpy(), rtol=1e-14, atol=1e-14)


def test_gradients_against_closed_forms():
    x, y = _leaves()
    (x.exp() * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(A) * B, rtol=1e-14)
    np.testing.assert_allclose(y.grad.numpy(), np.exp(A), rtol=1e-14)
    x, y = _leaves()
    E.where(x > 0, x * x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(A > 0, 2 * A, 0), rtol=1e-14)
    np.testing.assert_allclose(y.grad.numpy(), np.where(A > 0, 0, 1.0), rtol=1e-14)


@pytest.mark.parametrize(("k", "x_cl", "w_cl"), [(1, True, False), (1, False, True), (3, True, True),
                                                 (3, False, True), (3, False, False)])
def test_conv2d_gradients_are_channels_last_when_its_input_or_weight_is(k, x_cl, w_cl):
    # as PyTorch's CPU convolution: its backward answers in the layout its forward ran in, even where the
    # shape is ambiguous (a 1x1 weight's gradient is (4, 1, 4, 4), not the row-major (4, 1, 1, 1))
    x0, w0 = E.tensor(A[:, :, :, :4]), E.tensor(RNG.standard_normal((2, 3, k, k)))
    x = (x0.contiguous(memory_format=E.channels_last) if x_cl else x0).requires_grad_(True)
    w = (w0.to(memory_format=E.channels_last) if w_cl else w0).requires_grad_(True)
    y = E.conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1)
    gy = E.tensor(RNG.standard_normal(tuple(y.shape)))
    gx, gw = E.autograd.grad(y, (x, w), gy)
    cl = x_cl or w_cl
    assert gx.stride() == ((48, 1, 12, 3) if cl else (48, 16, 4, 1))
    assert gw.stride() == ({1: (3, 1, 3, 3), 3: (27, 1, 9, 3)}[k] if cl else {1: (3, 1, 1, 1), 3: (27, 9, 3, 1)}[k])
    wx, ww = E.autograd.grad(E.conv2d(x0.requires_grad_(True), w0.requires_grad_(True), None, (1, 1), (1, 1),
                                      (1, 1), 1), (x0, w0), gy)
    np.testing.assert_allclose(gx.numpy(), wx.numpy(), atol=1e-12)
    np.testing.assert_allclose(gw.numpy(), ww.numpy(), atol=1e-12)


_WT = RNG.standard_normal((3, 2, 3, 3))
_LAYOUT_OPS = {
    "max_pool2d": lambda x: E.max_pool2d(x, 2),
    "adaptive_max_pool2d": lambda x: E.adaptive_max_pool2d(x, 3),
    "avg_pool2d": lambda x: E.avg_pool2d(x, 2, 1, 1),
    "adaptive_avg_pool2d": lambda x: E.adaptive_avg_pool2d(x, 2),
    "pad reflect": lambda x: E.pad(x, (1, 2, 1, 0), mode="reflect"),
    "pad constant": lambda x: E.pad(x, (1, 1, 2, 2)),
    "batch_norm": lambda x: E.batch_norm(x, None, None, training=True),
    "group_norm": lambda x: E.group_norm(x, 3),
    "conv_transpose2d": lambda x: E.conv_transpose2d(x, E.tensor(_WT), stride=2),
}


@pytest.mark.parametrize("name", list(_LAYOUT_OPS))
def test_input_gradients_of_vision_kernels_keep_the_inputs_channels_last(name):
    # as PyTorch's CPU kernels answer grad_input (seen through autograd.grad, hooks and retained grads)
    x = E.tensor(A).contiguous(memory_format=E.channels_last).requires_grad_(True)
    y = _LAYOUT_OPS[name](x)
    gy = E.tensor(RNG.standard_normal(tuple(y.shape)))
    (gx,) = E.autograd.grad(y, (x,), gy)
    assert gx.stride() == (60, 1, 15, 3)
    x0 = E.tensor(A).requires_grad_(True)
    (want,) = E.autograd.grad(_LAYOUT_OPS[name](x0), (x0,), gy)
    assert want.stride() == (60, 20, 5, 1)
    np.testing.assert_allclose(gx.numpy(), want.numpy(), atol=1e-12)


def test_circular_padding_answers_row_major_as_pytorch():
    x = E.tensor(A).contiguous(memory_format=E.channels_last).requires_grad_(True)
    y = E.pad(x, (1, 1, 1, 1), mode="circular")
    assert E.autograd.grad(y, (x,), E.ones(tuple(y.shape), dtype=y.dtype))[0].stride() == (60, 20, 5, 1)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "trilinear", "nearest3d"])
def test_resize_gradients_take_pytorchs_layouts(mode):
    # PyTorch's CPU kernels: the incoming gradient's format, but bicubic and volumetric nearest answer row-major
    nd = 3 if mode in ("trilinear", "nearest3d") else 2
    fmt = E.channels_last_3d if nd == 3 else E.channels_last
    w = RNG.standard_normal((2, 3, 4, 5, 2)[:nd + 2])
    cl, rm = ((120, 1, 30, 6, 3), (120, 40, 10, 2, 1)) if nd == 3 else ((60, 1, 15, 3), (60, 20, 5, 1))
    for x_cl, g_cl in ((True, False), (False, True), (True, True)):
        x = E.tensor(w)
        x = (x.contiguous(memory_format=fmt) if x_cl else x).requires_grad_()
        y = E.interpolate(x, scale_factor=2, mode=mode.replace("3d", ""))
        g = E.ones(tuple(y.shape), dtype=y.dtype)
        (gx,) = E.autograd.grad(y, (x,), g.contiguous(memory_format=fmt) if g_cl else g)
        assert gx.stride() == (cl if g_cl and mode not in ("bicubic", "nearest3d") else rm)


def test_max_pool3d_gradient_keeps_a_channels_last_3d_input_layout():
    w = RNG.standard_normal((2, 3, 4, 6, 2))
    v = E.tensor(w).contiguous(memory_format=E.channels_last_3d).requires_grad_()
    y = E.max_pool3d(v, 2)
    gy = E.tensor(RNG.standard_normal(tuple(y.shape)))
    (gx,) = E.autograd.grad(y, (v,), gy)
    assert gx.stride() == (144, 1, 36, 6, 3)
    v0 = E.tensor(w).requires_grad_()
    np.testing.assert_array_equal(gx.numpy(), E.autograd.grad(E.max_pool3d(v0, 2), (v0,), gy)[0].numpy())


@pytest.mark.parametrize("op", ["pixel_shuffle", "pixel_unshuffle"])
def test_pixel_shuffle_gradients_follow_the_incoming_gradients_layout(op):
    # PyTorch's backward is the inverse shuffle of the gradient, laid out as that gradient
    f = getattr(E, op)
    w = RNG.standard_normal((2, 8, 4, 6))
    x = E.tensor(w).contiguous(memory_format=E.channels_last).requires_grad_(True)
    y = f(x, 2)
    g_cl = E.tensor(RNG.standard_normal(tuple(y.shape))).contiguous(memory_format=E.channels_last)
    (gx,) = E.autograd.grad(y, (x,), g_cl)
    assert gx.stride() == (192, 1, 48, 8)
    (g_rm,) = E.autograd.grad(f(x, 2), (x,), g_cl.contiguous())
    assert g_rm.stride() == (192, 24, 6, 1)
    np.testing.assert_array_equal(gx.numpy(), g_rm.numpy())
    np.testing.assert_array_equal(gx.numpy(), getattr(E, "pixel_unshuffle" if op == "pixel_shuffle" else
                                                      "pixel_shuffle")(g_cl, 2).numpy())
