"""Difference-in-differences and an event study on a simulated panel: two-way fixed effects built with one_hot,
OLS by lstsq/pinv with rank checks, cluster-robust standard errors summed by index_add, and parallel-trend tests."""

import torch
import torch.nn.functional as F

torch.manual_seed(12)
torch.set_printoptions(precision=4, sci_mode=False)
units, periods, t0 = 12, 8, 5
unit = torch.arange(units).repeat_interleave(periods)
time = torch.arange(periods).repeat(units)
treated_unit = unit < 5
post = time >= t0
D = (treated_unit & post).double()
alpha = torch.randn(units, dtype=torch.float64)[unit]
gamma = torch.linspace(0, 1, periods, dtype=torch.float64)[time]
Y = alpha + gamma + 0.8 * D + 0.2 * torch.randn(units * periods, dtype=torch.float64)
print("panel", Y.shape, D.sum().item(), unit[:10].tolist(), time[:10].tolist())

# 2x2 DiD by group means
m = lambda tr, po: Y[(treated_unit == tr) & (post == po)].mean()
did = (m(True, True) - m(True, False)) - (m(False, True) - m(False, False))
print("did 2x2", round(did.item(), 4))

# two-way fixed effects: drop one dummy of each to avoid collinearity
U = F.one_hot(unit, units)[:, 1:].double()
Tm = F.one_hot(time, periods)[:, 1:].double()
X = torch.cat([torch.ones(units * periods, 1, dtype=torch.float64), D[:, None], U, Tm], 1)
print("design", X.shape, torch.linalg.matrix_rank(X).item(), F.one_hot(unit).dtype)
Xfull = torch.cat([X, F.one_hot(unit, units).double()], 1)
print("collinear rank", torch.linalg.matrix_rank(Xfull).item(), Xfull.shape[1])
print(
    "rank tol",
    torch.linalg.matrix_rank(Xfull, atol=torch.tensor(1e-8, dtype=torch.float64)).item(),
    torch.linalg.matrix_rank(Xfull, rtol=1e-12, hermitian=False).item(),
)
sol = torch.linalg.lstsq(X, Y[:, None], driver="gelsd")
beta = sol.solution.squeeze(1)
print("twfe", round(beta[1].item(), 4), sol.rank.item(), sol.residuals.shape, sol.singular_values[:2].round(decimals=3))
b_full = torch.linalg.pinv(Xfull) @ Y
print("pinv on collinear", round(b_full[1].item(), 4))
for drv in ["gelsy", "gelss", "gels"]:
    print(drv, round(torch.linalg.lstsq(X, Y, driver=drv).solution[1].item(), 4))

# cluster-robust (by unit) sandwich
resid = Y - X @ beta
bread = torch.linalg.inv(X.T @ X)
scores = X * resid[:, None]
S = torch.zeros(units, X.shape[1], dtype=torch.float64).index_add_(0, unit, scores)
meat = S.T @ S
G, N, K = units, X.shape[0], X.shape[1]
adj = G / (G - 1) * (N - 1) / (N - K)
V = adj * bread @ meat @ bread
se = V.diagonal().sqrt()
print(
    "cluster se", round(se[1].item(), 4), "hc0 se", round((bread @ (scores.T @ scores) @ bread)[1, 1].sqrt().item(), 4)
)
print("t", round((beta[1] / se[1]).item(), 3), V.shape, torch.allclose(V, V.T))

# event study: leads and lags relative to t0 for treated units
rel = torch.where(treated_unit, time - t0, torch.full_like(time, -99))
ks = [k for k in range(-t0, periods - t0) if k != -1]
E = torch.stack([(rel == k).double() for k in ks], 1)
print("event dummies", E.shape, E.sum(0).tolist())
Xe = torch.cat([torch.ones(units * periods, 1, dtype=torch.float64), E, U, Tm], 1)
be = torch.linalg.lstsq(Xe, Y).solution
coef = be[1 : 1 + len(ks)]
print("leads", coef[: t0 - 1].round(decimals=2), "lags", coef[t0 - 1 :].round(decimals=2))
pre = coef[: t0 - 1]
print("pre-trend max", round(pre.abs().max().item(), 3), (pre.abs() < 0.5).all().item())
# Wald test of the leads with the cluster covariance
re = Y - Xe @ be
Se = torch.zeros(units, Xe.shape[1], dtype=torch.float64).index_add_(0, unit, Xe * re[:, None])
Be = torch.linalg.pinv(Xe.T @ Xe, hermitian=True)
Ve = Be @ Se.T @ Se @ Be
idx = torch.arange(1, t0)
Vp = Ve.index_select(0, idx).index_select(1, idx)
wald = pre @ torch.linalg.solve(Vp, pre)
print("wald", round(wald.item(), 3), Vp.shape, torch.linalg.eigvalsh(Vp).min().item() > 0)
print(
    "repeat_interleave",
    torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([2, 3])).tolist(),
    torch.tensor([[1, 2]]).repeat_interleave(2, dim=0).tolist(),
    torch.repeat_interleave(torch.tensor([2, 1])).tolist(),
)
for bad in [
    lambda: F.one_hot(unit, 5),
    lambda: F.one_hot(unit.double()),
    lambda: F.one_hot(torch.tensor([-1])),
    lambda: torch.zeros(3).index_add_(0, torch.tensor([0, 3]), torch.ones(2)),
    lambda: torch.linalg.matrix_rank(X.float(), atol=torch.tensor([1e-3, 1e-2])),
    lambda: torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([1, 2, 3])),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
