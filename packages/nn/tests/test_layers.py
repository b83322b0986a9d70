"""Layers against float64 numpy references of their formulas, with the layer's own weights."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.autograd as torch
from ember import nn


def w(t):
    return t.detach().numpy()


def conv2d_ref(x, weight, bias, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    n, c, h, wd = x.shape
    oc, icg, kh, kw = weight.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for o in range(oc):
        g = o // ocg
        for i in range(oh):
            for j in range(ow):
                r0, c0 = i * stride[0], j * stride[1]
                patch = xp[:, g * icg:(g + 1) * icg, r0:r0 + dilation[0] * (kh - 1) + 1:dilation[0],
                           c0:c0 + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, o, i, j] = (patch * weight[o]).sum(axis=(1, 2, 3))
    if bias is not None:
        out += bias[None, :, None, None]
    return out


def conv_transpose2d_ref(x, weight, bias, stride, padding):
    n, c, h, wd = x.shape
    _, oc, kh, kw = weight.shape
    full = np.zeros((n, oc, (h - 1) * stride + kh, (wd - 1) * stride + kw))
    for i in range(h):
        for j in range(wd):
            contrib = np.einsum("nc,cokl->nokl", x[:, :, i, j], weight)
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += contrib
    out = full[:, :, padding:full.shape[2] - padding, padding:full.shape[3] - padding]
    return out + bias[None, :, None, None]


def test_linear_formula_and_default_init_bounds():
    torch.manual_seed(0)
    lin = nn.Linear(16, 5).double()
    bound = 1 / np.sqrt(16)
    assert np.abs(w(lin.weight)).max() <= bound and np.abs(w(lin.bias)).max() <= bound
    assert np.abs(w(lin.weight)).max() > 0.5 * bound
    x = torch.randn(3, 7, 16, dtype=torch.float64)
    np.testing.assert_allclose(w(lin(x)), w(x) @ w(lin.weight).T + w(lin.bias), rtol=1e-12)
    assert lin.weight.shape == (5, 16) and lin.in_features == 16 and lin.out_features == 5
    assert nn.Linear(3, 2, bias=False).bias is None


def test_linear_of_a_scalar_under_vmap_speaks_as_matmul():
    """vmap's batching rule decomposes linear into matmul, whose words PyTorch then raises."""
    with pytest.raises(RuntimeError, match="^both arguments to matmul need to be at least 1D, but they are 0D and 2D$"):
        torch.func.vmap(lambda x: nn.functional.linear(x, torch.zeros(2, 3)))(torch.ones(3))
    with pytest.raises(RuntimeError, match="^both arguments to matmul need to be at least 1D, but they are 1D and 0D$"):
        torch.func.vmap(lambda w: nn.functional.linear(torch.ones(3), w))(torch.ones(4))


def test_linear_wrong_features_in_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x2\)$"):
        nn.Linear(4, 2)(torch.zeros(2, 3))
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(8x5 and 3x2\)$"):
        nn.Linear(3, 2)(torch.zeros(2, 4, 5))  # the leading dims flatten into rows
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(1x5 and 3x2\)$"):
        nn.functional.linear(torch.zeros(5), torch.zeros(2, 3))
    with pytest.raises(RuntimeError, match="^both arguments to linear need to be at least 1D, but they are 0D and 2D$"):
        nn.functional.linear(torch.tensor(1.0), torch.zeros(2, 3))
    with pytest.raises(RuntimeError, match="^t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D$"):
        nn.functional.linear(torch.zeros(5, 2), torch.zeros(3, 8, 2))  # a batch of weights is refused even if it fits


def test_linear_mixed_dtypes_in_pytorchs_words():
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Long and Float$"):
        nn.Linear(4, 2)(torch.zeros(3, 4, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="^self and mat2 must have the same dtype, but got Double and Float$"):
        nn.functional.linear(torch.zeros(3, 4), torch.zeros(2, 4), torch.zeros(2, dtype=torch.float64))


def test_bilinear_identity_flatten_unflatten():
    bl = nn.Bilinear(3, 4, 2).double()
    x1, x2 = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 4, dtype=torch.float64)
    ref = np.einsum("ni,kij,nj->nk", w(x1), w(bl.weight), w(x2)) + w(bl.bias)
    np.testing.assert_allclose(w(bl(x1, x2)), ref, rtol=1e-12)
    x = torch.randn(2, 3, 4)
    assert nn.Identity(1, k=2)(x) is x
    assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(1, (3, 1))(x).shape == (2, 3, 1, 4)


