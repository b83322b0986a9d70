"""Building discrete-time grids for survival models: quantile cut points (interpolation modes, nanquantile), equidistant
grids by linspace/arange/logspace, histc/histogram of durations, bucketize with ties, and cummax monotone fixes."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(8)

d = torch.tensor([0.5, 1.0, 1.0, 2.0, 3.5, 3.5, 3.5, 6.0, 8.0, 13.0])
e = torch.tensor([1, 0, 1, 1, 0, 1, 1, 0, 1, 1]).bool()
q = torch.linspace(0, 1, 5)
for mode in ("linear", "lower", "higher", "nearest", "midpoint"):
    print(mode, torch.quantile(d[e], q, interpolation=mode))
print(torch.quantile(d, 0.5), torch.quantile(d.double(), torch.tensor([0.1, 0.9], dtype=torch.float64)))
print(torch.quantile(d.view(2, 5), 0.5, dim=1, keepdim=True))
dn = d.clone()
dn[3] = float("nan")
print(torch.quantile(dn, 0.5), torch.nanquantile(dn, 0.5), torch.nanquantile(dn.view(2, 5), 0.25, dim=1))
for bad in (
    lambda: torch.quantile(d, 1.5),
    lambda: torch.quantile(d.int(), 0.5),
    lambda: torch.quantile(d, torch.tensor([0.5]).double()),
    lambda: torch.quantile(d, 0.5, interpolation="x"),
    lambda: torch.quantile(torch.empty(0), 0.5),
    lambda: torch.quantile(d, torch.tensor([[0.5]])),
):
    try:
        print(bad())
    except (RuntimeError, ValueError) as err:
        print(type(err).__name__, err)

cuts = torch.unique(torch.quantile(d[e], torch.linspace(0, 1, 6), interpolation="nearest"))
print("cuts", cuts)
print("bucketize", torch.bucketize(d, cuts), torch.bucketize(d, cuts, right=True))
print("int boundaries", torch.bucketize(d, torch.tensor([1, 3, 7])), torch.bucketize(torch.tensor([2, 3]), cuts))
print(torch.bucketize(torch.tensor(3.5), cuts), torch.bucketize(d, cuts, out_int32=True).dtype)
print(torch.linspace(0, 13, 6), torch.linspace(0, 13, 6, dtype=torch.int64), torch.linspace(2, 2, 1))
print(torch.arange(0, 1, 0.1).shape, torch.arange(0, 1.3, 0.1)[-1], torch.arange(10, 0, -3), torch.arange(0.5, 3))
print(torch.logspace(-2, 1, 4), torch.logspace(0, 3, 4, base=2), torch.linspace(0, 1, 0), torch.linspace(-1, 1, 1))
print(torch.histc(d, bins=4, min=0, max=16), torch.histc(d, bins=3), torch.histc(torch.tensor([1.0, 1.0]), bins=2))
hist = torch.histogram(d, bins=4)
print(hist, hist.hist.dtype)
print(torch.histogram(d, bins=torch.tensor([0.0, 2.0, 5.0, 20.0]), density=True))
print(torch.histogram(d, bins=3, range=(0.0, 9.0), weight=e.float()))
try:
    torch.histc(d.int(), bins=3)
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.histc(d, bins=3, min=5, max=1)
except RuntimeError as err:
    print(type(err).__name__, err)

# monotone survival repairs
s_raw = torch.tensor([[1.0, 0.9, 0.92, 0.7, 0.75, 0.4], [0.95, 0.96, 0.5, 0.55, 0.1, 0.2]])
fixed = torch.cummin(s_raw, dim=1)
print(fixed.values, fixed.indices)
print(torch.cummax(s_raw.flip(1), 1).values.flip(1))
print(torch.cummax(torch.tensor([1.0, 1.0, float("nan"), 2.0]), 0))
print(torch.cummin(torch.tensor([3, 1, 1, 2], dtype=torch.int32), 0))
print(
    torch.maximum(s_raw[0], s_raw[1]), torch.fmax(torch.tensor([float("nan"), 1.0]), torch.tensor([0.5, float("nan")]))
)
print(torch.clamp(s_raw, 0.3, 0.9).diff(dim=1).le(0).all(1), s_raw.diff(dim=1).clamp(max=0).sum(1))
print(torch.isin(d, cuts), torch.isin(d, cuts, invert=True).sum(), torch.isin(torch.tensor([2, 9]), torch.tensor([9])))
print(torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3]]), dim=0, return_counts=True))
print(torch.searchsorted(cuts, cuts, side="right"), torch.searchsorted(cuts.double(), 3.5))
