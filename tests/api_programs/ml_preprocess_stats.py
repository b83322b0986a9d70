"""Feature preprocessing as tabular-ML code writes it in torch: train/test splits with randperm and a generator,
standardization with mean/std(correction=...) and var_mean, min-max and robust scaling with quantile over every
interpolation mode, nanquantile/nanmean/nanmedian imputation, histc and histogram binning (density, weights,
explicit edges), bucketize discretisation, one-hot encoding and clipping outliers."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

n = 50
X = torch.randn(n, 4) * torch.tensor([1.0, 5.0, 0.1, 2.0]) + torch.tensor([0.0, 10.0, -1.0, 3.0])
X[3, 1] = 80.0
cat = torch.randint(0, 3, (n,))
print("X", X.shape, X.dtype, "cat counts", torch.bincount(cat).tolist())

g = torch.Generator().manual_seed(42)
perm = torch.randperm(n, generator=g)
n_tr = int(0.8 * n)
tr, te = perm[:n_tr], perm[n_tr:]
print("split", len(tr), len(te), "test idx", te.sort().values.tolist())
Xtr, Xte = X[tr], X[te]

for corr in (0, 1, 2):
    print(f"std correction={corr}", Xtr.std(dim=0, correction=corr))
print("unbiased=False equals correction=0", torch.allclose(Xtr.std(0, unbiased=False), Xtr.std(0, correction=0)))
var, mean = torch.var_mean(Xtr, dim=0, correction=0)
print("var_mean", var, mean)
std_m, mean_m = torch.std_mean(Xtr, dim=0, keepdim=True)
print("std_mean keepdim", std_m.shape, mean_m.shape)
Ztr = (Xtr - mean_m) / std_m
Zte = (Xte - mean_m) / std_m
print("train z mean ~0", Ztr.mean(0).abs().max().item() < 1e-5, "test z mean", Zte.mean(0))

mn, mx = Xtr.min(0).values, Xtr.max(0).values
aminmax = torch.aminmax(Xtr, dim=0)
print("aminmax agrees", torch.equal(aminmax.min, mn), torch.equal(aminmax.max, mx))
Mte = (Xte - mn) / (mx - mn)
print("minmax test range", Mte.min().item() < 0 or Mte.max().item() > 1, Mte[:2])

col = Xtr[:, 1]
qs = torch.tensor([0.1, 0.25, 0.5, 0.75, 0.9])
for mode in ("linear", "lower", "higher", "nearest", "midpoint"):
    print(f"quantile {mode:8s}", torch.quantile(col, qs, interpolation=mode))
q1, q3 = torch.quantile(Xtr, torch.tensor([0.25, 0.75]), dim=0)
iqr = q3 - q1
med = Xtr.median(dim=0).values
print("median", med, "iqr", iqr)
R = (Xte - med) / iqr
print("robust scaled head", R[:2])
q_keep = torch.quantile(Xtr, 0.5, dim=0, keepdim=True)
print("quantile keepdim shape", q_keep.shape)
lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
outliers = (Xtr < lo) | (Xtr > hi)
print("outliers per column", outliers.sum(0).tolist(), "rows", outliers.any(1).nonzero().flatten().tolist())
clipped = Xtr.clamp(min=lo, max=hi)
print("clipped max col1", round(clipped[:, 1].max().item(), 4))

# missing values
Xm = X.clone()
mask = torch.rand(n, 4) < 0.15
Xm[mask] = float("nan")
print("missing per column", torch.isnan(Xm).sum(0).tolist())
print("nanmean", Xm.nanmean(0))
print("nanmedian", Xm.nanmedian(0).values)
print("nanquantile 0.9", torch.nanquantile(Xm, 0.9, dim=0))
print("nanquantile nearest", torch.nanquantile(Xm[:, 0], torch.tensor([0.2, 0.8]), interpolation="nearest"))
print("quantile with nan -> nan", torch.quantile(Xm[:, 0], 0.5).isnan().item())
fill = Xm.nanmedian(0).values
Ximp = torch.where(torch.isnan(Xm), fill, Xm)
print("imputed has nan", torch.isnan(Ximp).any().item(), "nansum", Xm.nansum(0))

# binning
h = torch.histc(Xtr[:, 0], bins=5, min=-3, max=3)
print("histc", h, h.dtype)
print("histc auto range", torch.histc(Xtr[:, 2], bins=4))
hist, edges = torch.histogram(Xtr[:, 0], bins=5, range=(-3.0, 3.0))
print("histogram", hist, "edges", edges)
dens, _ = torch.histogram(Xtr[:, 0], bins=5, range=(-3.0, 3.0), density=True)
print("density integrates to", round((dens * (edges[1:] - edges[:-1])).sum().item(), 4))
wh, _ = torch.histogram(Xtr[:, 0], bins=torch.tensor([-3.0, -1.0, 0.0, 1.0, 3.0]), weight=Xtr[:, 3].abs())
print("weighted histogram", wh)
edges_q = torch.quantile(col, torch.linspace(0, 1, 5))
bins = torch.bucketize(col, edges_q[1:-1])
print("quartile bins", torch.bincount(bins, minlength=4).tolist(), "right=True",
      torch.bincount(torch.bucketize(col, edges_q[1:-1], right=True), minlength=4).tolist())
print("searchsorted", torch.searchsorted(edges_q, torch.tensor([9.0, 10.0, 12.0])).tolist())

# one-hot encoding and interactions
oh = F.one_hot(cat, num_classes=3)
print("one_hot", oh.shape, oh.dtype, oh[:3].tolist())
feats = torch.cat([Zte, oh[te].float()], dim=1)
print("design matrix", feats.shape)
inter = torch.einsum("ni,nj->nij", Ztr[:, :2], Ztr[:, :2]).flatten(1)
print("pairwise products", inter.shape, inter[0])
count_enc = torch.bincount(cat)[cat].float() / n
print("count encoding", count_enc[:6])
ranks = Xtr[:, 0].argsort().argsort()
print("rank transform head", ranks[:8].tolist(), "unique", torch.unique(ranks).numel())
print("log1p col1 mean", round(torch.log1p(Xtr[:, 1].clamp(min=0)).mean().item(), 4))
