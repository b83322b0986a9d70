"""RReLU, Container, SyncBatchNorm: values against numpy float64, errors and reprs as PyTorch's."""

import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F


def test_rrelu_eval_uses_the_mean_slope():
    x = torch.tensor([-2.0, -0.5, 0.0, 1.5], dtype=torch.float64)
    m = nn.RReLU(0.1, 0.3).eval()
    np.testing.assert_allclose(m(x).numpy(), [-0.4, -0.1, 0.0, 1.5], rtol=1e-12)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)"
    assert repr(nn.RReLU(inplace=True)) == "RReLU(lower=0.125, upper=0.3333333333333333, inplace=True)"


def test_rrelu_training_draws_slopes_in_range_and_backpropagates_them():
    torch.manual_seed(0)
    x = torch.tensor(np.linspace(-3, 3, 400), dtype=torch.float64, requires_grad=True)
    y = F.rrelu(x, 0.2, 0.4, training=True)
    y.sum().backward()
    xv, yv, g = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    pos = xv > 0
    np.testing.assert_array_equal(yv[pos], xv[pos])
    np.testing.assert_array_equal(g[pos], 1.0)
    slopes = yv[~pos & (xv != 0)] / xv[~pos & (xv != 0)]
    assert np.all((slopes >= 0.2) & (slopes <= 0.4)) and slopes.std() > 0.03
    np.testing.assert_allclose(g[~pos & (xv != 0)], slopes, rtol=1e-12)
    z = torch.tensor([-1.0, 2.0])
    assert F.rrelu_(z) is z and z[1].item() == 2.0


def test_container_is_deprecated_and_registers_its_keyword_children():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(fc=nn.Linear(2, 3), act=nn.ReLU())
    assert list(dict(c.named_children())) == ["fc", "act"]
    assert len(list(c.parameters())) == 2


