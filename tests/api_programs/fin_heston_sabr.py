"""Stochastic-volatility simulation as model-validation code writes it: a Heston Euler scheme with full truncation
(clamp/relu), correlated Brownian increments, the Feller condition, call prices across strikes from one path set,
Hagan's SABR implied-volatility formula vectorised with torch.where at the money, a SABR log-Euler simulation,
the CIR short-rate discount factor with a zero-coupon check, and calibration of SABR alpha/rho/nu by Adam."""

import math

import torch

torch.manual_seed(0)
dtype = torch.float64
n_paths, n_steps, T = 4000, 50, 1.0
dt = T / n_steps
kappa, theta, xi, rho, v0, S0, r = 2.0, 0.04, 0.3, -0.7, 0.04, 100.0, 0.02
print("feller", 2 * kappa * theta > xi**2)

z1 = torch.randn(n_steps, n_paths, dtype=dtype)
z2 = rho * z1 + math.sqrt(1 - rho**2) * torch.randn(n_steps, n_paths, dtype=dtype)
logS = torch.full((n_paths,), math.log(S0), dtype=dtype)
v = torch.full((n_paths,), v0, dtype=dtype)
neg_hits = 0
for i in range(n_steps):
    vp = torch.relu(v)
    logS = logS + (r - 0.5 * vp) * dt + torch.sqrt(vp * dt) * z1[i]
    v = v + kappa * (theta - vp) * dt + xi * torch.sqrt(vp * dt) * z2[i]
    neg_hits += int((v < 0).sum())
ST = logS.exp()
print("negative variance hits", neg_hits > 0, "mean var", round(torch.clamp(v, min=0).mean().item(), 2))
print("martingale", round((ST.mean() * math.exp(-r * T)).item(), 0))
strikes = torch.tensor([80.0, 90.0, 100.0, 110.0, 120.0], dtype=dtype)
calls = torch.clamp(ST[:, None] - strikes[None, :], min=0).mean(0) * math.exp(-r * T)
print("heston calls decreasing", bool((calls.diff() < 0).all()), round(calls[2].item(), 0))
print("empirical corr", round(torch.corrcoef(torch.stack([z1.flatten(), z2.flatten()]))[0, 1].item(), 2))


def sabr_vol(F, K, Tm, alpha, beta, rho, nu):
    logFK = torch.log(F / K)
    fk = (F * K) ** ((1 - beta) / 2)
    zz = nu / alpha * fk * logFK
    x = torch.log((torch.sqrt(1 - 2 * rho * zz + zz**2) + zz - rho) / (1 - rho))
    ratio = torch.where(zz.abs() < 1e-7, torch.ones_like(zz), zz / torch.where(zz.abs() < 1e-7, torch.ones_like(x), x))
    denom = fk * (1 + (1 - beta) ** 2 / 24 * logFK**2 + (1 - beta) ** 4 / 1920 * logFK**4)
    corr = (
        1
        + ((1 - beta) ** 2 / 24 * alpha**2 / fk**2 + rho * beta * nu * alpha / (4 * fk) + (2 - 3 * rho**2) / 24 * nu**2)
        * Tm
    )
    return alpha / denom * ratio * corr


F = torch.tensor(100.0, dtype=dtype)
Ks = torch.linspace(70, 130, 7, dtype=dtype)
vols = sabr_vol(
    F, Ks, 1.0, torch.tensor(2.5, dtype=dtype), 0.5, torch.tensor(-0.3, dtype=dtype), torch.tensor(0.4, dtype=dtype)
)
print("sabr smile", vols.round(decimals=4).tolist())
print("atm finite", torch.isfinite(vols).all().item(), vols.argmin().item())

a = torch.full((n_paths,), 2.5, dtype=dtype)
f = torch.full((n_paths,), 100.0, dtype=dtype)
w1 = torch.randn(n_steps, n_paths, dtype=dtype)
w2 = -0.3 * w1 + math.sqrt(1 - 0.09) * torch.randn(n_steps, n_paths, dtype=dtype)
for i in range(n_steps):
    f = torch.clamp(f + a * f.clamp(min=0) ** 0.5 * math.sqrt(dt) * w1[i], min=0.0)
    a = a * torch.exp(-0.5 * 0.16 * dt + 0.4 * math.sqrt(dt) * w2[i])
print("sabr forward mean", round(f.mean().item(), 0), "absorbed", int((f == 0).sum()))

kr, thr, sr, r0 = 0.5, 0.03, 0.05, 0.02
rates = torch.full((n_paths,), r0, dtype=dtype)
integral = torch.zeros(n_paths, dtype=dtype)
zr = torch.randn(n_steps, n_paths, dtype=dtype)
for i in range(n_steps):
    integral += rates * dt
    rates = (rates + kr * (thr - rates) * dt + sr * torch.sqrt(rates.clamp(min=0) * dt) * zr[i]).abs()
mc_zcb = torch.exp(-integral).mean()
gamma = math.sqrt(kr**2 + 2 * sr**2)
Bf = 2 * (math.exp(gamma * T) - 1) / ((gamma + kr) * (math.exp(gamma * T) - 1) + 2 * gamma)
Af = (2 * gamma * math.exp((kr + gamma) * T / 2) / ((gamma + kr) * (math.exp(gamma * T) - 1) + 2 * gamma)) ** (
    2 * kr * thr / sr**2
)
print("cir zcb", round(mc_zcb.item(), 3), round(Af * math.exp(-Bf * r0), 3))

market = sabr_vol(
    F, Ks, 1.0, torch.tensor(2.2, dtype=dtype), 0.5, torch.tensor(-0.25, dtype=dtype), torch.tensor(0.5, dtype=dtype)
)
raw = torch.tensor([math.log(2.0), 0.0, math.log(0.3)], dtype=dtype, requires_grad=True)
opt = torch.optim.Adam([raw], lr=0.05)
for it in range(300):
    al, rh, nu = raw[0].exp(), torch.tanh(raw[1]), raw[2].exp()
    loss = ((sabr_vol(F, Ks, 1.0, al, 0.5, rh, nu) - market) ** 2).sum() * 1e4
    opt.zero_grad()
    loss.backward()
    opt.step()
print(
    "calibrated",
    round(raw[0].exp().item(), 2),
    round(torch.tanh(raw[1]).item(), 2),
    round(raw[2].exp().item(), 2),
    loss.item() < 1e-3,
)
try:
    torch.sqrt(torch.tensor([-0.01], dtype=dtype)).item() == 0
    print("sqrt of negative", torch.sqrt(torch.tensor([-0.01], dtype=dtype)).isnan().item())
    torch.clamp(v, min=torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
