"""alpha_dropout, feature_alpha_dropout, rrelu, conv_tbc, linear_cross_entropy, the helpers
boolean_dispatch/assert_int_or_pair and their modules: statistics and values against numpy,
gradients by finite differences, PyTorch's values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.nn.functional as F


def test_alpha_dropout_keeps_mean_and_variance_and_sets_dropped_units_to_the_saturation():
    E.manual_seed(0)
    x = E.tensor(np.random.default_rng(0).standard_normal(200_000))
    y = F.alpha_dropout(x, 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)
    dropped = a * -1.7580993408473766 + 1.7580993408473766 * a * 0.3
    assert abs(np.isclose(y, dropped).mean() - 0.3) < 0.01
    assert F.alpha_dropout(x, 0.3, training=False) is x
    assert not F.alpha_dropout(x, 1.0, training=True).numpy().any()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.alpha_dropout(x, 1.5, training=True)


def test_feature_alpha_dropout_drops_whole_channels_and_modules_follow_training():
    E.manual_seed(1)
    x = E.ones(4, 50, 3, 3)
    y = F.feature_alpha_dropout(x, 0.5, training=True).numpy()
    per_channel = y.reshape(4, 50, 9)
    assert (per_channel == per_channel[..., :1]).all()  # one draw per (n, c)
    assert len(np.unique(per_channel[..., 0].round(6))) == 2
    m = nn.FeatureAlphaDropout(0.5)
    m.eval()
    assert m(x) is x
    assert repr(nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2, inplace=False)"


def test_alpha_dropout_gradient_is_the_kept_scale():
    E.manual_seed(2)
    x = E.tensor(np.random.default_rng(1).standard_normal(100), requires_grad=True)
    E.manual_seed(3)
    y = F.alpha_dropout(x, 0.4, training=True)
    y.sum().backward()
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.4 + 1) * 0.6)
    kept = np.isclose(x.grad.numpy(), a)
    assert (kept | (x.grad.numpy() == 0)).all() and 30 < kept.sum() < 90


def test_rrelu_slopes_training_and_evaluation():
    E.manual_seed(4)
    x = E.tensor(np.linspace(-3, 3, 1000), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    ratio = (y.detach().numpy() / x.detach().numpy())[:500]
    assert ((ratio >= 0.1) & (ratio <= 0.3)).all() and ratio.std() > 0.03
    np.testing.assert_array_equal(y.detach().numpy()[500:], x.detach().numpy()[500:])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[:500], ratio)
    np.testing.assert_allclose(nn.RReLU(0.1, 0.3).eval()(x).detach().numpy(),
                               np.where(x.detach().numpy() >= 0, 1, 0.2) * x.detach().numpy())
    z = E.tensor([-1.0, 2.0])
    F.rrelu_(z)
    np.testing.assert_allclose(z.numpy(), [-(1 / 8 + 1 / 3) / 2, 2.0])
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"


def test_conv_tbc_against_a_loop_and_finite_differences():
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((6, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    pad = 1
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    want = np.stack([sum(xp[t + k] @ w[k] for k in range(3)) + b for t in range(6 + 2 * pad - 3 + 1)])
    got = F.conv_tbc(E.tensor(x), E.tensor(w), E.tensor(b), pad)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    args = (E.tensor(x, requires_grad=True), E.tensor(w, requires_grad=True), E.tensor(b, requires_grad=True))
    assert E.gradcheck(lambda a, c, d: F.conv_tbc(a, c, d, pad), args)
    with pytest.raises(RuntimeError, match="Input dim 2 \\(input channels\\) is not == dim 1 in the weight tensor"):
        F.conv_tbc(E.tensor(x), E.tensor(w[:, :2]), E.tensor(b))


def test_linear_cross_entropy_is_linear_then_cross_entropy():
    rng = np.random.default_rng(6)
    x, w, bias = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    y = np.array([0, 2, 1, 2, 0])
    logits = x @ w.T + bias
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    want = -logp[np.arange(5), y].mean()
    got = F.linear_cross_entropy(E.tensor(x), E.tensor(w), E.tensor(y), linear_bias=E.tensor(bias))
    np.testing.assert_allclose(got.item(), want, rtol=1e-12)
    loss = nn.LinearCrossEntropyLoss(4, 3, bias=True, options=nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    loss.double()
    loss.linear.weight.data.copy_(E.tensor(w))
    loss.linear.bias.data.copy_(E.tensor(bias))
    np.testing.assert_allclose(loss(E.tensor(x), E.tensor(y)).item(), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last dimensions"):
        F.linear_cross_entropy(E.tensor(x), E.tensor(w[:, :3]), E.tensor(y))
    with pytest.raises(RuntimeError, match="expected label_smoothing to be in range"):
        nn.LinearCrossEntropyLoss(4, 3, label_smoothing=2.0)


def test_helpers_dispatch_and_assert():
    fn = F.boolean_dispatch("return_indices", 1, False, lambda x, return_indices=False: ("t", x),
                            lambda x, return_indices=False: ("f", x),
                            func_name="pick")
    assert fn(1) == ("f", 1) and fn(1, True) == ("t", 1) and fn(1, return_indices=True) == ("t", 1)
    assert fn.__name__ == "pick"
    F.assert_int_or_pair(3, "k", "{} bad")
    with pytest.raises(AssertionError, match="k bad"):
        F.assert_int_or_pair((1, 2, 3), "k", "{} bad")
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(lin=nn.Linear(2, 2))
    assert isinstance(c.lin, nn.Linear)


@pytest.mark.torch
def test_conv_tbc_and_linear_cross_entropy_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, w, b = rng.standard_normal((7, 3, 2)), rng.standard_normal((2, 2, 5)), rng.standard_normal(5)
    want = torch.conv_tbc(torch.tensor(x), torch.tensor(w), torch.tensor(b), 2).numpy()
    np.testing.assert_allclose(F.conv_tbc(E.tensor(x), E.tensor(w), E.tensor(b), 2).numpy(), want, rtol=1e-12)
    xi, wk, y = rng.standard_normal((4, 3)), rng.standard_normal((5, 2, 3)), rng.integers(0, 5, (4, 2))
    want = torch.nn.functional.linear_cross_entropy(torch.tensor(xi), torch.tensor(wk), torch.tensor(y),
                                                    label_smoothing=0.1, reduction="none")
    got = F.linear_cross_entropy(E.tensor(xi), E.tensor(wk), E.tensor(y), label_smoothing=0.1, reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_nn_grad_conv_gradients_against_numpy():
    rng = np.random.default_rng(8)
    x, w, go = rng.standard_normal((2, 3, 5)), rng.standard_normal((4, 3, 2)), rng.standard_normal((2, 4, 4))
    # y[n, o, t] = sum_{c, k} x[n, c, t + k] w[o, c, k]
    gx = np.zeros_like(x)
    for k in range(2):
        gx[:, :, k:k + 4] += np.einsum("not,oc->nct", go, w[:, :, k])
    gw = np.stack([np.einsum("not,nct->oc", go, x[:, :, k:k + 4]) for k in range(2)], -1)
    np.testing.assert_allclose(nn.grad.conv1d_input(x.shape, E.tensor(w), E.tensor(go)).numpy(), gx, rtol=1e-12)
    np.testing.assert_allclose(nn.grad.conv1d_weight(E.tensor(x), w.shape, E.tensor(go)).numpy(), gw, rtol=1e-12)
    assert F.grad is nn.grad


@pytest.mark.torch
def test_nn_grad_conv2d_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 2, 3, 2))
    go = rng.standard_normal((2, 6, 4, 7))
    kw = {"stride": (2, 1), "padding": 1, "dilation": 1, "groups": 2}
    want_i = torch.nn.grad.conv2d_input(x.shape, torch.tensor(w), torch.tensor(go), **kw).numpy()
    want_w = torch.nn.grad.conv2d_weight(torch.tensor(x), w.shape, torch.tensor(go), **kw).numpy()
    np.testing.assert_allclose(nn.grad.conv2d_input(x.shape, E.tensor(w), E.tensor(go), **kw).numpy(), want_i,
                               rtol=1e-10)
    np.testing.assert_allclose(nn.grad.conv2d_weight(E.tensor(x), w.shape, E.tensor(go), **kw).numpy(), want_w,
                               rtol=1e-10)


def test_dropout3d_drops_whole_channels_and_warns_for_other_ranks():
    E.manual_seed(5)
    x = E.ones(3, 40, 2, 2, 2)
    y = F.dropout3d(x, 0.5).numpy().reshape(3, 40, 8)
    assert (y == y[..., :1]).all() and set(np.unique(y)) == {0.0, 2.0}
    unbatched = F.dropout3d(E.ones(40, 2, 2, 2), 0.5).numpy().reshape(40, 8)
    assert (unbatched == unbatched[:, :1]).all()
    assert nn.Dropout3d(0.5).eval()(x) is x
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        F.dropout3d(E.ones(2, 3, 4), 0.5)


def test_three_d_padding_and_instance_norm_against_numpy():
    x = np.random.default_rng(10).standard_normal((2, 3, 2, 3, 4))
    pad = (1, 0, 2, 1, 0, 1)
    np_pad = ((0, 0), (0, 0), (0, 1), (2, 1), (1, 0))
    for layer, mode in ((nn.ReflectionPad3d(pad), "reflect"), (nn.ReplicationPad3d(pad), "edge"),
                        (nn.CircularPad3d(pad), "wrap"), (nn.ZeroPad3d(pad), "constant")):
        np.testing.assert_array_equal(layer(E.tensor(x)).numpy(), np.pad(x, np_pad, mode=mode))
    np.testing.assert_array_equal(nn.ConstantPad3d(pad, 2.5)(E.tensor(x)).numpy(),
                                  np.pad(x, np_pad, constant_values=2.5))
    out = nn.InstanceNorm3d(3)(E.tensor(x)).numpy()
    mean, var = x.mean((2, 3, 4), keepdims=True), x.var((2, 3, 4), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-10)
    with pytest.raises(ValueError, match="expected 4D or 5D input"):
        nn.InstanceNorm3d(3)(E.zeros(2, 3, 4))


def test_sync_batch_norm_is_batch_norm_in_one_process_and_converts_models():
    E.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.Sequential(nn.BatchNorm1d(3)), nn.InstanceNorm2d(3))
    model[1].running_mean.fill_(0.5)
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(conv[1], nn.SyncBatchNorm) and isinstance(conv[2][0], nn.SyncBatchNorm)
    assert isinstance(conv[3], nn.InstanceNorm2d)
    assert conv[1].weight is model[1].weight and conv[1].running_mean is model[1].running_mean
    x = E.tensor(np.random.default_rng(11).standard_normal((4, 3, 2, 5)))
    sync, plain = nn.SyncBatchNorm(3).double(), nn.BatchNorm2d(3).double()
    np.testing.assert_array_equal(sync(x).detach().numpy(), plain(x).detach().numpy())
    np.testing.assert_array_equal(sync.running_var.numpy(), plain.running_var.numpy())
    assert tuple(sync(E.zeros(4, 3, dtype=E.float64)).shape) == (4, 3)  # any (N, C, *) input
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        sync(E.zeros(3, dtype=E.float64))
    assert repr(nn.SyncBatchNorm(3)) == ("SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                         "track_running_stats=True)")


def test_sync_batch_norm_refuses_to_train_unsynchronized_across_processes(monkeypatch):
    import sys
    import types

    fake = types.SimpleNamespace(is_initialized=lambda: True, get_world_size=lambda group=None: 4)
    monkeypatch.setitem(sys.modules, "ember.distributed", fake)
    m = nn.SyncBatchNorm(3)
    with pytest.raises(NotImplementedError, match="does not synchronise batch statistics across processes"):
        m(E.zeros(2, 3))
    m.eval()
    assert tuple(m(E.zeros(2, 3)).shape) == (2, 3)


def test_attention_backend_selection_common_types_and_factory_kwargs():
    from ember.nn.attention import SDPBackend, sdpa_kernel
    from ember.nn.common_types import _size_2_t

    q = E.tensor(np.random.default_rng(12).standard_normal((1, 2, 3, 4)))
    want = F.scaled_dot_product_attention(q, q, q).numpy()
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
        np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q).numpy(), want)
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("flash"):
            pass
    assert int(SDPBackend.CUDNN_ATTENTION) == 3 and _size_2_t is not None
    assert nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": E.float64}}) == {"device": "cpu",
                                                                                          "dtype": E.float64}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        nn.factory_kwargs({"bias": True})
    with pytest.raises(TypeError, match="dtype specified twice"):
        nn.factory_kwargs({"dtype": E.float32, "factory_kwargs": {"dtype": E.float64}})


def test_grouped_mm_every_operand_layout_against_numpy():
    rng = np.random.default_rng(13)
    a2, a3 = rng.standard_normal((6, 8)), rng.standard_normal((3, 4, 8))
    b3, b2 = rng.standard_normal((3, 8, 4)), rng.standard_normal((8, 12))
    offs = E.tensor([2, 3, 5], dtype=E.int32)
    np.testing.assert_allclose(F.grouped_mm(E.tensor(a3), E.tensor(b3)).numpy(), a3 @ b3, rtol=1e-12)
    got = F.grouped_mm(E.tensor(a2), E.tensor(b3), offs=offs).numpy()
    want = np.concatenate([a2[:2] @ b3[0], a2[2:3] @ b3[1], a2[3:5] @ b3[2], np.zeros((1, 4))])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got = F.grouped_mm(E.tensor(a3), E.tensor(b2), offs=E.tensor([4, 8, 12])).numpy()
    np.testing.assert_allclose(got, np.concatenate([a3[i] @ b2[:, 4 * i:4 * i + 4] for i in range(3)], 1), rtol=1e-12)
    a22, b22 = rng.standard_normal((4, 12)), rng.standard_normal((12, 5))
    got = F.grouped_mm(E.tensor(a22), E.tensor(b22), offs=E.tensor([4, 8, 12])).numpy()
    np.testing.assert_allclose(got, np.stack([a22[:, 4 * i:4 * i + 4] @ b22[4 * i:4 * i + 4] for i in range(3)]),
                               rtol=1e-12)
    at = E.tensor(a2, requires_grad=True)
    assert E.gradcheck(lambda t: F.grouped_mm(t, E.tensor(b3), offs=offs), (at,))
    with pytest.raises(RuntimeError, match="Have to provide offsets if there is a 2d matrix"):
        F.grouped_mm(E.tensor(a2), E.tensor(b3))
    with pytest.raises(RuntimeError, match="Bias not supported yet"):
        F.grouped_mm(E.tensor(a3), E.tensor(b3), bias=E.zeros(4))
    with pytest.raises(RuntimeError, match="offs must be non-decreasing and at most 6"):
        F.grouped_mm(E.tensor(a2), E.tensor(b3), offs=E.tensor([2, 1, 7]))


@pytest.mark.torch
def test_grouped_mm_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(14)
    a3, b3 = rng.standard_normal((3, 4, 8)).astype(np.float32), rng.standard_normal((3, 8, 4)).astype(np.float32)
    a22, b22 = rng.standard_normal((4, 12)).astype(np.float32), rng.standard_normal((12, 8)).astype(np.float32)
    offs = [4, 8, 12]
    want = torch.nn.functional.grouped_mm(torch.tensor(a22), torch.tensor(b22),
                                          offs=torch.tensor(offs, dtype=torch.int32))
    got = F.grouped_mm(E.tensor(a22), E.tensor(b22), offs=E.tensor(offs, dtype=E.int32))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    want = torch.nn.functional.grouped_mm(torch.tensor(a3), torch.tensor(b3))
    np.testing.assert_allclose(F.grouped_mm(E.tensor(a3), E.tensor(b3)).numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_conv_tbc_of_integers_wraps_and_follows_addmms_dtype_rules():
    """PyTorch's conv_tbc is an addmm into the bias: integers compute in their dtype (int32 wraps), a bias of any
    dtype is cast to the input's, and the weight's dtype must match (addmm's message)."""
    x = E.ones(4, 1, 1, dtype=E.int32)
    w = E.full((2, 1, 1), 2 ** 30, dtype=E.int32)
    assert F.conv_tbc(x, w, E.ones(1, dtype=E.int32)).flatten().tolist() == [-2147483647] * 3
    got = F.conv_tbc(E.ones(3, 1, 1, dtype=E.int8), E.ones(2, 1, 1, dtype=E.int8), E.tensor([0.5]), 1)
    assert got.dtype is E.int8 and got.flatten().tolist() == [1, 2, 2, 1]
    with pytest.raises(RuntimeError, match=r"^self and mat2 must have the same dtype, but got Long and Float$"):
        F.conv_tbc(E.ones(4, 1, 1, dtype=E.int64), E.ones(2, 1, 1), E.ones(1))
    with pytest.raises(NotImplementedError, match=r"^\"addmm_impl_cpu_\" not implemented for 'Bool'$"):
        F.conv_tbc(E.ones(4, 1, 1, dtype=E.bool), E.ones(2, 1, 1, dtype=E.bool), E.ones(1))


@pytest.mark.torch
def test_conv_tbc_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    import itertools

    names = ["bool", "int8", "uint8", "int16", "int32", "int64", "float32", "float64"]

    def run(mod, f, xd, wd, bd):
        try:
            r = f(mod.arange(8).reshape(4, 1, 2).to(getattr(mod, xd)), mod.ones(2, 2, 3, dtype=getattr(mod, wd)),
                  mod.ones(3, dtype=getattr(mod, bd)), 1)
        except RuntimeError as e:
            return type(e) is NotImplementedError, str(e)
        return str(r.dtype).split(".")[-1], r.tolist()

    for xd, wd, bd in itertools.product(names, names, names):
        assert run(E, F.conv_tbc, xd, wd, bd) == run(torch, torch.conv_tbc, xd, wd, bd), (xd, wd, bd)


def test_batch_norm_of_an_empty_input_is_pytorchs_shortcut():
    # PyTorch returns input.clone() * weight[0] + bias[0] before any check: integer inputs, statistics of
    # another dtype or size, and training all pass; the running statistics are untouched
    rm, rv = E.full((3,), 1.0), E.full((3,), 2.0)
    y = F.batch_norm(E.zeros(0, 3, dtype=E.int64), rm, rv, training=True)
    assert y.dtype is E.int64 and tuple(y.shape) == (0, 3)
    assert rm.tolist() == [1.0] * 3 and rv.tolist() == [2.0] * 3
    y = F.batch_norm(E.zeros(2, 3, 0, dtype=E.int64), E.zeros(3), E.ones(3), E.ones(3), E.zeros(3, dtype=E.float64))
    assert y.dtype is E.float32 and tuple(y.shape) == (2, 3, 0)  # int64 * float32 weight[0], + a 0-dim float64
    assert F.batch_norm(E.zeros(0, 3, dtype=E.float16), E.zeros(4), E.ones(4)).dtype is E.float16
    assert tuple(F.batch_norm(E.zeros(0), E.zeros(0), E.ones(0)).shape) == (0,)
    with pytest.raises(IndexError, match=r"select\(\): index 0 out of range for tensor of size \[0\]"):
        F.batch_norm(E.zeros(0, 0), E.zeros(0), E.ones(0), weight=E.ones(0))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(E.zeros(1, 3, dtype=E.int64), None, None, training=True)
    x, w = E.zeros(0, 3, requires_grad=True), E.ones(3, requires_grad=True)
    F.batch_norm(x, None, None, w, training=True).sum().backward()
    assert tuple(x.grad.shape) == (0, 3) and w.grad.tolist() == [0.0] * 3
    bn = nn.BatchNorm2d(3)
    assert bn(E.zeros(0, 3, 2, 2, dtype=E.int64)).dtype is E.float32
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.num_batches_tracked.item() == 1


def test_triplet_margin_loss_of_1d_inputs_at_1e30_is_finite():
    # pairwise_distance of 1-D inputs reduces one element: |a - p + eps| exactly (PyTorch: 2e30, not inf)
    a, p, n = E.tensor([1e30]), E.tensor([-1e30]), E.tensor([0.0])
    assert F.pairwise_distance(a, p).item() == np.float32(2e30)
    assert F.triplet_margin_loss(a, p, n, reduction="none").item() == np.float32(1e30)
    assert F.triplet_margin_loss(a, p, E.tensor([1e30]), swap=True).item() == np.float32(2e30)
    x = E.tensor([[2e30]], requires_grad=True)
    F.pairwise_distance(x, E.zeros(1, 1)).sum().backward()
    assert x.grad.tolist() == [[1.0]]


def test_linear_with_a_bias_of_the_wrong_size_raises_pytorchs_expand_error():
    for shape, rows in (((2, 3), 2), ((2, 7, 3), 14), ((3,), 1)):
        want = (r"^The expanded size of the tensor \(4\) must match the existing size \(5\) at non-singleton "
                rf"dimension 1\.  Target sizes: \[{rows}, 4\]\.  Tensor sizes: \[5\]$")
        with pytest.raises(RuntimeError, match=want):
            F.linear(E.zeros(*shape), E.zeros(4, 3), E.zeros(5))
    assert F.linear(E.ones(2, 3), E.ones(4, 3), E.full((1,), 2.0)).tolist() == [[5.0] * 4] * 2


def test_batchnorm_module_of_half_input_is_pytorchs_mixed_dtype_forward_and_backward():
    # a float32 BatchNorm2d on a float16 input (PyTorch's CPU "mixed dtype" mode): float16 output and input
    # gradient (bits as PyTorch 2.13), float32 parameter gradients and running statistics; eval on bfloat16
    x = (E.arange(16.0).reshape(2, 2, 2, 2) / 5 - 1).half().requires_grad_()
    bn = nn.BatchNorm2d(2)
    with E.no_grad():
        bn.weight.copy_(E.tensor([1.5, -0.5]))
        bn.bias.copy_(E.tensor([0.25, 1.0]))
    y = bn(x)
    y.backward(E.arange(16.0).reshape(2, 2, 2, 2).sin().half())
    assert y.dtype is E.float16 and x.grad.dtype is E.float16 and bn.weight.grad.dtype is E.float32
    assert y.float().flatten().tolist() == [
        -1.736328125, -1.375, -1.0146484375, -0.65283203125, 1.662109375, 1.5419921875, 1.4208984375, 1.30078125,
        1.1533203125, 1.513671875, 1.875, 2.236328125, 0.69873046875, 0.57861328125, 0.458251953125, 0.337890625]
    assert x.grad.float().flatten().tolist() == [
        -1.2119140625, 0.4560546875, 0.72705078125, -0.51123046875, 0.08642578125, 0.27783203125,
        -0.06170654296875, -0.5556640625, 1.7626953125, 0.869140625, -0.70849609375, -1.3837890625, 0.51123046875,
        0.004894256591796875, -0.268798828125, 0.005809783935546875]
    np.testing.assert_allclose(bn.weight.grad.numpy(), [-2.733668088912964, 3.8461410999298096], rtol=1e-6)
    np.testing.assert_allclose(bn.bias.grad.numpy(), [1.7490234375, 0.186767578125], rtol=1e-6)
    assert bn.running_mean.dtype is E.float32
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.010003662668168545, 0.089996337890625], rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), [0.9788562655448914, 0.9788507223129272], rtol=1e-6)
    bn.eval()
    y = bn(x.detach().bfloat16())
    assert y.dtype is E.bfloat16 and y.float().flatten().tolist() == [
        -1.28125, -0.98046875, -0.67578125, -0.373046875, 1.1484375, 1.046875, 0.9453125, 0.84375, 1.1484375,
        1.4453125, 1.75, 2.0625, 0.337890625, 0.236328125, 0.1376953125, 0.03466796875]


