"""The extra layers against numpy formulas: shrinkage, PReLU, RMSNorm, distances, padding,
pixel shuffling, 1-D pooling, channel dropout, SGDR restarts."""

import math

import re

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.nn import functional as F
from ember.optim import lr_scheduler as S


def x64(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=torch.float64)


def test_shrink_selu_celu_prelu():
    x = x64(4, 3, 5)
    a = x.numpy()
    np.testing.assert_allclose(nn.Hardshrink(0.4)(x).numpy(), np.where(np.abs(a) > 0.4, a, 0))
    np.testing.assert_allclose(nn.Softshrink(0.4)(x).numpy(), np.where(np.abs(a) > 0.4, a - 0.4 * np.sign(a), 0),
                               rtol=1e-12)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    np.testing.assert_allclose(nn.SELU()(x).numpy(), scale * np.where(a > 0, a, alpha * np.expm1(a)), rtol=1e-12)
    np.testing.assert_allclose(nn.CELU(0.5)(x).numpy(), np.where(a > 0, a, 0.5 * np.expm1(a / 0.5)), rtol=1e-12)
    pr = nn.PReLU(3, 0.2).double()
    with torch.no_grad():
        pr.weight.copy_(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64))
    np.testing.assert_allclose(pr(x).detach().numpy(),
                               np.where(a > 0, a, np.array([0.1, 0.2, 0.3])[None, :, None] * a), rtol=1e-12)


