"""scipy.spatial / numpy statistics ported to torch: Minkowski distances (cdist/pdist and their p values), pair
enumeration with tril/triu_indices and combinations, weighted covariance, 2-D histograms, rigid-body geometry with
cross products, tensordot/einsum contractions, and the errors a numpy user meets on the way."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(11)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


pts = torch.from_numpy(np.round(rng.uniform(-1, 1, (6, 3)), 3).astype(np.float32))
ref = torch.from_numpy(np.round(rng.uniform(-1, 1, (4, 3)), 3).astype(np.float32))
for p in [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")]:
    d = torch.cdist(pts, ref, p=p)
    print("cdist p", p, r(d[0], 4), d.shape)
print("cdist batched", torch.cdist(pts[None].expand(2, 6, 3), ref[None], p=1.0).shape)
d2 = torch.cdist(pts.double(), ref.double(), compute_mode="use_mm_for_euclid_dist")
print("cdist mm", r(d2[1], 4), d2.dtype)
pd = torch.pdist(pts)
print("pdist", pd.shape, r(pd, 5), r(torch.pdist(pts, p=1), 3), r(torch.pdist(pts, p=float("inf")), 3))
iu = torch.triu_indices(6, 6, offset=1)
full = torch.cdist(pts, pts)
print("pdist==triu", torch.allclose(full[iu[0], iu[1]], pd, atol=1e-6), iu[:, :5].tolist())
il = torch.tril_indices(4, 3)
print("tril_indices", il.tolist(), torch.tril_indices(3, 3, offset=-1).tolist(), il.dtype)
print("triu rect", torch.triu_indices(2, 4, 1).tolist(), torch.triu_indices(3, 3, dtype=torch.int32).dtype)
# squareform by hand
sq = torch.zeros(6, 6)
sq[iu[0], iu[1]] = pd
sq = sq + sq.T
print("squareform", torch.allclose(sq, full, atol=1e-5), sq.diagonal().abs().sum().item())
nearest = full.fill_diagonal_(float("inf")).argmin(1)
print("nearest neighbour", nearest.tolist(), torch.topk(full, 2, dim=1, largest=False).indices[0].tolist())

# pair and triple enumeration
idx = torch.arange(4)
print("combinations", torch.combinations(idx).tolist())
print(
    "with replacement", torch.combinations(idx, r=2, with_replacement=True).shape, torch.combinations(idx, 3).tolist()
)
print("cartesian", torch.cartesian_prod(torch.tensor([0, 1]), torch.tensor([5, 6, 7])).tolist())
print("cartesian single", torch.cartesian_prod(torch.tensor([1, 2])).tolist())
tri = torch.combinations(torch.arange(6), 3)
a, b, c = pts[tri[:, 0]], pts[tri[:, 1]], pts[tri[:, 2]]
area = 0.5 * torch.linalg.vector_norm(torch.linalg.cross(b - a, c - a), dim=-1)
print("triangle areas", tri.shape, r(area, 5), tri[area.argmax()].tolist())

# weighted covariance (np.cov with fweights/aweights), correlation
obs = torch.from_numpy(rng.standard_normal((3, 8))).float()
fw = torch.tensor([1, 2, 1, 1, 3, 1, 2, 1])
aw = torch.from_numpy(rng.uniform(0.2, 1.0, 8)).float()
print("cov", r(torch.cov(obs), 9))
print("cov fw", r(torch.cov(obs, fweights=fw), 3), "aw", r(torch.cov(obs, aweights=aw), 3))
print("cov both", r(torch.cov(obs, correction=0, fweights=fw, aweights=aw), 3))
print("cov 1d", torch.cov(obs[0]), torch.cov(obs[0]).shape, torch.cov(obs.double()).dtype)
print("cov int", torch.cov(torch.tensor([[1, 2, 4], [2, 2, 3]])).dtype)
cc = torch.corrcoef(obs)
print("corrcoef", r(cc[0], 3), torch.allclose(cc.diagonal(), torch.ones(3)), torch.corrcoef(obs[:1]))

# 2-D histogram of the point cloud
xy = pts[:, :2].contiguous()
h = torch.histogramdd(xy, bins=[2, 3], range=[-1.0, 1.0, -1.0, 1.0])
print("histogramdd", h.hist.tolist(), [r(e, 4) for e in h.bin_edges])
hw = torch.histogramdd(
    xy,
    bins=[torch.tensor([-1.0, 0.0, 1.0]), torch.tensor([-1.0, -0.5, 0.5, 1.0])],
    weight=torch.arange(6.0),
    density=True,
)
print("histogramdd w", r(hw.hist, 6), round((hw.hist * 0.5 * 2).sum().item(), 4))
h2 = torch.histogram(pts[:, 2], bins=3, range=(-1.0, 1.0))
print("histogram", h2.hist.tolist(), h2.bin_edges.tolist(), torch.histc(pts[:, 2], 3, -1, 1).tolist())

# rigid geometry: cross products, rotation via einsum/tensordot, block-diagonal frames
u = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
v = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
print("cross", torch.cross(u, v, dim=1).tolist(), torch.linalg.cross(u, v[:1]).tolist())
print("cross dim0", torch.linalg.cross(u.T, v.T, dim=0).T.tolist())
th = 0.3
R = torch.tensor([[np.cos(th), -np.sin(th), 0.0], [np.sin(th), np.cos(th), 0.0], [0.0, 0.0, 1.0]], dtype=torch.float32)
rot1 = pts @ R.T
rot2 = torch.einsum("ij,nj->ni", R, pts)
rot3 = torch.tensordot(pts, R, dims=([1], [1]))
print("rotations agree", torch.allclose(rot1, rot2, atol=1e-6), torch.allclose(rot1, rot3, atol=1e-6))
print(
    "tensordot int",
    torch.tensordot(torch.ones(2, 3, 4), torch.ones(3, 4, 5), dims=2).shape,
    torch.tensordot(torch.ones(2, 3), torch.ones(4), dims=0).shape,
)
inertia = torch.einsum("ni,nj->ij", pts, pts)
print("inertia trace", round(torch.trace(inertia).item(), 4), round(torch.einsum("ii", inertia).item(), 4))
print(
    "einsum ellipsis",
    torch.einsum("...ij,...jk->...ik", torch.ones(2, 3, 4), torch.ones(4, 2)).shape,
    torch.einsum("i,j->ij", torch.arange(3), torch.arange(2)).tolist(),
)
print("einsum sublist", torch.einsum(torch.ones(2, 3), [0, 1], torch.ones(3), [1], [0]).tolist())
bd = torch.block_diag(R[:2, :2], torch.tensor([[5.0]]), torch.tensor([1, 2]))
print("block_diag", bd.shape, bd.dtype, r(bd[2], 5), r(bd[3], 5))
print("kron", torch.kron(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[0, 1], [1, 0]])).tolist())
print(
    "kron mixed",
    torch.kron(torch.tensor([1, 2]), torch.tensor([0.5, 1.0])).dtype,
    torch.kron(torch.ones(2, 1, 2), torch.ones(3)).shape,
)

for name, bad in [
    ("cdist dims", lambda: torch.cdist(pts, ref[:, :2])),
    ("cdist p<0", lambda: torch.cdist(pts, ref, p=-1)),
    ("cdist 1d", lambda: torch.cdist(pts[0], ref[0])),
    ("pdist 3d", lambda: torch.pdist(pts[None])),
    ("cross size", lambda: torch.linalg.cross(torch.ones(2, 2), torch.ones(2, 2))),
    ("cross dim", lambda: torch.cross(torch.ones(3, 4), torch.ones(3, 4), dim=1)),
    ("tensordot", lambda: torch.tensordot(torch.ones(2, 3), torch.ones(4, 5), dims=([1], [0]))),
    ("einsum", lambda: torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 5))),
    ("einsum ops", lambda: torch.einsum("ij,jk->ik", torch.ones(2, 3))),
    ("combinations 2d", lambda: torch.combinations(torch.ones(2, 2))),
    ("histogramdd int", lambda: torch.histogramdd(torch.ones(3, 2, dtype=torch.int64), bins=2)),
    ("cov 3d", lambda: torch.cov(torch.ones(2, 2, 2))),
    ("cov fw float", lambda: torch.cov(obs, fweights=aw)),
]:
    try:
        out = bad()
        print(name, "ok", out.shape)
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:110])
