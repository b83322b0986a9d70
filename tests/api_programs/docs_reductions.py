"""Reduction docstring examples: order statistics, quantiles, moments with correction, unique, histograms, scans."""

import numpy as np
import torch

rng = np.random.default_rng(1)
x = torch.arange(1.0, 6.0)
print("kthvalue", torch.kthvalue(x, 4), torch.kthvalue(torch.tensor([[3, 1], [2, 5]]), 1, 0, True))
v = torch.kthvalue(torch.tensor([[3.0, 1.0, 2.0], [6.0, 5.0, 4.0]]), 2, dim=1)
print("kthvalue fields", v.values, v.indices, v[0].dtype, type(v).__name__)
a = torch.tensor([[6, 1, 2, 2, 3], [4, 4, 1, 2, 2], [0, 0, 1, 2, 3]])
print("mode", torch.mode(a, 1), torch.mode(torch.tensor([1, 2, 2, 3, 3])))
m = torch.tensor([[0.2505, -0.3982, -0.9948, 0.3518, -1.3131], [0.3180, -0.6993, 1.0436, 0.0438, 0.2270]])
print("median", torch.median(m), torch.median(m, 1), torch.median(torch.tensor([1.0, 4.0, 2.0, 3.0])))
print("median keepdim", m.median(dim=0, keepdim=True).values.shape, torch.median(torch.tensor([2, 1, 3])).dtype)
n = torch.tensor([1, float("nan"), 3, 2])
print("median nan", n.median(), n.nanmedian(), torch.tensor([float("nan")] * 2).nanmedian())
nm = torch.tensor([[2, 3, 1], [float("nan"), 1, float("nan")]])
print("nanmedian dim", nm.median(0), nm.nanmedian(0))
q = torch.tensor([0.0, 0.25, 0.5, 1.0])
a = torch.tensor([[0.0795, -1.2117, 0.9765], [1.1707, 0.6706, 0.4884]])
print("quantile", torch.quantile(a, q, dim=1, keepdim=True).shape, torch.quantile(a, q, dim=1))
a4 = torch.arange(4.0)
for interp in ["linear", "lower", "higher", "nearest", "midpoint"]:
    print("quantile", interp, torch.quantile(a4, 0.6, interpolation=interp), a4.quantile(torch.tensor([0.1, 0.5])))