def test_rms_norm():
    x = x64(2, 3, 4)
    a = x.numpy()
    norm = nn.RMSNorm(4, eps=1e-3).double()
    with torch.no_grad():
        norm.weight.copy_(torch.arange(4, dtype=torch.float64))
    ref = a / np.sqrt((a * a).mean(-1, keepdims=True) + 1e-3) * np.arange(4)
    np.testing.assert_allclose(norm(x).detach().numpy(), ref, rtol=1e-12)
    ref = a / np.sqrt((a * a).mean((1, 2), keepdims=True) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(F.rms_norm(x, (3, 4)).numpy(), ref, rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[5\], expected input with shape \[\*5\], but"):
        F.rms_norm(x, (5,))
    with pytest.raises(ValueError, match="^Input tensor must have at least 4 dimensions, but got 3$"):
        F.rms_norm(x, (1, 2, 3, 4))


def test_distances_and_softmax2d():
    x1, x2 = x64(5, 3, seed=1), x64(5, 3, seed=2)
    d = x1.numpy() - x2.numpy() + 1e-6
    np.testing.assert_allclose(nn.PairwiseDistance()(x1, x2).numpy(), np.linalg.norm(d, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(nn.PairwiseDistance(p=1, keepdim=True)(x1, x2).numpy(),
                               np.abs(d).sum(-1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(nn.CosineSimilarity(dim=0)(x1, x2).numpy(), F.cosine_similarity(x1, x2, 0).numpy())
    x = x64(2, 3, 2, 2)
    e = np.exp(x.numpy())
    np.testing.assert_allclose(nn.Softmax2d()(x).numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)


def test_padding_layers():
    x = x64(1, 2, 3, 4)
    a = x.numpy()
    np.testing.assert_array_equal(nn.ZeroPad2d((1, 2, 0, 1))(x).numpy(), np.pad(a, ((0, 0), (0, 0), (0, 1), (1, 2))))
    np.testing.assert_array_equal(nn.ConstantPad2d(1, 2.5)(x).numpy(),
                                  np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=2.5))
    for layer, mode in ((nn.ReflectionPad2d(1), "reflect"), (nn.ReplicationPad2d(1), "edge"),
                        (nn.CircularPad2d(1), "wrap")):
        np.testing.assert_array_equal(layer(x).numpy(), np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)), mode=mode))
    y = x64(1, 2, 5)
    np.testing.assert_array_equal(nn.ReflectionPad1d((2, 1))(y).numpy(),
                                  np.pad(y.numpy(), ((0, 0), (0, 0), (2, 1)), mode="reflect"))


@pytest.mark.parametrize("call, message", [
    (lambda: F.pixel_shuffle(torch.ones(1, 4, 1, 1), upscale_factor=2.0),
     "pixel_shuffle(): argument 'upscale_factor' must be int, not float"),
    (lambda: F.pixel_shuffle(torch.ones(1, 4, 1, 1), 2.0),
     "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not float"),
    (lambda: F.pixel_unshuffle(torch.ones(1, 1, 2, 2), downscale_factor=torch.tensor([2])),
     "pixel_unshuffle(): argument 'downscale_factor' must be int, not Tensor"),
    (lambda: F.one_hot(torch.tensor([0, 1]), num_classes=3.0),
     "one_hot(): argument 'num_classes' must be int, not float"),
    (lambda: F.one_hot(torch.tensor([0, 1]), 3.0),
     "one_hot(): argument 'num_classes' (position 2) must be int, not float"),
    (lambda: F.glu(torch.ones(2, 2), dim=1.0), "glu(): argument 'dim' (position 2) must be int, not float"),
    (lambda: F.avg_pool1d(torch.ones(2, 3, 8), kernel_size=2.0),
     "avg_pool1d(): argument 'kernel_size' must be tuple of ints, not float"),
    (lambda: F.avg_pool2d(torch.ones(1, 2, 6, 6), kernel_size=(2.0, 2)),
     "avg_pool2d(): argument 'kernel_size' must be tuple of ints, not tuple"),
    (lambda: F.avg_pool2d(torch.ones(1, 2, 6, 6), 2, stride=2.0),
     "avg_pool2d(): argument 'stride' must be tuple of ints, not float"),
    (lambda: F.avg_pool3d(torch.ones(1, 1, 4, 4, 4), 2, None, 1.0),
     "avg_pool3d(): argument 'padding' (position 4) must be tuple of ints, not float"),
    (lambda: F.adaptive_avg_pool1d(torch.ones(2, 3, 8), output_size=2.0),
     "adaptive_avg_pool1d(): argument 'output_size' must be tuple of ints, not float"),
    (lambda: F.max_pool1d(torch.ones(2, 3, 8), kernel_size=2.0),
     "max_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: F.lp_pool2d(torch.ones(1, 2, 6, 6), 2, 2.0),
     "avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: F.unfold(torch.ones(1, 2, 6, 6), 2.0),
     "im2col(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type float at pos 0"),
    (lambda: F.unfold(torch.ones(1, 2, 6, 6), 2, stride=(1, 1.5)),
     "im2col(): argument 'stride' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got "
     "float\""),
    (lambda: F.fold(torch.ones(1, 8, 4), (3, 3), 2.0),
     "col2im(): argument 'kernel_size' (position 3) must be tuple of ints, but found element of type float at pos 0"),
])
def test_int_arguments_are_refused_in_pytorchs_parser_words(call, message):
    """F.pixel_shuffle, F.one_hot and the average pools are PyTorch's parsed builtins (a keyword is named without a
    position); F.glu, the max pools, lp_pool2d, unfold and fold are Python that hands the arguments on by position
    (unfold and fold to im2col and col2im, one value doubled)."""
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_pixel_shuffle_round_trip():
    x = x64(1, 8, 2, 3)
    up = nn.PixelShuffle(2)(x)
    assert up.shape == (1, 2, 4, 6)
    ref = x.numpy().reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    np.testing.assert_array_equal(up.numpy(), ref)
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(up).numpy(), x.numpy())


def test_pool1d_and_conv_transpose1d():
    x = x64(2, 3, 8)
    a = x.numpy()
    np.testing.assert_array_equal(nn.MaxPool1d(2)(x).numpy(), a.reshape(2, 3, 4, 2).max(-1))
    np.testing.assert_allclose(nn.AvgPool1d(4)(x).numpy(), a.reshape(2, 3, 2, 4).mean(-1), rtol=1e-12)
    np.testing.assert_allclose(nn.AdaptiveAvgPool1d(1)(x).numpy(), a.mean(-1, keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(nn.AdaptiveMaxPool2d(1)(x64(2, 3, 4, 4)).numpy(),
                                  x64(2, 3, 4, 4).numpy().max((2, 3), keepdims=True))
    ct = nn.ConvTranspose1d(3, 2, 2, stride=2).double()
    w = ct.weight.detach().numpy()
    ref = np.einsum("ncl,cok->nolk", a, w).reshape(2, 2, 16) + ct.bias.detach().numpy()[None, :, None]
    np.testing.assert_allclose(ct(x).detach().numpy(), ref, rtol=1e-12)
    with pytest.raises(RuntimeError, match="to have 3 channels, but got 2 channels"):
        ct(x64(2, 2, 8))


def test_dropout1d_zeroes_whole_channels():
    torch.manual_seed(0)
    y = nn.Dropout1d(0.5)(torch.ones(16, 32, 5)).numpy()
    assert np.all((y == 0).all(-1) | (y == 2).all(-1))
    assert 0.3 < (y == 0).all(-1).mean() < 0.7
    msg = ("dropout1d: Expected 2D or 3D input, but received a 4D input. Note that dropout1d exists to provide "
           "channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch "
           "dimension (i.e. 2D or 3D inputs).")
    with pytest.raises(RuntimeError, match=f"^{re.escape(msg)}$"):
        F.dropout1d(torch.ones(2, 3, 4, 5))


def test_cosine_annealing_warm_restarts():
    opt = optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.1)
    lrs = []
    for _ in range(8):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    cos = lambda t, T: 0.1 + 0.9 * (1 + math.cos(math.pi * t / T)) / 2
    assert lrs == pytest.approx([cos(0, 2), cos(1, 2), cos(0, 4), cos(1, 4), cos(2, 4), cos(3, 4), cos(0, 8),
                                 cos(1, 8)])
    sched.step(5.5)
    assert opt.param_groups[0]["lr"] == pytest.approx(cos(3.5, 4))
    with pytest.raises(ValueError, match="Expected positive integer T_0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)


def test_instance_norm_and_batchnorm3d():
    x = x64(2, 3, 4, 5)
    a = x.numpy()
    mu, var = a.mean((2, 3), keepdims=True), a.var((2, 3), keepdims=True)
    np.testing.assert_allclose(nn.InstanceNorm2d(3)(x).numpy(), (a - mu) / np.sqrt(var + 1e-5), rtol=1e-10)
    np.testing.assert_allclose(nn.InstanceNorm2d(3)(x[0]).numpy(), ((a - mu) / np.sqrt(var + 1e-5))[0], rtol=1e-10)
    with pytest.raises(ValueError, match="expected input's size at dim=1 to match num_features"):
        nn.InstanceNorm1d(4, affine=True)(x64(2, 3, 5))
    bn = nn.BatchNorm3d(2).double()
    y = x64(3, 2, 2, 2, 2)
    b = y.numpy()
    m, v = b.mean((0, 2, 3, 4), keepdims=True), b.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(bn(y).detach().numpy(), (b - m) / np.sqrt(v + 1e-5), rtol=1e-10)


def test_gumbel_softmax_samples_the_categorical_and_passes_gradients():
    torch.manual_seed(0)
    probs = np.array([0.1, 0.2, 0.7])
    logits = torch.tensor(np.log(probs), dtype=torch.float64).expand(20000, 3)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    h = hard.numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(1) == 1).all()
    np.testing.assert_allclose(h.mean(0), probs, atol=0.015)
    soft = F.gumbel_softmax(logits[:5], tau=2.0)
    np.testing.assert_allclose(soft.numpy().sum(1), 1.0, rtol=1e-12)
    x = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
    (F.gumbel_softmax(x, hard=True) * torch.arange(3, dtype=torch.float64)).sum().backward()
    assert x.grad is not None and np.abs(x.grad.numpy()).sum() > 0


def test_unfold_columns_and_fold_round_trip():
    x = x64(1, 2, 3, 4)
    cols = nn.Unfold(2)(x)
    assert cols.shape == (1, 8, 6)
    np.testing.assert_array_equal(cols[0, :, 0].numpy(), x.numpy()[0, :, :2, :2].reshape(-1))
    back = nn.Fold((3, 4), 2)(cols)
    overlap = nn.Fold((3, 4), 2)(nn.Unfold(2)(torch.ones(1, 2, 3, 4, dtype=torch.float64)))
    np.testing.assert_allclose(back.numpy(), x.numpy() * overlap.numpy(), rtol=1e-12)


def test_unfold_and_fold_refuse_sizes_of_other_than_two_values():
    """PyTorch's im2col/col2im words; a one-value list is refused too, not spread over both dims."""
    x = x64(1, 1, 4, 4)
    cases = [(lambda: F.unfold(x, [3, 3, 3]), "It is expected kernel_size equals to 2, but got size 3"),
             (lambda: F.unfold(x, 2, stride=[1]), "It is expected stride equals to 2, but got size 1"),
             (lambda: F.unfold(x, 2, dilation=(1, 1, 1)), "It is expected dilation equals to 2, but got size 3"),
             (lambda: nn.Fold((4, 4), (2,))(x64(1, 4, 9)), "It is expected kernel_size equals to 2, but got size 1"),
             (lambda: F.fold(x64(1, 4, 9), [4], 2, padding=(0, 0, 0)),
              "It is expected output_size equals to 2, but got size 1")]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            fn()


def test_lp_pool_and_channel_shuffle():
    x = x64(1, 2, 4, 4).abs()
    a = x.numpy()
    np.testing.assert_allclose(nn.LPPool2d(2, 2)(x).numpy(),
                               np.sqrt((a ** 2).reshape(1, 2, 2, 2, 2, 2).sum((3, 5))), rtol=1e-12)
    y = torch.arange(6, dtype=torch.float64).reshape(1, 6, 1)
    assert nn.ChannelShuffle(2)(y).reshape(-1).tolist() == [0, 3, 1, 4, 2, 5]


def test_channel_shuffle_keeps_a_channels_last_input_channels_last():
    x = torch.arange(240.0).reshape(2, 6, 4, 5)
    got = F.channel_shuffle(x.contiguous(memory_format=torch.channels_last), 3)
    assert got.stride() == (120, 1, 30, 6)
    assert got.tolist() == F.channel_shuffle(x, 3).tolist()
    v = torch.arange(360.0).reshape(2, 6, 2, 5, 3).contiguous(memory_format=torch.channels_last_3d)
    assert F.channel_shuffle(v, 2).stride() == (180, 1, 90, 18, 6)
    assert F.channel_shuffle(torch.zeros(2, 6, 4), 3).stride() == (24, 4, 1)


def test_channel_shuffle_errors_are_pytorchs():
    # the rank is checked before the group count, which is checked before divisibility
    with pytest.raises(RuntimeError, match=r"^channel_shuffle expects input with > 2 dims, but got input with sizes "
                                           r"\[3\]$"):
        F.channel_shuffle(torch.ones(3), 0)
    with pytest.raises(RuntimeError, match="^Number of groups to divide channels in must be positive. Value of "
                                           "groups:-2$"):
        F.channel_shuffle(torch.ones(1, 6, 2), -2)
    with pytest.raises(RuntimeError, match="^Number of groups to divide channels in must be positive. Value of "
                                           "groups:0$"):
        nn.ChannelShuffle(0)(torch.ones(1, 4, 2))
    with pytest.raises(TypeError, match=r"^channel_shuffle\(\): argument 'groups' \(position 2\) must be int, "
                                        "not float$"):
        F.channel_shuffle(torch.ones(1, 4, 2), 2.0)


def test_channel_shuffle_gradient_is_dense_in_its_incoming_gradients_format():
    # PyTorch's backward is channel_shuffle(grad): dense (never a zero-stride expansion), laid out as grad
    x = torch.arange(240.0).reshape(2, 6, 4, 5).requires_grad_()
    g = torch.autograd.grad(F.channel_shuffle(x, 3).sum(), x)[0]
    assert g.stride() == (120, 20, 5, 1) and g.tolist() == torch.ones(2, 6, 4, 5).tolist()
    y = x.detach().contiguous(memory_format=torch.channels_last).requires_grad_()
    assert torch.autograd.grad(F.channel_shuffle(y, 3).sum(), y)[0].stride() == (120, 20, 5, 1)
    g = torch.autograd.grad(F.channel_shuffle(y, 3).pow(2).sum(), y)[0]
    assert g.stride() == (120, 1, 30, 6) and g.tolist() == (2 * x).tolist()


def test_integer_inputs_of_lp_pool_rms_norm_and_local_response_norm_as_pytorch():
    # lp_pool of int64: PyTorch's composition, whose int64 average truncates ((9 + 25) / 2 = 17 exactly,
    # (49 + 4) / 2 -> 26): values hard-coded from torch 2.13
    x = torch.tensor([[[3, -5, 7, 2]]])
    got = F.lp_pool1d(x, 2, 2)
    assert got.dtype is torch.float32
    np.testing.assert_allclose(got.numpy(), [[[5.830952, 7.2111025]]], rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool1d(x, 1, 2).numpy(), [[[-2.0, 8.0]]])
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Int'"):
        F.lp_pool1d(x.int(), 2, 2)
    with pytest.raises(NotImplementedError, match="\"rms_norm\" not implemented for 'Long'"):
        F.rms_norm(x, (4,))
    lrn = F.local_response_norm(torch.tensor([[[3, -5], [7, 1], [-2, 4]]]), 2, alpha=1.0, beta=1.0, k=1.0)
    np.testing.assert_allclose(lrn.numpy(), [[[0.6, -0.38461539], [0.23333333, 0.07142857],
                                              [-0.07407407, 0.44444445]]], rtol=1e-6)


def _dtype_family_cases():
    """softmax, the norms, interpolate and grid_sample over one input per rank: (name, call(F, T, x1, x2, x3))."""
    cases = []
    for f in ("softmax", "log_softmax", "softmin"):
        cases += [(f, lambda F, T, a, b, c, f=f: getattr(F, f)(a, dim=-1)),
                  (f + "0", lambda F, T, a, b, c, f=f: getattr(F, f)(a, dim=0)),
                  (f + "_dtype", lambda F, T, a, b, c, f=f: getattr(F, f)(a, dim=-1, dtype=T.float64))]
    cases += [("batch_norm", lambda F, T, a, b, c: F.batch_norm(a, None, None, training=True)),
              ("layer_norm", lambda F, T, a, b, c: F.layer_norm(a, (6,))),
              ("group_norm", lambda F, T, a, b, c: F.group_norm(a, 2)),
              ("instance_norm", lambda F, T, a, b, c: F.instance_norm(a)),
              ("lrn3", lambda F, T, a, b, c: F.local_response_norm(a, 2)),
              ("lrn4", lambda F, T, a, b, c: F.local_response_norm(b, 2)),
              ("rms_norm", lambda F, T, a, b, c: F.rms_norm(a, (6,))),
              ("lp_pool2d", lambda F, T, a, b, c: F.lp_pool2d(b, 2, 2))]
    for m in ("nearest", "nearest-exact", "linear", "area"):
        cases.append(("i1" + m, lambda F, T, a, b, c, m=m: F.interpolate(a, scale_factor=2, mode=m)))
    for m in ("nearest", "nearest-exact", "bilinear", "area"):
        cases.append(("i2" + m, lambda F, T, a, b, c, m=m: F.interpolate(b, size=(3, 7), mode=m)))
    for m in ("nearest", "trilinear", "area"):
        cases.append(("i3" + m, lambda F, T, a, b, c, m=m: F.interpolate(c, scale_factor=2, mode=m)))
    for m in ("bilinear", "nearest"):
        cases.append(("gs" + m, lambda F, T, a, b, c, m=m: F.grid_sample(b, T.zeros(2, 2, 2, 2), mode=m,
                                                                        align_corners=False)))
    cases.append(("gs3", lambda F, T, a, b, c: F.grid_sample(c, T.zeros(2, 2, 2, 2, 3), align_corners=False)))
    return cases


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "bool", "complex64"])
def test_dtype_behaviour_of_softmax_norm_interpolate_families_matches_pytorch(dtype):
    # each call computes what PyTorch computes (dtype and values) or raises its exception and message
    pt = pytest.importorskip("torch")
    a = np.random.default_rng(6).integers(-40, 40, size=(2, 4, 6))
    for name, call in _dtype_family_cases():
        results = []
        for T, Fn in ((pt, pt.nn.functional), (torch, F)):
            x = T.tensor(a).to(getattr(T, dtype))
            try:
                r = call(Fn, T, x, x.reshape(2, 4, 2, 3), x.reshape(2, 2, 2, 2, 6))
                results.append((str(r.dtype).split(".")[-1], r.numpy()))
            except (NotImplementedError, RuntimeError) as e:
                results.append((isinstance(e, NotImplementedError), str(e).splitlines()[0]))
        (wd, wv), (gd, gv) = results
        assert gd == wd, (name, results)
        if isinstance(wv, str):
            assert gv == wv, (name, results)
        else:
            np.testing.assert_allclose(gv, wv, rtol=1e-5, atol=1e-6, err_msg=name)


