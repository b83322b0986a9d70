"""3-D layers: gradients of conv3d/conv_transpose3d/3-D pools/5-D interpolate by float64 finite
differences, the modules (shapes, repr, padding modes, output_size), Dropout3d and alpha dropout,
and values and gradients against PyTorch (marked `torch`)."""

import math

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F


def rand(*shape, seed=0):
    g = np.random.default_rng(seed)
    return torch.tensor(g.standard_normal(shape), dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("stride, padding, dilation, groups", [
    (1, 0, 1, 1), ((2, 1, 2), (1, 0, 1), 1, 2), (1, "same", (2, 1, 1), 1), ((1, 2, 1), (0, 1, 1), (1, 1, 2), 1),
])
def test_conv3d_gradients_by_finite_differences(stride, padding, dilation, groups):
    x, w, b = rand(2, 4, 4, 3, 4), rand(2, 4 // groups, 2, 2, 2, seed=1), rand(2, seed=2)
    assert torch.gradcheck(lambda x, w, b: F.conv3d(x, w, b, stride, padding, dilation, groups), (x, w, b))


@pytest.mark.parametrize("stride, padding, output_padding, groups, dilation", [
    (1, 0, 0, 1, 1), ((2, 1, 2), (1, 0, 0), (1, 0, 1), 2, 1), (2, 1, 0, 1, (1, 2, 1)),
])
def test_conv_transpose3d_gradients_by_finite_differences(stride, padding, output_padding, groups, dilation):
    x, w, b = rand(1, 4, 2, 3, 2), rand(4, 4 // groups, 2, 2, 2, seed=1), rand(4, seed=2)
    assert torch.gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, stride, padding, output_padding, groups,
                                                              dilation), (x, w, b))


def test_conv3d_second_derivatives():
    x, w = rand(1, 2, 3, 3, 3), rand(2, 2, 2, 2, 2, seed=1)
    assert torch.gradgradcheck(lambda x, w: F.conv3d(x, w, None, 1, 1), (x, w))


@pytest.mark.parametrize("fn", [
    lambda x: F.max_pool3d(x, 2, ceil_mode=True),
    lambda x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 1, 2)),
    lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda x: F.avg_pool3d(x, (2, 3, 2), 1, (1, 1, 0), divisor_override=3),
    lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
    lambda x: F.adaptive_max_pool3d(x, (3, 2, 4)),
    lambda x: F.lp_pool3d(x.abs() + 0.5, 2.0, 2),
    lambda x: F.interpolate(x, size=(6, 4, 3), mode="trilinear"),
    lambda x: F.interpolate(x, scale_factor=(1.5, 2.0, 0.8), mode="trilinear", align_corners=True),
    lambda x: F.interpolate(x, size=(7, 4, 5), mode="nearest-exact"),
])
def test_pool3d_and_interpolate_gradients_by_finite_differences(fn):
    # distinct values, well apart: max pooling's finite differences never cross a tie
    x = torch.tensor(np.random.default_rng(3).permutation(2 * 5 * 4 * 5).reshape(1, 2, 5, 4, 5) * 0.1,
                     dtype=torch.float64, requires_grad=True)
    assert torch.gradcheck(fn, (x,))