@pytest.mark.parametrize("which", ["instance", "instance_eval", "group", "layer"])
def test_norms_of_half_input_with_float32_parameters_are_pytorchs_mixed_dtype(which):
    # PyTorch 2.13's CPU computes them in float32 and rounds once: output and input gradient float16 (its bits),
    # weight gradient float32 (layer_norm's: PyTorch's is 1e-3 off the float64 value, ember's is that value)
    x = (E.arange(24.0).reshape(2, 3, 4) / 7).half().requires_grad_()
    w3, w4 = E.tensor([1.0, 2.0, -1.0], requires_grad=True), E.tensor([1.0, 2.0, -1.0, 0.5], requires_grad=True)
    call, w, y4, gx3, gw, rtol = {
        "instance": (lambda: F.instance_norm(x, E.zeros(3), E.ones(3), w3, None), w3,
                     [-1.341796875, -0.447021484375, 0.447021484375, 1.341796875],
                     [-0.4521484375, 1.0068359375, -0.6484375], [-5.59121, 5.22041, -1.23334], 1e-5),
        "instance_eval": (lambda: F.instance_norm(x, E.zeros(3) + 0.1, E.ones(3), w3, None, use_input_stats=False),
                          w3, [-0.0999755859375, 0.042816162109375, 0.1856689453125, 0.328369140625],
                          [1.0, 0.54052734375, -0.416259765625], [1.18457, 2.75604, -7.54303], 1e-5),
        "group": (lambda: F.group_norm(x, 3, w3, E.zeros(3)), w3,
                  [-1.341796875, -0.447021484375, 0.447021484375, 1.341796875],
                  [-0.4521484375, 1.0068359375, -0.6484375], [-5.59121, 5.22041, -1.23334], 1e-5),
        "layer": (lambda: F.layer_norm(x, (4,), w4, E.zeros(4)), w4,
                  [-1.341796875, -0.89404296875, -0.447021484375, 0.6708984375],
                  [-1.7080078125, 2.0234375, 1.083984375],
                  [-0.66638775, 0.00245656, -0.22169533, -0.71851288], 1e-5),  # float64 (PyTorch: -0.66724, ...)
    }[which]
    y = call()
    y.backward(E.arange(24.0).reshape(2, 3, 4).cos().half())
    assert y.dtype is E.float16 and x.grad.dtype is E.float16 and w.grad.dtype is E.float32
    assert y.float().flatten().tolist()[:4] == y4
    assert x.grad.float().flatten().tolist()[:3] == gx3
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=rtol, atol=2e-5)
