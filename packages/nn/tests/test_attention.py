"""scaled_dot_product_attention, MultiheadAttention and TransformerEncoderLayer against numpy."""

import contextlib
import re

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F


def softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_ref(q, k, v, mod, key_padding_mask=None, attn_mask=None):
    """Sequence-first (L, N, E) multi-head attention, masks True = not allowed."""
    wi, bi = mod.in_proj_weight.detach().numpy(), mod.in_proj_bias.detach().numpy()
    wo, bo = mod.out_proj.weight.detach().numpy(), mod.out_proj.bias.detach().numpy()
    E, H = mod.embed_dim, mod.num_heads
    d = E // H
    Q, K, V = (x @ wi[i * E:(i + 1) * E].T + bi[i * E:(i + 1) * E] for i, x in enumerate((q, k, v)))
    L, N, _ = Q.shape
    Q, K, V = (x.reshape(x.shape[0], N, H, d).transpose(1, 2, 0, 3) for x in (Q, K, V))
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)
    if attn_mask is not None:
        scores = np.where(attn_mask[None, None], -np.inf, scores)
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], -np.inf, scores)
    a = softmax(scores)
    out = (a @ V).transpose(2, 0, 1, 3).reshape(L, N, E) @ wo.T + bo
    return out, a.mean(1)


def test_sdpa_matches_formula_with_masks():
    q = torch.randn(2, 3, 4, 8, dtype=torch.float64)
    k = torch.randn(2, 3, 5, 8, dtype=torch.float64)
    v = torch.randn(2, 3, 5, 6, dtype=torch.float64)
    ref = softmax(q.numpy() @ k.numpy().swapaxes(-1, -2) / np.sqrt(8)) @ v.numpy()
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v).numpy(), ref, rtol=1e-10)
    mask = torch.rand(4, 5) > 0.3
    mask[:, 0] = True
    s = q.numpy() @ k.numpy().swapaxes(-1, -2) / np.sqrt(8)
    ref = softmax(np.where(mask.numpy(), s, -np.inf)) @ v.numpy()
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=mask).numpy(), ref, rtol=1e-10)
    kc = torch.randn(2, 3, 4, 8, dtype=torch.float64)
    vc = torch.randn(2, 3, 4, 6, dtype=torch.float64)
    s = q.numpy() @ kc.numpy().swapaxes(-1, -2) * 0.5
    ref = softmax(np.where(np.tril(np.ones((4, 4), bool)), s, -np.inf)) @ vc.numpy()
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, kc, vc, is_causal=True, scale=0.5).numpy(), ref,
                               rtol=1e-10)


def test_sdpa_grad_fn_is_the_cpu_flash_node_where_pytorch_takes_that_kernel():
    def name(*shapes, **kw):
        q, k, v = (torch.ones(*s, requires_grad=True) for s in shapes)
        return F.scaled_dot_product_attention(q, k, v, **kw).grad_fn.name()

    flash = "ScaledDotProductFlashAttentionForCpuBackward0"
    assert name((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4)) == flash
    assert name((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), is_causal=True) == flash
    assert name((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 5)) == "UnsafeViewBackward0"  # another value head size: math
    assert name((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), dropout_p=0.5) == "UnsafeViewBackward0"
    assert name((2, 3, 4), (2, 3, 4), (2, 3, 4)) == "UnsafeViewBackward0"  # 3-D inputs: the math path


def test_linear_grad_fn_is_pytorchs_flattened_addmm_view():
    w, b = torch.ones(5, 3, requires_grad=True), torch.ones(5, requires_grad=True)
    assert F.linear(torch.ones(2, 3), w, b).grad_fn.name() == "AddmmBackward0"
    assert F.linear(torch.ones(2, 4, 3), w, b).grad_fn.name() == "ViewBackward0"
    assert F.linear(torch.ones(3), w, b).grad_fn.name() == "ViewBackward0"
    assert F.linear(torch.ones(4, 2, 3).transpose(0, 1), w, b).grad_fn.name() == "AddBackward0"  # not contiguous
    assert F.linear(torch.ones(2, 4, 3), w, torch.ones(4, 5, requires_grad=True)).grad_fn.name() == "AddBackward0"


def test_multihead_attention_matches_reference_and_masks():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2).double()
    with torch.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    q = torch.randn(4, 3, 8, dtype=torch.float64)
    kv = torch.randn(5, 3, 8, dtype=torch.float64)
    out, attn = mha(q, kv, kv)
    ref, ref_a = mha_ref(q.numpy(), kv.numpy(), kv.numpy(), mha)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(attn.detach().numpy(), ref_a, rtol=1e-10, atol=1e-12)
    kpm = torch.zeros(3, 5, dtype=torch.bool)
    kpm[0, 3:] = True
    am = torch.zeros(4, 5, dtype=torch.bool)
    am[1, 0] = True
    out, attn = mha(q, kv, kv, key_padding_mask=kpm, attn_mask=am)
    ref, ref_a = mha_ref(q.numpy(), kv.numpy(), kv.numpy(), mha, kpm.numpy(), am.numpy())
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(attn.detach().numpy(), ref_a, rtol=1e-10, atol=1e-12)
    _, per_head = mha(q, kv, kv, average_attn_weights=False)
    assert per_head.shape == (3, 2, 4, 5)
    assert mha(q, kv, kv, need_weights=False)[1] is None