print("quantile scalar", torch.quantile(torch.tensor([0.0, 1.0, 2.0]), 0.5), torch.quantile(a, 0.5))
tn = torch.tensor([float("nan"), 1, 2])
print("nanquantile", tn.quantile(0.5), tn.nanquantile(0.5))
tn2 = torch.tensor([[float("nan"), float("nan")], [1, 2]])
print("nanquantile dim", tn2.nanquantile(0.5, dim=0), tn2.nanquantile(0.5, dim=1))
s = torch.tensor(
    [[0.2035, 1.2959, 1.8101, -0.4644], [1.5027, -0.3270, 0.5905, 0.6538], [-1.5745, 1.3330, -0.5596, -0.6548]]
)
print("std", torch.std(s, dim=1, keepdim=True), torch.std(s, correction=0))
print("var", torch.var(s, dim=1, keepdim=True), torch.var(s, dim=(0, 1), correction=2))
print("var unbiased", s.var(unbiased=False), s.std(0, unbiased=True), s.var(1, correction=0.5))
print("var_mean", torch.var_mean(s, dim=0, keepdim=True))
print("std_mean", torch.std_mean(s, dim=0), torch.std_mean(s, correction=0))
print("var single", torch.var(torch.tensor([1.0])), torch.std(torch.tensor([3.0]), correction=0))
print("aminmax", torch.aminmax(torch.tensor([1, -3, 5])), torch.aminmax(torch.tensor([[1.0, 2], [3, -4]]), dim=0))
amm = torch.aminmax(torch.tensor(2.5), dim=0, keepdim=True)
print("aminmax 0d", amm, amm.min.shape, type(amm).__name__)
print("amax amin", torch.amax(s, 1), torch.amin(s, (0, 1)), s.max(dim=1), s.min())
lse = torch.from_numpy(rng.standard_normal((3, 3)).astype(np.float32))
print("logsumexp", torch.logsumexp(lse, dim=1), torch.logsumexp(torch.tensor([-np.inf, -np.inf]), 0))
print("logsumexp big", torch.logsumexp(torch.tensor([1000.0, 1000.0]), 0), lse.logsumexp((0, 1)))
c = torch.zeros(3, 3)
c[rng.integers(0, 3, 5), rng.integers(0, 3, 5)] = 1
print("count_nonzero", torch.count_nonzero(c), torch.count_nonzero(c, dim=0), c.count_nonzero((0, 1)))
output = torch.unique(torch.tensor([1, 3, 2, 3], dtype=torch.long))
print("unique", output)
print("unique inverse", torch.unique(torch.tensor([1, 3, 2, 3]), sorted=True, return_inverse=True))
print("unique 2d inverse", torch.unique(torch.tensor([[1, 3], [2, 3]]), sorted=True, return_inverse=True))
a = torch.tensor([[[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1]], [[0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 1, 1]]])
print("unique all", torch.unique(a), torch.unique(a, dim=0).shape)
print("unique dim1", torch.unique(a, dim=1))
print("unique dim2", torch.unique(a, dim=2, return_inverse=True, return_counts=True))
uq = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
print("unique_consecutive", torch.unique_consecutive(uq))
print("unique_consecutive inv", torch.unique_consecutive(uq, return_inverse=True))
print("unique_consecutive cnt", torch.unique_consecutive(uq, return_counts=True))
print(
    "unique_consecutive dim",
    torch.unique_consecutive(torch.tensor([[1, 2], [1, 2], [3, 4]]), dim=0, return_counts=True),
)
print("unique counts float", torch.unique(torch.tensor([2.5, 1.0, 2.5]), return_counts=True))
print("histc", torch.histc(torch.tensor([1.0, 2, 1]), bins=4, min=0, max=3), torch.histc(torch.tensor([1.0, 2, 1, 5])))
print("histc range", torch.histc(torch.tensor([-1.0, 0.5, 2.0]), bins=3, min=0, max=1))
h = torch.histogram(torch.tensor([1.0, 2, 1]), bins=4, range=(0.0, 3.0), weight=torch.tensor([1.0, 2.0, 4.0]))
print("histogram", h, type(h).__name__)
h = torch.histogram(
    torch.tensor([1.0, 2, 1]), bins=4, range=(0.0, 3.0), weight=torch.tensor([1.0, 2.0, 4.0]), density=True
)
print("histogram density", h.hist, h.bin_edges)
print("histogram edges", torch.histogram(torch.tensor([0.5, 1.5, 2.5, 2.7]), torch.tensor([0.0, 1.0, 3.0])))
print(
    "histogramdd", torch.histogramdd(torch.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), bins=[3, 3]).hist
)
inp = torch.tensor([4, 3, 6, 3, 4])
print("bincount", torch.bincount(inp), torch.bincount(torch.tensor([], dtype=torch.long)))
print("bincount weights", inp.bincount(torch.linspace(0, 1, steps=5)), inp.bincount(minlength=9))
print("bincount weights dtype", inp.bincount(torch.ones(5, dtype=torch.float64)).dtype, inp.bincount().dtype)
cm = torch.tensor([-0.3449, -1.5447, 0.0685, -1.5104, -1.1706, 0.2259, 1.4696, -1.3284, 1.9946, -0.8209])
print("cummax", torch.cummax(cm, dim=0))
print("cummin", torch.cummin(cm, dim=0))
print(
    "cummax ties",
    torch.cummax(torch.tensor([1, 3, 3, 2, 3]), 0),
    torch.cummin(torch.tensor([2.0, float("nan"), 1.0]), 0),
)
print("logcumsumexp", torch.logcumsumexp(cm[:5], dim=0), torch.logcumsumexp(torch.tensor([-np.inf, 0.0]), 0))
print("cumsum cumprod", torch.cumsum(torch.tensor([1, 2, 3], dtype=torch.int8), 0).dtype, torch.cumprod(cm[:4], 0))
print("cumsum dtype", torch.arange(4).cumsum(0, dtype=torch.float32), torch.tensor([True, True]).cumsum(0))
b = torch.tensor([[True, False], [True, True]])
print("all any", torch.all(b), torch.any(b), b.all(dim=1), b.any(0), torch.all(torch.tensor([1, 2])).dtype)
b3 = torch.tensor([[[True, False], [True, True]], [[True, True], [True, True]]])
print("all dims", b3.all(dim=(0, 1)), b3.any(dim=(1, 2)), torch.all(b3, (0, 2), keepdim=True).shape)
print("all uint8", torch.all(torch.tensor([1, 2], dtype=torch.uint8)), torch.any(torch.tensor([0.0, 0.1])))
print(
    "sum prod", torch.sum(s, (0, 1)).round(decimals=4), torch.prod(torch.tensor([[1, 2], [3, 4]]), 1), torch.nansum(n)
)
print("mean nanmean", torch.mean(s, 1, True), torch.nanmean(n), torch.tensor([1, 2]).sum(dtype=torch.float16))
print("norm-ish", torch.linalg.vector_norm(s, ord=1), torch.dist(s[0], s[1], p=3), torch.norm(s, dim=1))
for bad in [
    lambda: torch.kthvalue(x, 6),
    lambda: torch.mode(torch.tensor([]), 0),
    lambda: torch.quantile(a4, 1.5),
    lambda: torch.quantile(a4, 0.5, interpolation="cubic"),
    lambda: torch.quantile(torch.arange(4), 0.5),
    lambda: torch.median(torch.tensor([]), 0),
    lambda: torch.mean(torch.tensor([1, 2])),
    lambda: torch.histc(torch.tensor([1, 2])),
    lambda: torch.histc(torch.tensor([1.0]), bins=-1),
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(torch.tensor([[1]])),
    lambda: torch.bincount(torch.tensor([1.0])),
    lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.ones(3)),
    lambda: torch.unique(a, dim=3),
    lambda: torch.logsumexp(torch.tensor([1, 2]), 0),
    lambda: torch.cummax(torch.tensor([]), 0),
    lambda: torch.aminmax(torch.tensor([])),
    lambda: torch.std(torch.tensor([1, 2])),
    lambda: torch.histogram(torch.tensor([1, 2]), bins=2),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
