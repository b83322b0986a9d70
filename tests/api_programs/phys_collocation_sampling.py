"""Collocation-point sampling as PINN codes do it: uniform grids from meshgrid/cartesian_prod, Sobol points from
torch.quasirandom.SobolEngine (unscrambled, with draw/fast_forward/reset), Latin hypercube from randperm, and
residual-based adaptive refinement (RAR) that picks the worst points with topk, plus bucketize of times into windows."""

import math

import torch

torch.manual_seed(0)

xs = torch.linspace(-1, 1, 5)
ts = torch.linspace(0, 1, 3)
grid_ij = torch.stack(torch.meshgrid(xs, ts, indexing="ij"), -1).reshape(-1, 2)
cp = torch.cartesian_prod(xs, ts)
print("meshgrid ij == cartesian_prod", torch.equal(grid_ij, cp), tuple(cp.shape))
print("xy shape", torch.meshgrid(xs, ts, indexing="xy")[0].shape)

sob = torch.quasirandom.SobolEngine(dimension=2, scramble=False)
print(sob)
pts = sob.draw(8)
print("sobol", pts.dtype, pts.tolist())
sob.fast_forward(4)
print("after ff", sob.draw(2).tolist(), sob.num_generated)
sob.reset()
print("reset", sob.draw(1).tolist(), sob.num_generated)
print("float64", sob.draw(2, dtype=torch.float64).dtype)
s3 = torch.quasirandom.SobolEngine(3).draw_base2(2)
print("base2", tuple(s3.shape), s3.sum(0).tolist())

# Latin hypercube: one point per stratum in each dimension
n, d = 6, 2
g = torch.Generator().manual_seed(3)
perms = torch.stack([torch.randperm(n, generator=g) for _ in range(d)], 1)
lhs = (perms + 0.5) / n
print("lhs strata ok", all(sorted((lhs[:, j] * n).floor().long().tolist()) == list(range(n)) for j in range(d)))

# residual-based adaptive refinement
cand = torch.cartesian_prod(torch.linspace(0, 1, 11), torch.linspace(0, 1, 11))
res = torch.sin(3 * math.pi * cand[:, 0]) ** 2 * torch.exp(-4 * cand[:, 1]) + 0.01 * cand[:, 0] + 0.002 * cand[:, 1]
vals, idx = torch.topk(res, k=5)
print("rar picks", idx.tolist(), vals.round(decimals=4).tolist())
vals_s, idx_s = torch.topk(res, k=3, largest=False, sorted=True)
print("smallest", vals_s.tolist())
added = cand[idx]
train = torch.cat([grid_ij, added])
print("train pts", tuple(train.shape), "unique", torch.unique(train, dim=0).shape[0])
p = res / res.sum()
print("prob sum", round(p.sum().item(), 6), "entropy", round(-(p * torch.log(p.clamp_min(1e-12))).sum().item(), 4))
kth = torch.kthvalue(res, 100)
print("kthvalue", round(kth.values.item(), 4), kth.indices.item())

# causal windows: bucketize times into chunks
times = torch.tensor([0.0, 0.1, 0.25, 0.5, 0.74, 0.75, 1.0])
edges = torch.tensor([0.25, 0.5, 0.75])
print("bucket", torch.bucketize(times, edges).tolist(), torch.bucketize(times, edges, right=True).tolist())
print("searchsorted", torch.searchsorted(edges, times, side="right").tolist())
counts = torch.bincount(torch.bucketize(times, edges), minlength=4)
print("counts", counts.tolist())
for label, fn in [
    ("sobol dim", lambda: torch.quasirandom.SobolEngine(0)),
    ("sobol big", lambda: torch.quasirandom.SobolEngine(30000)),
    ("topk k", lambda: torch.topk(res, 500)),
    ("bucketize 2d edges", lambda: torch.bucketize(times, edges.view(1, 3))),
    ("randperm neg", lambda: torch.randperm(-1)),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)
