"""Stochastic differential equations as quantitative and score-based research code integrates them: Euler-Maruyama
and Milstein for geometric Brownian motion on one seeded Generator (strong and weak errors against the exact
solution driven by the same increments), an Ornstein-Uhlenbeck process's stationary moments, a neural SDE with
diagonal noise trained by reparameterised paths, and statistics of the paths (quantile, cov, corrcoef, histc,
cummax, trapezoid)."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
f64 = torch.float64

gen = torch.Generator().manual_seed(1234)
mu, sigma, S0, T = 0.05, 0.4, 1.0, 1.0
n_paths, n_steps = 4000, 64
dt = T / n_steps
dW = torch.randn(n_paths, n_steps, generator=gen, dtype=f64) * math.sqrt(dt)
W = torch.cumsum(dW, dim=1)
t = torch.linspace(dt, T, n_steps, dtype=f64)
exact = S0 * torch.exp((mu - 0.5 * sigma**2) * t + sigma * W)

S_em = torch.empty(n_paths, n_steps + 1, dtype=f64)
S_mil = torch.empty_like(S_em)
S_em[:, 0] = S_mil[:, 0] = S0
for k in range(n_steps):
    s, m = S_em[:, k], S_mil[:, k]
    S_em[:, k + 1] = s + mu * s * dt + sigma * s * dW[:, k]
    S_mil[:, k + 1] = m + mu * m * dt + sigma * m * dW[:, k] + 0.5 * sigma**2 * m * (dW[:, k] ** 2 - dt)
strong_em = (S_em[:, 1:] - exact).abs().mean(0)[-1]
strong_mil = (S_mil[:, 1:] - exact).abs().mean(0)[-1]
print(
    "strong err EM", round(strong_em.item(), 4), "Milstein", round(strong_mil.item(), 4), bool(strong_mil < strong_em)
)
print("weak err", round((S_em[:, -1].mean() - S0 * math.exp(mu * T)).abs().item(), 3) < 0.05)
print("mean", round(S_em[:, -1].mean().item(), 4), "var", round(S_em[:, -1].var().item(), 4))
q = torch.quantile(S_em[:, -1], torch.tensor([0.05, 0.5, 0.95], dtype=f64))
print("quantiles", q.round(decimals=4).tolist())
print("median", round(S_em[:, -1].median().item(), 4), "nanquantile", round(S_em[:, -1].nanquantile(0.5).item(), 4))
hist = torch.histc(S_em[:, -1].float(), bins=8, min=0.0, max=4.0)
print("histc", hist.tolist(), int(hist.sum().item()))
running_max, where = torch.cummax(S_em[:3], dim=1)
print("cummax", running_max[:, -1].round(decimals=4).tolist(), where[:, -1].tolist())
print("drawdown", (1 - S_em[:3] / running_max).amax(dim=1).round(decimals=4).tolist())
payoff = (S_em[:, -1] - 1.0).clamp(min=0)
print("call price", round((math.exp(-mu * T) * payoff.mean()).item(), 4))
grid = torch.linspace(0, T, n_steps + 1, dtype=f64)
print("time average", torch.trapezoid(S_em[:2], grid, dim=1).round(decimals=4).tolist())
print("cum trapz", torch.cumulative_trapezoid(S_em[0, :5], dx=dt).round(decimals=4).tolist())

# Ornstein-Uhlenbeck: dX = -theta X dt + s dW; stationary var s^2 / (2 theta)
theta, s = torch.tensor([0.5, 2.0], dtype=f64), torch.tensor([1.0, 0.5], dtype=f64)
X = torch.zeros(2000, 2, dtype=f64)
samples = []
for k in range(400):
    X = X - theta * X * 0.05 + s * torch.randn(X.shape, generator=gen, dtype=f64) * math.sqrt(0.05)
    if k >= 200 and k % 20 == 0:
        samples.append(X)
Xs = torch.cat(samples)
print("OU var", Xs.var(0).round(decimals=2).tolist(), (s**2 / (2 * theta)).tolist())
C = torch.cov(Xs.T)
print("cov", tuple(C.shape), round(C[0, 1].item(), 1) == 0.0, torch.corrcoef(Xs.T).diagonal().tolist())
print(
    "aweights cov",
    torch.cov(torch.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 0.0]]), correction=0, aweights=torch.tensor([1.0, 2.0, 1.0]))
    .round(decimals=4)
    .tolist(),
)


class NeuralSDE(nn.Module):
    def __init__(self, d=2, h=16):
        super().__init__()
        self.drift = nn.Sequential(nn.Linear(d, h), nn.SiLU(), nn.Linear(h, d))
        self.log_diff = nn.Parameter(torch.full((d,), -1.0))

    def forward(self, x0, noise, dt):
        xs = [x0]
        for k in range(noise.shape[1]):
            x = xs[-1]
            xs.append(x + self.drift(x) * dt + self.log_diff.exp() * noise[:, k] * math.sqrt(dt))
        return torch.stack(xs, 1)


sde = NeuralSDE()
opt = torch.optim.Adam(sde.parameters(), lr=1e-2)
x0 = torch.randn(64, 2)
noise = torch.randn(64, 10, 2)
target = torch.tensor([1.0, -1.0])
for step in range(25):
    opt.zero_grad()
    path = sde(x0, noise, 0.1)
    loss = (path[:, -1] - target).pow(2).sum(-1).mean() + 0.1 * sde.log_diff.exp().sum()
    loss.backward()
    opt.step()
print("neural sde", tuple(path.shape), round(loss.item(), 4), sde.log_diff.detach().round(decimals=4).tolist())
try:
    torch.quantile(torch.randn(5), 1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(torch.randn(2, 3, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.histc(torch.arange(4), bins=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randn(3, generator=gen, dtype=torch.int64)
except Exception as e:
    print(type(e).__name__, e)
