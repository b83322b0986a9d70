"""Recommender training on a sparse interaction matrix: MF with sparse embeddings, bag features, mixed optimizers."""

import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4)
torch.manual_seed(0)

n_users, n_items = 6, 8
users = torch.tensor([0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 5, 2])
items = torch.tensor([1, 3, 0, 3, 5, 2, 7, 6, 1, 4, 7, 1])
ratings = torch.tensor([5.0, 3.0, 4.0, 1.0, 2.0, 5.0, 4.0, 3.0, 1.0, 2.0, 5.0, 4.0])

R = torch.sparse_coo_tensor(torch.stack([users, items]), ratings, (n_users, n_items)).coalesce()
print("R", tuple(R.shape), "nnz", R._nnz(), "density", round(R._nnz() / (n_users * n_items), 4))

# per-user and per-item statistics from sparse sums
user_count = torch.sparse.sum(torch.sparse_coo_tensor(R.indices(), torch.ones(R._nnz()), R.shape), dim=1)
user_sum = torch.sparse.sum(R, dim=1)
print("user counts", user_count.to_dense().tolist())
print("user means", [round(v, 4) for v in (user_sum.to_dense() / user_count.to_dense().clamp(min=1)).tolist()])
item_pop = torch.bincount(R.indices()[1], minlength=n_items)
print("item popularity", item_pop.tolist())
global_mean = R.values().mean()
print("global mean", round(global_mean.item(), 4))

# slicing users out of the interaction matrix
batch_users = torch.tensor([5, 0, 3])
Rb = R.index_select(0, batch_users)
print("batch rows", tuple(Rb.shape), Rb.coalesce().indices().tolist())
print("batch dense\n", Rb.to_dense())
Ri = torch.index_select(R, 1, torch.tensor([1, 7]))
print("item columns", Ri.coalesce().values().tolist())

# item-item co-occurrence through a sparse product (binary interactions)
B = torch.sparse_coo_tensor(R.indices(), torch.ones(R._nnz()), R.shape)
co = torch.sparse.mm(B.t(), B)
print("co-occurrence", co.layout, co._nnz(), "item1 row", co.to_dense()[1].tolist())


class MF(nn.Module):
    """Biased matrix factorization with sparse-gradient embeddings."""

    def __init__(self, nu, ni, k=4):
        super().__init__()
        self.P = nn.Embedding(nu, k, sparse=True)
        self.Q = nn.Embedding(ni, k, sparse=True)
        self.bu = nn.Embedding(nu, 1, sparse=True)
        self.bi = nn.Embedding(ni, 1, sparse=True)
        self.mu = nn.Parameter(torch.tensor(0.0))
        for e in (self.P, self.Q):
            nn.init.normal_(e.weight, std=0.1)
        nn.init.zeros_(self.bu.weight)
        nn.init.zeros_(self.bi.weight)

    def forward(self, u, i):
        dot = (self.P(u) * self.Q(i)).sum(1)
        return dot + self.bu(u).squeeze(1) + self.bi(i).squeeze(1) + self.mu


model = MF(n_users, n_items)
sparse_params = [p for n, p in model.named_parameters() if n != "mu"]
dense_params = [model.mu]
opt_sparse = torch.optim.SparseAdam(sparse_params, lr=0.05)
opt_dense = torch.optim.Adam(dense_params, lr=0.05)
for epoch in range(25):
    opt_sparse.zero_grad()
    opt_dense.zero_grad()
    pred = model(users, items)
    loss = F.mse_loss(pred, ratings)
    loss.backward()
    if epoch == 0:
        g = model.P.weight.grad
        print("P grad", g.layout, g._nnz(), "mu grad", model.mu.grad.layout, round(model.mu.grad.item(), 4))
    opt_sparse.step()
    opt_dense.step()
    if epoch % 8 == 0 or epoch == 24:
        print(f"epoch {epoch:2d} mse {loss.item():.4f}")
print("mu", round(model.mu.item(), 4))
with torch.no_grad():
    scores = model.P.weight @ model.Q.weight.t() + model.bu.weight + model.bi.weight.t() + model.mu
    seen = R.to_dense() > 0
    scores[seen] = float("-inf")
    top = scores.topk(2, dim=1).indices
print("top-2 unseen per user", top.tolist())

# SGD with momentum on the same sparse gradients
torch.manual_seed(1)
m2 = MF(n_users, n_items, k=2)
sgd = torch.optim.SGD(m2.parameters(), lr=0.1, momentum=0.5)
for epoch in range(10):
    sgd.zero_grad()
    loss = F.mse_loss(m2(users, items), ratings)
    loss.backward()
    sgd.step()
print("sgd mse", round(loss.item(), 4))
print("sgd P row0", [round(v, 4) for v in m2.P.weight[0].tolist()])

# user features as bags of item ids (implicit feedback), weighted by rating
flat_items = R.indices()[1]
offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(user_count.to_dense().long(), 0)[:-1]])
print("offsets", offsets.tolist())
bag = nn.EmbeddingBag(n_items, 3, mode="sum", sparse=True)
nn.init.uniform_(bag.weight, -0.5, 0.5)
feats = bag(flat_items, offsets, per_sample_weights=R.values() / 5)
print("user bag features", tuple(feats.shape), [round(v, 4) for v in feats[0].tolist()])
mean_bag = nn.EmbeddingBag.from_pretrained(bag.weight.detach(), mode="mean")
print("mean bag user3", [round(v, 4) for v in mean_bag(flat_items, offsets)[3].tolist()])
feats.pow(2).sum().backward()
gb = bag.weight.grad
print("bag grad", gb.layout, gb._nnz(), "rows", sorted(set(gb._indices()[0].tolist())))
opt_bag = torch.optim.SparseAdam(bag.parameters(), lr=0.1)
before = bag.weight.detach().clone()
opt_bag.step()
print("rows changed", (bag.weight.detach() != before).any(1).nonzero().flatten().tolist())
