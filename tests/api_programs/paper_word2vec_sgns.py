"""word2vec skip-gram with negative sampling (Mikolov et al. 2013) as in the paper's reference code: a unigram^0.75
noise table, subsampling of frequent words, sparse embedding gradients with SparseAdam, a CBOW variant built on
EmbeddingBag (mean mode, offsets, per_sample_weights), max_norm embeddings, and nearest neighbours by cosine."""

import collections

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2013)
text = (
    "the king rules the land the queen rules the land a man walks a woman walks the king and the queen "
    "talk the man and the woman talk the land is wide the river is long the king walks by the river"
).split()
counts = collections.Counter(text)
vocab = sorted(counts, key=lambda w: (-counts[w], w))
w2i = {w: i for i, w in enumerate(vocab)}
ids = torch.tensor([w2i[w] for w in text])
V, D = len(vocab), 8
print("vocab", V, vocab[:6], ids[:8].tolist(), ids.dtype)

freq = torch.tensor([counts[w] for w in vocab], dtype=torch.float64)
noise = freq.pow(0.75)
noise /= noise.sum()
print("noise", np.round(noise[:4].numpy(), 4).tolist(), round(noise.sum().item(), 6))
ratio = freq / freq.sum()
keep_prob = ((ratio / 1e-2).sqrt() + 1) * 1e-2 / ratio
print("keep_prob", np.round(keep_prob.clamp(max=1)[:4].numpy(), 4).tolist())

pairs = []
for i in range(len(text)):
    for j in range(max(0, i - 2), min(len(text), i + 3)):
        if j != i:
            pairs.append((ids[i].item(), ids[j].item()))
pairs = torch.tensor(pairs)
print("pairs", pairs.shape, pairs[:3].tolist())
neg_np = rng.choice(V, size=(len(pairs), 4), p=noise.numpy())
negs = torch.from_numpy(neg_np)
print("negatives", negs.shape, negs.dtype, torch.bincount(negs.flatten(), minlength=V)[:5].tolist())


class SGNS(nn.Module):
    def __init__(self, V, D):
        super().__init__()
        self.center = nn.Embedding(V, D, sparse=True)
        self.context = nn.Embedding(V, D, sparse=True)
        with torch.no_grad():
            self.center.weight.copy_(torch.from_numpy(rng.uniform(-0.5 / D, 0.5 / D, (V, D)).astype(np.float32)))
            self.context.weight.zero_()

    def forward(self, c, o, n):
        vc = self.center(c)
        pos = F.logsigmoid((vc * self.context(o)).sum(-1))
        neg = F.logsigmoid(-torch.bmm(self.context(n), vc.unsqueeze(2)).squeeze(2)).sum(-1)
        return -(pos + neg).mean()