def test_bilinear_adds_its_bias_last_as_pytorch():
    """PyTorch's bilinear adds the bias after the batch reshape: the output's node is AddBackward0 (ViewBackward0
    without a bias), and a 3-D batch keeps its values."""
    bl = nn.Bilinear(3, 4, 2).double()
    x1, x2 = torch.randn(2, 5, 3, dtype=torch.float64), torch.randn(2, 5, 4, dtype=torch.float64)
    out = bl(x1, x2)
    assert out.grad_fn.name() == "AddBackward0" and out.shape == (2, 5, 2)
    ref = np.einsum("bni,kij,bnj->bnk", w(x1), w(bl.weight), w(x2)) + w(bl.bias)
    np.testing.assert_allclose(w(out), ref, rtol=1e-12)
    assert nn.functional.bilinear(x1, x2, bl.weight).grad_fn.name() == "ViewBackward0"


@settings(max_examples=10, deadline=None)
@given(stride=st.integers(1, 2), padding=st.integers(0, 2), dilation=st.integers(1, 2), groups=st.sampled_from([1, 2]))
def test_conv2d_matches_reference(stride, padding, dilation, groups):
    conv = nn.Conv2d(4, 6, 3, stride=stride, padding=padding, dilation=dilation, groups=groups).double()
    x = torch.randn(2, 4, 7, 8, dtype=torch.float64)
    ref = conv2d_ref(w(x), w(conv.weight), w(conv.bias), (stride,) * 2, (padding,) * 2, (dilation,) * 2, groups)
    np.testing.assert_allclose(w(conv(x)), ref, rtol=1e-10, atol=1e-12)


def test_a_padding_mode_pads_before_the_rank_check():
    """A padding mode's F.pad runs first (PyTorch's _conv_forward), so a wrong rank is F.pad's error there, even for
    padding='valid'; zero padding keeps the conv's own rank error."""
    x = torch.zeros(1, 1, 3, 4, 6)
    for mode in ("circular", "reflect", "replicate"):
        with pytest.raises(NotImplementedError, match=r"^Padding size 4 is not supported for 5D input tensor\."):
            nn.Conv2d(3, 4, 3, padding=1, padding_mode=mode)(x)
    with pytest.raises(NotImplementedError, match=r"^Padding size 4 is not supported for 5D input tensor\."):
        nn.Conv2d(3, 4, 3, padding="valid", padding_mode="circular")(x)
    with pytest.raises(RuntimeError, match=r"^Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d"):
        nn.Conv2d(3, 4, 3, padding=1)(x)
    y = nn.Conv2d(1, 2, 3, padding="valid", padding_mode="circular")(torch.zeros(1, 1, 5, 5))
    assert y.shape == (1, 2, 3, 3)


