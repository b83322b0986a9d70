"""Numerical integration and descriptive statistics as a scientist does them with torch: trapezoid and
cumulative_trapezoid (dx, x, dims), Simpson's rule, Gauss-Legendre nodes by Golub-Welsch (eigh of the Jacobi
matrix), Romberg extrapolation, Monte Carlo with a numpy RNG, an empirical CDF with searchsorted/bucketize, and the
summary statistics of a data table: std_mean, var_mean with correction, weighted cov, corrcoef, nan-aware
reductions, median/mode/kthvalue along dims, aminmax, logsumexp and cummax/cumprod."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
rng = np.random.default_rng(8)


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


x = torch.linspace(0, math.pi, 33, dtype=f64)
y = torch.sin(x)
print(
    "trapezoid", round(torch.trapezoid(y, x).item(), 6), "dx form", round(torch.trapezoid(y, dx=math.pi / 32).item(), 6)
)
print("trapz alias", torch.trapz(y, x).item() == torch.trapezoid(y, x).item())
ct = torch.cumulative_trapezoid(y, x)
print("cumulative", ct.shape, r(ct[[7, 15, 31]], 3, 5), "vs 1-cos", r(1 - torch.cos(x[[8, 16, 32]]), 3, 5))
Y2 = torch.stack([torch.sin(x), torch.cos(x), x**2])
print("batched trapezoid", r(torch.trapezoid(Y2, x, dim=-1), 3, 5), "dim0", torch.trapezoid(Y2, dim=0).shape)
xu = torch.tensor([0.0, 0.1, 0.3, 0.7, 1.0], dtype=f64)
print(
    "uneven grid",
    round(torch.trapezoid(xu**2, xu).item(), 5),
    "int input",
    torch.trapezoid(torch.tensor([1, 2, 3])).item(),
)
print("cumtrapz dx", torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0]), dx=2.0).tolist())


def simpson(f_vals, h):
    return h / 3 * (f_vals[0] + f_vals[-1] + 4 * f_vals[1:-1:2].sum() + 2 * f_vals[2:-1:2].sum())


print("simpson", round(simpson(y, math.pi / 32).item(), 10))


# Gauss-Legendre via Golub-Welsch
def gauss_legendre(n):
    k = torch.arange(1, n, dtype=f64)
    beta = k / torch.sqrt(4 * k**2 - 1)
    J = torch.diag(beta, 1) + torch.diag(beta, -1)
    nodes, V = torch.linalg.eigh(J)
    weights = 2 * V[0] ** 2
    return nodes, weights


nodes, weights = gauss_legendre(5)
print("GL nodes", r(nodes, 5, 6), "weights sum", round(weights.sum().item(), 12))
print("GL exact to degree 9", round((weights * nodes**8).sum().item(), 10), "== 2/9", round(2 / 9, 10))
a, b = 0.0, math.pi
gx = (b - a) / 2 * nodes + (a + b) / 2
print("GL sin integral", round(((b - a) / 2 * (weights * torch.sin(gx)).sum()).item(), 8))


# Romberg
def romberg(f, a, b, levels=5):
    R = torch.zeros(levels, levels, dtype=f64)
    for i in range(levels):
        n = 2**i
        xs = torch.linspace(a, b, n + 1, dtype=f64)
        R[i, 0] = torch.trapezoid(f(xs), xs)
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4**j - 1)
    return R


Rm = romberg(torch.exp, 0.0, 1.0)
print("romberg diag", r(Rm.diagonal(), 5, 10), "error", f"{abs(Rm[-1, -1].item() - (math.e - 1)):.0e}")

# Monte Carlo with a numpy RNG: pi and a Gaussian expectation
pts = torch.from_numpy(rng.random((20000, 2)))
inside = (pts.pow(2).sum(1) <= 1).to(f64)
print("MC pi", round(4 * inside.mean().item(), 3), "stderr", round(4 * inside.std().item() / math.sqrt(20000), 4))
z = torch.from_numpy(rng.standard_normal(20000))
est = torch.cos(z)
print("E[cos Z]", round(est.mean().item(), 3), "exact", round(math.exp(-0.5), 3))
anti = 0.5 * (torch.cos(z) + torch.cos(-z))
print("antithetic (symmetric f) same", torch.allclose(anti, est))

# empirical CDF and binning
data = torch.from_numpy(rng.gamma(2.0, 1.5, 500))
sd, _ = torch.sort(data)
qs = torch.tensor([1.0, 3.0, 6.0], dtype=f64)
ecdf = torch.searchsorted(sd, qs, right=True).to(f64) / sd.numel()
print("ECDF", r(ecdf, 3, 3), "searchsorted side=left", torch.searchsorted(sd, qs, side="left").tolist())
edges = torch.tensor([0.0, 1.0, 2.0, 4.0, 8.0], dtype=f64)
bins = torch.bucketize(data, edges)
print(
    "bucketize",
    bins.dtype,
    torch.bincount(bins, minlength=6).tolist(),
    "right",
    torch.bucketize(torch.tensor([1.0, 2.0], dtype=f64), edges, right=True).tolist(),
)
counts, be = torch.histogram(data, bins=edges, weight=torch.ones_like(data) / 500)
print("weighted histogram", r(counts, 4, 3), be.tolist())

# a data table: 6 stations x 30 days, some missing
T = torch.from_numpy(rng.normal(15, 4, (6, 30)))
T[1, 3] = float("nan")
T[4, [0, 10, 20]] = float("nan")
print("nan count", int(T.isnan().sum()), "rows with nan", T.isnan().any(1).nonzero().flatten().tolist())
print("nanmean", r(T.nanmean(1), 6, 3))
print("nansum", r(T.nansum(1), 2, 2), "nanmedian", r(T.nanmedian(1).values, 6, 3))
clean = T[[0, 2, 3, 5]]
s, m = torch.std_mean(clean, dim=1)
v, m2 = torch.var_mean(clean, dim=1, correction=0)
print("std_mean", r(s, 4, 3), r(m, 4, 3), "var_mean(correction=0)", r(v, 4, 3))
print("var unbiased kw", r(clean.var(1, unbiased=False), 2, 3), "std correction=2", r(clean.std(1, correction=2), 2, 3))
print("cov", r(torch.cov(clean)[0], 4, 3), "corrcoef diag", r(torch.corrcoef(clean).diagonal(), 4, 3))
fw = torch.from_numpy(rng.integers(1, 4, 30))
aw = torch.from_numpy(rng.uniform(0.5, 1.5, 30))
print(
    "cov fweights",
    r(torch.cov(clean, fweights=fw)[0], 2, 3),
    "aweights",
    r(torch.cov(clean, aweights=aw)[0], 2, 3),
    "correction=0",
    r(torch.cov(clean, correction=0)[1], 2, 3),
)
med, med_i = clean.median(dim=1)
print("median even count (lower)", r(med, 4, 3), med_i.dtype, "keepdim", clean.median(dim=1, keepdim=True).values.shape)
kv, ki = torch.kthvalue(clean, 3, dim=1)
print("kthvalue", r(kv, 4, 3), ki.tolist())
ints = torch.from_numpy(rng.integers(0, 5, (3, 12)))
mv, mi = torch.mode(ints, dim=1)
print("mode", mv.tolist(), "counts", [int((ints[i] == mv[i]).sum()) for i in range(3)])
mn, mx = torch.aminmax(clean, dim=1)
print("aminmax", r(mn, 2, 3), r(mx, 2, 3), "global", [round(t.item(), 3) for t in torch.aminmax(clean)])
print(
    "logsumexp",
    r(torch.logsumexp(clean, dim=1), 2, 4),
    "stable",
    round(torch.logsumexp(torch.tensor([1000.0, 1000.0], dtype=f64), 0).item(), 4),
)
cm, ci = torch.cummax(clean[0], 0)
print("cummax", r(cm, 5, 3), ci[:5].tolist(), "cummin last", round(torch.cummin(clean[0], 0).values[-1].item(), 3))
print(
    "cumprod growth",
    round(torch.cumprod(1 + clean[0] / 1000, 0)[-1].item(), 4),
    "logcumsumexp",
    round(torch.logcumsumexp(clean[0], 0)[-1].item(), 4),
)
zs = (clean - clean.mean(1, keepdim=True)) / clean.std(1, keepdim=True)
print("z-scores", r(zs.mean(1), 4, 10), r(zs.std(1), 4, 10))
print(
    "quantile dim",
    torch.quantile(clean, torch.tensor([0.25, 0.75], dtype=f64), dim=1).shape,
    "iqr",
    r(torch.quantile(clean, 0.75, dim=1) - torch.quantile(clean, 0.25, dim=1), 4, 3),
)
print(
    "count_nonzero",
    torch.count_nonzero(clean > 15, dim=1).tolist(),
    "unique_consecutive",
    torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 3, 1])).tolist(),
)

try:
    torch.trapezoid(y, x[:-1])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(torch.ones(2, 3, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(clean, fweights=aw)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.searchsorted(sd, qs, side="middle")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.mode(torch.tensor([]))
except Exception as e:
    print(type(e).__name__, e)