model = SGNS(V, D)
opt = torch.optim.SparseAdam(list(model.parameters()), lr=0.05)
print(opt.defaults, model.center)
for epoch in range(4):
    total = 0.0
    for start in range(0, len(pairs), 32):
        c, o = pairs[start : start + 32, 0], pairs[start : start + 32, 1]
        loss = model(c, o, negs[start : start + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(c)
    print("epoch", epoch, round(total / len(pairs), 4))
g = model.center.weight.grad
print("sparse_grad", g.layout, g.is_sparse, g.shape, g._nnz() > 0, g.coalesce().indices().shape[0])
dense = g.to_dense()
print("dense_rows", int((dense.abs().sum(1) > 0).sum()), round(dense.abs().sum().item(), 4))
st = opt.state[model.center.weight]
print("sparse_adam_state", sorted(st), st["step"], st["exp_avg"].layout)

emb = F.normalize(model.center.weight.detach(), dim=1)
sims = emb @ emb.T
for w in ("king", "river"):
    top = sims[w2i[w]].topk(3)
    print("neighbours", w, [vocab[i] for i in top.indices.tolist()], np.round(top.values.double().numpy(), 3).tolist())

# CBOW on EmbeddingBag: mean of the window predicts the centre
bag = nn.EmbeddingBag(V, D, mode="mean")
with torch.no_grad():
    bag.weight.copy_(torch.from_numpy(rng.standard_normal((V, D)).astype(np.float32) * 0.1))
out = nn.Linear(D, V, bias=False)
with torch.no_grad():
    out.weight.copy_(torch.from_numpy(rng.standard_normal((V, D)).astype(np.float32) * 0.1))
windows = [ids[max(0, i - 2) : i].tolist() + ids[i + 1 : i + 3].tolist() for i in range(len(text))]
flat = torch.tensor([t for w in windows for t in w])
offsets = torch.tensor([0] + np.cumsum([len(w) for w in windows])[:-1].tolist())
print("bag_inputs", flat.shape, offsets[:5].tolist(), bag)
opt = torch.optim.Adagrad([*bag.parameters(), *out.parameters()], lr=0.5)
for step in range(4):
    logits = out(bag(flat, offsets))
    loss = F.cross_entropy(logits, ids)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("cbow", step, round(loss.item(), 4), round(bag.weight.grad.abs().sum().item(), 4))
print("adagrad_state", sorted(opt.state[bag.weight]), opt.defaults["initial_accumulator_value"])

# EmbeddingBag modes on a padded 2-D batch with per-sample weights
eb = nn.EmbeddingBag.from_pretrained(torch.arange(12.0).view(6, 2), mode="sum", padding_idx=0)
inp = torch.tensor([[1, 2, 0], [3, 0, 0]])
psw = torch.tensor([[0.5, 2.0, 9.0], [1.0, 9.0, 9.0]])
print("bag_sum", eb(inp).tolist(), eb(inp, per_sample_weights=psw).tolist())
print("bag_max", F.embedding_bag(torch.tensor([1, 2, 4, 5]), eb.weight, torch.tensor([0, 2]), mode="max").tolist())
print(
    "include_last",
    F.embedding_bag(torch.tensor([1, 2, 4]), eb.weight, torch.tensor([0, 1, 3]), include_last_offset=True).tolist(),
)
print("empty_bag", F.embedding_bag(torch.tensor([1, 2]), eb.weight, torch.tensor([0, 2, 2]), mode="mean").tolist())

# max_norm renormalises looked-up rows in place
mn = nn.Embedding(4, 3, max_norm=1.0)
with torch.no_grad():
    mn.weight.copy_(torch.tensor([[3.0, 4.0, 0.0], [0.1, 0.2, 0.2], [1.0, 1.0, 1.0], [0.0, 0.0, 2.0]]))
mn(torch.tensor([0, 2]))
print("max_norm", np.round(mn.weight.detach().double().numpy(), 4).tolist())
pad = nn.Embedding(5, 2, padding_idx=1)
print("padding_row", pad.weight[1].tolist(), pad)
pad(torch.tensor([1, 2, 1])).sum().backward()
print("padding_grad", pad.weight.grad[:3].tolist())

for bad in (
    lambda: model.center(torch.tensor([V])),
    lambda: model.center(torch.tensor([0.5])),
    lambda: F.embedding_bag(
        torch.tensor([1, 2]), eb.weight, torch.tensor([0, 1]), mode="max", per_sample_weights=torch.ones(2)
    ),
    lambda: nn.EmbeddingBag(5, 2, mode="median"),
    lambda: torch.optim.SparseAdam([nn.Parameter(torch.zeros(2))], lr=-1.0),
):
    try:
        bad()
    except (IndexError, RuntimeError, ValueError, NotImplementedError) as e:
        print(type(e).__name__, str(e).split("\n")[0])
dense_model = nn.Embedding(3, 2)
dense_model(torch.tensor([0])).sum().backward()
sa = torch.optim.SparseAdam(dense_model.parameters())
try:
    sa.step()
except RuntimeError as e:
    print("RuntimeError", e)
