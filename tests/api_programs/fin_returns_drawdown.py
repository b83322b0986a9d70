"""Return and risk statistics as a quant research notebook computes them: simple and log returns from a price
panel, rolling windows with unfold, rolling volatility and Sharpe ratios, EWMA volatility by a weight kernel and by
recursion, cummax drawdowns with their durations, Sortino and Calmar ratios, nan-aware cross-sectional z-scores,
turnover from weight changes, and the errors of bad windows."""

import math

import torch

torch.manual_seed(0)
T, N = 60, 4
t = torch.arange(T, dtype=torch.float64).unsqueeze(1)
drift = torch.tensor([0.0004, 0.0002, -0.0001, 0.0006], dtype=torch.float64)
shocks = torch.sin(t * torch.tensor([0.3, 0.7, 1.1, 0.5], dtype=torch.float64)) * 0.01
prices = 100 * torch.exp(torch.cumsum(drift + shocks, dim=0))
print("prices", prices.shape, prices.dtype, prices[-1].round(decimals=4).tolist())

simple = prices[1:] / prices[:-1] - 1
logret = torch.diff(prices.log(), dim=0)
print("simple vs pct", torch.allclose(simple, torch.expm1(logret)))
print("log1p roundtrip", torch.allclose(torch.log1p(simple), logret))
print("total return", (torch.prod(1 + simple, dim=0) - 1).round(decimals=4).tolist())
print("cumprod wealth", torch.cumprod(1 + simple, dim=0)[-1].round(decimals=4).tolist())

win = logret.unfold(0, 20, 1)
print("windows", tuple(win.shape), win.stride())
roll_vol = win.std(dim=-1) * math.sqrt(252)
roll_mu = win.mean(dim=-1) * 252
roll_sharpe = roll_mu / roll_vol
print("rolling vol last", roll_vol[-1].round(decimals=4).tolist())
print(
    "rolling sharpe max", roll_sharpe.max(dim=0).values.round(decimals=4).tolist(), roll_sharpe.argmax(dim=0).tolist()
)
step_win = logret.unfold(0, 10, 5)
print("monthly-ish blocks", tuple(step_win.shape), step_win.sum(-1)[:, 0].round(decimals=4).tolist())

csum = torch.cat([torch.zeros(1, N, dtype=torch.float64), logret.cumsum(0)])
fast_mean = (csum[20:] - csum[:-20]) / 20
print("cumsum rolling mean ok", torch.allclose(fast_mean, win.mean(-1)))

lam = 0.94
k = torch.arange(30, dtype=torch.float64)
wts = (1 - lam) * lam ** k.flip(0)
wts = wts / wts.sum()
ewma_kernel = (logret[-30:] ** 2 * wts.unsqueeze(1)).sum(0).sqrt()
var = logret[0] ** 2
for r in logret[1:]:
    var = lam * var + (1 - lam) * r**2
print("ewma kernel", ewma_kernel.round(decimals=5).tolist())
print("ewma recursion", var.sqrt().round(decimals=5).tolist())

wealth = torch.cumprod(1 + simple, dim=0)
peak = torch.cummax(wealth, dim=0)
dd = wealth / peak.values - 1
print("cummax indices tail", peak.indices[-5:, 0].tolist(), peak.indices.dtype)
mdd, where = dd.min(dim=0)
print("max drawdown", mdd.round(decimals=4).tolist(), where.tolist())
underwater = (dd < 0).to(torch.int64)
runs = torch.zeros_like(underwater)
for i in range(1, underwater.shape[0]):
    runs[i] = (runs[i - 1] + 1) * underwater[i]
print("longest underwater", runs.amax(dim=0).tolist())
cmin = torch.cummin(dd, dim=0)
print("cummin final", cmin.values[-1].round(decimals=4).tolist())

ann = simple.mean(0) * 252
downside = torch.clamp(simple, max=0.0)
sortino = ann / (downside.pow(2).mean(0).sqrt() * math.sqrt(252))
calmar = ann / mdd.abs()
print("sortino", sortino.round(decimals=4).tolist())
print("calmar", calmar.round(decimals=4).tolist())
print("skew", (((simple - simple.mean(0)) / simple.std(0, correction=0)) ** 3).mean(0).round(decimals=4).tolist())

xs = simple[-1].clone()
xs[2] = float("nan")
mu = xs.nanmean()
sd = torch.sqrt(torch.nansum((xs - mu) ** 2) / (torch.isfinite(xs).sum() - 1))
z = torch.nan_to_num((xs - mu) / sd, nan=0.0)
print("zscore", z.round(decimals=4).tolist())
print("rank", xs.argsort(descending=True, stable=True).tolist())

weights = torch.softmax(roll_sharpe, dim=1)
turnover = (weights[1:] - weights[:-1]).abs().sum(1)
print("turnover", round(turnover.mean().item(), 4), round(turnover.max().item(), 4))
print("weights sum", torch.allclose(weights.sum(1), torch.ones(weights.shape[0], dtype=torch.float64)))

for bad in [(0, 100, 1), (0, 5, 0), (2, 5, 1)]:
    try:
        logret.unfold(*bad)
    except Exception as e:
        print(type(e).__name__, e)
try:
    torch.cummax(prices, dim=2)
except Exception as e:
    print(type(e).__name__, e)
