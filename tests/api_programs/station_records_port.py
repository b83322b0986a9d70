"""a pandas/numpy weather-station cleaning script ported to torch: NaN-aware statistics per station, ranks and
order statistics on ties, detrending with Vandermonde least squares and Horner evaluation, quality flags with
isin/where/nonzero, gathers of extremes, and the numpy-isms that break on the way."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(2024)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


# 4 stations x 12 months, rounded to 0.5 degrees (many ties), some missing
temps = np.round(rng.normal(12, 6, (4, 12)) * 2) / 2
temps[0, 3] = temps[2, [0, 7]] = temps[3, 11] = np.nan
T = torch.from_numpy(temps).float()
print(
    "nan count", torch.isnan(T).sum(1).tolist(), T.isnan().any().item(), torch.count_nonzero(T.isnan(), dim=0).tolist()
)
print("nanmean", r(torch.nanmean(T, dim=1), 4), r(T.nanmean(), 1), torch.nanmean(T, dim=1, keepdim=True).shape)
print("nansum", r(torch.nansum(T, 1), 4), torch.nansum(torch.tensor([1, 2, 3])).dtype)
med = torch.nanmedian(T, dim=1)
print("nanmedian", r(med.values, 4), med.indices.tolist())
print("median plain", torch.median(T, dim=1).values.tolist()[:2], torch.median(T[1]).item())
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print("nanquantile", mode, r(torch.nanquantile(T, 0.25, dim=1, interpolation=mode), 4))
qs = torch.nanquantile(T, torch.tensor([0.1, 0.9], dtype=torch.float32), dim=1, keepdim=True)
print("quantile keepdim", qs.shape, r(qs[:, 1], 4))
clean = torch.nan_to_num(T, nan=0.0)
filled = torch.where(torch.isnan(T), torch.nanmean(T, dim=1, keepdim=True), T)
print("filled", r(filled[2], 8), torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf")])).tolist())
print(
    "nan_to_num custom", torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -1.0]), 9.0, 100.0, -100.0).tolist()
)

# ranks and order statistics on ties (which index is returned)
row = filled[1]
vals, idx = torch.sort(row, stable=True)
print("stable sort", r(vals, 12), idx.tolist())
print("stable desc", torch.sort(row, descending=True, stable=True).indices.tolist())
print(
    "argsort",
    torch.argsort(row, stable=True).tolist() == idx.tolist(),
    torch.argsort(row, dim=0, descending=True, stable=True)[:4].tolist(),
)
ranks = torch.empty_like(idx)
ranks[idx] = torch.arange(12)
print("ranks", ranks.tolist())
ties = torch.tensor([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])
print("topk ties", torch.topk(ties, 2), torch.topk(ties, 3, largest=False, sorted=True))
print("kthvalue ties", torch.kthvalue(ties, 2), torch.kthvalue(ties, 5))
print("mode ties", torch.mode(ties), torch.mode(torch.tensor([[2, 2, 1, 1], [5, 4, 4, 5]]), dim=1))
print("median ties", torch.median(ties), torch.median(torch.tensor([[1.0, 2.0, 2.0, 1.0]]), dim=1))
print(
    "max ties",
    torch.max(ties, 0),
    torch.argmax(ties).item(),
    torch.argmin(ties).item(),
    torch.min(ties, dim=0).indices.item(),
)
print("msort", torch.msort(torch.tensor([[3, 1], [1, 2], [2, 0]])).tolist())

# polynomial detrending: np.vander + lstsq, evaluated with Horner via addcmul
months = torch.arange(12, dtype=torch.float64)
V = torch.vander(months / 11, N=3)
print(
    "vander",
    V.shape,
    r(V[-1], 3),
    r(torch.vander(torch.tensor([2, 3]), increasing=True), 4),
    torch.vander(torch.tensor([2, 3])).dtype,
)
y = filled.double()
coef = torch.linalg.lstsq(V, y.T).solution
print("coef", r(coef[:, 0], 3), coef.shape)
trend = torch.zeros_like(y)
xs = (months / 11).expand_as(y)
for c in coef:
    trend = torch.addcmul(c[:, None].expand_as(y), trend, xs)
print("horner vs vander", torch.allclose(trend, (V @ coef).T), r(trend[0], 4))
resid = y - trend
print("residual std", r(resid.std(dim=1), 4), r(torch.std(resid, dim=1, correction=0), 4))

# quality flags: isin, single-argument where, nonzero, argwhere, clamp with tensor bounds
codes = torch.tensor([[0, 3, 7, 0], [9, 0, 3, 3], [1, 1, 7, 0]])
bad = torch.isin(codes, torch.tensor([3, 7]))
print("isin", bad.int().tolist(), torch.isin(codes, torch.tensor([3, 7]), invert=True).sum().item())
print(
    "isin scalar",
    torch.isin(codes, 9).nonzero().tolist(),
    torch.isin(3, codes).item(),
    torch.isin(codes.float(), torch.tensor([1, 9])).sum().item(),
)
print("where 1-arg", [t.tolist() for t in torch.where(codes == 3)])
print(
    "nonzero tuple",
    [t.tolist() for t in torch.nonzero(codes, as_tuple=True)][0][:5],
    torch.argwhere(codes > 5).tolist(),
)
lo = torch.nanquantile(T, 0.1, dim=1, keepdim=True)
hi = torch.nanquantile(T, 0.9, dim=1, keepdim=True)
wins = torch.clamp(filled, min=lo, max=hi)
print(
    "winsorized",
    r(wins[0], 6),
    torch.clamp(torch.tensor([1, 5, 9]), min=torch.tensor([2, 2, 2]), max=torch.tensor([4, 4, 4])).tolist(),
)
print(
    "clamp lo>hi",
    torch.clamp(torch.tensor([0.0, 5.0]), min=torch.tensor([3.0, 3.0]), max=torch.tensor([1.0, 1.0])).tolist(),
)
print(
    "clamp mixed",
    torch.clamp(torch.tensor([1, 5, 9]), min=2.5).dtype,
    torch.clamp(torch.tensor([1, 5]), torch.tensor([2.0]), None).dtype,
)

# gathers of each station's extremes
hot = torch.argmax(filled, dim=1, keepdim=True)
print("gather", r(torch.gather(filled, 1, hot), 4), r(torch.take_along_dim(filled, hot, dim=1), 4))
print("take", r(torch.take(filled, torch.tensor([0, 13, 47])), 3), r(filled.take(torch.tensor([[1], [2]])), 2))
print(
    "index_select",
    torch.index_select(codes, 1, torch.tensor([3, 0])).tolist(),
    codes.index_select(0, torch.tensor([2])).tolist(),
)
print(
    "masked_select",
    torch.masked_select(codes, bad).tolist(),
    torch.masked_select(codes, torch.tensor([True, False, False, True])).tolist(),
)
print(
    "allclose nan",
    torch.allclose(T, T),
    torch.allclose(T, T, equal_nan=True),
    torch.isclose(T[0, :4], T[0, :4], equal_nan=True).tolist(),
)
print(
    "isclose tol",
    torch.isclose(torch.tensor([1.0, 1.001]), torch.tensor([1.0005, 1.0]), rtol=0, atol=1e-3).tolist(),
    torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])).tolist(),
)
print("flips", torch.fliplr(codes)[0].tolist(), torch.flipud(codes)[0].tolist(), torch.flip(codes, [0, 1])[0].tolist())
print(
    "rot90",
    torch.rot90(codes).tolist(),
    torch.rot90(codes, -1, [0, 1])[0].tolist(),
    torch.rot90(codes, 2).equal(codes.flip(0, 1)),
)
print("roll", torch.roll(codes, 1, 1)[0].tolist(), torch.roll(codes, -1)[2].tolist())

for name, bad_call in [
    ("nanmedian axis", lambda: torch.nanmedian(T, axis=1).values.shape),
    ("quantile keepdims", lambda: torch.quantile(T, 0.5, dim=1, keepdims=True)),
    ("quantile int", lambda: torch.quantile(torch.tensor([1, 2, 3]), 0.5)),
    ("quantile dtype q", lambda: torch.quantile(T, torch.tensor([0.5], dtype=torch.float64))),
    ("nanmean int", lambda: torch.nanmean(torch.tensor([1, 2]))),
    ("median int ok", lambda: torch.median(torch.tensor([4, 1, 3, 2]))),
    ("gather dims", lambda: torch.gather(filled, 1, torch.tensor([0, 1]))),
    ("take oob", lambda: torch.take(filled, torch.tensor([48]))),
    ("index_select float", lambda: torch.index_select(codes, 0, torch.tensor([0.0]))),
    ("masked_select shape", lambda: torch.masked_select(codes, torch.tensor([True, False]))),
    ("topk k", lambda: torch.topk(ties, 7)),
    ("kthvalue 0", lambda: torch.kthvalue(ties, 0)),
    ("vander 2d", lambda: torch.vander(torch.ones(2, 2))),
    ("clamp none", lambda: torch.clamp(ties)),
    ("isin complex", lambda: torch.isin(torch.tensor([1j]), torch.tensor([1j]))),
    ("rot90 dims", lambda: torch.rot90(codes, 1, [0, 0])),
]:
    try:
        print(name, "ok", bad_call())
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:110])