def test_multihead_attention_bias_kv_and_zero_attn_add_two_unmasked_keys():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True).double()
    assert [n for n, _ in mha.named_parameters()] == ["in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                                                      "out_proj.weight", "out_proj.bias"]
    assert mha.bias_k.shape == (1, 1, 8) and mha.bias_k.abs().sum().item() > 0  # xavier_normal_, as PyTorch
    q = torch.randn(4, 3, 8, dtype=torch.float64)
    kv = torch.randn(5, 3, 8, dtype=torch.float64)
    kpm = torch.zeros(3, 5, dtype=torch.bool)
    kpm[0, 3:] = True
    out, attn = mha(q, kv, kv, key_padding_mask=kpm)
    # reference: project, append the bias key/value, split heads, append a zero key/value, attend
    wi, bi = mha.in_proj_weight.detach().numpy(), mha.in_proj_bias.detach().numpy()
    wo, bo = mha.out_proj.weight.detach().numpy(), mha.out_proj.bias.detach().numpy()
    Q, K, V = (x @ wi[i * 8:(i + 1) * 8].T + bi[i * 8:(i + 1) * 8] for i, x in enumerate((q.numpy(), kv.numpy(),
                                                                                            kv.numpy())))
    K = np.concatenate([K, np.broadcast_to(mha.bias_k.detach().numpy(), (1, 3, 8))])
    V = np.concatenate([V, np.broadcast_to(mha.bias_v.detach().numpy(), (1, 3, 8))])
    Q, K, V = (x.reshape(x.shape[0], 3, 2, 4).transpose(1, 2, 0, 3) for x in (Q, K, V))
    K, V = (np.concatenate([x, np.zeros((3, 2, 1, 4))], 2) for x in (K, V))
    scores = Q @ K.transpose(0, 1, 3, 2) / 2.0
    mask = np.concatenate([kpm.numpy(), np.zeros((3, 2), bool)], 1)
    a = softmax(np.where(mask[:, None, None, :], -np.inf, scores))
    ref = (a @ V).transpose(2, 0, 1, 3).reshape(4, 3, 8) @ wo.T + bo
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(attn.detach().numpy(), a.mean(1), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    assert mha.bias_k.grad is not None and mha.bias_v.grad.abs().sum().item() > 0


def test_multihead_attention_batch_first_and_init():
    mha = nn.MultiheadAttention(8, 4, batch_first=True).double()
    assert mha.in_proj_weight.shape == (24, 8) and mha.in_proj_bias.abs().sum().item() == 0
    x = torch.randn(3, 4, 8, dtype=torch.float64)
    out, _ = mha(x, x, x)
    ref, _ = mha_ref(x.numpy().transpose(1, 0, 2), *(x.numpy().transpose(1, 0, 2),) * 2, mha)
    np.testing.assert_allclose(out.detach().numpy(), ref.transpose(1, 0, 2), rtol=1e-10, atol=1e-12)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 4)


def layer_norm(x, w, b, eps=1e-5):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * w + b


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_matches_reference(norm_first):
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, norm_first=norm_first, batch_first=True).double()
    layer.eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    a = x.numpy()

    def sa(h):
        return mha_ref(h.transpose(1, 0, 2), h.transpose(1, 0, 2), h.transpose(1, 0, 2), layer.self_attn)[0] \
            .transpose(1, 0, 2)

    def ff(h):
        w1, b1 = layer.linear1.weight.detach().numpy(), layer.linear1.bias.detach().numpy()
        w2, b2 = layer.linear2.weight.detach().numpy(), layer.linear2.bias.detach().numpy()
        return np.maximum(h @ w1.T + b1, 0) @ w2.T + b2

    n1 = lambda h: layer_norm(h, layer.norm1.weight.detach().numpy(), layer.norm1.bias.detach().numpy())
    n2 = lambda h: layer_norm(h, layer.norm2.weight.detach().numpy(), layer.norm2.bias.detach().numpy())
    if norm_first:
        h = a + sa(n1(a))
        ref = h + ff(n2(h))
    else:
        h = n1(a + sa(a))
        ref = n2(h + ff(h))
    np.testing.assert_allclose(layer(x).detach().numpy(), ref, rtol=1e-9, atol=1e-11)
    enc = nn.TransformerEncoder(layer, num_layers=2)
    assert len(enc.layers) == 2 and enc.layers[0] is not layer
    assert enc(x).shape == (2, 5, 8)


def test_layer_blocks_take_is_causal_as_an_optional_argument():
    """Subclasses and user code call `_sa_block(x, mask, kpm)` without is_causal, as PyTorch's default allows."""
    enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True, batch_first=True).double().eval()
    dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True, batch_first=True).double().eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    mem = torch.randn(2, 3, 8, dtype=torch.float64)
    h = x + enc._sa_block(enc.norm1(x), None, None)
    np.testing.assert_allclose(enc(x).detach().numpy(), (h + enc._ff_block(enc.norm2(h))).detach().numpy(),
                               rtol=1e-12)
    h = x + dec._sa_block(dec.norm1(x), None, None)
    h = h + dec._mha_block(dec.norm2(h), mem, None, None)
    np.testing.assert_allclose(dec(x, mem).detach().numpy(), (h + dec._ff_block(dec.norm3(h))).detach().numpy(),
                               rtol=1e-12)


