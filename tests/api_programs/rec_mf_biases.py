"""Explicit-feedback matrix factorization with user/item/global biases, trained from a seeded DataLoader."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_printoptions(precision=4)

n_users, n_items, n_obs = 12, 15, 90
users = torch.randint(0, n_users, (n_obs,))
items = torch.randint(0, n_items, (n_obs,))
true_p = torch.randn(n_users, 3)
true_q = torch.randn(n_items, 3)
raw = (true_p[users] * true_q[items]).sum(1) + 3.0 + 0.3 * torch.randn(n_obs)
ratings = raw.clamp(1.0, 5.0)
print("users", users[:10].tolist())
print("items", items[:10].tolist())
print("ratings", ratings[:6])
print("rating dtype", ratings.dtype, "min/max", round(ratings.min().item(), 4), round(ratings.max().item(), 4))

perm = torch.randperm(n_obs)
train_idx, test_idx = perm[:72], perm[72:]
print("split", train_idx.shape, test_idx.shape, "first test", test_idx[:5].tolist())


class BiasedMF(nn.Module):
    def __init__(self, nu, ni, dim=4):
        super().__init__()
        self.user_factors = nn.Embedding(nu, dim)
        self.item_factors = nn.Embedding(ni, dim)
        self.user_bias = nn.Embedding(nu, 1)
        self.item_bias = nn.Embedding(ni, 1)
        self.global_bias = nn.Parameter(torch.zeros(1))
        nn.init.normal_(self.user_factors.weight, std=0.1)
        nn.init.normal_(self.item_factors.weight, std=0.1)
        nn.init.zeros_(self.user_bias.weight)
        nn.init.zeros_(self.item_bias.weight)

    def forward(self, u, i):
        p = self.user_factors(u)
        q = self.item_factors(i)
        dot = torch.einsum("bd,bd->b", p, q)
        return dot + self.user_bias(u).squeeze(-1) + self.item_bias(i).squeeze(-1) + self.global_bias


model = BiasedMF(n_users, n_items)
with torch.no_grad():
    model.global_bias.fill_(ratings[train_idx].mean())
print(model)
print("params", [(n, tuple(p.shape)) for n, p in model.named_parameters()])
print("global bias", model.global_bias.data)

ds = TensorDataset(users[train_idx], items[train_idx], ratings[train_idx])
g = torch.Generator().manual_seed(7)
loader = DataLoader(ds, batch_size=16, shuffle=True, generator=g)
print("batches", len(loader))
u0, i0, r0 = next(iter(loader))
print("first batch users", u0.tolist())

opt = torch.optim.Adam(model.parameters(), lr=0.05)
wd = 1e-3
for epoch in range(30):
    total = 0.0
    for u, i, r in loader:
        pred = model(u, i)
        mse = F.mse_loss(pred, r)
        reg = wd * (model.user_factors(u).pow(2).sum() + model.item_factors(i).pow(2).sum()) / len(u)
        loss = mse + reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += mse.item() * len(u)
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1} train mse {total / len(ds):.4f}")

model.eval()
with torch.no_grad():
    pred_test = model(users[test_idx], items[test_idx]).clamp(1.0, 5.0)
    rmse = torch.sqrt(F.mse_loss(pred_test, ratings[test_idx]))
    mae = (pred_test - ratings[test_idx]).abs().mean()
    baseline = torch.sqrt(((ratings[train_idx].mean() - ratings[test_idx]) ** 2).mean())
print("test rmse", round(rmse.item(), 4), "mae", round(mae.item(), 4), "baseline", round(baseline.item(), 4))
print("pred head", pred_test[:5])

with torch.no_grad():
    ub = model.user_bias.weight.squeeze(1)
    ib = model.item_bias.weight.squeeze(1)
print("user bias top3", torch.topk(ub, 3).indices.tolist())
print("item bias sorted", torch.argsort(ib, descending=True)[:5].tolist())

# full score matrix and top-N recommendations, masking seen items
with torch.no_grad():
    scores = model.user_factors.weight @ model.item_factors.weight.T
    scores = scores + model.user_bias.weight + model.item_bias.weight.T + model.global_bias
seen = torch.zeros(n_users, n_items, dtype=torch.bool)
seen[users[train_idx], items[train_idx]] = True
print("seen per user", seen.sum(1).tolist())
masked = scores.masked_fill(seen, float("-inf"))
top = masked.topk(3, dim=1)
print("recs shape", top.indices.shape, "user0", top.indices[0].tolist(), top.values[0])
print("score matrix", scores.shape, "mean", round(scores.mean().item(), 4), "std", round(scores.std().item(), 4))

# item-item cosine similarity on learned factors
Q = F.normalize(model.item_factors.weight.detach(), dim=1)
sim = Q @ Q.T
sim.fill_diagonal_(-1.0)
nn_val, nn_idx = sim.max(dim=1)
print("nearest item", nn_idx[:6].tolist(), nn_val[:6])
print("state keys", list(model.state_dict().keys()))
