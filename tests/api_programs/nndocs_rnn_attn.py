"""torch.nn recurrent, attention and linear layers as their docstrings run them: RNN/LSTM/GRU (num_layers,
bidirectional, batch_first, proj_size, nonlinearity, packed input, unbatched input), the cells, MultiheadAttention
(kdim/vdim, masks, need_weights, average_attn_weights, batch_first), scaled_dot_product_attention, Transformer
layer reprs and shapes, Linear/Bilinear/LazyLinear/Identity, CosineSimilarity/PairwiseDistance, and misuse errors."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(13)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


def det(m, scale=0.3):
    with torch.no_grad():
        for i, (_, p) in enumerate(sorted(m.named_parameters())):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i).reshape(p.shape) * scale)
    return m


x = T(5, 3, 4)  # (L, N, H_in)
for m in [nn.RNN(4, 6, 2), nn.RNN(4, 6, nonlinearity="relu", bias=False), nn.LSTM(4, 6, 2, dropout=0.0),
          nn.LSTM(4, 6, bidirectional=True), nn.LSTM(4, 6, 2, proj_size=3), nn.GRU(4, 6, 2, bidirectional=True)]:
    det(m)
    out, h = m(x)
    hs = h if isinstance(h, tuple) else (h,)
    print(m, tuple(out.shape), [tuple(t.shape) for t in hs], r(out), r(hs[0]))
    print("  params", [(n, tuple(p.shape)) for n, p in m.named_parameters()][:5])
bf = det(nn.GRU(4, 6, batch_first=True))
o_bf, h_bf = bf(x.transpose(0, 1))
print(bf, tuple(o_bf.shape), tuple(h_bf.shape), r(o_bf[1, 2]))
lstm = det(nn.LSTM(4, 6))
h0, c0 = T(1, 3, 6) * 0.1, T(1, 3, 6) * 0.1
out, (hn, cn) = lstm(x, (h0, c0))
print("lstm with state", r(hn), r(cn), torch.allclose(out[-1], hn[0]))
ub, (uh, uc) = lstm(x[:, 0])
print("unbatched", tuple(ub.shape), tuple(uh.shape), torch.allclose(ub, out[:, 0]) is False)
packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 3, 2]))
pout, (ph, pc) = lstm(packed)
unpacked, lens = nn.utils.rnn.pad_packed_sequence(pout)
print("packed", type(pout).__name__, tuple(unpacked.shape), lens.tolist(), r(ph[0, 2]), r(unpacked[2, 2]))
for cell in [nn.RNNCell(4, 6, nonlinearity="relu"), nn.LSTMCell(4, 6), nn.GRUCell(4, 6, bias=False)]:
    det(cell)
    y = cell(x[0])
    ys = y if isinstance(y, tuple) else (y,)
    print(cell, [tuple(t.shape) for t in ys], r(ys[0]), type(cell(x[0, 0])).__name__)
err(lambda: lstm(x, (h0, c0[:, :2])))
err(lambda: lstm(T(5, 3, 5)))
err(lambda: nn.GRU(4, 6, proj_size=2))
err(lambda: nn.LSTM(4, 6, proj_size=6))
err(lambda: nn.RNN(4, 6, nonlinearity="gelu"))
err(lambda: nn.GRU(4, 6)(x, T(2, 3, 6)))

# attention
mha = det(nn.MultiheadAttention(8, 2), 0.2)
q, k, v = T(4, 2, 8), T(6, 2, 8), T(6, 2, 8)
ao, aw = mha(q, k, v)
print(mha, tuple(ao.shape), tuple(aw.shape), r(ao), r(aw.sum(-1)))
ao2, aw2 = mha(q, k, v, average_attn_weights=False)
print("per head", tuple(aw2.shape), torch.allclose(aw2.mean(1), aw, atol=1e-6))
kpm = torch.tensor([[False] * 5 + [True], [False] * 3 + [True] * 3])
am = torch.triu(torch.ones(4, 6, dtype=torch.bool), diagonal=3)
ao3, aw3 = mha(q, k, v, key_padding_mask=kpm, attn_mask=am)
print("masked", r(ao3), r(aw3[1, 0], 6), r(aw3[0, 0], 6))
print("need_weights=False", mha(q, k, v, need_weights=False)[1])
kv = det(nn.MultiheadAttention(8, 4, kdim=5, vdim=3, batch_first=True, bias=False), 0.2)
out_kv, w_kv = kv(q.transpose(0, 1), T(2, 6, 5), T(2, 6, 3))
print(kv, kv.batch_first, kv._qkv_same_embed_dim, tuple(out_kv.shape), tuple(w_kv.shape), r(out_kv))
print("mha params", sorted(n for n, _ in kv.named_parameters()), kv.in_proj_weight)
Q, K, V = T(2, 3, 4, 8), T(2, 3, 6, 8), T(2, 3, 6, 8)
sd = F.scaled_dot_product_attention(Q, K, V)
ref = torch.softmax(Q @ K.transpose(-2, -1) / 8 ** 0.5, -1) @ V
print("sdpa", tuple(sd.shape), torch.allclose(sd, ref, atol=1e-5), r(sd))
print("sdpa causal", r(F.scaled_dot_product_attention(Q, K[:, :, :4], V[:, :, :4], is_causal=True)[0, 0, 0]))
print("sdpa scale/mask", r(F.scaled_dot_product_attention(Q, K, V, attn_mask=am, scale=0.5)),
      r(F.scaled_dot_product_attention(Q, K, V, attn_mask=torch.zeros(4, 6) - 1.0)))
print("sdpa gqa", tuple(F.scaled_dot_product_attention(T(1, 4, 3, 8), T(1, 2, 5, 8), T(1, 2, 5, 8),
                                                        enable_gqa=True).shape))
err(lambda: mha(q, k[:, :1], v))
err(lambda: nn.MultiheadAttention(8, 3))
err(lambda: mha(q, k, v, attn_mask=torch.ones(3, 6, dtype=torch.bool)))
err(lambda: F.scaled_dot_product_attention(Q, K, V, attn_mask=am, is_causal=True))

# transformer layer reprs and shapes
enc = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
print(enc)
print("enc", tuple(nn.TransformerEncoder(enc, num_layers=2, enable_nested_tensor=False)(T(2, 5, 8)).shape))
dec = nn.TransformerDecoderLayer(8, 2, 16, 0.0, activation="gelu", norm_first=True)
print(dec.norm_first, dec.activation.__name__, tuple(dec(T(4, 2, 8), T(5, 2, 8)).shape))
tf = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
print(type(tf.encoder).__name__, len(tf.decoder.layers), tuple(tf(T(5, 2, 8), T(3, 2, 8)).shape))
print("causal mask", nn.Transformer.generate_square_subsequent_mask(3).tolist())
err(lambda: nn.TransformerEncoderLayer(8, 3))
err(lambda: nn.TransformerEncoderLayer(8, 2, activation="swish"))

# linear family
lin = det(nn.Linear(4, 3))
print(lin, r(lin(x[0])), tuple(lin(T(2, 5, 4)).shape), tuple(nn.Linear(4, 3, bias=False).weight.shape))
bil = det(nn.Bilinear(4, 5, 2))
print(bil, tuple(bil.weight.shape), r(bil(T(3, 4), T(3, 5))))
lazy = nn.LazyLinear(3)
print(lazy, lazy.weight.__class__.__name__)
lazy(T(2, 7))
print(lazy, type(lazy).__name__, tuple(lazy.weight.shape))
print(nn.Identity(54, unused="argument"), r(nn.Identity()(x[0, 0])))
print(nn.CosineSimilarity(dim=1, eps=1e-6), r(nn.CosineSimilarity()(T(3, 4), T(3, 4))),
      nn.PairwiseDistance(p=1.0, keepdim=True), r(nn.PairwiseDistance(p=1.0, keepdim=True)(T(3, 4), T(3, 4))))
err(lambda: lin(T(2, 5)))
err(lambda: bil(T(3, 4), T(2, 5)))
err(lambda: bil(T(3, 4), T(3, 4)))
err(lambda: nn.RNN(4, 6, proj_size=0))
err(lambda: nn.LSTMCell(4, 6)(T(3, 5)))
err(lambda: nn.GRUCell(4, 6)(T(3, 4), T(2, 6)))