def test_separate_projections_check_key_and_value_widths_in_pytorchs_words():
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
    q = torch.ones(2, 1, 4)
    # the Size prints as torch.Size under ember.torch
    with pytest.raises(AssertionError, match=r"expecting key weights shape of \(4, 4\), but got \w+\.Size\(\[4, 3\]\)"):
        m(q, torch.ones(2, 1, 4), torch.ones(2, 1, 5))
    with pytest.raises(AssertionError,
                       match=r"expecting value weights shape of \(4, 4\), but got \w+\.Size\(\[4, 5\]\)"):
        m(q, torch.ones(2, 1, 3), torch.ones(2, 1, 4))
    assert m(q, torch.ones(2, 1, 3), torch.ones(2, 1, 5))[0].shape == (2, 1, 4)


def test_transformer_module_helpers_behave_as_pytorchs():
    from ember.nn.modules import transformer as T

    m = T._generate_square_subsequent_mask(3)
    assert m.tolist() == nn.Transformer.generate_square_subsequent_mask(3).tolist()
    assert T._detect_is_causal_mask(m) and not T._detect_is_causal_mask(m, size=4)
    assert T._detect_is_causal_mask(torch.ones(3, 3, dtype=torch.bool).triu(1))
    assert not T._detect_is_causal_mask(torch.zeros(3, 3)) and not T._detect_is_causal_mask(m.expand(2, 3, 3))
    assert T._detect_is_causal_mask(None, True) and not T._detect_is_causal_mask(m, False)
    assert (T._get_seq_len(torch.ones(5, 2, 3), False), T._get_seq_len(torch.ones(5, 2, 3), True),
            T._get_seq_len(torch.ones(5, 3), True)) == (5, 2, 5)
    clones = T._get_clones(nn.Linear(2, 2), 2)
    assert len(clones) == 2 and clones[0].weight is not clones[1].weight
    assert np.array_equal(clones[0].weight.detach().numpy(), clones[1].weight.detach().numpy())
    assert T._get_activation_fn("gelu") is F.gelu
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        T._get_activation_fn("tanh")


def test_transformer_causal_mask_hides_the_future():
    torch.manual_seed(0)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True).double()
    src = torch.randn(2, 5, 8, dtype=torch.float64)
    tgt = torch.randn(2, 4, 8, dtype=torch.float64)
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    assert mask.numpy()[0, 1] == -np.inf and mask.numpy()[1, 0] == 0
    out = model(src, tgt, tgt_mask=mask).detach().numpy()
    changed = tgt.clone()
    changed[:, 3] = 100.0
    out2 = model(src, changed, tgt_mask=mask).detach().numpy()
    np.testing.assert_allclose(out2[:, :3], out[:, :3], rtol=1e-12)
    assert not np.allclose(out2[:, 3], out[:, 3])
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal to d_model"):
        model(src, torch.randn(2, 4, 6, dtype=torch.float64))


def test_mask_shapes_are_checked_with_pytorchs_errors():
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.ones(2, 3, 8)
    with pytest.raises(RuntimeError, match=r"^The shape of the 2D attn_mask is .*Size\(\[4, 4\]\), but should be "
                                           r"\(3, 3\)\.$"):
        mha(x, x, x, attn_mask=torch.zeros(4, 4, dtype=torch.bool))
    with pytest.raises(RuntimeError, match=r"3D attn_mask is .*Size\(\[5, 3, 3\]\), but should be \(4, 3, 3\)\.$"):
        mha(x, x, x, attn_mask=torch.zeros(5, 3, 3), need_weights=False)
    with pytest.raises(AssertionError, match="expected `attn_mask` to be `None`, 2-D or 3-D but found 4-D tensor"):
        mha(x, x, x, attn_mask=torch.zeros(1, 1, 3, 3))
    with pytest.raises(AssertionError, match=r"^Expected key_padded_mask.shape\[1\] to be 3, but got 4$"):
        mha(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))
    with pytest.raises(AssertionError, match=r"^Expected key_padded_mask.shape\[0\] to be 2, but got 3$"):
        mha(x, x, x, key_padding_mask=torch.zeros(3, 3, dtype=torch.bool))
    assert mha(x, x, x, attn_mask=torch.zeros(4, 3, 3))[0].shape == (2, 3, 8)


