"""nn.Transformer's stack in depth: encoder/decoder layers with norm_first, gelu (string and callable), both
batch_first layouts, padding masks for source and memory, float and bool masks, the eval fast path that returns
zeros at padded positions (nested tensors), final norms, MultiheadAttention's bias_kv/zero_attn/kdim/vdim and
per-head weights, a greedy decoding loop, and the errors of bad masks."""

import warnings
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.3):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(T(*p.shape) * scale if p.dim() > 1 else T(*p.shape) * 0.05)
    return m


d, h = 8, 2
src = T(3, 5, d)
pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
for norm_first in (False, True):
    for act in ("relu", "gelu", F.silu):
        layer = det(nn.TransformerEncoderLayer(d, h, 16, dropout=0.0, activation=act, batch_first=True,
                                               norm_first=norm_first))
        out = layer(src, src_key_padding_mask=pad)
        name = act if isinstance(act, str) else act.__name__
        print("enc_layer", norm_first, name, out.shape, r(out[1, 0]), r(out[1, 4], 3))
print("layer_act", nn.TransformerEncoderLayer(d, h, 16, activation="gelu").activation is F.gelu, layer.norm_first)
print("layer_children", [n for n, _ in layer.named_children()])

# encoder stack with a final norm; seq-first vs batch-first agree
enc_layer = det(nn.TransformerEncoderLayer(d, h, 16, dropout=0.1, batch_first=True))
enc = nn.TransformerEncoder(enc_layer, num_layers=2, norm=nn.LayerNorm(d), enable_nested_tensor=False)
enc_sf = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, h, 16, dropout=0.1), num_layers=2, norm=nn.LayerNorm(d),
                               enable_nested_tensor=False)
enc_sf.load_state_dict(enc.state_dict())
enc.eval()
enc_sf.eval()
a = enc(src, src_key_padding_mask=pad)
b = enc_sf(src.transpose(0, 1), src_key_padding_mask=pad).transpose(0, 1)
print("layouts_agree", torch.allclose(a, b, atol=1e-5), r(a[2, 1]))
print("enc_keys", list(enc.state_dict().keys())[:4], len(enc.state_dict()))
print("layers_are_copies", enc.layers[0] is not enc.layers[1], torch.equal(enc.layers[0].linear1.weight,
      enc.layers[1].linear1.weight))
# the nested-tensor fast path (eval, no grad, batch_first, padding mask) zeroes padded positions
fast = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, h, 16, dropout=0.0, batch_first=True), 2,
                             enable_nested_tensor=True)
fast.load_state_dict({k: v for k, v in enc.state_dict().items() if not k.startswith("norm")})
fast.eval()
with torch.no_grad():
    out_fast = fast(src, src_key_padding_mask=pad)
print("fast_pad_rows", r(out_fast[1, 3:].abs().sum(-1)), r(out_fast[2, 4].abs().sum()))
with torch.no_grad():
    out_slow = fast.train()(src, src_key_padding_mask=pad)
print("fast_vs_slow", torch.allclose(out_fast[0], out_slow[0], atol=1e-5), torch.allclose(out_fast[1, :3],
      out_slow[1, :3], atol=1e-5))
fast.eval()
torch.backends.mha.set_fastpath_enabled(False)
with torch.no_grad():
    print("fastpath_off", torch.backends.mha.get_fastpath_enabled(), r(fast(src, src_key_padding_mask=pad)[1, 3], 3))
torch.backends.mha.set_fastpath_enabled(True)
with torch.no_grad():
    not_left = fast(src, src_key_padding_mask=pad.flip(1))
    print("not_left_aligned", r(not_left[1, 0], 3), fast.use_nested_tensor, enc.use_nested_tensor)

# causal + padding masks; float additive mask equals the bool one
L = 5
causal_bool = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
causal_float = nn.Transformer.generate_square_subsequent_mask(L)
print("gen_mask", causal_float.dtype, causal_float[0].tolist(), causal_float.shape)
pad_float = torch.zeros(3, L).masked_fill(pad, float("-inf"))
with torch.no_grad():
    o1 = enc(src, mask=causal_bool, src_key_padding_mask=pad)
    o2 = enc(src, mask=causal_float, src_key_padding_mask=pad_float)
    o3 = enc(src, mask=causal_float, is_causal=True, src_key_padding_mask=pad_float)
print("float_vs_bool", torch.allclose(o1, o2, atol=1e-5), torch.allclose(o2, o3, atol=1e-5), r(o1[0, 0]))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    enc(src, mask=causal_bool, src_key_padding_mask=pad_float)
print("mixed_mask_warn", len(w) > 0, any("mismatched" in str(x.message) for x in w))

