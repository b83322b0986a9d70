"""Numeric features for CTR models: quantile boundaries, bucketize/searchsorted in every form, log transforms."""

import torch
from torch import nn

torch.manual_seed(0)

price = torch.tensor([0.0, 0.5, 1.0, 2.0, 2.0, 3.5, 10.0, 100.0, -1.0, float("nan"), float("inf")])
bounds = torch.tensor([0.0, 1.0, 2.0, 5.0, 50.0])
print("bucketize left", torch.bucketize(price, bounds).tolist())
print("bucketize right", torch.bucketize(price, bounds, right=True).tolist())
print("int32", torch.bucketize(price, bounds, out_int32=True).dtype)
print("searchsorted left", torch.searchsorted(bounds, price).tolist())
print("searchsorted side=right", torch.searchsorted(bounds, price, side="right").tolist())
print("scalar", torch.bucketize(3.0, bounds), torch.searchsorted(bounds, 3.0))

# quantile boundaries from a training sample
train = torch.randn(1000).exp()
qs = torch.linspace(0, 1, 6)[1:-1]
qb = torch.quantile(train, qs)
print("quantiles", qb.round(decimals=4).tolist())
for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
    print(interp, torch.quantile(train[:11], 0.35, interpolation=interp).round(decimals=4).item())
print("nanquantile", torch.nanquantile(price, 0.5).item(), torch.quantile(price, 0.5).item())
ids = torch.bucketize(train, qb)
print("bucket counts", torch.bincount(ids).tolist())

# batched searchsorted: one boundary row per feature
feats = torch.tensor([[0.2, 5.0, 7.0], [1.5, 0.0, 9.9]])
rows = torch.tensor([[0.0, 1.0, 2.0], [0.0, 5.0, 10.0]])
print("batched", torch.searchsorted(rows, feats).tolist(), torch.searchsorted(rows, feats, right=True).tolist())

# unsorted boundaries with a sorter
unsorted = torch.tensor([5.0, 0.0, 2.0, 1.0])
sorter = torch.argsort(unsorted)
print("sorter", torch.searchsorted(unsorted, torch.tensor([1.5, 6.0]), sorter=sorter).tolist())

# embedding the bucket and a log-scaled continuous value together
emb = nn.Embedding(len(bounds) + 1, 3)
xb = torch.bucketize(price.nan_to_num(0.0, posinf=1e6), bounds)
e = emb(xb)
logv = torch.log1p(price.nan_to_num(0.0, posinf=0.0).clamp(min=0)).unsqueeze(1)
feat = torch.cat([e, logv], 1)
print("feat", feat.shape, round(feat[:, -1].sum().item(), 4))
print("nan_to_num", price.nan_to_num(0.0, posinf=1e6).tolist())

# soft bucketing: distance-based weights over bucket centers (AutoDis style)
centers = torch.linspace(0, 5, 4)
w = torch.softmax(-(price[:6].unsqueeze(1) - centers).abs() / 0.5, dim=1)
print("soft weights", w.round(decimals=3).tolist())

# standardisation with running stats vs batch stats
x = torch.tensor([[1.0, 200.0], [2.0, 400.0], [3.0, 600.0]])
mu, sd = x.mean(0), x.std(0, unbiased=False)
print(
    "z",
    ((x - mu) / sd).round(decimals=4).tolist(),
    "var_mean",
    [t.round(decimals=4).tolist() for t in torch.var_mean(x, 0, correction=0)],
)
print("histc", torch.histc(train, bins=5, min=0, max=5).tolist())
print("histogram", [t.round(decimals=4).tolist() for t in torch.histogram(train[:50], bins=4, range=(0.0, 4.0))])
print("clamp_ with tensors", torch.clamp(price[:5], min=torch.tensor(0.5), max=torch.tensor(2.5)).tolist())

for fn in (
    lambda: torch.bucketize(price, bounds.view(1, -1, 1)),
    lambda: torch.searchsorted(bounds, price, side="middle"),
    lambda: torch.searchsorted(bounds, price, side="left", right=True),
    lambda: torch.searchsorted(rows, torch.tensor([1.0, 2.0])),
    lambda: torch.searchsorted(unsorted, torch.tensor([1.0]), sorter=torch.tensor([0, 1])),
    lambda: torch.quantile(train, 1.5),
    lambda: torch.quantile(train.int(), 0.5),
    lambda: torch.bucketize(price, bounds.int()),
):
    try:
        r = fn()
        print("no error", r.tolist())
    except Exception as e:
        print(type(e).__name__, e)