def test_interpolate_names_the_missing_or_doubled_size_as_pytorch():
    x = torch.ones(1, 1, 4, 4)
    with pytest.raises(ValueError, match="^either size or scale_factor should be defined$"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="^only one of size or scale_factor should be defined$"):
        F.interpolate(x, size=2, scale_factor=2)


def test_cosine_similarity_broadcasts_before_counting_dim():
    """PyTorch broadcasts the operands first: dim=1 of (3, 4) against (4,) is valid; mismatches say so."""
    x = x64(3, 4)
    got = F.cosine_similarity(x, x[0], dim=1).numpy()
    a = x.numpy()
    want = (a @ a[0]) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(a[0]), 1e-8)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at "):
        F.cosine_similarity(x, x64(2, 4))
    with pytest.raises(RuntimeError, match=r"^dropout1d: Expected 2D or 3D input, but received a 4D input. Note that"):
        F.dropout1d(x64(2, 3, 4, 5), 0.5)


def test_cosine_similarity_of_an_integer_input_computes_in_the_common_float_dtype():
    """PyTorch casts an integer (or bool) operand to the common dtype; vector_norm alone would refuse it."""
    ints, floats = np.array([[1, 2, 3], [0, 4, -1]]), np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], dtype=np.float32)
    got = F.cosine_similarity(torch.tensor(ints), torch.tensor(floats))
    assert got.dtype is torch.float32
    want = (ints * floats).sum(1) / (np.linalg.norm(ints, axis=1) * np.linalg.norm(floats.astype(np.float64), axis=1))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    with pytest.raises(RuntimeError, match="^expected common dtype to be floating point, yet common dtype is Long$"):
        F.cosine_similarity(torch.tensor(ints), torch.tensor(ints))


