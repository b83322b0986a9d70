"""Yield-curve construction as a fixed-income desk codes it: bootstrapping discount factors from par swap rates,
linear and log-linear interpolation located with searchsorted/bucketize, a natural cubic spline solved as a
tridiagonal system, a Nelson-Siegel fit by lstsq over a lambda grid and refined with autograd, forward rates by
differentiating log discount factors, key-rate durations and convexity of a bond by autograd, and the errors of
searchsorted misuse."""

import torch

dtype = torch.float64
tenors = torch.tensor([0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 30.0], dtype=dtype)
par = torch.tensor([4.9, 4.8, 4.5, 4.3, 4.1, 4.05, 4.0, 4.2, 4.1], dtype=dtype) / 100
print("tenors", tenors.shape, tenors.dtype, tenors.is_contiguous())

grid = torch.arange(0.5, 30.5, 0.5, dtype=dtype)
par_grid = torch.empty_like(grid)
idx = torch.searchsorted(tenors, grid).clamp(1, len(tenors) - 1)
x0, x1 = tenors[idx - 1], tenors[idx]
y0, y1 = par[idx - 1], par[idx]
par_grid = y0 + (y1 - y0) * ((grid - x0) / (x1 - x0)).clamp(0, 1)
print("interp par", par_grid[[0, 3, 9, 29, 59]].mul(100).round(decimals=4).tolist())
df = torch.empty_like(grid)
annuity = torch.zeros((), dtype=dtype)
for i, (t, c) in enumerate(zip(grid, par_grid)):
    df[i] = (1 - c * 0.5 * annuity) / (1 + c * 0.5)
    annuity = annuity + df[i]
zero = -torch.log(df) / grid
print("discount factors", df[[1, 9, 19, 59]].round(decimals=6).tolist())
print("zero rates %", zero[[1, 9, 19, 59]].mul(100).round(decimals=4).tolist())
print("df monotone", bool((df.diff() < 0).all()))

q = torch.tensor([0.75, 4.2, 12.3, 25.0], dtype=dtype)
pos = torch.searchsorted(grid, q)
print("searchsorted", pos.tolist(), torch.searchsorted(grid, q, right=True).tolist(), pos.dtype)
print("bucketize", torch.bucketize(q, grid).tolist(), torch.bucketize(q, grid, out_int32=True).dtype)
lo, hi = pos - 1, pos
w = (q - grid[lo]) / (grid[hi] - grid[lo])
loglin = torch.exp(torch.lerp(df[lo].log(), df[hi].log(), w))
print("log-linear df", loglin.round(decimals=6).tolist())
perm = torch.randperm(len(grid), generator=torch.Generator().manual_seed(3))
shuffled = grid[perm]
order = torch.argsort(shuffled)
print("sorter", torch.equal(torch.searchsorted(shuffled, q, sorter=order), pos))

h = tenors.diff()
n = len(tenors)
A = torch.zeros(n, n, dtype=dtype)
rhs = torch.zeros(n, dtype=dtype)
A[0, 0] = A[-1, -1] = 1.0
for i in range(1, n - 1):
    A[i, i - 1], A[i, i], A[i, i + 1] = h[i - 1], 2 * (h[i - 1] + h[i]), h[i]
    rhs[i] = 3 * ((par[i + 1] - par[i]) / h[i] - (par[i] - par[i - 1]) / h[i - 1])
c = torch.linalg.solve(A, rhs)
b = (par[1:] - par[:-1]) / h - h * (2 * c[:-1] + c[1:]) / 3
d = (c[1:] - c[:-1]) / (3 * h)
seg = (torch.bucketize(q, tenors) - 1).clamp(0, n - 2)
dx = q - tenors[seg]
spline = par[seg] + b[seg] * dx + c[seg] * dx**2 + d[seg] * dx**3
print("spline", spline.mul(100).round(decimals=4).tolist())
print("tridiagonal", torch.count_nonzero(A).item(), torch.linalg.matrix_rank(A).item())


def ns_basis(t, lam):
    x = t / lam
    f1 = (1 - torch.exp(-x)) / x
    return torch.stack([torch.ones_like(t), f1, f1 - torch.exp(-x)], dim=1)


best = None
for lam in torch.linspace(0.5, 5.0, 10, dtype=dtype):
    X = ns_basis(tenors, lam)
    sol = torch.linalg.lstsq(X, zero[(tenors * 2 - 1).long()].unsqueeze(1))
    res = ((X @ sol.solution).squeeze(1) - zero[(tenors * 2 - 1).long()]).pow(2).sum()
    if best is None or res < best[0]:
        best = (res, lam.item(), sol.solution.squeeze(1))
print("ns grid lambda", best[1], [round(v, 4) for v in (best[2] * 100).tolist()])
params = torch.cat([best[2], torch.tensor([best[1]], dtype=dtype)]).requires_grad_(True)
opt = torch.optim.LBFGS([params], max_iter=50, line_search_fn="strong_wolfe")
target = zero[(tenors * 2 - 1).long()]


def closure():
    opt.zero_grad()
    loss = ((ns_basis(tenors, params[3]) @ params[:3] - target) * 1e4).pow(2).mean()
    loss.backward()
    return loss


opt.step(closure)
print("ns refined rmse bp", round(closure().sqrt().item(), 1))

tt = torch.linspace(1.0, 10.0, 4, dtype=dtype, requires_grad=True)
lndf = -(ns_basis(tt, params[3].detach()) @ params[:3].detach()) * tt
(fwd,) = torch.autograd.grad(lndf.sum(), tt)
print("instantaneous fwd %", (-fwd * 100).round(decimals=3).tolist())

y = zero[[1, 3, 9, 19]].clone().requires_grad_(True)
times = torch.tensor([1.0, 2.0, 5.0, 10.0], dtype=dtype)
cfs = torch.tensor([4.0, 4.0, 4.0, 104.0], dtype=dtype)
price = (cfs * torch.exp(-y * times)).sum()
(krd,) = torch.autograd.grad(price, y, create_graph=True)
conv = torch.autograd.grad(krd.sum(), y)[0]
print("bond price", round(price.item(), 4), "krd", (-krd / price).detach().round(decimals=4).tolist())
print("convexity", (conv / price.detach()).round(decimals=4).tolist())

for bad in [
    lambda: torch.searchsorted(grid, q, side="middle"),
    lambda: torch.searchsorted(grid, q, right=False, side="right"),
    lambda: torch.searchsorted(grid.view(2, -1), q),
    lambda: torch.searchsorted(grid, q, sorter=order[:3]),
    lambda: torch.bucketize(q, grid.view(2, -1)),
    lambda: torch.searchsorted(grid, q.long()),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