# full nn.Transformer, seq-first, with memory padding
tr = det(nn.Transformer(d_model=d, nhead=h, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                        dropout=0.0, activation="gelu", norm_first=True))
tgt = T(4, 3, d)
out = tr(src.transpose(0, 1), tgt, tgt_mask=tr.generate_square_subsequent_mask(4), src_key_padding_mask=pad,
         memory_key_padding_mask=pad, tgt_is_causal=True)
print("transformer", out.shape, r(out[-1, 1]))
print("tr_parts", type(tr.encoder).__name__, type(tr.decoder).__name__, type(tr.encoder.norm).__name__,
      tr.d_model, tr.nhead, tr.batch_first)
memory = tr.encoder(src.transpose(0, 1), src_key_padding_mask=pad)
dec_out = tr.decoder(tgt, memory, tgt_mask=tr.generate_square_subsequent_mask(4), memory_key_padding_mask=pad)
print("enc_dec_split", torch.allclose(dec_out, out, atol=1e-5))
# causality of the decoder: the first step does not see later targets
tgt2 = tgt.clone()
tgt2[2:] = T(2, 3, d)
out2 = tr(src.transpose(0, 1), tgt2, tgt_mask=tr.generate_square_subsequent_mask(4), src_key_padding_mask=pad,
          memory_key_padding_mask=pad)
print("dec_causal", torch.allclose(out[:2], out2[:2], atol=1e-5), bool((out[2:] - out2[2:]).abs().max() > 1e-3))

# greedy decoding with a tiny vocabulary
emb = det(nn.Embedding(6, d))
proj = det(nn.Linear(d, 6))
tr.eval()
ys = torch.zeros(1, 3, dtype=torch.long)
with torch.no_grad():
    mem = tr.encoder(src.transpose(0, 1), src_key_padding_mask=pad)
    for _ in range(4):
        o = tr.decoder(emb(ys), mem, tgt_mask=tr.generate_square_subsequent_mask(ys.size(0)),
                       memory_key_padding_mask=pad)
        nxt = proj(o[-1]).argmax(-1)
        ys = torch.cat([ys, nxt[None]], 0)
print("greedy", ys.T.tolist())

# MultiheadAttention variants
mha = det(nn.MultiheadAttention(d, h, add_bias_kv=True, add_zero_attn=True, batch_first=True))
q = T(2, 3, d)
kv = T(2, 4, d)
o, w = mha(q, kv, kv, key_padding_mask=torch.tensor([[False] * 4, [False, False, True, True]]))
print("mha_bias_kv", o.shape, w.shape, r(w[1, 0]), sorted(n for n, _ in mha.named_parameters()))
o, w = mha(q, kv, kv, average_attn_weights=False)
print("mha_heads", w.shape, r(w.sum(-1)[0, 0]))
mha_kv = det(nn.MultiheadAttention(d, h, kdim=5, vdim=3, bias=False))
o, w = mha_kv(T(3, 2, d), T(4, 2, 5), T(4, 2, 3))
print("mha_kdim", o.shape, w.shape, sorted(k for k in mha_kv.state_dict()), mha_kv._qkv_same_embed_dim)
mha_p = det(nn.MultiheadAttention(d, h))
x3 = T(4, 2, d)
o, w = mha_p(x3, x3, x3, attn_mask=causal_bool[:4, :4], need_weights=True)
print("mha_causal_w", r(w[0, 0]), r(w[0, -1]))
o_nw, w_nw = mha_p(x3, x3, x3, attn_mask=causal_bool[:4, :4], need_weights=False)
print("mha_need_weights", w_nw, torch.allclose(o, o_nw, atol=1e-6))
o3d, _ = mha_p(x3, x3, x3, attn_mask=causal_float[:4, :4].expand(2 * h, 4, 4))
print("mha_3d_mask", torch.allclose(o3d, o, atol=1e-6))
print("mha_unbatched", mha_p(x3[:, 0], x3[:, 0], x3[:, 0])[0].shape, mha_p(x3[:, 0], x3[:, 0], x3[:, 0])[1].shape)
print("mha_repr", mha_p, mha_p.out_proj)
for bad in (
    lambda: mha_p(x3, x3, x3, attn_mask=torch.zeros(3, 3)),
    lambda: mha_p(x3, x3, x3, attn_mask=torch.zeros(5, 4, 4)),
    lambda: mha_p(x3, x3, x3, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool)),
    lambda: mha_p(x3[None], x3[None], x3[None]),
    lambda: mha_p(x3, x3[:3], x3),
    lambda: mha_p(x3[:, 0], x3, x3),
    lambda: nn.MultiheadAttention(7, 2),
    lambda: nn.TransformerEncoderLayer(d, h, activation="tanh"),
):
    try:
        bad()
    except (RuntimeError, AssertionError) as e:
        print("mask_err", type(e).__name__, str(e))
print("OK")
