"""Value-at-risk and expected shortfall as a risk desk computes and backtests them: historical VaR by
torch.quantile with every interpolation mode, kthvalue and topk order statistics, nanquantile on a panel with
missing prices, parametric and Cornish-Fisher VaR with ndtri, CVaR as the tail mean, a rolling-window VaR with
unfold, exceptions counted for the Kupiec and Christoffersen likelihood-ratio tests (xlogy, chi2 via
torch.distributions), and Basel traffic-light zones with bucketize."""

import math

import torch

torch.manual_seed(0)
dtype = torch.float64
T = 500
t = torch.arange(T, dtype=dtype)
pnl = 0.01 * torch.sin(t * 0.37) * (1 + 0.5 * torch.cos(t * 0.05)) + 0.004 * torch.sin(t * 1.91 + 1.0)
pnl[::47] -= 0.025
print("pnl", round(pnl.sum().item(), 4), round(pnl.min().item(), 4))

alpha = 0.01
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    q = torch.quantile(pnl, alpha, interpolation=mode)
    print("quantile", mode, round(q.item(), 6))
qs = torch.quantile(pnl, torch.tensor([0.01, 0.025, 0.05], dtype=dtype))
print("multi", qs.round(decimals=6).tolist())
k = math.ceil(alpha * T)
kth = torch.kthvalue(pnl, k)
print("kthvalue", round(kth.values.item(), 6), kth.indices.item(), type(kth).__name__)
worst = torch.topk(pnl, 10, largest=False)
print("worst days", worst.indices[:5].tolist(), worst.values.is_contiguous())
var99 = -torch.quantile(pnl, alpha)
tail = pnl[pnl <= -var99]
print("hist var/cvar", round(var99.item(), 6), round(-tail.mean().item(), 6), tail.numel())

z = torch.special.ndtri(torch.tensor(alpha, dtype=dtype))
mu, sd = pnl.mean(), pnl.std()
skew = ((pnl - mu) ** 3).mean() / sd**3
kurt = ((pnl - mu) ** 4).mean() / sd**4 - 3
zcf = z + (z**2 - 1) * skew / 6 + (z**3 - 3 * z) * kurt / 24 - (2 * z**3 - 5 * z) * skew**2 / 36
print(
    "z", round(z.item(), 4), "gauss var", round(-(mu + z * sd).item(), 6), "cf var", round(-(mu + zcf * sd).item(), 6)
)
pdf = torch.exp(-0.5 * z**2) / math.sqrt(2 * math.pi)
print("gauss es", round((sd * pdf / alpha - mu).item(), 6))

panel = torch.stack([pnl, pnl.roll(3) * 1.5, -pnl * 0.5], dim=1)
panel[10:20, 1] = float("nan")
panel[5, 2] = float("nan")
print(
    "quantile with nan",
    torch.quantile(panel, 0.05, dim=0).tolist()[1:] == [float("nan")] * 2
    or torch.quantile(panel, 0.05, dim=0).isnan().tolist(),
)
print("nanquantile", torch.nanquantile(panel, 0.05, dim=0).round(decimals=6).tolist())
print(
    "nanquantile keepdim",
    tuple(torch.nanquantile(panel, torch.tensor([0.01, 0.05], dtype=dtype), dim=0, keepdim=True).shape),
)
print("nanmedian", torch.nanmedian(panel, dim=0).values.round(decimals=6).tolist())

window = 250
wins = pnl.unfold(0, window, 1)
roll_var = -torch.quantile(wins, alpha, dim=1)
realised = pnl[window:]
exc = (realised < -roll_var[:-1]).to(dtype)
n_exc, n = int(exc.sum().item()), exc.numel()
print("rolling var", tuple(wins.shape), round(roll_var.mean().item(), 6), "exceptions", n_exc, "of", n)

pi_hat = exc.mean()
lr_uc = -2 * (
    torch.xlogy(torch.tensor(n - n_exc, dtype=dtype), torch.tensor(1 - alpha, dtype=dtype))
    + n_exc * math.log(alpha)
    - torch.xlogy(torch.tensor(n - n_exc, dtype=dtype), 1 - pi_hat)
    - torch.xlogy(pi_hat * 0 + n_exc, pi_hat)
)
chi2 = torch.distributions.Chi2(torch.tensor(1.0, dtype=dtype))
pval = 1 - chi2.cdf(lr_uc.clamp(min=1e-12))
print("kupiec", round(lr_uc.item(), 4), round(pval.item(), 4))
prev, cur = exc[:-1], exc[1:]
n00 = ((prev == 0) & (cur == 0)).sum()
n01 = ((prev == 0) & (cur == 1)).sum()
n10 = ((prev == 1) & (cur == 0)).sum()
n11 = ((prev == 1) & (cur == 1)).sum()
print("transitions", [n00.item(), n01.item(), n10.item(), n11.item()], n00.dtype)

zones = torch.tensor([4, 9], dtype=torch.int64)
counts = torch.tensor([0, 3, 4, 5, 9, 10, 14])
print("traffic light", torch.bucketize(counts, zones).tolist(), torch.bucketize(counts, zones, right=True).tolist())
print("searchsorted side", torch.searchsorted(zones, counts, side="right").tolist())

for bad in [
    lambda: torch.quantile(pnl, 1.5),
    lambda: torch.quantile(pnl.float(), torch.tensor([0.5], dtype=dtype)),
    lambda: torch.quantile(pnl, 0.5, interpolation="cubic"),
    lambda: torch.kthvalue(pnl, 0),
    lambda: torch.quantile(torch.empty(0, dtype=dtype), 0.5),
    lambda: torch.quantile(pnl.to(torch.int64), 0.5),
    lambda: torch.topk(pnl, 600),
]:
    try:
        r = bad()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, e)
