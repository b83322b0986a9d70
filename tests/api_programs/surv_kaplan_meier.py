"""Kaplan-Meier and Nelson-Aalen estimators vectorised with unique/bincount/cumprod, Greenwood variances and log-log
confidence bands, step-function lookup by searchsorted (right=, side=, sorter=, out_int32=), and median survival."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)

time = torch.tensor([6, 6, 6, 6, 7, 9, 10, 10, 11, 13, 16, 17, 19, 20, 22, 23, 25, 32, 32, 34, 35])
event = torch.tensor([1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0])


def kaplan_meier(t, e):
    uniq, inv = torch.unique(t, return_inverse=True)
    d = torch.bincount(inv, weights=e.double())
    c = torch.bincount(inv).double()
    at_risk = c.flip(0).cumsum(0).flip(0)
    surv = torch.cumprod(1.0 - d / at_risk, dim=0)
    return uniq, d, at_risk, surv


uniq, d, n, S = kaplan_meier(time, event)
print("times", uniq)
print("d", d)
print("n", n)
print("S", S)
greenwood = torch.cumsum(d / (n * (n - d)), 0)
print("greenwood", greenwood)
se = S * greenwood.sqrt()
print("se", se)
with torch.no_grad():
    logm = torch.log(-torch.log(S))
    z = torch.distributions.Normal(0.0, 1.0).icdf(torch.tensor(0.975)).item()
    half = z * greenwood.sqrt() / torch.log(S)
    lo, hi = torch.exp(-torch.exp(logm - half)), torch.exp(-torch.exp(logm + half))
print("z", round(z, 4))
print("lo", lo)
print("hi", hi)

H = torch.cumsum(d / n, 0)
print("nelson-aalen", H, "breslow S", torch.exp(-H))

# evaluating the step function at arbitrary times
q = torch.tensor([0.0, 6.0, 6.5, 10.0, 21.9, 35.0, 100.0])
idx = torch.searchsorted(uniq, q.to(uniq.dtype), right=True) - 1
print("idx", idx)
S_pad = torch.cat([torch.ones(1, dtype=S.dtype), S])
print("S(q)", S_pad[idx + 1])
print(torch.searchsorted(uniq.double(), q, side="right"))
print(torch.searchsorted(uniq, torch.tensor([[5, 7], [30, 40]]), out_int32=True))
unsorted = torch.tensor([30, 10, 20, 0])
print(torch.searchsorted(unsorted, torch.tensor([15, 25]), sorter=torch.argsort(unsorted)))
print(torch.searchsorted(uniq, 17), torch.searchsorted(uniq, 17, right=True))
print(torch.bucketize(q, uniq.double()), torch.bucketize(q, uniq.double(), right=True))
try:
    torch.searchsorted(uniq, q, side="left", right=True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.searchsorted(uniq, q, side="middle")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.searchsorted(uniq.reshape(-1)[None].expand(2, -1), q)
except RuntimeError as e:
    print(type(e).__name__, e)

# median survival: first time S <= 0.5 (none -> inf)
below = (S <= 0.5).nonzero()
print("median", uniq[below[0]].item() if below.numel() else float("inf"))
print("argmax trick", torch.argmax((S <= 0.5).int()), (S <= 0.5).any())
S2 = kaplan_meier(torch.tensor([1, 2, 3, 4]), torch.tensor([1, 1, 1, 1]))[3]
print(S2, uniq.new_tensor([1, 2, 3, 4])[(S2 <= 0.5).int().argmax()])

# restricted mean survival time up to tau by trapezoid of a step function
tau = 30
grid = torch.cat([torch.zeros(1, dtype=torch.long), uniq[uniq <= tau], torch.tensor([tau])])
vals = torch.cat([torch.ones(1, dtype=S.dtype), S[uniq <= tau]])
rmst = (torch.diff(grid).double() * vals).sum()
print("rmst", rmst, grid.dtype, torch.diff(grid).dtype)

# two-group log-rank test
group = torch.tensor([0, 1] * 10 + [0])
O1 = E1 = V = torch.zeros((), dtype=torch.float64)
for j in range(uniq.numel()):
    at = time >= uniq[j]
    dj = (time == uniq[j]) & (event == 1)
    n_j, n1 = at.sum(), (at & (group == 1)).sum()
    d_j, d1 = dj.sum(), (dj & (group == 1)).sum()
    O1 = O1 + d1
    E1 = E1 + d_j * n1 / n_j
    if n_j > 1:
        V = V + d_j * (n1 / n_j) * (1 - n1 / n_j) * (n_j - d_j) / (n_j - 1)
chi2 = (O1 - E1) ** 2 / V
print("logrank", O1, E1.round(decimals=4), V.round(decimals=4), chi2.round(decimals=4))
print("p", torch.special.gammaincc(torch.tensor(0.5, dtype=torch.float64), chi2 / 2))
print((event == 1).sum() / len(event), (event == 1).sum() // 2, torch.true_divide(d.sum(), 3))