def test_conv2d_same_valid_and_padding_modes():
    conv = nn.Conv2d(2, 3, (3, 5), padding="same").double()
    x = torch.randn(1, 2, 6, 7, dtype=torch.float64)
    ref = conv2d_ref(w(x), w(conv.weight), w(conv.bias), padding=(1, 2))
    np.testing.assert_allclose(w(conv(x)), ref, rtol=1e-10, atol=1e-12)
    assert nn.Conv2d(2, 3, 3, padding="valid")(torch.zeros(1, 2, 5, 5)).shape == (1, 3, 3, 3)
    refl = nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect").double()
    xr = np.pad(w(x), ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    np.testing.assert_allclose(w(refl(x)), conv2d_ref(xr, w(refl.weight), w(refl.bias)), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)


def test_conv_keeps_pytorchs_reversed_padding_for_code_that_pads_itself():
    """`_reversed_padding_repeated_twice` (PyTorch's attribute, read by subclasses that call F.pad themselves): per
    dim from the last, (left, right); 'same' with an odd total puts the extra element on the right."""
    assert nn.Conv1d(2, 2, 3, padding=2)._reversed_padding_repeated_twice == (2, 2)
    assert nn.Conv2d(2, 2, (3, 4), padding="same", dilation=(1, 3))._reversed_padding_repeated_twice == [4, 5, 1, 1]
    assert nn.Conv2d(2, 2, 3, padding="valid")._reversed_padding_repeated_twice == [0, 0, 0, 0]
    assert nn.Conv3d(1, 1, (2, 3, 4), padding=(0, 1, 2))._reversed_padding_repeated_twice == (2, 2, 1, 1, 0, 0)
    conv = nn.Conv1d(2, 3, 4, padding="same", dilation=3, padding_mode="reflect").double()
    x = torch.randn(1, 2, 12, dtype=torch.float64)
    padded = np.pad(w(x), ((0, 0), (0, 0), (4, 5)), mode="reflect")
    want = conv2d_ref(padded[:, :, None], w(conv.weight)[:, :, None], w(conv.bias), dilation=(1, 3))[:, :, 0]
    np.testing.assert_allclose(w(conv(x)), want, rtol=1e-10, atol=1e-12)


def test_conv_forward_takes_another_weight_as_weight_standardised_convs_call_it():
    """`_conv_forward(input, weight, bias)` (PyTorch's): the module's geometry and padding mode with a given weight;
    `_output_padding` takes PyTorch's arguments, as transposed subclasses that copy its forward pass them."""

    class WSConv1d(nn.Conv1d):
        def forward(self, x):
            wt = self.weight
            return self._conv_forward(x, (wt - wt.mean(dim=(1, 2), keepdim=True)) * 2.0, self.bias)

    conv = WSConv1d(2, 3, 3, padding=1, padding_mode="reflect").double()
    x = torch.randn(1, 2, 7, dtype=torch.float64)
    wt = w(conv.weight)
    wt = (wt - wt.mean(axis=(1, 2), keepdims=True)) * 2.0
    padded = np.pad(w(x), ((0, 0), (0, 0), (1, 1)), mode="reflect")
    want = conv2d_ref(padded[:, :, None], wt[:, :, None], w(conv.bias))[:, :, 0]
    np.testing.assert_allclose(w(conv(x)), want, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match=r"weight of size \[3, 2, 3\], expected input\[1, 4, 9\] to have 2"):
        conv._conv_forward(torch.zeros(1, 4, 7, dtype=torch.float64), conv.weight, None)
    ct = nn.ConvTranspose1d(4, 4, 4, stride=2)
    assert ct._output_padding(torch.zeros(1, 4, 5), [13], ct.stride, ct.padding, ct.kernel_size, 1, ct.dilation) == [1]
    assert ct._output_padding(torch.zeros(1, 4, 5), None) == (0,)


def test_conv_wrong_channels_names_expected_and_got():
    with pytest.raises(RuntimeError, match=r"expected input\[2, 3, 8, 8\] to have 4 channels, but got 3 channels"):
        nn.Conv2d(4, 8, 3)(torch.zeros(2, 3, 8, 8))
    with pytest.raises(RuntimeError, match="to have 2 channels, but got 5 channels"):
        nn.Conv1d(2, 4, 3)(torch.zeros(1, 5, 10))
    # PyTorch names the input its kernel sees: an unbatched one batched, a padding mode's padded
    with pytest.raises(RuntimeError, match=r"weight of size \[6, 1, 5, 5\], expected input\[1, 2, 32, 32\] to have 1 "):
        nn.Conv2d(1, 6, 5)(torch.zeros(2, 32, 32))
    with pytest.raises(RuntimeError, match=r"expected input\[1, 2, 10, 10\] to have 1 channels"):
        nn.Conv2d(1, 2, 3, padding=1, padding_mode="reflect")(torch.zeros(2, 8, 8))
    # zero padding='same' with an odd total pads one trailing element before the check; reflect pads both sides
    with pytest.raises(RuntimeError, match=r"expected input\[3, 12, 5\] to have 4 channels, but got 12"):
        nn.Conv1d(4, 2, 4, padding="same")(torch.zeros(3, 12, 4))
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 7, 6\] to have 2 channels"):
        nn.Conv2d(2, 2, (2, 3), padding="same", dilation=(1, 2))(torch.zeros(1, 3, 6, 6))
    with pytest.raises(RuntimeError, match=r"expected input\[3, 12, 7\] to have 4 channels"):
        nn.Conv1d(4, 2, 4, padding="same", padding_mode="reflect")(torch.zeros(3, 12, 4))
    with pytest.raises(ValueError, match=r"^padding_mode must be one of \{'zeros', 'reflect', 'replicate', "
                                         r"'circular'\}, but got padding_mode='foo'$"):  # PyTorch prints a set
        nn.Conv1d(1, 1, 3, padding_mode="foo")
    with pytest.raises(RuntimeError, match=r"^Given transposed=1, weight of size \[1, 2, 3, 3\], expected "
                                           r"input\[1, 2, 8, 8\]"):
        nn.ConvTranspose2d(1, 2, 3)(torch.zeros(2, 8, 8))
    with pytest.raises(RuntimeError, match=r"^Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got "
                                           r"input of size: \[8, 8\]$"):
        nn.Conv2d(1, 1, 3)(torch.zeros(8, 8))
    with pytest.raises(RuntimeError, match=r"^Expected 2D \(unbatched\) or 3D \(batched\) input to conv_transpose1d"):
        nn.ConvTranspose1d(1, 1, 3)(torch.zeros(8))


def test_conv1d_and_unbatched_conv2d():
    conv = nn.Conv1d(3, 2, 3, padding=1).double()
    x = torch.randn(2, 3, 9, dtype=torch.float64)
    ref = conv2d_ref(w(x)[:, :, None], w(conv.weight)[:, :, None], w(conv.bias), padding=(0, 1))[:, :, 0]
    np.testing.assert_allclose(w(conv(x)), ref, rtol=1e-10, atol=1e-12)
    c2 = nn.Conv2d(2, 3, 3).double()
    x2 = torch.randn(2, 5, 5, dtype=torch.float64)
    np.testing.assert_allclose(w(c2(x2)), w(c2(x2.unsqueeze(0)))[0], rtol=1e-12)


