"""Doubly-robust AIPW with 2-fold cross-fitting: outcome and propensity models per fold (torch.randperm with a
Generator, tensor_split, index_copy_), influence-function standard errors and normal confidence intervals."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
torch.set_printoptions(precision=4, sci_mode=False)
n, d = 160, 3
g = torch.Generator().manual_seed(11)
X = torch.randn(n, d, generator=g)
e_true = torch.sigmoid(X[:, 0] - 0.5 * X[:, 1])
T = torch.bernoulli(e_true, generator=g)
Y = X[:, 0] + X[:, 2] ** 2 + 2.0 * T + 0.5 * torch.randn(n, generator=g)
perm = torch.randperm(n, generator=g)
folds = torch.tensor_split(perm, 2)
print("folds", [f.shape[0] for f in folds], perm.dtype, folds[0][:5].tolist())


def mlp(out):
    return nn.Sequential(nn.Linear(d + 1 if out == "y" else d, 16), nn.Tanh(), nn.Linear(16, 1))


def train(model, inp, target, loss_fn, steps=150):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-2, weight_decay=1e-3)
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(inp).squeeze(-1), target)
        loss.backward()
        opt.step()
    return loss.item()


mu0 = torch.empty(n)
mu1 = torch.empty(n)
e_hat = torch.empty(n)
for k, test in enumerate(folds):
    train_idx = torch.cat([f for j, f in enumerate(folds) if j != k])
    xy = torch.cat([X, T[:, None]], 1)
    m_y = mlp("y")
    ly = train(m_y, xy[train_idx], Y[train_idx], F.mse_loss)
    m_t = mlp("t")
    lt = train(m_t, X[train_idx], T[train_idx], F.binary_cross_entropy_with_logits)
    with torch.no_grad():
        x1 = torch.cat([X[test], torch.ones(len(test), 1)], 1)
        x0 = torch.cat([X[test], torch.zeros(len(test), 1)], 1)
        mu1.index_copy_(0, test, m_y(x1).squeeze(-1))
        mu0.index_copy_(0, test, m_y(x0).squeeze(-1))
        e_hat[test] = torch.sigmoid(m_t(X[test])).squeeze(-1)
    print("fold", k, round(ly, 3), round(lt, 3), train_idx.shape)

e_c = e_hat.clamp(0.01, 0.99)
psi = mu1 - mu0 + T * (Y - mu1) / e_c - (1 - T) * (Y - mu0) / (1 - e_c)
ate = psi.mean()
se = psi.std(unbiased=True) / math.sqrt(n)
z = torch.distributions.Normal(0.0, 1.0).icdf(torch.tensor(0.975))
print("aipw", round(ate.item(), 3), "se", round(se.item(), 3), "z", round(z.item(), 4))
print("ci", torch.stack([ate - z * se, ate + z * se]).round(decimals=2))
print(
    "plug-in",
    round((mu1 - mu0).mean().item(), 3),
    "ipw",
    round((T * Y / e_c - (1 - T) * Y / (1 - e_c)).mean().item(), 3),
)
att_psi = (T * (Y - mu0) - (1 - T) * e_c / (1 - e_c) * (Y - mu0)) / T.mean()
print("att", round(att_psi.mean().item(), 3))
print("p-value", round((2 * (1 - torch.special.ndtr(ate.abs() / se))).item(), 4))
print("var_mean", [round(v.item(), 1) for v in torch.var_mean(psi, correction=1)])
print("std_mean", [round(v.item(), 2) for v in torch.std_mean(psi, dim=0, keepdim=True, correction=0)])

# index_copy_ and friends: the checks they make
buf = torch.zeros(5)
buf.index_copy_(0, torch.tensor([4, 0]), torch.tensor([1.0, 2.0]))
print("index_copy", buf, buf.index_copy(0, torch.tensor([1]), torch.tensor([9.0])))
print(
    "index_fill", buf.index_fill(0, torch.tensor([2, 3]), -1.0), buf.index_fill(0, torch.tensor([1]), torch.tensor(5.0))
)
print("put_", torch.zeros(2, 2).put_(torch.tensor([3, 0]), torch.tensor([1.0, 2.0]), accumulate=True))
print("split", [t.tolist() for t in torch.tensor_split(torch.arange(7), torch.tensor([2, 5]))])
print(
    "split sections",
    [t.numel() for t in torch.arange(7).tensor_split(3)],
    [t.numel() for t in torch.arange(7).chunk(3)],
)
print("split 0", torch.tensor_split(torch.arange(0), 2))
for bad in [
    lambda: buf.index_copy_(0, torch.tensor([0, 1]), torch.tensor([1.0])),
    lambda: buf.index_copy_(0, torch.tensor([7]), torch.tensor([1.0])),
    lambda: buf.index_copy_(0, torch.tensor([0]), torch.tensor([1.0], dtype=torch.float64)),
    lambda: buf.index_fill_(0, torch.tensor([0]), torch.tensor([1.0, 2.0])),
    lambda: torch.tensor_split(torch.arange(4), 0),
    lambda: torch.tensor_split(torch.arange(4), torch.tensor([[1]])),
    lambda: torch.tensor_split(torch.arange(4), 2.0),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