@pytest.mark.parametrize("module, shape, message", [
    (nn.CircularPad1d(1), (2,), "expected 2D or 3D input (got 1D input)"),
    (nn.CircularPad2d(1), (2, 3, 4, 5, 6), "expected 3D or 4D input (got 5D input)"),
    (nn.CircularPad3d(1), (2, 3, 4), "expected 4D or 5D input (got 3D input)")])
def test_circular_pad_modules_check_the_rank_first_as_pytorch(module, shape, message):
    with pytest.raises(ValueError) as info:
        module(torch.zeros(*shape))
    assert str(info.value) == message
    nd = len(module.padding) // 2
    assert tuple(module(torch.ones(*((1,) + (2,) * nd))).shape) == (1,) + (4,) * nd


def test_softshrink_and_the_lp_pools_are_siblings_as_pytorchs():
    """PyTorch's hierarchy: no Softshrink is a Hardshrink, no LPPool2d/3d an LPPool1d (one `_LPPoolNd` base)."""
    from ember.nn.modules.extra import _LPPoolNd

    assert not isinstance(nn.Softshrink(), nn.Hardshrink) and repr(nn.Softshrink(0.3)) == "Softshrink(0.3)"
    for cls in (nn.LPPool1d, nn.LPPool2d, nn.LPPool3d):
        assert cls.__mro__[1] is _LPPoolNd
    assert not isinstance(nn.LPPool2d(2, 3), nn.LPPool1d)
    x = torch.arange(16.0).reshape(1, 1, 4, 4)
    np.testing.assert_allclose(nn.LPPool2d(1, 2)(x).numpy(), [[[[10.0, 18.0], [42.0, 50.0]]]])


