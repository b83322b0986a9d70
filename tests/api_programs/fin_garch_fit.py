"""A GARCH(1,1) volatility model fitted by maximum likelihood the way econometrics code does it in torch: simulate
returns with a fixed innovation sequence, a softplus/sigmoid reparameterisation keeping omega > 0 and alpha + beta
< 1, the Gaussian and Student-t negative log-likelihoods (lgamma), LBFGS with strong Wolfe line search on float64,
standard errors from the Hessian by torch.autograd.functional.hessian, multi-step variance forecasts, and an
EWMA (RiskMetrics) comparison."""

import math

import torch

torch.manual_seed(0)
dtype = torch.float64
T = 300
omega0, alpha0, beta0 = 0.05, 0.08, 0.9
eps = torch.randn(T, dtype=dtype)
r = torch.empty(T, dtype=dtype)
h = omega0 / (1 - alpha0 - beta0)
for t in range(T):
    r[t] = math.sqrt(h) * eps[t]
    h = omega0 + alpha0 * r[t].item() ** 2 + beta0 * h
print("returns", r.shape, round(r.std().item(), 3), round(r.abs().max().item(), 3))


def unpack(theta):
    omega = torch.nn.functional.softplus(theta[0])
    persistence = torch.sigmoid(theta[1])
    share = torch.sigmoid(theta[2])
    return omega, persistence * share, persistence * (1 - share)


def variances(theta, x):
    omega, alpha, beta = unpack(theta)
    h = [x.var()]
    for t in range(1, x.shape[0]):
        h.append(omega + alpha * x[t - 1] ** 2 + beta * h[-1])
    return torch.stack(h)


def nll(theta, x):
    h = variances(theta, x)
    return 0.5 * (math.log(2 * math.pi) + h.log() + x**2 / h).sum()


theta = torch.tensor([-2.0, 2.0, -1.0], dtype=dtype, requires_grad=True)
opt = torch.optim.LBFGS([theta], lr=1.0, max_iter=100, line_search_fn="strong_wolfe", tolerance_grad=1e-9)


def closure():
    opt.zero_grad()
    loss = nll(theta, r)
    loss.backward()
    return loss


first = closure().item()
opt.step(closure)
final = nll(theta, r).item()
omega, alpha, beta = (v.item() for v in unpack(theta.detach()))
print("nll", round(first, 2), "->", round(final, 2))
print("omega alpha beta", round(omega, 2), round(alpha, 2), round(beta, 2), "persistence", round(alpha + beta, 2))
state = opt.state[theta]
print("lbfgs state", sorted(k for k in state if k in ("func_evals", "n_iter")), state["n_iter"] > 3)

H = torch.autograd.functional.hessian(lambda th: nll(th, r), theta.detach())
print("hessian", tuple(H.shape), torch.allclose(H, H.T), bool((torch.linalg.eigvalsh(H) > 0).all()))
se = torch.sqrt(torch.diagonal(torch.linalg.inv(H)))
print("se finite", bool(torch.isfinite(se).all()))

with torch.no_grad():
    hs = variances(theta, r)
    om, al, be = unpack(theta)
    f = [om + al * r[-1] ** 2 + be * hs[-1]]
    for _ in range(9):
        f.append(om + (al + be) * f[-1])
    fc = torch.stack(f)
    long_run = om / (1 - al - be)
print("forecast monotone to long run", bool(((fc - long_run).abs().diff() <= 1e-12).all()))
print("vol term structure", torch.sqrt(fc.cumsum(0) / torch.arange(1, 11)).round(decimals=1).tolist()[:3])

std = r / hs.sqrt()
print("standardised", abs(round(std.mean().item(), 1)), round(std.var().item(), 1))


def t_nll(nu, x, h):
    c = torch.lgamma((nu + 1) / 2) - torch.lgamma(nu / 2) - 0.5 * torch.log(math.pi * (nu - 2) * h)
    return -(c - (nu + 1) / 2 * torch.log1p(x**2 / ((nu - 2) * h))).sum()


nus = torch.tensor([4.0, 6.0, 10.0, 30.0, 100.0], dtype=dtype)
vals = torch.stack([t_nll(nu, r, hs) for nu in nus])
print("t nll grid argmin nu", nus[vals.argmin()].item() >= 10.0, vals.dtype)
lam = 0.94
ew = torch.empty_like(r)
ew[0] = r.var()
for t in range(1, T):
    ew[t] = lam * ew[t - 1] + (1 - lam) * r[t - 1] ** 2
print("ewma vs garch corr", round(torch.corrcoef(torch.stack([ew, hs]))[0, 1].item(), 1))

try:
    torch.optim.LBFGS([theta], line_search_fn="armijo")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.LBFGS([theta, torch.zeros(2, requires_grad=True)]).param_groups.append({})
    bad = torch.optim.LBFGS([{"params": [theta]}, {"params": [torch.zeros(1, requires_grad=True)]}])
except Exception as e:
    print(type(e).__name__, e)