def test_conv_transpose_splits_a_padding_string_as_pytorch_and_refuses_it_in_forward():
    """PyTorch's ConvTranspose*d passes `padding` through `_ntuple`, which splits a string into its characters; the
    module builds (its repr shows them) and the functional refuses them."""
    m = nn.ConvTranspose2d(2, 3, 3, padding="same")
    assert m.padding == ("s", "a", "m", "e")
    assert repr(m) == "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(1, 1), padding=('s', 'a', 'm', 'e'))"
    with pytest.raises(TypeError, match=r"^conv_transpose2d\(\): argument 'padding' .*must be tuple of ints"):
        m(torch.ones(1, 2, 5, 5))


def test_conv_transpose2d_matches_reference():
    ct = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1).double()
    assert ct.weight.shape == (3, 2, 3, 3)
    x = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    np.testing.assert_allclose(w(ct(x)), conv_transpose2d_ref(w(x), w(ct.weight), w(ct.bias), 2, 1), rtol=1e-10,
                               atol=1e-12)
    assert ct(x, output_size=[8, 10]).shape == (2, 2, 8, 10)


def test_pooling_layers():
    x = torch.randn(2, 3, 6, 8, dtype=torch.float64)
    a = w(x)
    mp = nn.MaxPool2d(2)(x)
    np.testing.assert_array_equal(w(mp), a.reshape(2, 3, 3, 2, 4, 2).max(axis=(3, 5)))
    ap = nn.AvgPool2d(2)(x)
    np.testing.assert_allclose(w(ap), a.reshape(2, 3, 3, 2, 4, 2).mean(axis=(3, 5)), rtol=1e-12)
    gp = nn.AdaptiveAvgPool2d((1, 1))(x)
    np.testing.assert_allclose(w(gp), a.mean(axis=(2, 3), keepdims=True), rtol=1e-12)
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert idx.dtype == torch.int64 and idx.shape == out.shape


def bn_ref(x, mean, var, weight, bias, eps):
    shape = [1, -1] + [1] * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * weight.reshape(shape) + bias.reshape(shape)


@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1d, (8, 3)), (nn.BatchNorm1d, (8, 3, 5)),
                                        (nn.BatchNorm2d, (4, 3, 5, 6))])
