"""DIN-style target attention over padded behaviour sequences: masks, padding_idx, Dice, DIEN's GRU, AutoInt's MHA."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class Dice(nn.Module):
    def __init__(self, d, eps=1e-8):
        super().__init__()
        self.bn = nn.BatchNorm1d(d, eps=eps, affine=False)
        self.alpha = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        p = torch.sigmoid(self.bn(x))
        return p * x + (1 - p) * self.alpha * x


class AttentionUnit(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(4 * d, 8)
        self.act = nn.PReLU()
        self.fc2 = nn.Linear(8, 1)

    def forward(self, query, keys, mask):
        q = query.unsqueeze(1).expand_as(keys)
        din = torch.cat([q, keys, q - keys, q * keys], dim=-1)
        score = self.fc2(self.act(self.fc1(din))).squeeze(-1)
        score = score.masked_fill(~mask, float("-inf"))
        return score


n_items, d = 12, 4
item_emb = nn.Embedding(n_items, d, padding_idx=0)
print(item_emb, item_emb.weight[0].tolist())
hist = [[3, 5, 7], [2], [4, 4, 9, 11, 1], []]
L = max(len(h) for h in hist)
seq = torch.zeros(len(hist), L, dtype=torch.long)
for i, h in enumerate(hist):
    seq[i, : len(h)] = torch.tensor(h, dtype=torch.long)
lengths = torch.tensor([len(h) for h in hist])
mask = torch.arange(L).unsqueeze(0) < lengths.unsqueeze(1)
print("seq", seq.tolist())
print("mask", mask.int().tolist(), "via ne", torch.equal(mask, seq.ne(0)))
target = torch.tensor([5, 2, 4, 6])

att = AttentionUnit(d)
keys = item_emb(seq)
query = item_emb(target)
score = att(query, keys, mask)
w = torch.softmax(score, dim=-1)
print("softmax with an all-masked row has nan", torch.isnan(w[3]).all().item())
w = torch.nan_to_num(w, nan=0.0)
user_interest = torch.bmm(w.unsqueeze(1), keys).squeeze(1)
print("weights", w.round(decimals=4).tolist())
# DIN's original: no softmax, raw sigmoid weights masked to zero
raw = torch.where(mask, torch.sigmoid(score.masked_fill(~mask, 0.0)), torch.zeros(()))
print("raw weights sum", raw.sum(1).round(decimals=4).tolist())
pooled_mean = (keys * mask.unsqueeze(-1)).sum(1) / lengths.clamp(min=1).unsqueeze(1)
print("mean pool", pooled_mean.round(decimals=4).tolist()[3], pooled_mean.shape)

dice = Dice(2 * d)
feat = torch.cat([user_interest, query], dim=-1)
h = dice(feat)
print("dice", h.shape, round(h.sum().item(), 4))
print("prelu", att.act, att.act.weight.shape)
logit = nn.Linear(2 * d, 1)(h).squeeze(-1)
loss = F.binary_cross_entropy_with_logits(logit, torch.tensor([1.0, 0.0, 1.0, 0.0]))
loss.backward()
print("loss", round(loss.item(), 4))
print(
    "padding row grad",
    item_emb.weight.grad[0].tolist(),
    "row 4 grad nonzero",
    bool(item_emb.weight.grad[4].abs().sum() > 0),
)

# DIEN interest extractor over packed sequences (empty history dropped)
gru = nn.GRU(d, 5, batch_first=True)
keep = lengths > 0
packed = nn.utils.rnn.pack_padded_sequence(keys[keep], lengths[keep], batch_first=True, enforce_sorted=False)
out, h_n = gru(packed)
padded, out_len = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=L)
print("gru out", padded.shape, out_len.tolist(), "h_n", h_n.shape)
last = padded[torch.arange(padded.shape[0]), out_len - 1]
print("last step == h_n", torch.allclose(last, h_n[0], atol=1e-6))

# AutoInt: self-attention over field embeddings with a key padding mask
mha = nn.MultiheadAttention(d, num_heads=2, batch_first=True)
fields = keys[:3]
kpm = ~mask[:3]
o, attw = mha(fields, fields, fields, key_padding_mask=kpm)
print("mha", o.shape, attw.shape, attw.sum(-1).round(decimals=4).tolist())
print("masked cols zero", attw[1][:, 1:].abs().sum().item())
o2, attw2 = mha(fields, fields, fields, key_padding_mask=kpm, average_attn_weights=False)
print("per-head", attw2.shape, torch.allclose(attw2.mean(1), attw, atol=1e-6))
res = F.relu(o + nn.Linear(d, d, bias=False)(fields))
print("residual", round(res.sum().item(), 4))
try:
    mha(fields, fields, fields, key_padding_mask=kpm[:, :2])
except Exception as e:
    print(type(e).__name__, e)
try:
    item_emb(torch.tensor([12]))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.utils.rnn.pack_padded_sequence(keys, lengths, batch_first=True, enforce_sorted=False)
except Exception as e:
    print(type(e).__name__, e)
