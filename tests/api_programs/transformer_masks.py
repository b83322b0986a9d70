"""A small Transformer with masks and MultiheadAttention."""

import math
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.2)


class PosEnc(nn.Module):
    def __init__(self, d, n=50):
        super().__init__()
        pe = torch.zeros(n, d)
        pos = torch.arange(0, n, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class Model(nn.Module):
    def __init__(self, V=12, d=16):
        super().__init__()
        self.emb = nn.Embedding(V, d)
        self.pos = PosEnc(d)
        layer = nn.TransformerEncoderLayer(
            d_model=d, nhead=4, dim_feedforward=32, dropout=0.1, batch_first=True, norm_first=True, activation="gelu"
        )
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d, V)

    def forward(self, x, pad):
        mask = nn.Transformer.generate_square_subsequent_mask(x.size(1))
        h = self.enc(self.pos(self.emb(x)), mask=mask, src_key_padding_mask=pad, is_causal=True)
        return self.head(h)


m = Model()
det(m)
print("state_keys", len(m.state_dict()), "pos.pe" in m.state_dict())
x = torch.from_numpy(rng.integers(1, 12, (3, 7)))
pad = torch.zeros(3, 7, dtype=torch.bool)
pad[1, 5:] = True
m.eval()
with torch.no_grad():
    y = m(x, pad)
print("eval", y.shape, r(y[0, 0]))
print("mask", nn.Transformer.generate_square_subsequent_mask(3).tolist())
m.train()
opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
for i in range(10):
    y = m(x, pad)
    loss = F.cross_entropy(y[:, :-1].reshape(-1, 12), x[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if i == 0:
        l0 = loss.item()
print("trains", loss.item() < l0)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
det(mha)
q = T(2, 4, 8)
k = T(2, 5, 8)
o, w = mha(q, k, k)
print("mha", o.shape, w.shape, r(o), r(w))
o, w = mha(q, k, k, average_attn_weights=False, key_padding_mask=torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))
print("mha2", w.shape, r(w[1, 0, 0]))
o, w = mha(q, q, q, need_weights=False, attn_mask=torch.triu(torch.ones(4, 4, dtype=torch.bool), 1))
print("mha3", w, r(o))
mha2 = nn.MultiheadAttention(8, 2, kdim=6, vdim=3)
det(mha2)
o, w = mha2(T(4, 2, 8), T(5, 2, 6), T(5, 2, 3))
print("mha_kv", o.shape, w.shape)
qq, kk, vv = T(2, 2, 4, 8), T(2, 2, 5, 8), T(2, 2, 5, 8)
print("sdpa", r(F.scaled_dot_product_attention(qq, kk, vv)))
print("sdpa_causal", r(F.scaled_dot_product_attention(qq, kk[:, :, :4], vv[:, :, :4], is_causal=True)))
print("sdpa_mask", r(F.scaled_dot_product_attention(qq, kk, vv, attn_mask=torch.zeros(4, 5), scale=0.5)))
tr = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
det(tr)
print("transformer", r(tr(T(5, 2, 8), T(3, 2, 8), tgt_mask=tr.generate_square_subsequent_mask(3))))
dl = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
det(dl)
print("declayer", r(nn.TransformerDecoder(dl, 1)(T(2, 3, 8), T(2, 4, 8), tgt_is_causal=False)))
print("OK")