def test_sdpa_is_causal_with_mask_applies_both_on_4d_without_dropout():
    """PyTorch's CPU kernel for 4-D inputs without dropout applies attn_mask and the causal mask together (a row
    masked entirely gives zeros); 3-D inputs or dropout take its math path, which refuses the pair."""
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 2, 4, 3)).astype(np.float32) for _ in range(3))
    keep = np.array([[0, 1, 1, 1], [1, 1, 1, 0]], bool)[:, None, None, :]
    allowed = keep & np.tril(np.ones((4, 4), bool))
    scores = np.where(allowed, q @ k.transpose(0, 1, 3, 2) / np.sqrt(3), -np.inf)
    with np.errstate(invalid="ignore"):
        ref = np.nan_to_num(softmax(scores)) @ v
    got = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v),
                                         attn_mask=torch.tensor(keep), is_causal=True)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-6)
    for args, kw in [((torch.tensor(q[0]), torch.tensor(k[0]), torch.tensor(v[0])), {}),
                     ((torch.tensor(q), torch.tensor(k), torch.tensor(v)), {"dropout_p": 0.5})]:
        with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
            F.scaled_dot_product_attention(*args, attn_mask=torch.tensor(keep), is_causal=True, **kw)


def test_sdpa_enable_gqa_repeats_each_kv_head_for_its_query_group():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 4, 3, 5)).astype(np.float32)
    k, v = (rng.standard_normal((2, 2, 3, 5)).astype(np.float32) for _ in range(2))
    kr, vr = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    ref = softmax(q @ kr.transpose(0, 1, 3, 2) / np.sqrt(5)) @ vr
    got = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), enable_gqa=True)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide the number of heads"):
        F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k[:, :1].repeat(3, 1)),
                                       torch.tensor(v[:, :1].repeat(3, 1)), enable_gqa=True)


def _encoder(**kw):
    rng = np.random.default_rng(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, **kw)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=torch.float32))
    return nn.TransformerEncoder(layer, 2)


def test_encoder_fast_path_zeroes_padded_positions_in_inference():
    # PyTorch's eval/no-grad path runs on a nested tensor and pads its output with zeros; the rest is unchanged
    enc = _encoder()
    assert enc.use_nested_tensor and enc.layers[0].activation_relu_or_gelu == 1
    x = torch.tensor(np.random.default_rng(1).standard_normal((3, 5, 8)), dtype=torch.float32)
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    slow = enc(x, src_key_padding_mask=pad)  # training mode: no fast path
    enc.eval()
    with torch.no_grad():
        fast = enc(x, src_key_padding_mask=pad)
        left = enc(x, src_key_padding_mask=pad.flip(1))  # not left-aligned: PyTorch's mask check refuses the path
        with_mask = enc(x, mask=torch.zeros(5, 5), src_key_padding_mask=torch.zeros(3, 5).masked_fill(pad, -1e9))
        torch.backends.mha.set_fastpath_enabled(False)
        try:
            off = enc(x, src_key_padding_mask=pad)
        finally:
            torch.backends.mha.set_fastpath_enabled(True)
    keep = (~pad).numpy()[..., None]
    np.testing.assert_allclose(fast.numpy(), slow.detach().numpy() * keep, atol=1e-6)
    assert not np.signbit(fast.numpy()[pad.numpy()]).any()  # padded with +0.0, as to_padded_tensor(0.0)
    assert np.abs(left.numpy()[1, :2]).sum() > 1 and np.abs(with_mask.numpy()[1, 3:]).sum() > 1
    np.testing.assert_allclose(off.numpy(), slow.detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(enc(x, src_key_padding_mask=pad).detach().numpy(), slow.detach().numpy(), atol=1e-6)


def test_encoder_fast_path_refuses_a_batch_with_every_position_padded():
    enc = _encoder()
    enc.eval()
    x = torch.ones(2, 5, 8)
    with torch.no_grad():
        with pytest.raises(RuntimeError, match="^to_padded_tensor: at least one constituent tensor should have "
                                               "non-zero numel$"):
            enc(x, src_key_padding_mask=torch.ones(2, 5, dtype=torch.bool))
        one_row = torch.tensor([[True] * 5, [False] * 5])  # a fully padded row alone comes back as zeros
        assert np.abs(enc(x, src_key_padding_mask=one_row).numpy()[0]).sum() == 0
    assert enc(x, src_key_padding_mask=torch.ones(2, 5, dtype=torch.bool)).shape == (2, 5, 8)  # no fast path


@pytest.mark.parametrize("kw, why", [({"norm_first": True}, "encoder_layer.norm_first was True"),
                                     ({"activation": F.silu}, "encoder_layer.activation_relu_or_gelu was not True")])


def test_encoder_says_why_it_has_no_fast_path(kw, why):
    with pytest.warns(UserWarning, match=f"^enable_nested_tensor is True, but self.use_nested_tensor is False "
                                         f"because {why}$"):
        enc = _encoder(**kw)
    assert not enc.use_nested_tensor


def test_mismatched_mask_types_warn_and_int_masks_are_refused():
    mha = nn.MultiheadAttention(8, 2)
    x = torch.zeros(4, 2, 8)
    with pytest.warns(UserWarning, match="^Support for mismatched key_padding_mask and attn_mask is deprecated"):
        mha(x, x, x, key_padding_mask=torch.zeros(2, 4), attn_mask=torch.zeros(4, 4, dtype=torch.bool))
    with pytest.raises(AssertionError, match="^only bool and floating types of key_padding_mask are supported$"):
        mha(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.int64))
    with pytest.warns(UserWarning, match="^Support for mismatched src_key_padding_mask and mask is deprecated"):
        _encoder()(x.transpose(0, 1), mask=torch.zeros(4, 4, dtype=torch.bool), src_key_padding_mask=torch.zeros(2, 4))


