"""Pre-Transformer text models written by hand: fastText n-gram hashing through embedding_bag with offsets, a
Kim-style CNN with several kernel widths and masked max-over-time, a highway layer, ELMo's scalar mix, a QRNN with
fo-pooling, an IndRNN, Luong attention (dot, general, concat) with input feeding, and length bucketing."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(9)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def arr(*shape, s=0.5):
    return torch.from_numpy((rng.standard_normal(shape) * s).astype(np.float32))


def fill(m, s=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(arr(*p.shape, s=s))
    return m


sents = [[4, 8, 15, 16, 23], [42, 4, 8], [15, 16, 23, 42, 4, 8, 1], [2]]
lengths = torch.tensor([len(s) for s in sents])
x = nn.utils.rnn.pad_sequence([torch.tensor(s) for s in sents], batch_first=True)
mask = torch.arange(x.shape[1])[None] < lengths[:, None]

# fastText: unigrams plus hashed bigrams in one bag per sentence.
BUCKETS = 50
bags = []
for s in sents:
    t = torch.tensor(s)
    bi = (t[:-1] * 31 + t[1:]) % BUCKETS + 64 if len(s) > 1 else torch.empty(0, dtype=torch.long)
    bags.append(torch.cat([t, bi]))
flat = torch.cat(bags)
offsets = torch.tensor([0] + [len(b) for b in bags[:-1]]).cumsum(0)
table = arr(64 + BUCKETS, 6)
mean_bag = F.embedding_bag(flat, table, offsets, mode="mean")
print("offsets", offsets.tolist(), "bag sizes", [len(b) for b in bags], tuple(mean_bag.shape), r(mean_bag[3]))
last = torch.cat([offsets, torch.tensor([len(flat)])])
same = torch.allclose(F.embedding_bag(flat, table, last, mode="mean", include_last_offset=True), mean_bag)
print("include_last_offset", same, "max", r(F.embedding_bag(flat, table, offsets, mode="max")[1]))
w = torch.linspace(0.1, 1.0, len(flat))
print("weighted sum", r(F.embedding_bag(flat, table, offsets, mode="sum", per_sample_weights=w)[0]))
print("bincount", torch.bincount(flat % 10, minlength=10).tolist())

# Kim CNN with masked max-over-time.
emb = fill(nn.Embedding(64, 6, padding_idx=0))
convs = nn.ModuleList([fill(nn.Conv1d(6, 4, k, padding=k // 2)) for k in (1, 3, 5)])
e = emb(x).transpose(1, 2)
feats = []
for conv in convs:
    c = F.relu(conv(e))[:, :, : x.shape[1]]
    c = c.masked_fill(~mask[:, None, :], float("-inf"))
    feats.append(F.max_pool1d(c, kernel_size=c.size(2)).squeeze(2))
h = torch.cat(feats, 1)
print("cnn", tuple(h.shape), r(h[3], 12))
print("unpadded max", r(F.adaptive_max_pool1d(F.relu(convs[1](e)), 1).squeeze(2)[0], 4))

# Highway layer.
gate, lin = fill(nn.Linear(12, 12)), fill(nn.Linear(12, 12))
with torch.no_grad():
    gate.bias.fill_(-2.0)
t = torch.sigmoid(gate(h))
hw = t * F.relu(lin(h)) + (1 - t) * h
print("highway", r(hw[0]), "carry mean", round(float((1 - t).mean()), 4))

# ELMo scalar mix over three layer representations.
layers = torch.stack([arr(4, 7, 6) for _ in range(3)])
s_w = nn.Parameter(torch.tensor([0.5, -0.2, 0.1]))
gamma = nn.Parameter(torch.tensor(1.5))
mix = gamma * (F.softmax(s_w, 0)[:, None, None, None] * layers).sum(0)
mix.masked_select(mask[..., None]).sum().backward()
print("scalar mix", tuple(mix.shape), r(s_w.grad), r(gamma.grad))

# QRNN with fo-pooling.
qconv = fill(nn.Conv1d(6, 3 * 5, 2))
zfo = qconv(F.pad(e, (1, 0))).transpose(1, 2)
z, f, o = zfo.chunk(3, dim=-1)
z, f, o = torch.tanh(z), torch.sigmoid(f), torch.sigmoid(o)
cst = torch.zeros(4, 5)
hs = []
for step in range(x.shape[1]):
    cst = torch.where(mask[:, step, None], f[:, step] * cst + (1 - f[:, step]) * z[:, step], cst)
    hs.append(o[:, step] * cst)
qh = torch.stack(hs, 1)
print("qrnn", tuple(qh.shape), r(qh[2, -1]), r(cst[3]))

# IndRNN: elementwise recurrent weights, clipped.
u = nn.Parameter(torch.tensor(np.linspace(-1.2, 1.2, 5), dtype=torch.float32))
w_in = fill(nn.Linear(6, 5))
hid = torch.zeros(4, 5)
for step in range(x.shape[1]):
    hid = F.relu(w_in(e[:, :, step]) + u.clamp(-1, 1) * hid)
hid.sum().backward()
print("indrnn", r(hid[0]), "u grad", r(u.grad), "clamped grad zero", u.grad[[0, 4]].tolist())

# Luong attention with input feeding over the QRNN states.
H = 5
Wa = fill(nn.Linear(H, H, bias=False))
Wc = fill(nn.Linear(2 * H, H, bias=False))
Wcat, va = fill(nn.Linear(2 * H, H)), fill(nn.Linear(H, 1, bias=False))
cell = fill(nn.LSTMCell(6 + H, H))
hx, cx, feed = torch.zeros(4, H), torch.zeros(4, H), torch.zeros(4, H)
for kind in ["dot", "general", "concat"]:
    hx, cx = cell(torch.cat([emb(x[:, 0]), feed], 1), (hx, cx))
    if kind == "dot":
        score = torch.bmm(qh, hx.unsqueeze(2)).squeeze(2)
    elif kind == "general":
        score = torch.einsum("bth,bh->bt", qh, Wa(hx))
    else:
        score = va(torch.tanh(Wcat(torch.cat([qh, hx[:, None].expand_as(qh)], -1)))).squeeze(-1)
    align = score.masked_fill(~mask, -1e9).softmax(-1)
    ctx = (align.unsqueeze(-1) * qh).sum(1)
    feed = torch.tanh(Wc(torch.cat([ctx, hx], 1)))
    print("luong", kind, r(align[1], 7), r(feed[0], 3))

# Length bucketing for batching.
all_lens = torch.tensor([3, 17, 9, 33, 5, 12, 25, 8, 40, 1])
bounds = torch.tensor([8, 16, 32])
bucket = torch.bucketize(all_lens, bounds)
print("buckets", bucket.tolist(), torch.bucketize(all_lens, bounds, right=True).tolist())
order = torch.argsort(all_lens * 10 + bucket, stable=True)
print("batches", [b.tolist() for b in torch.split(order, 4)], torch.searchsorted(bounds, torch.tensor([8, 9])).tolist())
groups = {int(k): all_lens[bucket == k].tolist() for k in torch.unique(bucket)}
print("groups", groups)

for label, fn in [
    ("bag offsets not 1-D", lambda: F.embedding_bag(flat, table, offsets[None])),
    ("bag 2-D input with offsets", lambda: F.embedding_bag(x, table, offsets)),
    ("max_pool bigger than input", lambda: F.max_pool1d(torch.zeros(1, 2, 3), 4)),
    ("conv1d too short", lambda: convs[2](torch.zeros(1, 6, 0))),
    ("chunk zero", lambda: zfo.chunk(0, -1)),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as ex:
        print(label, type(ex).__name__, str(ex).splitlines()[0][:100])
