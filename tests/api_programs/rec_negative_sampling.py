"""Negative sampling for implicit feedback: popularity^0.75 multinomials, seeded generators, rejecting positives."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(21)
torch.set_printoptions(precision=4)

n_users, n_items = 8, 20
interactions = torch.stack([torch.randint(0, n_users, (60,)), torch.randint(0, n_items, (60,)) ** 2 % n_items], 1)
interactions = torch.unique(interactions, dim=0)
print("interactions", interactions.shape, interactions[:5].tolist())

items, counts = torch.unique(interactions[:, 1], return_counts=True)
pop = torch.zeros(n_items).scatter_(0, items, counts.float())
print("popularity", pop.long().tolist())
print("bincount eq", torch.equal(torch.bincount(interactions[:, 1], minlength=n_items).float(), pop))

# word2vec's smoothed unigram distribution
dist = pop.pow(0.75)
dist = dist / dist.sum()
print("sampling dist", dist[:8])
print("zero-prob items", (dist == 0).nonzero().flatten().tolist())

g = torch.Generator().manual_seed(1234)
negs = torch.multinomial(dist, 30, replacement=True, generator=g)
print("negatives", negs.tolist())
print("any zero-prob drawn", bool(torch.isin(negs, (dist == 0).nonzero().flatten()).any()))
g.manual_seed(1234)
print("reseeded same", torch.equal(negs, torch.multinomial(dist, 30, replacement=True, generator=g)))
nr = torch.multinomial(dist, 6, replacement=False, generator=g)
print("without replacement", nr.tolist(), "distinct", nr.unique().numel())

# batched: a row of weights per user (each user's positives masked out)
pos_mask = torch.zeros(n_users, n_items, dtype=torch.bool)
pos_mask[interactions[:, 0], interactions[:, 1]] = True
w = (dist + 0.01).expand(n_users, -1).masked_fill(pos_mask, 0.0)
print("weights", w.shape, "row sums", w.sum(1))
per_user = torch.multinomial(w, 4, replacement=True, generator=g)
print("per-user negs", per_user.tolist())
print("no positives drawn", bool(~pos_mask.gather(1, per_user).any()))

# uniform negatives with randint, then rejection-resample the collisions
torch.manual_seed(22)
users = interactions[:, 0]
cand = torch.randint(0, n_items, (users.numel(),))
bad = pos_mask[users, cand]
rounds = 0
while bad.any():
    cand[bad] = torch.randint(0, n_items, (int(bad.sum()),))
    bad = pos_mask[users, cand]
    rounds += 1
print("rejection rounds", rounds, "negs head", cand[:10].tolist())

# the samplers' statistics over many draws
big = torch.multinomial(dist, 20000, replacement=True, generator=torch.Generator().manual_seed(0))
emp = torch.bincount(big, minlength=n_items).float() / big.numel()
print("empirical vs dist max err", round((emp - dist).abs().max().item(), 3))
print("torch.distributions.Categorical", torch.distributions.Categorical(probs=dist).entropy().round(decimals=4))


class PairDataset(Dataset):
    """Each positive with k sampled negatives, drawn from the dataset's own generator per item."""

    def __init__(self, pairs, weights, k):
        self.pairs, self.weights, self.k = pairs, weights, k

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        u, i = self.pairs[idx]
        gen = torch.Generator().manual_seed(int(idx) * 7919 + 1)
        neg = torch.multinomial(self.weights[u], self.k, replacement=True, generator=gen)
        return u, i, neg


ds = PairDataset(interactions, w, 3)
u0, i0, n0 = ds[0]
print("item 0", u0.item(), i0.item(), n0.tolist())
loader = DataLoader(ds, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(5))
bu, bi, bn = next(iter(loader))
print("batch", bu.shape, bi.shape, bn.shape, bu.tolist())


class SGNS(nn.Module):
    def __init__(self):
        super().__init__()
        self.u = nn.Embedding(n_users, 6)
        self.i = nn.Embedding(n_items, 6)
        nn.init.uniform_(self.u.weight, -0.5, 0.5)
        nn.init.zeros_(self.i.weight)

    def forward(self, u, pos, neg):
        eu = self.u(u)
        pos_s = (eu * self.i(pos)).sum(-1)
        neg_s = torch.bmm(self.i(neg), eu.unsqueeze(2)).squeeze(2)
        return -(F.logsigmoid(pos_s) + F.logsigmoid(-neg_s).sum(1)).mean()


torch.manual_seed(23)
model = SGNS()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(6):
    total = 0.0
    for u, i, n in loader:
        loss = model(u, i, n)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(u)
    print(f"epoch {epoch} loss {total / len(ds):.4f}")
with torch.no_grad():
    scores = model.u.weight @ model.i.weight.T
print("pos mean score", round(scores[pos_mask].mean().item(), 4), "neg mean", round(scores[~pos_mask].mean().item(), 4))
try:
    torch.multinomial(torch.tensor([0.5, -0.1, 0.6]), 1)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    print("zero weight drawn last", torch.multinomial(torch.tensor([0.5, 0.0, 0.5]), 3, generator=g).tolist())
    torch.multinomial(torch.tensor([0.5, 0.0, 0.5]), 4, replacement=False)
except RuntimeError as e:
    print("RuntimeError:", e)
