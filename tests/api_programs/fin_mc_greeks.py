"""Monte Carlo option pricing as a quant library writes it: GBM terminal draws with antithetic variates, the
discounted payoff's mean and standard error, pathwise delta and vega through autograd, gamma by create_graph on a
smoothed payoff, likelihood-ratio delta, an arithmetic Asian option on full paths with a geometric control variate,
a down-and-out barrier with cummin, Cholesky-correlated basket draws, and quasi-random Sobol normals."""

import math

import torch

torch.manual_seed(0)
dtype = torch.float64
S0 = torch.tensor(100.0, dtype=dtype, requires_grad=True)
sigma = torch.tensor(0.2, dtype=dtype, requires_grad=True)
r, T, K = 0.05, 1.0, 105.0
n = 20000

z = torch.randn(n // 2, dtype=dtype)
z = torch.cat([z, -z])
print("antithetic mean", abs(round(z.mean().item(), 6)), z.shape)
ST = S0 * torch.exp((r - 0.5 * sigma**2) * T + sigma * math.sqrt(T) * z)
payoff = torch.relu(ST - K) * math.exp(-r * T)
price = payoff.mean()
pairs = 0.5 * (payoff[: n // 2] + payoff[n // 2 :])
stderr = pairs.std() / math.sqrt(n // 2)
print("mc price", round(price.item(), 2), "stderr", round(stderr.item(), 3), price.grad_fn.name())
delta, vega = torch.autograd.grad(price, (S0, sigma), retain_graph=True)
print("pathwise delta", round(delta.item(), 2), "vega", round(vega.item(), 1))
d1 = (math.log(100 / K) + (r + 0.02) * T) / 0.2
bs = 100 * 0.5 * math.erfc(-d1 / math.sqrt(2)) - K * math.exp(-r * T) * 0.5 * math.erfc(-(d1 - 0.2) / math.sqrt(2))
print("bs price", round(bs, 4), "within 3 se", abs(price.item() - bs) < 3 * stderr.item())

smooth = torch.nn.functional.softplus(ST - K, beta=2.0) * math.exp(-r * T)
(d_s,) = torch.autograd.grad(smooth.mean(), S0, create_graph=True)
(g_s,) = torch.autograd.grad(d_s, S0)
print("smoothed delta/gamma", round(d_s.item(), 2), round(g_s.item(), 3))

with torch.no_grad():
    score = z / (S0 * sigma * math.sqrt(T))
    lr_delta = (payoff * score).mean()
print("likelihood-ratio delta", round(lr_delta.item(), 2))

steps = 50
dt = T / steps
w = torch.randn(4000, steps, dtype=dtype)
w = torch.cat([w, -w])
with torch.no_grad():
    log_paths = math.log(100.0) + torch.cumsum((r - 0.02) * dt + 0.2 * math.sqrt(dt) * w, dim=1)
    paths = log_paths.exp()
print("paths", tuple(paths.shape), paths.dtype, paths.is_contiguous())
arith = torch.clamp(paths.mean(1) - 100.0, min=0) * math.exp(-r * T)
geo = torch.clamp(torch.exp(log_paths.mean(1)) - 100.0, min=0) * math.exp(-r * T)
cov = torch.cov(torch.stack([arith, geo]))
beta = cov[0, 1] / cov[1, 1]
sig_g = 0.2 * math.sqrt((steps + 1) * (2 * steps + 1) / (6 * steps * steps))
mu_g = (r - 0.02) * (steps + 1) / (2 * steps) + 0.5 * sig_g**2
dg = (math.log(100 / 100) + mu_g + 0.5 * sig_g**2) / sig_g
geo_exact = math.exp(-r * T) * (
    100 * math.exp(mu_g) * 0.5 * math.erfc(-dg / math.sqrt(2)) - 100 * 0.5 * math.erfc(-(dg - sig_g) / math.sqrt(2))
)
cv = arith - beta * (geo - geo_exact)
print("asian plain", round(arith.mean().item(), 1), "cv", round(cv.mean().item(), 1))
print(
    "variance reduction",
    (cv.var() < arith.var() / 10).item(),
    round(torch.corrcoef(torch.stack([arith, geo]))[0, 1].item(), 2),
)

barrier = 85.0
running_min = torch.cummin(paths, dim=1).values[:, -1]
alive = running_min > barrier
knocked = (~alive).sum()
dao = torch.where(alive, torch.clamp(paths[:, -1] - 100.0, min=0), torch.zeros(()).to(dtype)) * math.exp(-r * T)
print(
    "knocked out share",
    round(knocked.item() / paths.shape[0], 2),
    "dao <= vanilla",
    dao.mean().item() <= (torch.clamp(paths[:, -1] - 100, min=0) * math.exp(-r * T)).mean().item(),
)
print("any/all", alive.any().item(), alive.all().item(), alive.dtype)

corr = torch.tensor([[1.0, 0.6, 0.3], [0.6, 1.0, 0.5], [0.3, 0.5, 1.0]], dtype=dtype)
L = torch.linalg.cholesky(corr)
print("cholesky lower", torch.allclose(L, torch.tril(L)), torch.allclose(L @ L.mT, corr))
eps = torch.randn(50000, 3, dtype=dtype) @ L.mT
print("sample corr", torch.corrcoef(eps.T).round(decimals=1).tolist())
vols = torch.tensor([0.2, 0.25, 0.3], dtype=dtype)
ST3 = 100 * torch.exp((r - 0.5 * vols**2) * T + vols * eps)
basket = torch.clamp(ST3.mean(1) - 100, min=0).mean() * math.exp(-r * T)
print("basket call ~", round(basket.item(), 0))
L_up = torch.linalg.cholesky(corr, upper=True)
print("upper", torch.allclose(L_up, L.mT))
Lex, info = torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dtype))
print("cholesky_ex info", info.item())

sob = torch.quasirandom.SobolEngine(dimension=2, scramble=False)
u = sob.draw(8, dtype=dtype)
print("sobol", u[:4].tolist())
qn = torch.special.ndtri(sob.draw(1023, dtype=dtype)[1:, 0] * 0 + torch.linspace(0.001, 0.999, 1022, dtype=dtype))
print("ndtri grid moments", abs(round(qn.mean().item(), 4)), round(qn.std().item(), 3))
try:
    torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dtype))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(price, S0)
    torch.autograd.grad(price, S0)
except Exception as e:
    print(type(e).__name__, str(e)[:60])