def test_batchnorm_training_eval_and_running_stats(cls, shape):
    bn = cls(3, momentum=0.2).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64))
        bn.bias.copy_(torch.tensor([0.0, -1.0, 3.0], dtype=torch.float64))
    x = torch.randn(*shape, dtype=torch.float64) * 2 + 1
    a = w(x)
    axes = tuple(i for i in range(a.ndim) if i != 1)
    mean, var = a.mean(axis=axes), a.var(axis=axes)
    n = a.size // 3
    np.testing.assert_allclose(w(bn(x)), bn_ref(a, mean, var, w(bn.weight), w(bn.bias), 1e-5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w(bn.running_mean), 0.2 * mean, rtol=1e-10)
    np.testing.assert_allclose(w(bn.running_var), 0.8 + 0.2 * var * n / (n - 1), rtol=1e-10)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    np.testing.assert_allclose(w(bn(x)), bn_ref(a, w(bn.running_mean), w(bn.running_var), w(bn.weight), w(bn.bias),
                                                  1e-5), rtol=1e-10, atol=1e-12)
    assert bn.num_batches_tracked.item() == 1


def test_batchnorm_cumulative_average_and_no_running_stats():
    bn = nn.BatchNorm1d(2, momentum=None).double()
    xs = [torch.randn(6, 2, dtype=torch.float64) for _ in range(3)]
    for x in xs:
        bn(x)
    means = np.stack([w(x).mean(0) for x in xs])
    np.testing.assert_allclose(w(bn.running_mean), means.mean(0), rtol=1e-10)
    free = nn.BatchNorm1d(2, track_running_stats=False, affine=False).double()
    assert free.running_mean is None and free.weight is None
    free.eval()
    x = xs[0]
    np.testing.assert_allclose(w(free(x)), (w(x) - w(x).mean(0)) / np.sqrt(w(x).var(0) + 1e-5), rtol=1e-10)


def test_batchnorm_errors():
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(torch.zeros(2, 3, 4))
    with pytest.raises(RuntimeError, match="^running_mean should contain 4 elements not 3$"):
        nn.BatchNorm2d(3)(torch.zeros(2, 4, 2, 2))
    with pytest.raises(RuntimeError, match="^weight should contain 4 elements not 3$"):
        nn.BatchNorm2d(3, track_running_stats=False)(torch.zeros(2, 4, 2, 2))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(torch.zeros(1, 3))


def test_layer_norm_and_group_norm():
    ln = nn.LayerNorm((3, 4)).double()
    with torch.no_grad():
        ln.weight.normal_()
        ln.bias.normal_()
    x = torch.randn(2, 5, 3, 4, dtype=torch.float64)
    a = w(x)
    mu, var = a.mean(axis=(2, 3), keepdims=True), a.var(axis=(2, 3), keepdims=True)
    np.testing.assert_allclose(w(ln(x)), (a - mu) / np.sqrt(var + 1e-5) * w(ln.weight) + w(ln.bias), rtol=1e-10,
                               atol=1e-12)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[3, 4\]"):
        ln(torch.zeros(2, 4, 3))
    gn = nn.GroupNorm(2, 4).double()
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    g = w(x).reshape(3, 2, 10)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(3, 4, 5)
    np.testing.assert_allclose(w(gn(x)), ref, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match=r"num_channels \(4\) must be divisible by num_groups \(3\)"):
        nn.GroupNorm(3, 4)
    with pytest.raises(RuntimeError, match=r"^Expected weight to be a vector of size equal to the number of channels "
                                         r"in input, but got weight of shape \[4\] and input of shape \[3, 2, 5\]$"):
        gn(torch.zeros(3, 2, 5, dtype=torch.float64))  # PyTorch's words for a wrong channel count
    with pytest.raises(RuntimeError, match=r"^Expected at least 2 dimensions for input tensor but received 1$"):
        gn(torch.zeros(4, dtype=torch.float64))


@pytest.mark.parametrize("shape, groups, size", [((1, 4), 4, "[1, 4]"), ((1, 4, 1, 1), 4, "[1, 4, 1, 1]"),
                                                 ((1, 6, 1), 6, "[1, 6, 1]")])
def test_group_norm_refuses_groups_of_one_value_as_pytorch(shape, groups, size):
    """PyTorch's F.group_norm checks [N * C // G, G, *spatial] as batch norm checks its input, in any mode."""
    with pytest.raises(ValueError, match=rf"^Expected more than 1 value per channel when training, got input size "
                                         rf"{re.escape(size)}$"):
        nn.functional.group_norm(torch.randn(*shape), groups)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.GroupNorm(groups, shape[1]).eval()(torch.randn(*shape))
    assert nn.functional.group_norm(torch.randn(*shape), 1).shape == shape  # one group of C values is fine


def test_dropout_train_and_eval():
    torch.manual_seed(0)
    d = nn.Dropout(0.3)
    x = torch.ones(200, 100)
    y = w(d(x))
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    d.eval()
    np.testing.assert_array_equal(w(d(x)), w(x))
    d2 = nn.Dropout2d(0.5)
    y2 = w(d2(torch.ones(8, 16, 3, 3)))
    per_channel = y2.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_embedding_lookup_padding_and_from_pretrained():
    emb = nn.Embedding(10, 3, padding_idx=2)
    assert emb.weight[2].abs().sum().item() == 0
    idx = torch.tensor([[1, 2], [9, 0]])
    np.testing.assert_array_equal(w(emb(idx)), w(emb.weight)[w(idx)])
    pre = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    frozen = nn.Embedding.from_pretrained(pre)
    assert not frozen.weight.requires_grad and frozen.num_embeddings == 4 and frozen.embedding_dim == 3
    assert nn.Embedding.from_pretrained(pre, freeze=False).weight.requires_grad
    np.testing.assert_array_equal(w(frozen(torch.tensor([3]))), [[9.0, 10.0, 11.0]])
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=5)
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4


def test_embedding_padding_idx_edges_are_pytorchs():
    # PyTorch 2.13: an empty table takes padding_idx 0 (its backward too); the module's constructor fails in
    # its fill of the padding row; EmbeddingBag's assert spells `padding_idx`
    w = torch.zeros(0, 3, requires_grad=True)
    nn.functional.embedding(torch.tensor([], dtype=torch.int64), w, padding_idx=0).sum().backward()
    assert tuple(w.grad.shape) == (0, 3)
    with pytest.raises(IndexError, match="^index 0 is out of bounds for dimension 0 with size 0$"):
        nn.Embedding(0, 3, padding_idx=0)
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.functional.embedding(torch.tensor([0]), torch.zeros(4, 3), padding_idx=-5)
    for pad in (4, -5):
        with pytest.raises(AssertionError, match="^padding_idx must be within num_embeddings$"):
            nn.EmbeddingBag(4, 3, padding_idx=pad)
    with pytest.raises(RuntimeError, match="^padding_idx must be within the number of embeddings, -4 through 3, "
                                           "but got 4$"):
        nn.functional.embedding_bag(torch.tensor([1]), torch.zeros(4, 3), torch.tensor([0]), padding_idx=4)