def test_multihead_attention_rank_checks_in_pytorchs_words():
    mha = nn.MultiheadAttention(8, 2)
    x3, x2 = torch.zeros(3, 2, 8), torch.zeros(3, 8)
    size = r".*Size\(\[{}\]\)"
    cases = [((x2, x3, x3), {}, r"For unbatched \(2-D\) `query`, expected `key` and `value` to be 2-D but found 3-D "
                                r"and 3-D tensors respectively"),
             ((x3, x2, x2), {}, r"For batched \(3-D\) `query`, expected `key` and `value` to be 3-D but found 2-D "
                                r"and 2-D tensors respectively"),
             ((torch.zeros(1, 3, 2, 8),) * 3, {}, r"query should be unbatched 2D or batched 3D tensor but received "
                                                  r"4-D query tensor"),
             ((x3, torch.zeros(4, 2, 8), torch.zeros(5, 2, 8)), {},
              "key shape " + size.format("4, 2, 8") + " does not match value shape " + size.format("5, 2, 8")),
             ((x3, x3, x3), {"key_padding_mask": torch.zeros(2, 1, 3, dtype=torch.bool)},
              r"For batched \(3-D\) `query`, expected `key_padding_mask` to be `None` or 2-D but found 3-D tensor "
              r"instead"),
             ((x2, x2, x2), {"attn_mask": torch.zeros(1, 3, 3)},
              r"Expected `attn_mask` shape to be \(2, 3, 3\) but got " + size.format("1, 3, 3"))]
    for args, kw, msg in cases:
        with pytest.raises(AssertionError, match=f"^{msg}$"):
            mha(*args, **kw)


_NEED_MASK = "Need attn_mask if specifying the is_causal hint"


def _causal_hint_calls(lib, lib_nn):
    """The calls PyTorch checks the `is_causal` hint in, each as (name, module, thunk); shared by both libraries."""
    x = lib.ones(2, 3, 8)
    mha = lib_nn.MultiheadAttention(8, 2, batch_first=True)
    enc_layer = lib_nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    enc = lib_nn.TransformerEncoder(lib_nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                    enable_nested_tensor=False)
    dec_layer = lib_nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)
    tr = lib_nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
    return [("mha", mha, lambda: mha(x, x, x, is_causal=True)[0]),
            ("mha_cross", mha, lambda: mha(x, x + 1, x + 1, is_causal=True)[0]),
            ("encoder_layer", enc_layer, lambda: enc_layer(x, is_causal=True)),
            ("encoder", enc, lambda: enc(x, is_causal=True)),
            ("decoder_tgt", dec_layer, lambda: dec_layer(x, x, tgt_is_causal=True)),
            ("decoder_memory", dec_layer, lambda: dec_layer(x, x, memory_is_causal=True)),
            ("transformer_src", tr, lambda: tr(x, x, src_is_causal=True))]


def _raises_need_mask(thunk):
    try:
        thunk()
    except RuntimeError as e:
        assert str(e).startswith(_NEED_MASK)
        return True
    return False


@pytest.mark.parametrize("train,grad", [(True, True), (True, False), (False, True), (False, False)])
def test_is_causal_without_mask_raises_where_pytorch_does(train, grad):
    """PyTorch raises for the hint without a mask except on its inference fast path (eval, no grad, batch-first
    self-attention), which ignores the hint."""
    with torch.set_grad_enabled(grad):
        got = {name: (mod.train(train), _raises_need_mask(f))[1] for name, mod, f in _causal_hint_calls(torch, nn)}
    fast = not train and not grad
    assert got == {"mha": not fast, "mha_cross": True, "encoder_layer": not fast, "encoder": not fast,
                   "decoder_tgt": not fast, "decoder_memory": True, "transformer_src": not fast}
    torch_ = pytest.importorskip("torch")
    with torch_.set_grad_enabled(grad):
        calls = _causal_hint_calls(torch_, torch_.nn)
        want = {name: (mod.train(train), _raises_need_mask(f))[1] for name, mod, f in calls}
    assert got == want


