"""Categorical encodings computed with tensor group-bys: counts, smoothed out-of-fold target means, rare buckets."""

import torch

torch.manual_seed(0)
N = 30
city = torch.tensor([0, 1, 2, 0, 0, 3, 1, 2, 2, 0, 4, 0, 1, 1, 2, 0, 5, 0, 1, 2, 0, 3, 3, 1, 0, 2, 2, 1, 0, 6])
y = torch.tensor([1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1]).float()

uniq, inv, counts = torch.unique(city, sorted=True, return_inverse=True, return_counts=True)
print("categories", uniq.tolist(), counts.tolist(), inv.dtype)
print("count encoding", counts[inv][:10].tolist())
print("frequency", (counts.float() / N).round(decimals=4).tolist())
rare = counts < 3
remap = torch.where(rare, torch.tensor(-1), uniq)
print("rare bucket", remap.tolist(), remap[inv].unique().tolist())

# per-category target sums: scatter_add, index_add, bincount weights and scatter_reduce must agree
k = len(uniq)
s1 = torch.zeros(k).scatter_add_(0, inv, y)
s2 = torch.zeros(k).index_add(0, inv, y)
s3 = torch.bincount(inv, weights=y, minlength=k).float()
s4 = torch.zeros(k).scatter_reduce(0, inv, y, reduce="sum")
print("sums agree", s1.tolist() == s2.tolist() == s3.tolist() == s4.tolist(), s1.tolist())
means = torch.zeros(k).scatter_reduce(0, inv, y, reduce="mean", include_self=False)
print("means", means.round(decimals=4).tolist())
print("means include_self", torch.zeros(k).scatter_reduce(0, inv, y, reduce="mean").round(decimals=4).tolist())
print(
    "amax/amin",
    torch.full((k,), -1.0).scatter_reduce(0, inv, y, "amax", include_self=False).tolist(),
    torch.full((k,), 5.0).scatter_reduce(0, inv, y, "amin").tolist(),
)
print(
    "index_reduce mean", torch.zeros(k).index_reduce_(0, inv, y, "mean", include_self=False).round(decimals=4).tolist()
)

prior = y.mean()
m = 2.0
smoothed = (s1 + m * prior) / (counts + m)
print("smoothed", smoothed.round(decimals=4).tolist())

# out-of-fold target encoding with 3 folds assigned by a seeded permutation
g = torch.Generator().manual_seed(0)
fold = torch.empty(N, dtype=torch.long)
fold[torch.randperm(N, generator=g)] = torch.arange(N) % 3
oof = torch.empty(N)
for f in range(3):
    tr, te = fold != f, fold == f
    s = torch.zeros(k).index_add_(0, inv[tr], y[tr])
    c = torch.bincount(inv[tr], minlength=k)
    p = y[tr].mean()
    enc = (s + m * p) / (c + m)
    oof[te] = enc[inv[te]]
print("fold sizes", torch.bincount(fold).tolist())
print("oof", oof.round(decimals=4)[:8].tolist(), round(oof.mean().item(), 4))
print("oof corr", round(torch.corrcoef(torch.stack([oof, y]))[0, 1].item(), 4))

# weight of evidence with 0.5 pseudo-counts
pos = torch.bincount(inv, weights=y, minlength=k) + 0.5
neg = torch.bincount(inv, weights=1 - y, minlength=k) + 0.5
woe = torch.log((pos / pos.sum()) / (neg / neg.sum()))
iv = ((pos / pos.sum() - neg / neg.sum()) * woe).sum()
print("woe", woe.round(decimals=4).tolist(), "iv", round(iv.item(), 4), woe.dtype)

# one-hot and a pairwise cross feature hashed into buckets
oh = torch.nn.functional.one_hot(inv, num_classes=k)
print("one-hot", tuple(oh.shape), oh.dtype, oh.sum(0).tolist() == counts.tolist())
other = torch.arange(N) % 4
cross = (inv * 1000003 + other * 7919) % 11
print("cross buckets", torch.bincount(cross, minlength=11).tolist())
consec, cinv, ccount = torch.unique_consecutive(city.sort().values, return_inverse=True, return_counts=True)
print("unique_consecutive", consec.tolist(), ccount.tolist(), cinv[-3:].tolist())
rows = torch.stack([city % 2, other % 2], 1)
u2, i2, c2 = torch.unique(rows, dim=0, return_inverse=True, return_counts=True)
print("unique rows", u2.tolist(), c2.tolist(), i2[:6].tolist())
print(
    "isin", torch.isin(city, torch.tensor([0, 2])).sum().item(), torch.isin(city, uniq[rare], invert=True).sum().item()
)
for name, fn in [
    ("scatter_reduce bad", lambda: torch.zeros(k).scatter_reduce(0, inv, y, reduce="median")),
    ("index_add dtype", lambda: torch.zeros(k).index_add_(0, inv, y.long())),
    ("index_add float index", lambda: torch.zeros(k).index_add_(0, inv.float(), y)),
    ("scatter_add size", lambda: torch.zeros(k).scatter_add_(0, inv, y[:5])),
    ("one_hot too few", lambda: torch.nn.functional.one_hot(inv, num_classes=3)),
    ("unique dim", lambda: torch.unique(rows, dim=2)),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
