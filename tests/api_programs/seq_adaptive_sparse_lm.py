"""A large-vocabulary word LM as fairseq/AWD-LSTM-era code writes it: AdaptiveLogSoftmaxWithLoss over frequency
clusters, sparse embedding gradients with SparseAdam, pretrained vectors with max_norm renormalisation,
skip-gram negative sampling, label smoothing with padding, unbatched RNN inputs and RNN weight bookkeeping."""

import warnings

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def arr(*shape, s=0.3):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32) * s)


V, D = 20, 8
asm = nn.AdaptiveLogSoftmaxWithLoss(D, V, cutoffs=[4, 10], div_value=2.0)
print(asm)
print("params", [(n, tuple(p.shape)) for n, p in asm.named_parameters()])
with torch.no_grad():
    for p in asm.parameters():
        p.copy_(arr(*p.shape))
hid = arr(6, D, s=1.0)
target = torch.tensor([0, 3, 5, 9, 12, 19])
res = asm(hid, target)
print("output", type(res).__name__, res._fields, r(res.output), round(res.loss.item(), 4))
lp = asm.log_prob(hid)
match = torch.allclose(lp.gather(1, target[:, None]).squeeze(1), res.output, atol=1e-5)
print("log_prob", tuple(lp.shape), r(lp.exp().sum(1)), "match", match)
print("predict", asm.predict(hid).tolist(), lp.argmax(1).tolist())
res.loss.backward()
print("head grad", r(asm.head.weight.grad, 4), "tail0 grads", [tuple(p.grad.shape) for p in asm.tail[0].parameters()])
for label, fn in [
    ("bad target", lambda: asm(hid, torch.tensor([0, 1, 2, 3, 4, 20]))),
    ("bad cutoffs", lambda: nn.AdaptiveLogSoftmaxWithLoss(D, V, cutoffs=[10, 4])),
    ("batch mismatch", lambda: asm(hid, target[:3])),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])

# Sparse embeddings + SparseAdam alongside dense Adam.
emb = nn.Embedding(V, D, sparse=True, padding_idx=0)
with torch.no_grad():
    emb.weight.copy_(arr(V, D))
    emb.weight[0].zero_()
print(emb, emb.sparse)
tokens = torch.tensor([[3, 7, 7, 0], [1, 3, 0, 0]])
out = emb(tokens).sum()
out.backward()
g = emb.weight.grad
print("grad", g.layout, g.is_sparse, tuple(g.shape), g.coalesce().indices().tolist(), r(g.to_dense().sum(1), 8))
opt = torch.optim.SparseAdam(list(emb.parameters()), lr=0.1)
before = emb.weight.detach().clone()
opt.step()
changed = (emb.weight != before).any(1).nonzero().flatten().tolist()
print("rows updated", changed, r(emb.weight[3] - before[3], 4))
try:
    torch.optim.Adam(emb.parameters()).step()
    print("dense adam on sparse ok")
except RuntimeError as e:
    print("dense adam", type(e).__name__, str(e)[:90])

# Pretrained vectors with renormalisation and freezing.
vectors = arr(V, D, s=2.0)
pre = nn.Embedding.from_pretrained(vectors, freeze=True, max_norm=1.5, padding_idx=0)
print(pre, pre.weight.requires_grad)
idx = torch.tensor([2, 5, 5, 9])
e = pre(idx)
print("renormed", r(e.norm(dim=1)), "weight rows renormed in place", r(pre.weight[[2, 5, 9, 10]].norm(dim=1)))
e2 = F.embedding(idx, vectors.clone(), max_norm=1.0, norm_type=1.0)
print("l1 max_norm", r(e2.abs().sum(1)))

# Skip-gram with fixed negatives.
center = nn.Embedding(V, D)
context = nn.Embedding(V, D)
with torch.no_grad():
    center.weight.copy_(arr(V, D))
    context.weight.copy_(arr(V, D))
c = torch.tensor([3, 7, 11])
pos = torch.tensor([4, 8, 12])
neg = torch.from_numpy(rng.integers(1, V, size=(3, 5)))
vc = center(c)
pos_score = F.logsigmoid((vc * context(pos)).sum(-1))
neg_score = F.logsigmoid(-torch.bmm(context(neg), vc.unsqueeze(2)).squeeze(2)).sum(-1)
sg = -(pos_score + neg_score).mean()
sg.backward()
print("sgns", round(sg.item(), 4), r(center.weight.grad[3], 4), int((center.weight.grad.abs().sum(1) > 0).sum()))

# Label smoothing with padding and class weights.
logits = arr(2, 5, V, s=1.0)
tgt = torch.tensor([[3, 4, 5, 0, 0], [6, 7, 0, 0, 0]])
for kw in [dict(), dict(label_smoothing=0.1), dict(label_smoothing=0.1, reduction="sum"),
           dict(label_smoothing=0.2, weight=torch.linspace(0.5, 1.5, V))]:
    ls = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=0, **kw)
    print("ls", sorted(kw), round(ls.item(), 4))
crit = nn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.1, reduction="none")
print(crit, r(crit(logits.reshape(-1, V), tgt.reshape(-1)), 10))

# Unbatched RNN inputs and weight bookkeeping.
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    lstm = nn.LSTM(D, 4, num_layers=1, dropout=0.3, bidirectional=True)
print("warning", [str(x.message)[:80] for x in w])
with torch.no_grad():
    for p in lstm.parameters():
        p.copy_(arr(*p.shape))
seq = arr(5, D, s=1.0)
o, (h, cc) = lstm(seq)
print("unbatched", tuple(o.shape), tuple(h.shape), tuple(cc.shape), r(h))
o_b, (h_b, _) = lstm(seq.unsqueeze(1))
print("same as batch of one", torch.allclose(o_b.squeeze(1), o, atol=1e-6))
print("same h", torch.allclose(h_b.squeeze(1), h, atol=1e-6))
print("all_weights", [[tuple(p.shape) for p in layer] for layer in lstm.all_weights])
print("flat names", lstm._flat_weights_names)
lstm.flatten_parameters()
try:
    lstm(seq, (torch.zeros(2, 1, 4), torch.zeros(2, 1, 4)))
except RuntimeError as ex:
    print("unbatched h0 3-D", type(ex).__name__, str(ex)[:100])
cell = nn.RNNCell(D, 3, nonlinearity="relu")
with torch.no_grad():
    for p in cell.parameters():
        p.copy_(arr(*p.shape))
print(cell, "unbatched cell", r(cell(seq[0])), tuple(cell(seq[0]).shape))
