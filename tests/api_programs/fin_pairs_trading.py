"""A statistical-arbitrage backtest as a quant researcher writes it: an Engle-Granger cointegration regression with
lstsq, an augmented Dickey-Fuller statistic on the residual, a Kalman filter for a time-varying hedge ratio, z-score
entry/exit signals with a position state machine (where, sign, cummax of entry times), P&L with transaction costs,
a return histogram with torch.histogram(density=True), and Student-t tails fitted by maximum likelihood."""

import math

import torch

torch.manual_seed(0)
dtype = torch.float64
T = 400
common = torch.cumsum(torch.randn(T, dtype=dtype) * 0.5, 0)
spread_true = torch.zeros(T, dtype=dtype)
e = torch.randn(T, dtype=dtype) * 0.3
for t in range(1, T):
    spread_true[t] = 0.9 * spread_true[t - 1] + e[t]
a = 50 + common
b = 20 + 0.6 * common + spread_true
print("prices", round(a[-1].item(), 2), round(b[-1].item(), 2))

X = torch.stack([torch.ones(T, dtype=dtype), a], 1)
coef = torch.linalg.lstsq(X, b.unsqueeze(1), driver="gelsd").solution.squeeze(1)
print("hedge ratio", round(coef[1].item(), 2), "driver gelsd")
resid = b - X @ coef
dr = resid.diff()
lag = resid[:-1]
Z = torch.stack([torch.ones(T - 1, dtype=dtype), lag], 1)
g, res, rank, sv = torch.linalg.lstsq(Z, dr.unsqueeze(1), driver="gelsd")
u = dr - (Z @ g).squeeze(1)
s2 = (u @ u) / (T - 1 - 2)
cov = s2 * torch.linalg.inv(Z.T @ Z)
adf = g[1, 0] / cov[1, 1].sqrt()
print("adf stat", round(adf.item(), 1), "stationary", adf.item() < -2.86, "rank", rank.item(), tuple(sv.shape))

beta = torch.zeros(2, dtype=dtype)
Pk = torch.eye(2, dtype=dtype) * 10
Q, Rv = torch.eye(2, dtype=dtype) * 1e-5, torch.tensor(0.1, dtype=dtype)
betas = []
for t in range(T):
    H = torch.stack([torch.ones((), dtype=dtype), a[t]])
    Pk = Pk + Q
    S = H @ Pk @ H + Rv
    Kg = Pk @ H / S
    beta = beta + Kg * (b[t] - H @ beta)
    Pk = (torch.eye(2, dtype=dtype) - torch.outer(Kg, H)) @ Pk
    betas.append(beta.clone())
betas = torch.stack(betas)
print("kalman final", round(betas[-1, 1].item(), 1), tuple(betas.shape))

win = 30
roll = resid.unfold(0, win, 1)
mu, sd = roll.mean(1), roll.std(1)
z = torch.full((T,), float("nan"), dtype=dtype)
z[win - 1 :] = (resid[win - 1 :] - mu) / sd
print("z nan count", int(torch.isnan(z).sum()), round(torch.nanmean(z).item(), 2))
pos = torch.zeros(T, dtype=dtype)
for t in range(1, T):
    zt = z[t]
    if torch.isnan(zt):
        continue
    prev = pos[t - 1]
    pos[t] = torch.where(zt > 2, -1.0, torch.where(zt < -2, 1.0, torch.where(zt.abs() < 0.5, 0.0, prev)))
trades = pos.diff(prepend=torch.zeros(1, dtype=dtype)).abs()
print("trades", int(trades.sum().item()), "long days", int((pos > 0).sum()), "short days", int((pos < 0).sum()))
entry_t = torch.where(trades > 0, torch.arange(T), torch.zeros(T, dtype=torch.long))
since = torch.arange(T) - torch.cummax(entry_t, 0).values
print("max holding", int(since[pos != 0].max()) if (pos != 0).any() else 0)
pnl = pos[:-1] * resid.diff() - 0.01 * trades[1:]
print("pnl", round(pnl.sum().item(), 2), "sharpe", round((pnl.mean() / pnl.std() * math.sqrt(252)).item(), 1))
print("sign", torch.sign(torch.tensor([-0.0, 0.0, -2.0, float("nan")])).tolist())

rets = torch.diff(torch.log(a))
hist, edges = torch.histogram(rets, bins=10)
dens, _ = torch.histogram(rets, bins=10, density=True)
print("histogram", hist.sum().item(), tuple(edges.shape), hist.dtype)
print("density integrates", round((dens * edges.diff()).sum().item(), 6))
h2 = torch.histogram(rets, bins=torch.linspace(-0.03, 0.03, 7, dtype=dtype))
print("explicit bins", h2.hist.tolist())
print("range", torch.histogram(rets, bins=4, range=(-0.01, 0.01)).hist.tolist())
wh = torch.histogram(rets, bins=4, weight=torch.ones_like(rets) * 2)
print("weighted", wh.hist.sum().item())

log_nu = torch.tensor(math.log(5.0), dtype=dtype, requires_grad=True)
log_s = torch.tensor(math.log(rets.std().item()), dtype=dtype, requires_grad=True)
opt = torch.optim.Adam([log_nu, log_s], lr=0.05)
for _ in range(200):
    d = torch.distributions.StudentT(log_nu.exp(), rets.mean(), log_s.exp())
    nll = -d.log_prob(rets).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
print("t fit nu > 2", log_nu.exp().item() > 2, "scale", round(log_s.exp().item(), 3))
for bad in [
    lambda: torch.histogram(rets.long(), bins=3),
    lambda: torch.histogram(rets, bins=0),
    lambda: torch.histogram(rets, bins=torch.tensor([0.1, 0.0], dtype=dtype)),
    lambda: torch.linalg.lstsq(X, b.unsqueeze(1), driver="qr"),
    lambda: torch.histogram(rets, bins=3, range=(1.0, 0.0)),
]:
    try:
        r = bad()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, e)