def test_rms_norm_of_a_transposed_input_is_row_major_with_pytorchs_clone():
    x = torch.tensor(np.arange(1.0, 13.0).reshape(3, 4), requires_grad=True)
    r = F.rms_norm(x.t(), (3,), weight=torch.full((3,), 2.0, dtype=torch.float64))
    assert r.stride() == (3, 1) and r.grad_fn.name() == "CloneBackward0"
    a = np.arange(1.0, 13.0).reshape(3, 4).T
    rms = np.sqrt((a * a).mean(-1, keepdims=True) + np.finfo(float).eps)
    np.testing.assert_allclose(r.detach().numpy(), 2 * a / rms)
    assert F.rms_norm(x, (4,)).grad_fn.name() == "MulBackward0"  # row-major input: no clone


def test_rms_norm_warns_once_of_a_weight_of_another_dtype(monkeypatch):
    """PyTorch's TORCH_WARN_ONCE: the first mismatched pair in the process warns, later ones (any dtypes) do not."""
    import warnings

    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.rms_norm(torch.ones(2, 3), (3,), torch.ones(3))
        r = F.rms_norm(torch.ones(2, 3, dtype=torch.float64), (3,), torch.ones(3))
        F.rms_norm(torch.ones(2, 3), (3,), torch.ones(3, dtype=torch.float16))
    assert r.dtype is torch.float64
    assert [str(x.message) for x in w] == [
        "Mismatch dtype between input and weight: input dtype = double, weight dtype = float, Cannot dispatch to fused "
        "implementation. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/layer_norm.cpp:346.)"]


