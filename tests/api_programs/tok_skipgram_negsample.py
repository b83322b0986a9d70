"""word2vec skip-gram with negative sampling as its PyTorch ports write it: a unigram^0.75 noise table drawn
with seeded torch.multinomial (with and without replacement), frequent-word subsampling with torch.rand,
dynamic windows with torch.randint, two sparse embedding tables trained with SGD and SparseAdam, and nearest
neighbours by cosine similarity with topk."""

from collections import Counter

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(7)
torch.set_printoptions(precision=4)

text = (
    "king queen prince princess royal palace crown throne "
    "apple banana cherry fruit sweet juice orchard tree "
    "king crown throne royal queen palace prince "
    "fruit apple tree orchard banana juice cherry sweet "
    "royal king queen crown palace fruit apple sweet juice"
).split() * 3

counts = Counter(text)
itos = sorted(counts, key=lambda w: (-counts[w], w))
stoi = {w: i for i, w in enumerate(itos)}
ids = torch.tensor([stoi[w] for w in text])
V = len(itos)
freq = torch.tensor([counts[w] for w in itos], dtype=torch.float)
print("V", V, "tokens", ids.numel())
print("top counts", freq[:5].tolist())

# Mikolov's subsampling: keep with prob sqrt(t/f) + t/f
f = freq / freq.sum()
t = 1e-2
keep_p = ((t / f).sqrt() + t / f).clamp(max=1.0)
print("keep_p", keep_p[:6])
keep = torch.rand(ids.numel()) < keep_p[ids]
sub = ids[keep]
print("kept", sub.numel(), "of", ids.numel())

# noise distribution
noise = freq.pow(0.75)
noise = noise / noise.sum()
print("noise", noise[:6])
draw = torch.multinomial(noise, 12, replacement=True)
print("with replacement", draw.tolist())
draw2 = torch.multinomial(noise, 8, replacement=False)
print("without replacement", draw2.tolist())
print("batched draws", torch.multinomial(noise.expand(3, V), 4, replacement=True).tolist())


def skipgram_pairs(seq, max_window):
    centres, contexts = [], []
    spans = torch.randint(1, max_window + 1, (len(seq),))
    for i in range(len(seq)):
        w = int(spans[i])
        for j in range(max(0, i - w), min(len(seq), i + w + 1)):
            if j != i:
                centres.append(int(seq[i]))
                contexts.append(int(seq[j]))
    return torch.tensor(centres), torch.tensor(contexts)


c, o = skipgram_pairs(sub, 3)
print("pairs", c.numel(), "first", list(zip(c[:5].tolist(), o[:5].tolist())))


class SGNS(nn.Module):
    def __init__(self, V, D):
        super().__init__()
        self.inp = nn.Embedding(V, D, sparse=True)
        self.out = nn.Embedding(V, D, sparse=True)
        nn.init.uniform_(self.inp.weight, -0.5 / D, 0.5 / D)
        nn.init.zeros_(self.out.weight)

    def forward(self, centre, ctx, neg):
        v = self.inp(centre)
        u = self.out(ctx)
        un = self.out(neg)
        pos = F.logsigmoid((v * u).sum(-1))
        negs = F.logsigmoid(-torch.bmm(un, v.unsqueeze(-1)).squeeze(-1)).sum(-1)
        return -(pos + negs).mean()


def train(opt_cls, lr, epochs=4, K=5, B=64):
    torch.manual_seed(11)
    model = SGNS(V, 8)
    opt = opt_cls(model.parameters(), lr=lr)
    for ep in range(epochs):
        perm = torch.randperm(c.numel())
        total = 0.0
        for s in range(0, c.numel(), B):
            idx = perm[s : s + B]
            neg = torch.multinomial(noise, idx.numel() * K, replacement=True).view(-1, K)
            loss = model(c[idx], o[idx], neg)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * idx.numel()
        print(opt_cls.__name__, ep, round(total / c.numel(), 4))
    return model


m_sgd = train(torch.optim.SGD, 1.0)
g = m_sgd.inp.weight.grad
print("grad", g.layout, g.shape, g._nnz() > 0)
m_adam = train(torch.optim.SparseAdam, 0.05)

emb = F.normalize(m_adam.inp.weight.detach(), dim=1)
sims = emb @ emb.T
sims.fill_diagonal_(-2)
for w in ("king", "apple", "crown"):
    vals, nn_ids = sims[stoi[w]].topk(3)
    print(w, [itos[i] for i in nn_ids.tolist()], [round(v, 4) for v in vals.tolist()])
royal = torch.tensor([stoi[w] for w in ("king", "queen", "prince", "princess", "royal", "palace", "crown", "throne")])
fruit = torch.tensor([stoi[w] for w in ("apple", "banana", "cherry", "fruit", "sweet", "juice", "orchard", "tree")])
within = (sims[royal][:, royal].clamp(min=-1).sum() + 8 * 2) / 56
across = sims[royal][:, fruit].mean()
print("within", round(within.item(), 4), "across", round(across.item(), 4))
print("cosine_similarity", round(F.cosine_similarity(emb[stoi["king"]], emb[stoi["queen"]], dim=0).item(), 4))

# multinomial errors users hit
for args in ((torch.tensor([0.0, 0.0]), 1), (noise, V + 1), (torch.tensor([-1.0, 2.0]), 1)):
    try:
        torch.multinomial(*args)
    except Exception as err:
        print(type(err).__name__, err)