def test_embedding_non_tensor_arguments_are_pytorchs_parser_errors():
    """F.embedding calls torch.embedding(weight, input): its parser names the weight first, as position 1."""
    w = torch.zeros(4, 3)
    for args, message in ((([1, 2], w), "argument 'indices' (position 2) must be Tensor, not list"),
                          ((torch.tensor([1]), [[1.0]]), "argument 'weight' (position 1) must be Tensor, not list"),
                          ((None, w), "argument 'indices' (position 2) must be Tensor, not NoneType")):
        with pytest.raises(TypeError) as e:
            nn.functional.embedding(*args)
        assert str(e.value) == "embedding(): " + message
    with pytest.raises(TypeError, match=r"^embedding\(\): argument 'indices' \(position 2\) must be Tensor, not list$"):
        nn.Embedding(4, 3)([1, 2])


PADDING_OUT_OF_RANGE = {
    "Embedding 3": lambda M, N: N.Embedding(3, 2, padding_idx=3),
    "Embedding -4": lambda M, N: N.Embedding(3, 2, padding_idx=-4),
    "from_pretrained": lambda M, N: N.Embedding.from_pretrained(M.ones(3, 2), padding_idx=5),
    "F.embedding 3": lambda M, N: N.functional.embedding(M.tensor([0]), M.ones(3, 2), padding_idx=3),
    "F.embedding -10": lambda M, N: N.functional.embedding(M.tensor([0]), M.ones(3, 2), padding_idx=-10),
}


@pytest.mark.parametrize("name", list(PADDING_OUT_OF_RANGE))
def test_embedding_padding_idx_out_of_range_is_pytorchs_assertion(name):
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        PADDING_OUT_OF_RANGE[name](torch, nn)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PADDING_OUT_OF_RANGE))
def test_embedding_padding_idx_out_of_range_matches_pytorch(name):
    real = pytest.importorskip("torch")
    outcomes = []
    for M, N in ((torch, nn), (real, real.nn)):
        with pytest.raises(AssertionError) as e:
            PADDING_OUT_OF_RANGE[name](M, N)
        outcomes.append(str(e.value))
    assert outcomes[0] == outcomes[1]


def test_embedding_bag_sum_and_mean():
    bag = nn.EmbeddingBag(6, 2, mode="sum").double()
    inp = torch.tensor([0, 1, 2, 5, 4])
    off = torch.tensor([0, 2])
    wt = w(bag.weight)
    np.testing.assert_allclose(w(bag(inp, off)), [wt[[0, 1]].sum(0), wt[[2, 5, 4]].sum(0)], rtol=1e-12)
    mean = nn.EmbeddingBag(6, 2).double()
    wt = w(mean.weight)
    np.testing.assert_allclose(w(mean(torch.tensor([[0, 1], [2, 3]]))), [wt[[0, 1]].mean(0), wt[[2, 3]].mean(0)],
                               rtol=1e-12)


