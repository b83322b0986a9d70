"""Feature standardisation and missing-value imputation for a tabular batch with NaNs."""

import torch

torch.manual_seed(0)
X = torch.randn(12, 5) * torch.tensor([1.0, 10.0, 0.1, 3.0, 2.0]) + torch.tensor([0.0, 50.0, -1.0, 7.0, 0.0])
X[0, 1] = float("nan")
X[3, 1] = float("nan")
X[5, 2] = float("nan")
X[7, 4] = float("nan")
X[:, 3][X[:, 3] > 8] = float("nan")
mask = torch.isnan(X)
print("missing per column", mask.sum(0).tolist(), mask.dtype, mask.any().item())
print("rows complete", (~mask.any(1)).nonzero().flatten().tolist())

mean = X.nanmean(0)
med = X.nanmedian(0)
print("nanmean", mean.round(decimals=4).tolist())
print("nanmedian", med.values.round(decimals=4).tolist(), med.indices.tolist())
print("nanmedian all", round(X.nanmedian().item(), 4), torch.nanmedian(X[:, 0]).item() == X[:, 0].median().item())
print("nansum", X.nansum(0).round(decimals=4).tolist())
for q_interp in ["linear", "lower", "higher", "midpoint", "nearest"]:
    q = torch.nanquantile(X, torch.tensor([0.1, 0.5, 0.9]), dim=0, interpolation=q_interp)
    print("nanquantile", q_interp, tuple(q.shape), q[:, 1].round(decimals=4).tolist())
print(
    "quantile nan",
    torch.quantile(X[:, 1], 0.5).item(),
    torch.quantile(X[:, 0], 0.25, keepdim=True).round(decimals=4).tolist(),
)

# mean imputation through where, median imputation through index
X_mean = torch.where(mask, mean.expand_as(X), X)
X_med = X.clone()
r, c = mask.nonzero(as_tuple=True)
X_med[r, c] = med.values[c]
print("imputed finite", torch.isfinite(X_mean).all().item(), torch.isfinite(X_med).all().item())
print("imputed", X_mean[0].round(decimals=4).tolist(), X_med[3].round(decimals=4).tolist())
print("nan_to_num", torch.nan_to_num(X[:4, 1:3], nan=-1.0).round(decimals=4).tolist())
inf = torch.tensor([float("inf"), -float("inf"), float("nan"), 1.5])
print("nan_to_num inf", torch.nan_to_num(inf).tolist(), torch.nan_to_num(inf, posinf=9.0, neginf=-9.0).tolist())
print("nan_to_num half", torch.nan_to_num(inf.half()).tolist())

# standardisation: biased and unbiased, correction=
mu = X_mean.mean(0, keepdim=True)
for kw in [{}, {"unbiased": False}, {"correction": 0}, {"correction": 2}]:
    sd = X_mean.std(0, keepdim=True, **kw)
    print("std", kw, sd.round(decimals=4).flatten().tolist())
var, m = torch.var_mean(X_mean, dim=0, correction=1)
sd, m2 = torch.std_mean(X_mean, 0, unbiased=False, keepdim=True)
print("var_mean", var.round(decimals=4).tolist(), torch.equal(m, m2.squeeze(0)))
raw = X.clone()
raw[2, 0], raw[11, 2] = float("inf"), -float("inf")
rs, rm = torch.std_mean(torch.where(raw.isnan(), 0.0, raw), dim=0)
print("std_mean with inf", rs.round(decimals=4).tolist(), rm.round(decimals=4).tolist())
Z = (X_mean - mu) / X_mean.std(0, keepdim=True).clamp_min(1e-8)
print("z mean", Z.mean(0).abs().max().item() < 1e-5, "z std", Z.std(0).round(decimals=4).tolist())
const = torch.ones(4, 2)
print("const std", const.std(0).tolist(), ((const - const.mean(0)) / const.std(0)).isnan().all().item())
print("std of one", torch.tensor([3.0]).std().item(), torch.tensor([3.0]).std(correction=0).item())

# robust scaling with the interquartile range
q1, q3 = torch.quantile(X_mean, torch.tensor([0.25, 0.75]), dim=0)
R = (X_mean - X_mean.median(0).values) / (q3 - q1)
print("robust", R[:2].round(decimals=4).tolist())
# min-max scaling with aminmax
lo, hi = torch.aminmax(X_mean, dim=0)
print("minmax", ((X_mean - lo) / (hi - lo))[5].round(decimals=4).tolist())

# missing-indicator features concatenated
feats = torch.cat([Z, mask.float()], dim=1)
print("feats", tuple(feats.shape), feats.dtype, feats[:, 5:].sum().item())

for name, fn in [
    ("quantile bad q", lambda: torch.quantile(X_mean, 1.5)),
    ("quantile int", lambda: torch.quantile(torch.arange(5), 0.5)),
    ("quantile interp", lambda: torch.quantile(X_mean, 0.5, interpolation="cubic")),
    ("nanmean int", lambda: torch.arange(4).nanmean()),
    ("std int", lambda: torch.arange(4).std()),
    ("q tensor 2d", lambda: torch.quantile(X_mean, torch.ones(2, 2) / 2)),
]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, e)
