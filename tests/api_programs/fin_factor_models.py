"""Cross-sectional factor research as asset-pricing code writes it: Fama-MacBeth regressions with batched
torch.linalg.lstsq over months, Newey-West standard errors, time-series betas by solving the normal equations
with cholesky_solve, rank-normalised characteristics with argsort, winsorisation by nanquantile and clamp, quintile
long-short portfolios with scatter_add and one_hot, information coefficients by Spearman correlation, and pinv."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
dtype = torch.float64
M, N, K = 36, 50, 3
chars = torch.randn(M, N, K, dtype=dtype)
premia = torch.tensor([0.005, -0.003, 0.0], dtype=dtype)
ret = (chars * premia).sum(-1) + 0.02 * torch.randn(M, N, dtype=dtype)
print("panel", tuple(chars.shape), ret.dtype)

lo = torch.nanquantile(chars, 0.02, dim=1, keepdim=True)
hi = torch.nanquantile(chars, 0.98, dim=1, keepdim=True)
wins = torch.clamp(chars, lo, hi)
print("winsorised", bool((wins >= lo).all() and (wins <= hi).all()), tuple(lo.shape))
ranks = wins.argsort(dim=1).argsort(dim=1).to(dtype)
z = (ranks - ranks.mean(1, keepdim=True)) / ranks.std(1, keepdim=True)
print("rank z", round(z.mean().item(), 6), round(z.std(1).mean().item(), 4))

X = torch.cat([torch.ones(M, N, 1, dtype=dtype), z], dim=-1)
sol = torch.linalg.lstsq(X, ret.unsqueeze(-1))
gam = sol.solution.squeeze(-1)
print("lstsq batch", tuple(sol.solution.shape), sol.rank.shape if sol.rank is not None else None, sol.residuals.shape)
gbar = gam.mean(0)
print("fm premia x100", (gbar * 100).round(decimals=3).tolist())


def newey_west(x, lags):
    x = x - x.mean(0)
    T_ = x.shape[0]
    S = x.T @ x / T_
    for l in range(1, lags + 1):
        w = 1 - l / (lags + 1)
        G = x[l:].T @ x[:-l] / T_
        S = S + w * (G + G.T)
    return torch.sqrt(torch.diagonal(S) / T_)


se = newey_west(gam, 3)
print("nw t-stats", (gbar / se).round(decimals=1).tolist())
print("naive t", (gbar / (gam.std(0) / M**0.5)).round(decimals=1).tolist())

mkt = ret.mean(1)
Xt = torch.stack([torch.ones(M, dtype=dtype), mkt], 1)
XtX = Xt.T @ Xt
Lc = torch.linalg.cholesky(XtX)
betas = torch.cholesky_solve(Xt.T @ ret, Lc)
print("ts betas", tuple(betas.shape), round(betas[1].mean().item(), 4))
print("vs lstsq", torch.allclose(betas, torch.linalg.lstsq(Xt, ret).solution))
print(
    "pinv",
    torch.allclose(torch.linalg.pinv(Xt) @ ret, betas),
    torch.allclose(torch.linalg.pinv(XtX, hermitian=True), torch.linalg.inv(XtX)),
)

sig = z[..., 0]
q = torch.div(sig.argsort(1).argsort(1) * 5, N, rounding_mode="floor")
onehot = F.one_hot(q, 5).to(dtype)
port = (onehot * ret.unsqueeze(-1)).sum(1) / onehot.sum(1)
print("quintile counts", onehot.sum(1)[0].tolist(), onehot.dtype)
ls = port[:, -1] - port[:, 0]
print("long-short mean x100", round(ls.mean().item() * 100, 3), "monotone", bool((port.mean(0).diff() > 0).sum() >= 3))
sums = torch.zeros(M, 5, dtype=dtype).scatter_add_(1, q, ret)
print("scatter_add agrees", torch.allclose(sums / 10, port))


def spearman(a, b):
    ra = a.argsort(-1).argsort(-1).to(dtype)
    rb = b.argsort(-1).argsort(-1).to(dtype)
    ra = ra - ra.mean(-1, keepdim=True)
    rb = rb - rb.mean(-1, keepdim=True)
    return (ra * rb).sum(-1) / (ra.norm(dim=-1) * rb.norm(dim=-1))


ic = spearman(chars[..., 0], ret)
print("mean ic", round(ic.mean().item(), 2), "icir", round((ic.mean() / ic.std()).item(), 1))
print("ic hit rate", round((ic > 0).double().mean().item(), 2))
ic_mat = torch.corrcoef(torch.stack([ic, spearman(chars[..., 1], ret), spearman(chars[..., 2], ret)]))
print("ic corr shape", tuple(ic_mat.shape), torch.allclose(ic_mat, ic_mat.T))

for bad in [
    lambda: torch.linalg.lstsq(X, ret),
    lambda: torch.linalg.lstsq(X.float(), ret.unsqueeze(-1)),
    lambda: torch.linalg.lstsq(X, ret.unsqueeze(-1), driver="gelsy"),
    lambda: torch.cholesky_solve(ret[:2], Lc),
    lambda: torch.nanquantile(chars, 0.5, dim=5),
]:
    try:
        r = bad()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, e)