def test_conv3d_modules_shapes_repr_and_padding_modes():
    torch.manual_seed(0)
    conv = nn.Conv3d(2, 4, 3, padding=1, padding_mode="reflect")
    assert repr(conv) == "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1), " \
                         "padding_mode=reflect)"
    x = torch.randn(1, 2, 4, 5, 6)
    same = F.conv3d(F.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"), conv.weight, conv.bias)
    assert torch.allclose(conv(x), same)
    assert conv(x[0]).shape == (4, 4, 5, 6)
    circ = nn.Conv3d(2, 4, (1, 2, 3), padding="same", padding_mode="circular")  # totals 0, 1, 2: extra at the end
    want = F.conv3d(F.pad(x, (1, 1, 0, 1, 0, 0), mode="circular"), circ.weight, circ.bias)
    assert torch.allclose(circ(x), want)
    up = nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    assert up(x).shape == (1, 3, 7, 9, 11)
    assert up(x, output_size=(8, 10, 12)).shape == (1, 3, 8, 10, 12)
    with pytest.raises(ValueError, match=r"^requested an output size of \(9, 10, 12\), but valid sizes range from "
                                         r"\[7, 9, 11\] to \[8, 10, 12\] \(for an input of .*Size\(\[4, 5, 6\]\)\)$"):
        up(x, output_size=(9, 10, 12))  # PyTorch prints the sizes as given and input.size()[2:]
    with pytest.raises(ValueError, match=r"^ConvTranspose3D: for 4D input, output_size must have 3 or 4 elements "
                                         r"\(got 2\)$"):
        up(x[0], output_size=(8, 10))
    dilated = nn.ConvTranspose1d(2, 2, 3, dilation=3)  # stride 1: one size only, whatever the dilation
    with pytest.raises(ValueError, match=r"from \[10\] to \[10\]"):
        dilated(torch.ones(1, 2, 4), output_size=[11])
    assert up.weight.shape == (2, 3, 3, 3, 3)
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose3d'):
        nn.ConvTranspose3d(2, 3, 3, padding_mode="reflect")
    # a padding mode pads first, as PyTorch's: F.pad's refusal comes before conv3d's rank check
    with pytest.raises(NotImplementedError, match=r"^Padding size 6 is not supported for 3D input tensor\."):
        conv(torch.randn(2, 4, 5))


def test_pool3d_modules_and_norms_take_5d():
    x = torch.randn(2, 3, 4, 6, 5)
    out, idx = nn.MaxPool3d(2, return_indices=True)(x)
    assert out.shape == (2, 3, 2, 3, 2) and idx.dtype == torch.int64
    assert torch.equal(x.flatten(2).gather(2, idx.flatten(2)).reshape(out.shape), out)
    assert nn.AvgPool3d(2, stride=1, padding=1)(x).shape == (2, 3, 5, 7, 6)
    assert nn.AdaptiveAvgPool3d((1, None, 2))(x).shape == (2, 3, 1, 6, 2)
    assert nn.AdaptiveMaxPool3d(1)(x).shape == (2, 3, 1, 1, 1)
    assert nn.LPPool3d(1, 2)(x.abs()).shape == (2, 3, 2, 3, 2)
    assert torch.allclose(nn.LPPool3d(1, 2)(x.abs()), F.avg_pool3d(x.abs(), 2) * 8)
    bn = nn.BatchNorm3d(3)
    y = bn(x)
    assert torch.allclose(y.mean((0, 2, 3, 4)), torch.zeros(3, dtype=y.dtype), atol=1e-5)
    inorm = nn.InstanceNorm3d(3)
    assert torch.allclose(inorm(x).mean((2, 3, 4)), torch.zeros(2, 3), atol=1e-5)
    assert inorm(x[0]).shape == (3, 4, 6, 5)
    with pytest.raises(ValueError, match=r"expected 4D or 5D input \(got 3D input\)"):
        inorm(x[0, 0])
    with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
        bn(x[0])
    up = nn.Upsample(scale_factor=2, mode="trilinear")
    assert up(x).shape == (2, 3, 8, 12, 10)


def test_dropout3d_drops_whole_channels_and_scales():
    torch.manual_seed(0)
    x = torch.ones(8, 16, 2, 3, 2)
    y = nn.Dropout3d(0.5)(x)
    per_channel = y.flatten(2)
    assert torch.equal(per_channel.amax(2), per_channel.amin(2))  # every channel all dropped or all kept
    assert set(per_channel.unique().tolist()) == {0.0, 2.0}
    drop = nn.Dropout3d(0.5)
    drop.eval()
    assert drop(x) is x
    with pytest.warns(UserWarning, match=r"dropout3d: Received a 3-D input.*an optional batch dimension \(i.e. 4D"):
        F.dropout3d(torch.ones(4, 3, 2), 0.5)


def test_alpha_dropout_keeps_mean_and_variance_with_pytorchs_affine_map():
    torch.manual_seed(0)
    p, alpha = 0.2, 1.7580993408473766
    a = 1 / math.sqrt((alpha ** 2 * p + 1) * (1 - p))
    x = torch.randn(100000, dtype=torch.float64)
    y = nn.AlphaDropout(p)(x)
    dropped = (y - (-alpha * a * (1 - p))).abs() < 1e-12
    assert torch.allclose(y[~dropped], a * x[~dropped] + alpha * a * p)
    assert abs(dropped.double().mean().item() - p) < 0.01
    assert abs(y.mean().item()) < 0.02 and abs(y.std().item() - 1) < 0.02
    z = nn.FeatureAlphaDropout(0.5)(torch.randn(64, 8, 3, dtype=torch.float64))
    spread = z - z[..., :1]
    flat = (spread.abs().amax(2) < 1e-12)  # a dropped channel holds one value
    assert 0.3 < flat.double().mean().item() < 0.7
    assert nn.AlphaDropout(0.5).eval()(x) is x
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        F.feature_alpha_dropout(torch.ones(3), 0.5, True)


# --- against PyTorch --------------------------------------------------------------------------

def _pair(shape, seed=0):
    t = pytest.importorskip("torch")
    a = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(a, requires_grad=True), t.tensor(a, requires_grad=True)


def _check_same(ours, theirs, inputs):
    t = pytest.importorskip("torch")
    if isinstance(theirs, tuple):
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
        ours, theirs = ours[0], theirs[0]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    g = np.random.default_rng(9).standard_normal(tuple(theirs.shape))
    (ours * torch.tensor(g)).sum().backward()
    (theirs * t.tensor(g)).sum().backward()
    for e, p in inputs:
        np.testing.assert_allclose(e.grad.numpy(), p.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("kw", [dict(stride=2, padding=1), dict(stride=(1, 2, 3), padding=(2, 0, 1), dilation=(2, 1, 1),
                                                                  groups=2), dict(padding="same", dilation=(1, 2, 1))])
def test_conv3d_matches_pytorch(kw):
    tf = pytest.importorskip("torch.nn.functional")
    (x, xt), (w, wt), (b, bt) = _pair((2, 4, 5, 6, 7)), _pair((6, 4 // kw.get("groups", 1), 3, 2, 3), 1), _pair((6,), 2)
    _check_same(F.conv3d(x, w, b, **kw), tf.conv3d(xt, wt, bt, **kw), [(x, xt), (w, wt), (b, bt)])


@pytest.mark.torch
@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, output_padding=1),
                                dict(stride=(3, 1, 2), padding=(1, 0, 2), output_padding=(2, 0, 1), groups=2,
                                     dilation=(1, 2, 2))])
def test_conv_transpose3d_matches_pytorch(kw):
    tf = pytest.importorskip("torch.nn.functional")
    (x, xt), (w, wt), (b, bt) = _pair((2, 4, 3, 4, 3)), _pair((4, 6 // kw.get("groups", 1), 3, 2, 3), 1), _pair((6,), 2)
    _check_same(F.conv_transpose3d(x, w, b, **kw), tf.conv_transpose3d(xt, wt, bt, **kw), [(x, xt), (w, wt), (b, bt)])


@pytest.mark.torch
@pytest.mark.parametrize("name, args, kw", [
    ("max_pool3d", ((3, 2, 3), (2, 1, 2), 1, (1, 2, 1), True), dict(return_indices=True)),
    ("avg_pool3d", (3, 2, 1, True, False), {}),
    ("avg_pool3d", (3, 2, 1, True, True, 7), {}),
    ("adaptive_avg_pool3d", ((3, 4, 2),), {}),
    ("adaptive_max_pool3d", ((4, 3, 5),), dict(return_indices=True)),
    ("lp_pool3d", (3.0, 2), dict(ceil_mode=True)),
    ("interpolate", (), dict(scale_factor=(1.7, 0.6, 2.0), mode="trilinear")),
    ("interpolate", (), dict(size=(3, 9, 4), mode="nearest")),
    ("interpolate", (), dict(size=(2, 3, 4), mode="area")),
])
def test_pool3d_and_interpolate_match_pytorch(name, args, kw):
    tf = pytest.importorskip("torch.nn.functional")
    x, xt = _pair((2, 3, 7, 6, 9))
    if name == "lp_pool3d":
        x, xt = _pair((2, 3, 7, 6, 9))
        x.data.abs_()
        xt.data.abs_()
    _check_same(getattr(F, name)(x, *args, **kw), getattr(tf, name)(xt, *args, **kw), [(x, xt)])


@pytest.mark.parametrize("fn, shape, kernel", [(F.lp_pool1d, (1, 2, 6), 2), (F.lp_pool2d, (1, 2, 4, 6), (2, 3)),
                                               (F.lp_pool3d, (1, 2, 2, 4, 6), (1, 2, 3))])
def test_lp_pools_of_an_infinite_norm_are_the_max_of_the_magnitudes(fn, shape, kernel):
    """PyTorch's limit: p = inf pools max |x| (x ** inf would give 1 for every window), -inf pools min |x|."""
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = torch.tensor(a)
    nd = len(shape) - 2
    k = (kernel,) * nd if isinstance(kernel, int) else kernel
    blocks = np.abs(a).reshape(*shape[:2], *[v for n, kk in zip(shape[2:], k) for v in (n // kk, kk)])
    axes = tuple(3 + 2 * i for i in range(nd))
    np.testing.assert_allclose(fn(x, float("inf"), kernel).numpy(), blocks.max(axes), rtol=1e-6)
    np.testing.assert_allclose(fn(x, -float("inf"), kernel).numpy(), blocks.min(axes), rtol=1e-6)
