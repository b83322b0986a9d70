"""Feature preprocessing for CTR models: quantile bins with bucketize, vocabularies from unique counts, OOV ids."""

import torch
from torch import nn

torch.manual_seed(61)
torch.set_printoptions(precision=4)

n = 200
age = torch.randint(16, 80, (n,)).float()
price = torch.exp(torch.randn(n) * 1.2 + 3.0)
price[::37] = float("nan")
dwell = torch.rand(n) * 600
print("price nan count", int(price.isnan().sum()), "dtype", price.dtype)

# fixed boundaries
age_bounds = torch.tensor([18.0, 25.0, 35.0, 45.0, 55.0, 65.0])
age_bin = torch.bucketize(age, age_bounds)
print("age bins", age_bin[:12].tolist(), "dtype", age_bin.dtype)
print("right=True", torch.bucketize(torch.tensor([18.0, 25.0, 30.0]), age_bounds, right=True).tolist(),
      "right=False", torch.bucketize(torch.tensor([18.0, 25.0, 30.0]), age_bounds).tolist())
print("out_int32", torch.bucketize(age[:3], age_bounds, out_int32=True).dtype)
print("searchsorted", torch.searchsorted(age_bounds, torch.tensor([18.0, 19.0])).tolist(),
      torch.searchsorted(age_bounds, torch.tensor([18.0, 19.0]), side="right").tolist())
print("bin counts", torch.bincount(age_bin, minlength=len(age_bounds) + 1).tolist())

# quantile boundaries on the log scale, NaN kept in its own bucket
log_price = torch.log1p(price)
qs = torch.linspace(0, 1, 6)[1:-1]
bounds = torch.nanquantile(log_price, qs)
print("nanquantile bounds", bounds)
print("quantile propagates nan", torch.quantile(log_price, 0.5).isnan().item())
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    v = torch.nanquantile(log_price, 0.3, interpolation=mode)
    print(f"q0.3 {mode:8s} {v.item():.4f}")
price_bin = torch.bucketize(log_price.nan_to_num(nan=-1.0), bounds) + 1
price_bin = torch.where(price.isnan(), torch.zeros_like(price_bin), price_bin)
print("price bins", price_bin[:10].tolist(), "counts", torch.bincount(price_bin).tolist())

# sorted boundaries with a sorter (unsorted input table)
unsorted = torch.tensor([300.0, 60.0, 10.0, 120.0])
sorter = torch.argsort(unsorted)
print("sorter", sorter.tolist(), "positions", torch.searchsorted(unsorted, torch.tensor([5.0, 100.0, 400.0]),
                                                                sorter=sorter).tolist())

# histograms
hist = torch.histc(dwell, bins=6, min=0, max=600)
print("histc", hist.tolist())
h, edges = torch.histogram(dwell, bins=4)
print("histogram", h.tolist(), edges)
h2, e2 = torch.histogram(dwell, bins=torch.tensor([0.0, 60.0, 300.0, 600.0]), density=True)
print("density", h2, "integrates", round((h2 * e2.diff()).sum().item(), 4))

# vocabulary from a categorical column with a min-count threshold and an OOV id
cities = torch.randint(0, 30, (n,)) ** 2 % 31
vals, inverse, counts = torch.unique(cities, return_inverse=True, return_counts=True)
print("unique cities", vals.numel(), "counts head", counts[:8].tolist())
print("inverse reconstructs", torch.equal(vals[inverse], cities))
keep = vals[counts >= 8]
print("kept", keep.tolist())
lookup = torch.zeros(31, dtype=torch.long)
lookup[keep] = torch.arange(1, len(keep) + 1)
city_id = lookup[cities]
print("ids", city_id[:15].tolist(), "oov share", round((city_id == 0).float().mean().item(), 4))
print("isin", torch.isin(cities[:8], keep).tolist(), "invert", torch.isin(cities[:8], keep, invert=True).tolist())
order = counts.argsort(descending=True, stable=True)
print("top cities", vals[order[:5]].tolist(), counts[order[:5]].tolist())

# crossing two bucketized features into one id
cross = age_bin * (len(bounds) + 2) + price_bin
cu, cc = torch.unique(cross, return_counts=True)
print("cross ids", cu.numel(), "max", int(cross.max()), "most common", int(cu[cc.argmax()]))
pairs = torch.stack([age_bin, price_bin], 1)
up, pc = torch.unique(pairs, dim=0, return_counts=True)
print("unique pairs", up.shape, pc.sum().item(), torch.equal(pc.sort().values, cc.sort().values))

# sessions: unique_consecutive collapses repeated clicks
clicks = torch.tensor([3, 3, 5, 5, 5, 2, 3, 3, 9])
uc, ucount = torch.unique_consecutive(clicks, return_counts=True)
print("dedup", uc.tolist(), ucount.tolist())
print("cummax", torch.cummax(clicks, 0).values.tolist(), torch.cummax(clicks, 0).indices.tolist())

# standardisation statistics and embedding the bins
dense = torch.stack([age, dwell], 1)
mu, sd = dense.mean(0), dense.std(0, unbiased=True)
z = (dense - mu) / sd
print("mean", mu, "std", sd, "z range", z.min().item() > -3, z.amax(0))
var, mean = torch.var_mean(dense, dim=0, correction=0)
print("var_mean", var, mean)
embs = nn.ModuleDict({"age": nn.Embedding(len(age_bounds) + 1, 3), "price": nn.Embedding(len(bounds) + 2, 3),
                      "city": nn.Embedding(len(keep) + 1, 3, padding_idx=0)})
x = torch.cat([embs["age"](age_bin), embs["price"](price_bin), embs["city"](city_id), z], 1)
print("model input", x.shape, list(embs.keys()))
print("oov rows are zero", bool((embs["city"](city_id)[city_id == 0] == 0).all()))
