"""Uplift modelling evaluation: a two-model and a transformed-outcome learner, then Qini and uplift curves by
argsort/cumsum, AUUC with trapezoid, decile tables via bucketize, and ties in the uplift scores."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)
torch.set_printoptions(precision=4, sci_mode=False)
n = 300
X = torch.randn(n, 4)
T = torch.randint(0, 2, (n,))
tau = (X[:, 0] > 0).float() * 0.3
p = torch.sigmoid(-0.5 + X[:, 1] + tau * T)
Y = torch.bernoulli(p)
print("rates", round(Y[T == 1].mean().item(), 4), round(Y[T == 0].mean().item(), 4), T.bincount().tolist())


def logreg(x, y, steps=200):
    m = nn.Linear(x.shape[1], 1)
    opt = torch.optim.SGD(m.parameters(), lr=0.5)
    for _ in range(steps):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(m(x).squeeze(1), y).backward()
        opt.step()
    return m


m1, m0 = logreg(X[T == 1], Y[T == 1]), logreg(X[T == 0], Y[T == 0])
with torch.no_grad():
    uplift = torch.sigmoid(m1(X)).squeeze(1) - torch.sigmoid(m0(X)).squeeze(1)
print("uplift", uplift[:4], uplift.dtype)
# transformed outcome: Z = Y*(T - e)/(e(1-e)) with e = 0.5
Z = Y * (T.float() - 0.5) / 0.25
m_to = nn.Linear(4, 1)
opt = torch.optim.Adam(m_to.parameters(), lr=0.05)
for _ in range(100):
    opt.zero_grad()
    F.mse_loss(m_to(X).squeeze(1), Z).backward()
    opt.step()
to_score = m_to(X).squeeze(1).detach()
print("to corr", round(torch.corrcoef(torch.stack([uplift, to_score]))[0, 1].item(), 3))


def qini(score, y, t):
    order = torch.argsort(score, descending=True, stable=True)
    y, t = y[order], t[order].float()
    nt = torch.cumsum(t, 0)
    nc = torch.cumsum(1 - t, 0)
    yt = torch.cumsum(y * t, 0)
    yc = torch.cumsum(y * (1 - t), 0)
    q = yt - yc * torch.where(nc > 0, nt / nc, torch.zeros_like(nt))
    return torch.cat([torch.zeros(1), q])


q = qini(uplift, Y, T)
q_rand = torch.linspace(0, q[-1].item(), n + 1)
x = torch.linspace(0, 1, n + 1)
auuc = torch.trapezoid(q, x)
print(
    "qini end",
    round(q[-1].item(), 3),
    "auuc",
    round(auuc.item(), 3),
    "random",
    round(torch.trapezoid(q_rand, x).item(), 3),
)
print("qini coef", round((auuc - torch.trapezoid(q_rand, x)).item(), 3), q.shape, q.dtype)
print("cumtrapz", torch.cumulative_trapezoid(q, x)[-1].round(decimals=3), torch.trapz(q, dx=1.0 / n).round(decimals=3))
q_to = qini(to_score, Y, T)
print("to auuc", round(torch.trapezoid(q_to, dx=1.0 / n).item(), 3))

# ties: coarse scores make argsort's tie order matter
coarse = (uplift * 10).round() / 10
print("distinct", coarse.unique().numel(), coarse.unique(return_counts=True)[1][:4].tolist())
o_stable = torch.argsort(coarse, descending=True, stable=True)
print("stable head", o_stable[:8].tolist())
print("qini coarse", round(qini(coarse, Y, T)[-1].item(), 3), round(torch.trapezoid(qini(coarse, Y, T), x).item(), 3))

# deciles by bucketize on quantile edges
edges = torch.quantile(uplift, torch.linspace(0.1, 0.9, 9))
dec = torch.bucketize(uplift, edges)
print("edges", edges.stride(), edges[:3])
print("decile sizes", torch.bincount(dec, minlength=10).tolist())
rt = torch.zeros(10).index_add_(0, dec, Y * T) / torch.zeros(10).index_add_(0, dec, T.float()).clamp_min(1)
rc = torch.zeros(10).index_add_(0, dec, Y * (1 - T)) / torch.zeros(10).index_add_(0, dec, (1 - T).float()).clamp_min(1)
print("decile uplift", (rt - rc).round(decimals=2))
sr = torch.zeros(10).scatter_reduce(0, dec, uplift, reduce="mean", include_self=False)
print("decile mean score", sr.round(decimals=3)[:5], torch.searchsorted(edges, edges[4:5], right=True))
print(
    "bucketize right",
    torch.bucketize(edges[:3], edges, right=True).tolist(),
    torch.bucketize(edges[:3], edges).tolist(),
)
print("bucketize int32", torch.bucketize(uplift[:3], edges, out_int32=True).dtype)
for bad in [
    lambda: torch.trapezoid(q, x[:-1]),
    lambda: torch.bucketize(uplift, edges[None, :].expand(2, 9)),
    lambda: torch.searchsorted(edges, uplift.double()),
    lambda: torch.argsort(uplift, stable=True, dim=1),
    lambda: torch.trapezoid(q, x, dx=0.1),
]:
    try:
        r = bad()
        print("ok", r.shape, r.dtype)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