def test_embedding_bag_scale_grad_by_freq_gives_pytorchs_cpu_gradient():
    # PyTorch's CPU kernel divides the k-th distinct index's row by the count of the k-th smallest index: with
    # indices [4, 0, 2, 2, 1], row 4 (4th distinct) is halved by the count of 2 (values from torch 2.13)
    bag = nn.EmbeddingBag(5, 1, mode="sum", scale_grad_by_freq=True)
    bag(torch.tensor([4, 0, 2, 2, 1]), torch.tensor([0, 2])).sum().backward()
    assert bag.weight.grad.flatten().tolist() == [1.0, 1.0, 1.0, 0.0, 0.5]
    bag = nn.EmbeddingBag(5, 2, mode="mean", scale_grad_by_freq=True, padding_idx=3)
    out = bag(torch.tensor([1, 1, 2, 3, 1, 3]), torch.tensor([0, 2, 4]))
    (out * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    np.testing.assert_allclose(w(bag.weight.grad), [[0, 0], [2, 8 / 3], [1, 4 / 3], [0, 0], [0, 0]], rtol=1e-6)
    assert out.grad_fn.name() == "EmbeddingBagBackward0"


def test_upsample_nearest():
    x = torch.arange(4, dtype=torch.float32).reshape(1, 1, 2, 2)
    np.testing.assert_array_equal(w(nn.Upsample(scale_factor=2)(x))[0, 0], np.repeat(np.repeat(w(x)[0, 0], 2, 0), 2, 1))


def test_embedding_max_norm_renormalises_rows_in_place_outside_the_graph():
    emb = nn.Embedding(4, 3, max_norm=1.0).double()
    with torch.no_grad():
        emb.weight.copy_(torch.tensor([[3.0, 4.0, 0.0], [0.1, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0]],
                                      dtype=torch.float64))
    out = emb(torch.tensor([0, 1]))
    np.testing.assert_allclose(out.detach().numpy(), [[0.6, 0.8, 0.0], [0.1, 0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(w(emb.weight)[2], [0.0, 2.0, 0.0])
    out.sum().backward()
    assert emb.weight.is_leaf and emb.weight.grad is not None


def test_batchnorm_loads_checkpoints_without_num_batches_tracked():
    bn = nn.BatchNorm1d(3)
    sd = {k: v.clone() for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    sd["running_mean"].fill_(0.5)
    assert bn.load_state_dict(sd).missing_keys == []
    assert bn.running_mean.tolist() == [0.5, 0.5, 0.5] and bn.num_batches_tracked.item() == 0


def test_dropout2d_on_other_ranks_warns_and_reads_n_c_first():
    import warnings as _w

    import ember.nn.functional as F

    # PyTorch 2.13: a 2-D input is (N, C) (each element a channel), a 3-D one (N, C, L)
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        y = F.dropout2d(torch.ones(64, 8), 0.5).numpy()
    assert set(np.unique(y)) == {0.0, 2.0} and not (y == y[:, :1]).all()
    with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
        y3 = F.dropout2d(torch.ones(4, 16, 5), 0.5).numpy()
    assert (y3 == y3[:, :, :1]).all() and set(np.unique(y3)) == {0.0, 2.0}
    with _w.catch_warnings():
        _w.simplefilter("ignore")
        assert np.array_equal(F.dropout2d(torch.ones(3, 2), 0.5, training=False).numpy(), np.ones((3, 2)))
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            F.dropout2d(torch.ones(3), 0.5)


def test_lstm_flatten_parameters_is_a_noop():
    lstm = nn.LSTM(2, 3)
    before = [p.detach().clone() for p in lstm.parameters()]
    assert lstm.flatten_parameters() is None
    assert all(np.array_equal(a.numpy(), b.detach().numpy()) for a, b in zip(before, lstm.parameters()))


def test_instance_norm3d_normalizes_each_sample_and_channel_over_its_volume():
    x = torch.randn(2, 3, 2, 3, 4, dtype=torch.float64)
    m = nn.InstanceNorm3d(3, affine=True, dtype=torch.float64)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([1.0, 2.0, 0.5]))
        m.bias.copy_(torch.tensor([0.0, -1.0, 3.0]))
    a = x.numpy()
    mean = a.mean(axis=(2, 3, 4), keepdims=True)
    var = a.var(axis=(2, 3, 4), keepdims=True)
    ref = (a - mean) / np.sqrt(var + 1e-5) * np.array([1.0, 2.0, 0.5])[None, :, None, None, None] \
        + np.array([0.0, -1.0, 3.0])[None, :, None, None, None]
    np.testing.assert_allclose(m(x).detach().numpy(), ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(m(x[0]).detach().numpy(), ref[0], rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match=r"expected 4D or 5D input \(got 3D input\)"):
        m(x[0, 0])


def test_linear_parameter_gradients_become_grad_without_a_copy():
    # the weight's gradient comes back contiguous through `w.t()` and the bias's as a view of a reduction;
    # `.grad` takes both as they are (no clone), with float64-exact values
    from ember.core.dispatch import register_dispatch_hook, remove_dispatch_hook

    rng = np.random.default_rng(3)
    x64, g64 = rng.standard_normal((6, 4)), rng.standard_normal((6, 5))
    lin = nn.Linear(4, 5).double()
    names = []

    def hook(op, args, kwargs, call_next):
        names.append(op.name)
        return call_next(op, args, kwargs)

    out = lin(torch.from_numpy(x64))
    register_dispatch_hook(hook)
    try:
        out.backward(torch.from_numpy(g64))
    finally:
        remove_dispatch_hook(hook)
    assert "clone" not in names
    assert lin.weight.grad.is_contiguous() and lin.bias.grad.is_contiguous()
    np.testing.assert_allclose(lin.weight.grad.numpy(), g64.T @ x64, rtol=1e-12)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g64.sum(0), rtol=1e-12)


@pytest.mark.parametrize("a, b, bias, msg", [
    ((3, 4), (2, 5), None, "bilinear(): input batch dimensions do not match at dim 0: got 3 and 2"),
    ((2, 3, 4), (2, 5), None, "bilinear(): input dimensions do not match: got 3 and 2"),
    ((3, 3), (3, 5), None, "bilinear(): input1 size does not match weight size: got 3 but expected 4"),
    ((3, 4), (3, 6), None, "bilinear(): input2 size does not match weight size: got 6 but expected 5"),
    ((3, 4), (3, 5), 3, "bilinear(): bias size does not match weight size: got 3 but expected 2"),
])
def test_bilinear_operand_errors_are_pytorchs(a, b, bias, msg):
    w = torch.ones(2, 4, 5)
    with pytest.raises(RuntimeError) as info:
        nn.functional.bilinear(torch.ones(*a), torch.ones(*b), w, None if bias is None else torch.ones(bias))
    assert str(info.value) == msg


@pytest.mark.parametrize("shape, bias, expected", [
    ((2, 3), True, [(2, 3), (3, 4)]), ((2, 3), False, [(3, 4), (2, 3)]),
    ((2, 5, 3), True, [(10, 3), (3, 4)]), ((2, 5, 3), False, [(3, 4), (10, 3)])])
def test_linear_saves_its_tensors_in_pytorchs_order(shape, bias, expected):
    # PyTorch 2.13's pack hook: an addmm (a bias) saves the input first, a matmul the weight first
    from ember.autograd.graph import saved_tensors_hooks

    x = torch.ones(*shape, requires_grad=True)
    weight, b = torch.ones(4, 3, requires_grad=True), torch.ones(4, requires_grad=True)
    seen = []
    with saved_tensors_hooks(lambda t: seen.append(tuple(t.shape)) or t, lambda t: t):
        nn.functional.linear(x, weight, b if bias else None)
    assert seen == expected


def test_batch_norm_in_training_under_grad_refuses_to_update_its_captured_statistics():
    # PyTorch 2.13: the running statistics are captured tensors; pass them in (paper_maml_sinusoid does) instead
    from ember.autograd.func import grad

    bn, x = nn.BatchNorm1d(3), torch.randn(4, 3)
    with pytest.raises(RuntimeError, match=r"attempted to call in-place operation \(aten::add_.Tensor\) that would "
                                           r"mutate a captured Tensor"):
        grad(lambda w: nn.functional.linear(bn(x), w).sum())(torch.ones(1, 3))
    assert bn.num_batches_tracked.item() == 0


def test_instance_norm_is_a_norm_base_but_not_a_batch_norm_as_pytorch():
    """Code that freezes or converts batch norms by `isinstance(m, _BatchNorm)` must leave instance norms alone."""
    from ember.nn.modules.normalization import _BatchNorm, _NormBase

    inorm, bn = nn.InstanceNorm2d(4, affine=True, track_running_stats=True), nn.BatchNorm2d(4)
    assert isinstance(inorm, _NormBase) and not isinstance(inorm, _BatchNorm)
    assert isinstance(bn, _NormBase) and isinstance(bn, _BatchNorm)
    net = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(bn, inorm))
    assert [type(m).__name__ for m in net] == ["SyncBatchNorm", "InstanceNorm2d"]
    assert repr(inorm) == "InstanceNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert list(inorm.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


@pytest.mark.parametrize("base, dims", [("_MaxPoolNd", ("MaxPool1d", "MaxPool2d", "MaxPool3d")),
                                        ("_AvgPoolNd", ("AvgPool1d", "AvgPool2d", "AvgPool3d")),
                                        ("_AdaptiveAvgPoolNd", ("AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
                                                                "AdaptiveAvgPool3d")),
                                        ("_AdaptiveMaxPoolNd", ("AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
                                                                "AdaptiveMaxPool3d"))])
def test_pools_of_each_rank_are_siblings_under_pytorchs_base(base, dims):
    """`isinstance(m, nn.MaxPool2d)` (FLOP counters, feature extractors) must not match a 1-D or 3-D pool."""
    from ember.nn.modules import pooling

    classes = [getattr(nn, d) for d in dims]
    for c in classes:
        assert c.__mro__[1] is getattr(pooling, base) and c.__mro__[2] is nn.Module
    assert not any(issubclass(a, b) for a in classes for b in classes if a is not b)


def test_pads_follow_pytorchs_hierarchy():
    """A ZeroPad2d is a ConstantPad2d, and the pads of each rank are siblings under their mode's base."""
    from ember.nn.modules import extra

    assert isinstance(nn.ZeroPad2d(1), nn.ConstantPad2d) and nn.ZeroPad2d(1).value == 0.0
    assert not isinstance(nn.ConstantPad2d(1, 2.0), nn.ConstantPad1d)
    assert not isinstance(nn.ZeroPad3d(1), nn.ZeroPad1d)
    for base, mode in [("_ConstantPadNd", "Constant"), ("_ReflectionPadNd", "Reflection"),
                       ("_ReplicationPadNd", "Replication"), ("_CircularPadNd", "Circular")]:
        assert all(issubclass(getattr(nn, f"{mode}Pad{d}d"), getattr(extra, base)) for d in (1, 2, 3))
    assert repr(nn.ZeroPad2d((1, 2, 0, 1))) == "ZeroPad2d((1, 2, 0, 1))"
    assert repr(nn.ConstantPad2d(1, 255)) == "ConstantPad2d(padding=(1, 1, 1, 1), value=255)"


def test_conv_transpose_mixin_is_pytorchs_deprecated_base():
    from ember.nn.modules.conv import _ConvTransposeMixin, _ConvTransposeNd

    class Up(_ConvTransposeMixin):
        _nd = 2

    with pytest.warns(FutureWarning, match="^`_ConvTransposeMixin` is a deprecated internal class. Please consider "
                                           "using public APIs.$") as rec:
        up = Up(2, 3, 2, stride=2)
    assert rec[0].filename == __file__ and isinstance(up, _ConvTransposeNd)
    assert tuple(up(torch.ones(1, 2, 4, 4)).shape) == (1, 3, 8, 8)