def test_is_causal_hint_replaces_the_mask_only_without_padding_mask_or_weights():
    """As PyTorch: with `need_weights=False` and no key-padding mask the hint wins over `attn_mask`; otherwise the
    mask is applied; on the fast path the hint without a mask is ignored."""
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=torch.float64)
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    causal = nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    other = torch.zeros(3, 3, dtype=torch.float64)
    other[0, 2] = float("-inf")
    with_causal, with_other = mha(x, x, x, attn_mask=causal)[0], mha(x, x, x, attn_mask=other)[0]
    np.testing.assert_allclose(mha(x, x, x, attn_mask=other, is_causal=True, need_weights=False)[0].detach().numpy(),
                               with_causal.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(mha(x, x, x, attn_mask=other, is_causal=True)[0].detach().numpy(),
                               with_other.detach().numpy(), atol=1e-12)
    kpm = torch.zeros(2, 3, dtype=torch.float64)
    np.testing.assert_allclose(mha(x, x, x, attn_mask=other, is_causal=True, need_weights=False,
                                   key_padding_mask=kpm)[0].detach().numpy(), with_other.detach().numpy(), atol=1e-12)
    mha.eval()
    with torch.no_grad():
        np.testing.assert_allclose(mha(x, x, x, is_causal=True)[0].numpy(), mha(x, x, x)[0].numpy(), atol=1e-12)


def test_bf16_cpu_flash_attention_rounds_the_exponentials_before_the_product_with_v():
    # PyTorch's CPU flash kernel: p = exp(s - max) in float32, rounded to bfloat16 for p @ V, divided by sum(p)
    import ml_dtypes

    bf = np.dtype(ml_dtypes.bfloat16)
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 2, 6, 8)).astype(bf) for _ in range(3))
    mask = rng.random((6, 6)) > 0.4
    mask[2] = False  # a row masked out entirely gives zeros
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2) / np.sqrt(8)
    s = np.where(mask, s, -np.inf)
    m = s.max(-1, keepdims=True)
    p = np.exp(s - np.where(np.isfinite(m), m, 0))
    total = p.sum(-1, keepdims=True)
    want = (p.astype(bf).astype(np.float64) @ v.astype(np.float64)) / np.where(total > 0, total, 1)
    qt, kt, vt = (torch.tensor(a.astype(np.float32)).bfloat16() for a in (q, k, v))
    qt.requires_grad_(True)
    got = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=torch.tensor(mask))
    assert got.dtype == torch.bfloat16 and got.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    diff = np.abs(got.detach().float().numpy() - want.astype(bf).astype(np.float32))
    assert (diff == 0).mean() > 0.95 and diff.max() <= 2 ** -6  # float32 vs float64 sums may flip a rounding
    assert not got.detach().float().numpy()[:, :, 2].any()
    got.float().sum().backward()
    assert qt.grad.dtype == torch.bfloat16 and np.isfinite(qt.grad.float().numpy()).all()


def test_bf16_cpu_flash_attention_takes_pytorchs_fast_exponential_over_full_vectors_of_keys():
    # 16 keys fill one AVX-512 vector: PyTorch's kernel takes fexp_u20 there, whose roundings to bfloat16 differ
    # from the exact exponential's in three of these eight outputs (PyTorch 2.13's numbers, stored)
    rng = np.random.default_rng(15)
    q, k, v = (torch.tensor(rng.standard_normal(sh).astype(np.float32)).bfloat16()
               for sh in [(1, 1, 2, 4), (1, 1, 16, 4), (1, 1, 16, 4)])
    got = F.scaled_dot_product_attention(q, k, v)
    want = [0.3671875, 0.62109375, -0.01806640625, -0.279296875, -0.310546875, 0.0986328125, 0.61328125,
            0.007598876953125]
    assert got.float().flatten().tolist() == want


def test_bf16_multihead_attention_without_weights_is_pytorchs_sdpa_over_strided_projections():
    # batch-first self-attention: the transposed input's projection rounds twice and SDPA's flash kernel attends
    # (PyTorch 2.13's numbers, stored)
    rng = np.random.default_rng(3)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    with torch.no_grad():
        for p in mha.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    mha = mha.bfloat16()
    x = torch.tensor(rng.standard_normal((2, 16, 8)).astype(np.float32)).bfloat16()
    out = mha(x, x, x, need_weights=False)[0]
    assert out.float().sum().item() == 33.208984375
    assert out.float()[0, :2].flatten().tolist() == [
        1.3359375, 2.40625, 0.29296875, -1.4296875, -0.4609375, -1.3828125, -0.87890625, 0.640625, -0.05322265625,
        -2.421875, -0.609375, -0.98046875, 0.578125, -2.765625, 1.7265625, 3.03125]


def test_sdpa_refuses_a_mask_neither_bool_float32_nor_the_querys_dtype_in_pytorchs_words():
    q = torch.ones(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match=r"attn_mask.dtype: long int and  query.dtype: float instead\."):
        F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"attn_mask.dtype: double and  query.dtype: c10::BFloat16 instead\."):
        F.scaled_dot_product_attention(q.bfloat16(), q.bfloat16(), q.bfloat16(), attn_mask=torch.ones(3, 3).double())
    d = q.double()
    assert F.scaled_dot_product_attention(d, d, d, attn_mask=torch.zeros(3, 3)).dtype == torch.float64


@pytest.mark.parametrize("dtypes, message", [
    (("float32", "float64", "float32"), "Expected query, key, and value to have the same dtype, but got query.dtype: "
                                        "float key.dtype: double and value.dtype: float instead."),
    (("float32", "float32", "int64"), "Expected query, key, and value to have the same dtype, but got query.dtype: "
                                      "float key.dtype: float and value.dtype: long int instead."),
])


def test_sdpa_refuses_mixed_dtypes_before_shape_checks(dtypes, message):
    q, k, v = (torch.ones(2, 3, 4, dtype=getattr(torch, d)) for d in dtypes)
    k = k[..., :3]  # a head-size mismatch too: PyTorch's dtype check comes first
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        F.scaled_dot_product_attention(q, k, v)


