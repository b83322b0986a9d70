"""Nearest-neighbour matching for the ATT: Mahalanobis and propensity distances with cdist, topk/argmin with
ties, caliper masks, matching with replacement (bincount weights) and bias-corrected estimates."""

import torch

torch.manual_seed(4)
torch.set_printoptions(precision=4, sci_mode=False)
n = 40
X = torch.randn(n, 2, dtype=torch.float64)
T = (torch.rand(n) < torch.sigmoid(X[:, 0])).long()
Y = X.sum(1) + 1.5 * T + 0.3 * torch.randn(n, dtype=torch.float64)
it, ic = (T == 1).nonzero().squeeze(1), (T == 0).nonzero().squeeze(1)
print("groups", it.numel(), ic.numel(), it.dtype)

cov = torch.cov(X.T)
L = torch.linalg.cholesky(torch.linalg.inv(cov))
Xw = X @ L
D = torch.cdist(Xw[it], Xw[ic])
D2 = torch.cdist(X[it].T.contiguous().T, X[ic], p=1)
print("dist", D.shape, D.is_contiguous(), D2.stride(), round(D.min().item(), 4))
d1, j1 = D.min(dim=1)
j2 = D.argmin(dim=1)
print("argmin agrees", torch.equal(j1, j2), j1[:6].tolist())
vals, nn3 = D.topk(3, dim=1, largest=False)
print("3-nn", nn3[:3].tolist(), vals[:2].round(decimals=3))
print("sorted", torch.equal(vals, vals.sort(dim=1).values), vals.stride(), nn3.dtype)

# ties: rounded distances tie, topk and argmin pick indices PyTorch's way
Dr = (D * 2).round() / 2
print(
    "ties",
    (Dr[0] == Dr[0].min()).sum().item(),
    Dr[0].argmin().item(),
    Dr.topk(2, dim=1, largest=False).indices[:4].tolist(),
)
print(
    "sort stable",
    Dr[0].sort(stable=True).indices[:5].tolist(),
    Dr[0].argsort(descending=True, stable=True)[:3].tolist(),
)
print("kth", Dr[0].kthvalue(2).indices.item(), Dr.min(0).indices[:5].tolist())

# matching with replacement: weights on controls
match = ic[j1]
w_c = torch.bincount(match, minlength=n).double()
print("reuse", w_c.max().item(), (w_c > 0).sum().item(), w_c.dtype)
att = (Y[it] - Y[match]).mean()
print("att", round(att.item(), 4))
# bias correction by regressing Y on X within controls
beta = torch.linalg.lstsq(torch.cat([torch.ones(ic.numel(), 1, dtype=torch.float64), X[ic]], 1), Y[ic]).solution
mu0 = lambda x: beta[0] + x @ beta[1:]
att_bc = (Y[it] - Y[match] - (mu0(X[it]) - mu0(X[match]))).mean()
print("att bc", round(att_bc.item(), 4))
# k-nn averaging with gather
y_c = Y[ic]
y_knn = y_c[nn3].mean(1)
y_knn2 = torch.gather(y_c.expand(it.numel(), -1), 1, nn3).mean(1)
print("knn att", round((Y[it] - y_knn).mean().item(), 4), torch.allclose(y_knn, y_knn2))

# caliper on the propensity logit
ps = torch.sigmoid(X[:, 0])
lg = torch.logit(ps)
cal = 0.2 * lg.std()
Dp = torch.cdist(lg[it, None], lg[ic, None])
ok = Dp.min(1).values <= cal
print("caliper", round(cal.item(), 4), ok.sum().item(), ok.all().item())
masked = Dp.masked_fill(Dp > cal, float("inf"))
mm = masked.min(1)
print("inf rows", torch.isinf(mm.values).sum().item(), mm.indices[~ok].tolist())
# 1:1 greedy matching without replacement
avail = torch.ones(ic.numel(), dtype=torch.bool)
pairs = []
for r in Dp.min(1).values.argsort():
    row = Dp[r].masked_fill(~avail, float("inf"))
    c = row.argmin()
    if torch.isfinite(row[c]):
        pairs.append((r.item(), c.item()))
        avail[c] = False
print("greedy", len(pairs), pairs[:4], avail.sum().item())
# balance after matching
mt, mc = X[it], X[match]
print("smd after", ((mt.mean(0) - mc.mean(0)) / X.std(0)).round(decimals=3))

# edge cases
print("topk k=0", D.topk(0, dim=1).values.shape, torch.tensor(2.0).topk(0))
print(
    "argmin all-inf", torch.full((3,), float("inf")).argmin().item(), torch.tensor([float("nan"), 0.0]).argmin().item()
)
print("min of empty rows", torch.empty(2, 0).amin(0).shape)
for bad in [
    lambda: torch.empty(2, 0).min(1),
    lambda: D.topk(ic.numel() + 1, dim=1),
    lambda: torch.empty(0).argmin(),
    lambda: torch.tensor([True, False]).topk(1),
    lambda: torch.cdist(X[it].half(), X[ic].half()),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