@pytest.mark.parametrize("dtype, name", [(torch.int64, "Long"), (torch.int32, "Int"), (torch.bool, "Bool")])
def test_silu_refuses_integer_and_bool_inputs_as_pytorch(dtype, name):
    for call in (lambda x: F.silu(x), lambda x: F.silu(x, inplace=True), lambda x: nn.SiLU()(x)):
        with pytest.raises(NotImplementedError, match=f"^\"silu_cpu\" not implemented for '{name}'$"):
            call(torch.ones(2, dtype=dtype))
    assert F.silu(torch.ones(2, dtype=torch.float16)).dtype is torch.float16


def test_functional_private_checks_and_instance_norm_refuses_one_spatial_element():
    """PyTorch's `F._verify_batch_size`, `F._verify_spatial_size` and `F._get_softmax_dim` (imported by code written
    against its functional module), and instance norm's training check (it normalised a single element to 0)."""
    import warnings

    with pytest.raises(ValueError, match=re.escape("more than 1 value per channel when training, got input size "
                                                   "[1, 3, 1]")):
        F._verify_batch_size([1, 3, 1])
    F._verify_batch_size([2, 3])
    F._verify_batch_size([0, 3, 1])  # an empty input passes
    with pytest.raises(ValueError, match=re.escape("more than 1 spatial element when training, got input size "
                                                   "[4, 3, 1, 1]")):
        F._verify_spatial_size([4, 3, 1, 1])
    F._verify_spatial_size([4, 3, 2])
    for make in (lambda x: F.instance_norm(x), lambda x: nn.InstanceNorm2d(3)(x)):
        with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
            make(torch.ones(4, 3, 1, 1))
    out = F.instance_norm(torch.ones(4, 3, 1, 1), torch.zeros(3), torch.ones(3), use_input_stats=False)
    np.testing.assert_allclose(out.numpy(), np.ones((4, 3, 1, 1)) / np.sqrt(1 + 1e-5), rtol=1e-6)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        dims = [F._get_softmax_dim("softmax", n, 2) for n in range(5)]
    assert dims == [0, 0, 1, 0, 1]
    assert str(seen[0].message).startswith("Implicit dimension choice for softmax has been deprecated")
    assert seen[0].filename == __file__