@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 2, 2, 3)])
def test_sync_batch_norm_outside_a_process_group_is_batch_norm_over_any_rank(shape):
    x = torch.tensor(np.random.default_rng(0).standard_normal(shape), dtype=torch.float64)
    m = nn.SyncBatchNorm(3, momentum=0.2, dtype=torch.float64)
    out = m(x).detach().numpy()
    axes = tuple(i for i in range(len(shape)) if i != 1)
    a = x.numpy()
    mean = a.mean(axis=axes, keepdims=True)
    ref = (a - mean) / np.sqrt(a.var(axis=axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.2 * mean.reshape(-1), rtol=1e-10)
    np.testing.assert_allclose(m.running_var.numpy(), 0.8 + 0.2 * a.var(axis=axes, ddof=1).reshape(-1), rtol=1e-10)


def test_sync_batch_norm_input_errors():
    m = nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        m(torch.zeros(3))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"):
        m(torch.zeros(2, 0))
    # the channels are batch_norm's to check, as in PyTorch: its running stats', or none without them
    with pytest.raises(RuntimeError, match="^running_mean should contain 2 elements not 3$"):
        m(torch.zeros(4, 2, 5))
    bare = nn.SyncBatchNorm(3, affine=False, track_running_stats=False)
    a = np.arange(8.0).reshape(2, 2, 2)
    want = (a - a.mean((0, 2), keepdims=True)) / np.sqrt(a.var((0, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(bare(torch.tensor(a)).numpy(), want, rtol=1e-12)


def test_convert_sync_batchnorm_replaces_batch_norms_and_shares_their_tensors():
    net = nn.Sequential(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), nn.Sequential(nn.BatchNorm1d(4), nn.InstanceNorm1d(4)))
    bn = net[1]
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(converted[1]) is nn.SyncBatchNorm and type(converted[2][0]) is nn.SyncBatchNorm
    assert type(converted[2][1]) is nn.InstanceNorm1d  # instance norms are not batch norms
    assert converted[1].weight is bn.weight and converted[1].running_mean is bn.running_mean


@pytest.mark.torch
def test_reprs_and_sync_batch_norm_values_match_pytorch():
    pt = pytest.importorskip("torch")
    import ember.autograd as ea
    import ember.nn as enn

    for name, args in [("RReLU", (0.1, 0.2)), ("SyncBatchNorm", (3,))]:
        assert repr(getattr(enn, name)(*args)) == repr(getattr(pt.nn, name)(*args))
    x = np.random.default_rng(1).standard_normal((4, 3, 5)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, em = pt.nn.SyncBatchNorm(3), enn.SyncBatchNorm(3)
    np.testing.assert_allclose(em(ea.tensor(x)).detach().numpy(), tm(pt.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(em.running_var.numpy(), tm.running_var.numpy(), rtol=1e-5)


def conv1d_ref(x, w, stride=1, padding=0):
    n, c, length = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    k = w.shape[-1]
    out_len = (length + 2 * padding - k) // stride + 1
    return np.stack([np.einsum("nck,ock->no", xp[:, :, i * stride:i * stride + k], w) for i in range(out_len)], -1)


def test_nn_grad_conv_gradients_match_finite_differences_of_the_convolution():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 7)), rng.standard_normal((4, 3, 3))
    g = rng.standard_normal(conv1d_ref(x, w, 2, 1).shape)
    gi = nn.grad.conv1d_input(x.shape, torch.tensor(w), torch.tensor(g), stride=2, padding=1).numpy()
    gw = nn.grad.conv1d_weight(torch.tensor(x), w.shape, torch.tensor(g), stride=2, padding=1).numpy()
    # the convolution is linear in each argument: <g, conv(e_i)> is the exact gradient entry
    for idx in [(0, 0, 0), (1, 2, 6), (0, 1, 3)]:
        e = np.zeros_like(x)
        e[idx] = 1.0
        assert gi[idx] == pytest.approx((g * conv1d_ref(e, w, 2, 1)).sum(), rel=1e-10)
    for idx in [(0, 0, 0), (3, 2, 2), (1, 1, 1)]:
        e = np.zeros_like(w)
        e[idx] = 1.0
        assert gw[idx] == pytest.approx((g * conv1d_ref(x, e, 2, 1)).sum(), rel=1e-10)
    x2 = torch.randn(1, 2, 5, 5, dtype=torch.float64)
    w2 = torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    out = F.conv2d(x2, w2, padding=1)
    g2 = torch.randn(*out.shape, dtype=torch.float64)
    out.backward(g2)
    np.testing.assert_allclose(nn.grad.conv2d_weight(x2, w2.shape, g2, padding=1).numpy(), w2.grad.numpy(),
                               rtol=1e-12)
    with pytest.raises(RuntimeError, match="conv2d_input: grad_output of shape"):
        nn.grad.conv2d_input((1, 2, 5, 5), w2, torch.zeros(1, 3, 2, 2))


def test_sdpa_kernel_checks_and_restores_the_selected_backends():
    from ember.nn.attention import SDPBackend, _current_backends, sdpa_kernel

    assert int(SDPBackend.FLASH_ATTENTION) == 1 and int(SDPBackend.ERROR) == -1
    with sdpa_kernel(SDPBackend.MATH) as ctx:
        assert ctx == {} and _current_backends() == [SDPBackend.MATH]
        q = torch.randn(1, 2, 3, 4)
        assert tuple(F.scaled_dot_product_attention(q, q, q).shape) == (1, 2, 3, 4)
    assert len(_current_backends()) == 5
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend or a list"):
        with sdpa_kernel("math"):
            pass


def test_sdpa_backend_prints_its_qualified_name_like_pytorchs_enum():
    from ember.nn.attention import SDPBackend

    assert str(SDPBackend.MATH) == "SDPBackend.MATH" and f"{SDPBackend.CUDNN_ATTENTION}" == "SDPBackend.CUDNN_ATTENTION"
    assert repr(SDPBackend.FLASH_ATTENTION) == "<SDPBackend.FLASH_ATTENTION: 1>"


def test_factory_kwargs_keeps_the_factory_keys_and_refuses_others():
    assert nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": torch.float64}}) == \
        {"device": "cpu", "dtype": torch.float64}
    assert nn.factory_kwargs(None) == {}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        nn.factory_kwargs({"bias": True})
    with pytest.raises(TypeError, match="dtype specified twice, in \\*\\*kwargs and in factory_kwargs"):
        nn.factory_kwargs({"dtype": torch.float32, "factory_kwargs": {"dtype": torch.float64}})


def test_global_backward_hooks_see_every_modules_gradients():
    from ember.nn.modules.module import register_module_full_backward_hook, register_module_full_backward_pre_hook

    seen = []
    h1 = register_module_full_backward_pre_hook(lambda m, go: seen.append(("pre", type(m).__name__)))
    h2 = register_module_full_backward_hook(lambda m, gi, go: seen.append(("post", type(m).__name__,
                                                                             gi[0].numpy().tolist())))
    try:
        lin = nn.Linear(2, 1, bias=False)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[2.0, -3.0]]))
        lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        h1.remove()
        h2.remove()
    assert seen == [("pre", "Linear"), ("post", "Linear", [[2.0, -3.0]])]
    lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert len(seen) == 2


def test_registration_hooks_may_replace_what_is_registered():
    from ember.nn.modules.module import (
        register_module_buffer_registration_hook, register_module_module_registration_hook,
        register_module_parameter_registration_hook,
    )

    names = []
    handles = [register_module_parameter_registration_hook(lambda m, n, p: names.append(("param", n))),
               register_module_buffer_registration_hook(lambda m, n, b: b * 2 if b is not None else None),
               register_module_module_registration_hook(lambda m, n, s: nn.Identity() if isinstance(s, nn.ReLU)
                                                        else None)]
    try:
        nn.BatchNorm1d(2)  # registers weight and bias through the parameter hook
        holder = nn.Module()
        holder.register_buffer("b", torch.ones(2))
        seq = nn.Sequential()
        seq.act = nn.ReLU()
    finally:
        for h in handles:
            h.remove()
    assert ("param", "weight") in names and ("param", "bias") in names
    np.testing.assert_array_equal(holder.b.numpy(), [2.0, 2.0])
    assert type(seq.act) is nn.Identity


def test_extra_state_round_trips_through_state_dict():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(1, 1)
            self.note = "a"

        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"]

    src, dst = WithExtra(), WithExtra()
    src.note = "b"
    sd = src.state_dict()
    assert sd["_extra_state"] == {"note": "b"}
    keys = dst.load_state_dict(sd)
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    assert dst.note == "b"
    del sd["_extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        dst.load_state_dict(sd)


def test_set_submodule_bfloat16_and_to_empty():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    net.set_submodule("1.0", nn.Tanh())
    assert type(net[1][0]) is nn.Tanh
    with pytest.raises(AttributeError, match="Sequential has no attribute `5`"):
        net.set_submodule("1.5", nn.Tanh(), strict=True)
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name!"):
        net.set_submodule("", nn.Tanh())
    with pytest.raises(ValueError, match="`module` is not an nn.Module"):
        net.set_submodule("0", 3)
    assert net.bfloat16()[0].weight.dtype == torch.bfloat16
    fc = nn.Linear(2, 3).to_empty(device="cpu")
    assert tuple(fc.weight.shape) == (3, 2) and isinstance(fc.weight, nn.Parameter)


def test_parameter_dict_copy_setdefault_popitem_fromkeys():
    pd = nn.ParameterDict({"a": torch.ones(1), "b": torch.zeros(2)})
    c = pd.copy()
    assert list(c) == ["a", "b"] and c["a"] is pd["a"]
    assert pd.setdefault("a", torch.zeros(3)) is pd["a"]
    new = pd.setdefault("z", torch.full((1,), 5.0))
    assert isinstance(new, nn.Parameter) and list(pd) == ["a", "b", "z"]
    k, v = pd.popitem()
    assert k == "z" and v.item() == 5.0 and list(pd) == ["a", "b"]
    f = pd.fromkeys(["x", "y"], torch.ones(2))
    assert list(f) == ["x", "y"] and tuple(f["y"].shape) == (2,)
    with pytest.raises(KeyError):
        nn.ParameterDict().popitem()


def test_embedding_bag_from_pretrained_sums_the_given_rows():
    w = torch.tensor([[1.0, 2.0], [3.0, 5.0], [7.0, 11.0]])
    bag = nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not bag.weight.requires_grad
    np.testing.assert_array_equal(bag(torch.tensor([[0, 2], [1, 1]])).numpy(), [[8.0, 13.0], [6.0, 10.0]])
    assert nn.EmbeddingBag.from_pretrained(w, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.EmbeddingBag.from_pretrained(torch.ones(3))


def test_rnn_checking_helpers_raise_pytorchs_messages():
    lstm = nn.LSTM(3, 4, num_layers=2, proj_size=2)
    x = torch.zeros(5, 6, 3)
    assert lstm.get_expected_hidden_size(x, None) == (2, 6, 2)
    assert lstm.get_expected_cell_size(x, None) == (2, 6, 4)
    lstm.check_forward_args(x, (torch.zeros(2, 6, 2), torch.zeros(2, 6, 4)), None)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(2, 6, 4\), got \[2, 6, 2\]"):
        lstm.check_forward_args(x, (torch.zeros(2, 6, 2), torch.zeros(2, 6, 2)), None)
    with pytest.raises(RuntimeError, match="input must have 3 dimensions, got 2"):
        lstm.check_input(torch.zeros(5, 3), None)
    gru = nn.GRU(3, 4, batch_first=True)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 5, 4\), got \[1, 6, 4\]"):
        gru.check_forward_args(x, torch.zeros(1, 6, 4), None)
    h = torch.arange(6.0).reshape(1, 3, 2)
    np.testing.assert_array_equal(gru.permute_hidden(h, torch.tensor([2, 0, 1])).numpy(), h.numpy()[:, [2, 0, 1]])


@pytest.mark.torch
def test_merge_masks_matches_pytorch():
    pt = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    attn = rng.standard_normal((4, 4)).astype(np.float32)
    pad = rng.standard_normal((2, 4)).astype(np.float32)
    q = np.zeros((2, 4, 6), np.float32)
    ours = nn.MultiheadAttention(6, 3, batch_first=True)
    theirs = pt.nn.MultiheadAttention(6, 3, batch_first=True)
    for a, p in [(attn, pad), (attn, None), (None, pad), (None, None)]:
        m, t = ours.merge_masks(None if a is None else torch.tensor(a), None if p is None else torch.tensor(p),
                                torch.tensor(q))
        tm, tt = theirs.merge_masks(None if a is None else pt.tensor(a), None if p is None else pt.tensor(p),
                                    pt.tensor(q))
        assert t == tt
        if tm is None:
            assert m is None
        else:
            np.testing.assert_array_equal(m.numpy(), tm.numpy())


def test_modules_utils_normalisers_and_prefix_consumption():
    from collections import OrderedDict

    from ember.nn.modules.utils import (
        _list_with_default, _pair, _reverse_repeat_tuple, _single, _triple, consume_prefix_in_state_dict_if_present,
    )

    assert _pair(3) == (3, 3) and _triple([1, 2, 3]) == (1, 2, 3) and _single(4) == (4,)
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
    assert _list_with_default([None, 5], [8, 9, 10]) == [9, 5]
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        _list_with_default([None, 5], [8, 9])
    sd = OrderedDict([("module.fc.weight", 1), ("module.fc.bias", 2), ("other", 3)])
    sd._metadata = OrderedDict([("", {}), ("module", {"v": 1}), ("module.fc", {"v": 1})])
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert sorted(sd) == ["fc.bias", "fc.weight", "other"]
    assert sorted(sd._metadata) == ["", "fc"]


def test_parallel_functions_split_gather_and_apply_on_one_device():
    from ember.nn.modules.parallel import data_parallel, gather, parallel_apply, replicate, scatter

    x = torch.arange(12.0).reshape(6, 2)
    parts = scatter((x, 3, {"a": x}), ["cpu", "cpu", "cpu"])
    assert len(parts) == 3 and parts[1][1] == 3
    np.testing.assert_array_equal(parts[1][0].numpy(), x.numpy()[2:4])
    np.testing.assert_array_equal(parts[2][2]["a"].numpy(), x.numpy()[4:])
    back = gather([p[0] for p in parts], -1)
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    fc = nn.Linear(2, 1)
    assert replicate(fc, [0]) == [fc]
    with pytest.raises(NotImplementedError, match="one device per process"):
        replicate(fc, [0, 1])
    outs = parallel_apply([fc, fc], [parts[0][0], (parts[1][0],)])
    np.testing.assert_allclose(gather(outs, "cpu").detach().numpy(), fc(x[:4]).detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(data_parallel(fc, x, output_device=-1).detach().numpy(), fc(x).detach().numpy())
    dp = nn.DataParallel(fc)
    ins, kws = dp.scatter((x,), {}, ["cpu", "cpu"])
    assert len(ins) == 2 and kws == ({}, {})


def test_data_parallel_without_cuda_is_pytorchs_bare_wrapper(monkeypatch):
    from ember.core import cuda

    monkeypatch.setattr(cuda, "is_available", lambda: False)
    fc = nn.Linear(2, 1)
    dp = nn.DataParallel(fc, device_ids=[0], output_device=0)
    assert dp.module is fc and dp.device_ids == [] and not hasattr(dp, "output_device")
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    x = torch.ones(3, 2)
    np.testing.assert_array_equal(dp(x).detach().numpy(), fc(x).detach().numpy())


@pytest.mark.parametrize("cls", [nn.Embedding, nn.EmbeddingBag])
def test_embedding_modules_refuse_a_weight_of_another_shape(cls):
    with pytest.raises(AssertionError, match="^Shape of weight does not match num_embeddings and embedding_dim$"):
        cls(5, 2, _weight=torch.zeros(5, 3))