def test_sdpa_refuses_one_dimensional_inputs():
    message = ("Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: 1 key.dim: 2 and "
               "value.dim: 2 instead.")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        F.scaled_dot_product_attention(torch.ones(4), torch.ones(5, 4), torch.ones(5, 4))


def test_sdpa_refuses_query_key_value_of_different_dtypes_first_in_pytorchs_words():
    q = torch.ones(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match=r"^Expected query, key, and value to have the same dtype, but got "
                       r"query.dtype: float key.dtype: double and value.dtype: float instead\.$"):
        F.scaled_dot_product_attention(q, q[..., :2].double(), q, attn_mask=torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"key.dtype: c10::Half and value.dtype: c10::Half instead"):
        F.scaled_dot_product_attention(q, q.half(), q.half())


def test_causal_mask_is_reused_while_nothing_watches_and_gives_the_same_bits():
    from ember.core.testing import watching
    from ember.nn.functional import _attention

    _attention._CAUSAL.clear()
    q = torch.randn(2, 3, 5, 4, requires_grad=True)
    k, v = torch.randn(2, 3, 7, 4), torch.randn(2, 3, 7, 4)
    seen = []
    outs, grads = [], []
    for watched in (False, False, True):
        with watching(seen) if watched else contextlib.nullcontext():
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            (g,) = torch.autograd.grad(out.pow(2).sum(), q)
        outs.append(out.detach().numpy())
        grads.append(g.numpy())
    assert list(_attention._CAUSAL) == [(5, 7, torch.float32, q.device)]
    mask = _attention._CAUSAL[(5, 7, torch.float32, q.device)]
    assert not mask.requires_grad and mask._version == 0
    np.testing.assert_array_equal(mask.numpy(), np.where(np.tril(np.ones((5, 7), bool)), 0.0, -np.inf))
    assert "tril" in seen  # watched: the mask is made by its ops, as PyTorch's math path
    for o, g in zip(outs[1:], grads[1:]):
        assert np.array_equal(o, outs[0]) and np.array_equal(g, grads[0])
    for n in range(9):  # at most eight sizes kept
        kv = torch.randn(1, 1, 3 + n, 4)
        F.scaled_dot_product_attention(torch.randn(1, 1, 2, 4), kv, kv, is_causal=True)
    assert len(_attention._CAUSAL) <= 8


