"""Bayesian optimisation acquisition functions by hand: analytic EI/PI/UCB and LogEI through torch.special.ndtr,
log_ndtr and Normal.cdf/log_prob, Sobol initial candidates, multi-start gradient ascent with clamped bounds, MC qEI."""

import math

import torch
from torch.distributions import Normal
from torch.quasirandom import SobolEngine

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64

Xtr = torch.tensor([[0.1, 0.2], [0.4, 0.9], [0.8, 0.3], [0.5, 0.5], [0.9, 0.8]], dtype=f64)
ytr = -((Xtr - 0.6).pow(2).sum(-1)) + 0.05 * torch.sin(10 * Xtr[:, 0])


def posterior(X, ls=0.3, noise=1e-4):
    k = lambda a, b: torch.exp(-0.5 * torch.cdist(a / ls, b / ls).pow(2))
    K = k(Xtr, Xtr) + noise * torch.eye(len(Xtr), dtype=f64)
    L = torch.linalg.cholesky(K)
    mu0 = ytr.mean()
    Ks = k(X, Xtr)
    alpha = torch.cholesky_solve((ytr - mu0).unsqueeze(-1), L)
    mean = mu0 + (Ks @ alpha).squeeze(-1)
    v = torch.linalg.solve_triangular(L, Ks.mT, upper=False)
    var = (1 - v.pow(2).sum(-2)).clamp_min(1e-9)
    return mean, var.sqrt()


best = ytr.max()
normal = Normal(torch.zeros((), dtype=f64), torch.ones((), dtype=f64))


def ei(X):
    mean, sigma = posterior(X)
    u = (mean - best) / sigma
    return sigma * (torch.exp(normal.log_prob(u)) + u * normal.cdf(u))


def log_ei(X):
    mean, sigma = posterior(X)
    u = (mean - best) / sigma
    h = torch.exp(-0.5 * u**2) / math.sqrt(2 * math.pi) + u * torch.special.ndtr(u)
    return torch.log(h.clamp_min(1e-300)) + sigma.log()


def pi(X):
    mean, sigma = posterior(X)
    return torch.special.ndtr((mean - best) / sigma)


def ucb(X, beta=2.0):
    mean, sigma = posterior(X)
    return mean + math.sqrt(beta) * sigma


sobol = SobolEngine(dimension=2, scramble=True, seed=5)
cand = sobol.draw(8, dtype=f64)
print("sobol", cand.dtype, cand.shape, cand[:2].round(decimals=4))
print("sobol state", sobol.num_generated, SobolEngine(2, scramble=False).draw(4).tolist())
for name, f in [("ei", ei), ("log_ei", log_ei), ("pi", pi), ("ucb", ucb)]:
    vals = f(cand)
    print(name, vals.round(decimals=4), "argmax", vals.argmax().item())
u = torch.tensor([-40.0, -10.0, -1.0, 0.0, 3.0, 40.0], dtype=f64)
print("ndtr", torch.special.ndtr(u))
print("log_ndtr", torch.special.log_ndtr(u).round(decimals=4))
print("ndtri", torch.special.ndtri(torch.tensor([1e-10, 0.025, 0.5, 0.975, 1.0])))
print("normal icdf", normal.icdf(torch.tensor([0.025, 0.975], dtype=f64)).round(decimals=4))
print("ndtr f32 vs f64", torch.special.ndtr(u.float()).dtype, torch.special.ndtr(torch.tensor(1)).dtype)
print("erfcx", torch.special.erfcx(torch.tensor([-2.0, 0.0, 5.0, 50.0])))

X = cand.clone().requires_grad_(True)
opt = torch.optim.Adam([X], lr=0.05)
for step in range(40):
    opt.zero_grad()
    loss = -log_ei(X).sum()
    loss.backward()
    opt.step()
    with torch.no_grad():
        X.clamp_(0.0, 1.0)
best_i = log_ei(X).argmax()
print("optimised EI", round(ei(X.detach()).max().item(), 5), "at", X.detach()[best_i].round(decimals=2))
print("in bounds", bool(((X >= 0) & (X <= 1)).all()))
g = torch.autograd.grad(pi(cand[:3].clone().requires_grad_()).sum(), X, allow_unused=True)
print("unused grad", g)

Xq = cand[:3]
mean, sigma = posterior(Xq)
z = torch.randn(256, 3, dtype=f64)
samples = mean + sigma * z
qei = (samples.max(-1).values - best).clamp_min(0).mean()
print("qEI mc", round(qei.item(), 3), "analytic max single", round(ei(Xq).max().item(), 3))
with torch.no_grad():
    print("no_grad requires_grad", ei(Xq).requires_grad)
