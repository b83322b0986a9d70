"""statistics: quantiles, histograms, unique, sorting, scans, searching, nan-reductions, moments."""

import numpy as np
import torch

rng = np.random.default_rng(5)
x = torch.from_numpy(np.round(rng.standard_normal(12), 3).astype(np.float32))
print(x)
q = torch.tensor([0.1, 0.5, 0.9])
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print(mode, torch.quantile(x, q, interpolation=mode))
xn = x.clone()
xn[[1, 4]] = float("nan")
print("nanquantile", torch.nanquantile(xn, 0.25), torch.quantile(xn, 0.25))
m = x.reshape(3, 4)
print("quantile dim", torch.quantile(m, q, dim=1, keepdim=True).shape, torch.quantile(m, 0.5, dim=0))
print("histc", torch.histc(x, bins=5, min=-2, max=2))
h = torch.histogram(x, bins=4)
print("histogram", h.hist, h.bin_edges)
h2 = torch.histogram(x, bins=torch.tensor([-3.0, -1.0, 0.0, 1.0, 3.0]), density=True)
print("density", h2.hist)
hd = torch.histogramdd(m.T.contiguous()[:, :2], bins=[2, 3])
print("histogramdd", hd.hist, [e for e in hd.bin_edges])
ints = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
print("bincount", torch.bincount(ints), torch.bincount(ints, minlength=12))
w = torch.linspace(0, 1, 11)
print("bincount w", torch.bincount(ints, weights=w))
u, inv, cnt = torch.unique(ints, sorted=True, return_inverse=True, return_counts=True)
print("unique", u, inv, cnt)
rows = torch.tensor([[1, 2], [3, 4], [1, 2], [0, 5]])
ur, ui = torch.unique(rows, dim=0, return_inverse=True)
print("unique dim", ur, ui)
print(
    "unique_consecutive",
    torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True, return_inverse=True),
)
vals, idx = torch.sort(torch.tensor([2, 1, 2, 1, 3, 1]), stable=True)
print("stable sort", vals, idx)
print("sort desc", torch.sort(torch.tensor([2, 1, 2, 1, 3, 1]), descending=True, stable=True))
print("argsort", torch.argsort(x, descending=True))
print("cummax", torch.cummax(x, 0))
print("cummin", torch.cummin(ints, 0))
print("logcumsumexp", torch.logcumsumexp(torch.tensor([0.0, -float("inf"), 1.0, 2.0]), 0))
print("cumprod", torch.cumprod(torch.tensor([1, 2, 3, 4]), 0).dtype, torch.cumsum(torch.tensor([True, True, False]), 0))
sd = torch.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
vv = torch.tensor([[0.0, 3.0, 9.0], [1.0, 7.0, 10.0]])
print(
    "searchsorted",
    torch.searchsorted(sd, vv),
    torch.searchsorted(sd, vv, side="right"),
    torch.searchsorted(sd, vv, right=True, out_int32=True),
)
uns = torch.tensor([5.0, 1.0, 9.0, 3.0, 7.0])
print("sorter", torch.searchsorted(uns, torch.tensor([4.0, 8.0]), sorter=torch.argsort(uns)))
print("bucketize", torch.bucketize(vv, sd), torch.bucketize(vv, sd, right=True))
print("kthvalue", torch.kthvalue(x, 3), torch.kthvalue(m, 2, dim=1))
print("mode", torch.mode(torch.tensor([[1, 2, 2, 3], [4, 4, 1, 1]]), 1))
print("median even", torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0])), torch.median(m, dim=1))
print("nanmedian", torch.nanmedian(xn), torch.nanmedian(xn.reshape(3, 4), dim=1))
print("nanmean", torch.nanmean(xn), torch.nansum(xn), torch.nansum(xn.reshape(3, 4), dim=0))
print("std_mean", torch.std_mean(m, dim=1, correction=0), torch.var_mean(m, 0, keepdim=True))
print("var", torch.var(x, unbiased=False), torch.var(x), torch.std(m, dim=0, correction=2))
print("var one", torch.var(torch.tensor([1.0])))
pts = torch.tensor([[0.0, 1.0, 2.0, 3.0, 5.0], [1.0, 0.5, 2.0, 1.5, 4.0], [2.0, 2.0, 1.0, 0.0, -1.0]])
print("cov", torch.cov(pts))
print(
    "cov w",
    torch.cov(
        pts, correction=0, fweights=torch.tensor([1, 2, 1, 3, 1]), aweights=torch.tensor([0.5, 1.0, 1.0, 0.2, 0.3])
    ),
)
print("corrcoef", torch.corrcoef(pts))
print(
    "diff",
    torch.diff(sd),
    torch.diff(sd, n=2),
    torch.diff(sd, prepend=torch.tensor([0.0]), append=torch.tensor([10.0, 20.0])),
)
print("diff 2d", torch.diff(m, dim=0))
f = torch.tensor([1.0, 4.0, 9.0, 16.0, 25.0])
print("gradient", torch.gradient(f), torch.gradient(f, spacing=2.0), torch.gradient(f, edge_order=2))
coords = torch.tensor([0.0, 1.0, 1.5, 3.5, 4.0])
print("gradient coords", torch.gradient(f, spacing=(coords,)), torch.gradient(m, dim=1))
print("trapezoid", torch.trapezoid(f), torch.trapezoid(f, dx=0.5), torch.trapezoid(f, x=coords))
print("cumulative_trapezoid", torch.cumulative_trapezoid(f), torch.cumulative_trapezoid(f, x=coords))
print("aminmax", torch.aminmax(m, dim=0))
print("count_nonzero", torch.count_nonzero(m > 0, dim=1), torch.topk(x, 3, largest=False))
print("msort", torch.msort(m), torch.nanmean(torch.tensor([float("nan")])))
for bad in [
    lambda: torch.quantile(x, 1.5),
    lambda: torch.nanquantile(x, torch.tensor([0.5, -1.0])),
    lambda: torch.quantile(x, 0.5, interpolation="cubic"),
    lambda: torch.cov(pts, fweights=torch.ones(5)),
    lambda: torch.cov(pts, aweights=torch.tensor([1, 1, 1, 1, 1])),
    lambda: torch.cov(pts, fweights=torch.tensor([1, -1, 1, 1, 1])),
    lambda: torch.cov(torch.ones(2, 2, 2)),
    lambda: torch.histc(x, bins=0),
]:
    try:
        bad()
    except RuntimeError as e:
        print("error", e)
print("combinations r=0", torch.combinations(torch.tensor([1, 2, 3]), r=0))