def test_canonical_mask_and_none_or_dtype_take_pytorchs_private_arguments():
    """Code that copies MultiheadAttention calls `F._canonical_mask(mask=, mask_name=, other_type=, other_name=,
    target_type=)` with `F._none_or_dtype(other)`: bool masks become additive float masks; a mismatch warns."""
    import warnings

    bool_mask = torch.tensor([[True, False]])
    got = F._canonical_mask(mask=bool_mask, mask_name="m", other_type=None, other_name="", target_type=torch.float32)
    assert got.dtype is torch.float32 and got.tolist() == [[float("-inf"), 0.0]]
    assert F._none_or_dtype(torch.zeros(1, dtype=torch.float64)) is torch.float64 and F._none_or_dtype(None) is None
    with pytest.raises(RuntimeError, match=r"^input to _none_or_dtype\(\) must be None or torch.Tensor$"):
        F._none_or_dtype(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F._canonical_mask(bool_mask, "key_padding_mask", torch.float32, "attn_mask", torch.float32)
        F._canonical_mask(bool_mask, "key_padding_mask", torch.float32, "attn_mask", torch.float32, check_other=False)
    assert [str(w.message) for w in caught] == ["Support for mismatched key_padding_mask and attn_mask is deprecated. "
                                                "Use same type for both instead."]
    with pytest.raises(AssertionError, match="only bool and floating types of m are supported"):
        F._canonical_mask(torch.tensor([1]), "m", None, "", torch.float32)


def test_multi_head_attention_forward_asserts_missing_projection_weights_and_heads_in_pytorchs_words():
    t, ow = torch.ones(3, 2, 12), torch.ones(12, 12)
    with pytest.raises(AssertionError, match=r"^embed_dim 12 not divisible by num_heads 5$"):
        F.multi_head_attention_forward(t, t, t, 12, 5, torch.ones(36, 12), None, None, None, False, 0.0, ow, None)
    with pytest.raises(AssertionError, match=r"^use_separate_proj_weight is False but in_proj_weight is None$"):
        F.multi_head_attention_forward(t, t, t, 12, 4, None, None, None, None, False, 0.0, ow, None)
    with pytest.raises(AssertionError, match=r"^use_separate_proj_weight is True but k_proj_weight is None$"):
        F.multi_head_attention_forward(t, t, t, 12, 4, None, None, None, None, False, 0.0, ow, None,
                                       use_separate_proj_weight=True, q_proj_weight=torch.ones(12, 12))


def test_mha_fast_path_checks_its_merged_mask_in_pytorchs_words():
    """Eval-mode, no-grad, batch-first self-attention with bool masks takes PyTorch's fast path, which merges the
    masks (`merge_masks`) and checks the merged one against the scores: its errors, and the masks it accepts, differ
    from the general path's; a float mask keeps the call on the general path (where `is_causal` needs a mask)."""
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(2, 4, 8)
    causal = torch.ones(4, 4, dtype=torch.bool).triu(1)
    pad = torch.tensor([[False, False, True, True], [False, True, False, False]])
    bad = [({"attn_mask": torch.ones(3, 4, 4, dtype=torch.bool)},
            "shape '[2, -1, 4, 4]' is invalid for input of size 48"),
           ({"key_padding_mask": torch.ones(2, 5, dtype=torch.bool)}, "For mask_type == 1 mask shape should be (B, L)"),
           ({"key_padding_mask": torch.ones(1, 4, dtype=torch.bool)}, "For mask_type == 1 mask shape should be (B, L)"),
           ({"key_padding_mask": torch.ones(4, dtype=torch.bool)},
            "For mask_type == 2 mask shape should match input shape"),
           ({"attn_mask": causal, "key_padding_mask": torch.ones(2, 3, dtype=torch.bool)},
            "shape '[2, 1, 1, 4]' is invalid for input of size 6")]
    with torch.no_grad():
        for kwargs, message in bad:
            with pytest.raises(RuntimeError, match=re.escape(message)):
                mha(x, x, x, **kwargs)
        reshaped = mha(x, x, x, attn_mask=causal, key_padding_mask=pad.reshape(4, 2))[0]
        np.testing.assert_array_equal(reshaped.numpy(), mha(x, x, x, attn_mask=causal, key_padding_mask=pad)[0].numpy())
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
            mha(x, x, x, key_padding_mask=torch.zeros(2, 4), is_causal=True)
        assert mha(x, x, x, key_padding_mask=pad, is_causal=True)[0].shape == (2, 4, 8)
    with pytest.raises(AssertionError, match=re.escape("Expected key_padded_mask.shape[0] to be 2, but got 4")):
        mha.train()(x, x, x, attn_mask=causal, key_padding_mask=pad.reshape(4, 2))


def test_private_in_projections_as_pytorchs():
    """`F._in_projection_packed` (one product for self-attention, k and v together for encoder-decoder attention)
    and `F._in_projection` give the chunked projections; the latter asserts weight and bias shapes in PyTorch's
    words; `_mha_shape_check` returns whether the query is batched."""
    rng = np.random.default_rng(0)
    x, y = (torch.tensor(rng.standard_normal(s)) for s in ((3, 2, 4), (5, 2, 4)))
    w, b = torch.tensor(rng.standard_normal((12, 4))), torch.tensor(rng.standard_normal(12))
    wn, bn = w.numpy(), b.numpy()
    for q, kv in ((x, x), (x, y)):
        out = F._in_projection_packed(q, kv, kv, w, b)
        assert isinstance(out, tuple) and all(o.is_contiguous() for o in out)
        for i, (o, inp) in enumerate(zip(out, (q, kv, kv))):
            np.testing.assert_allclose(o.numpy(), inp.numpy() @ wn[4 * i:4 * i + 4].T + bn[4 * i:4 * i + 4],
                                       rtol=1e-12)
    out = F._in_projection_packed(x, y, y.clone(), w)
    np.testing.assert_allclose(out[2].numpy(), y.numpy() @ wn[8:].T, rtol=1e-12)
    wq, wk = torch.tensor(rng.standard_normal((4, 4))), torch.tensor(rng.standard_normal((4, 4)))
    z, wv = torch.tensor(rng.standard_normal((5, 2, 6))), torch.tensor(rng.standard_normal((4, 6)))
    q, k, v = F._in_projection(x, y, z, wq, wk, wv, None, None, torch.ones(4, dtype=torch.float64))
    np.testing.assert_allclose(v.numpy(), z.numpy() @ wv.numpy().T + 1, rtol=1e-12)
    size = r"\w+\.Size"  # torch.Size under ember.torch
    with pytest.raises(AssertionError, match=rf"^expecting value weights shape of \(4, 6\), but got {size}\(.4, 4.\)$"):
        F._in_projection(x, y, z, wq, wk, wk)
    with pytest.raises(AssertionError, match=rf"^expecting query bias shape of \(4,\), but got {size}\(\[3]\)$"):
        F._in_projection(x, y, z, wq, wk, wv, torch.zeros(3))
    assert F._mha_shape_check(x, y, y, None, None, 2) is True
    assert F._mha_shape_check(x[0], y[0], y[0], None, None, 2) is False


def test_multihead_attention_output_projection_records_pytorchs_nodes():
    # PyTorch projects (L * N, E) rows, then views them back: MmBackward0 (no bias) or AddmmBackward0 under a View
    for bias, inner in ((False, "MmBackward0"), (True, "AddmmBackward0")):
        m = nn.MultiheadAttention(8, 2, bias=bias)
        x = torch.randn(5, 3, 8, requires_grad=True)
        out, _ = m(x, x, x)
        assert out.grad_fn.name() == "ViewBackward0" and out.shape == (5, 3, 8)
        assert out.grad_fn.next_functions[0][0].name() == inner
