"""classical graph algorithms written with dense tensor ops: Floyd-Warshall by min-plus broadcasting, PageRank by
power iteration, connected components by label propagation, spectral clustering (normalized Laplacian, eigh,
k-means with cdist), random walks with multinomial-free sampling by cumsum + searchsorted, and triangle counts."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(23)


def r(x, k=8):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


# two dense clusters joined by one bridge, plus an isolated pair
n = 10
W = torch.zeros(n, n)
blocks = [(0, 4), (4, 8)]
for lo, hi in blocks:
    w = torch.from_numpy(rng.uniform(0.5, 1.5, (hi - lo, hi - lo)).astype(np.float32))
    W[lo:hi, lo:hi] = torch.triu(w, diagonal=1)
W[3, 4] = 0.2
W[8, 9] = 1.0
W = W + W.T
A = (W > 0).float()
print("adjacency", A.sum().item(), A.sum(1).tolist())
print("symmetric", torch.equal(W, W.T), "nonzero", torch.count_nonzero(W).item())

# all-pairs shortest paths (weights as lengths), min-plus products
dist = torch.where(W > 0, 1.0 / W, torch.full_like(W, float("inf")))
dist.fill_diagonal_(0.0)
for k in range(n):
    dist = torch.minimum(dist, dist[:, k : k + 1] + dist[k : k + 1, :])
print("floyd-warshall", r(dist[0], 10))
print("unreachable", torch.isinf(dist).sum().item(), "diameter", round(dist[torch.isfinite(dist)].max().item(), 4))
d2 = torch.where(W > 0, 1.0 / W, torch.full_like(W, float("inf")))
d2.fill_diagonal_(0.0)
for _ in range(4):
    d2 = torch.amin(d2[:, :, None] + d2[None, :, :], dim=1)
print(
    "min-plus squaring agrees", torch.allclose(torch.nan_to_num(d2, posinf=-1.0), torch.nan_to_num(dist, posinf=-1.0))
)

# PageRank
deg = W.sum(1)
P = W / deg.clamp(min=1e-12)[:, None]
P[deg == 0] = 1.0 / n
pr = torch.full((n,), 1.0 / n)
for it in range(50):
    pr = 0.15 / n + 0.85 * pr @ P
print("pagerank", r(pr, 10), "sum", round(pr.sum().item(), 5))
print("top nodes", torch.argsort(pr, descending=True)[:3].tolist())
big = P[:8, :8].T.double()
evals, evecs = torch.linalg.eig(big)
lead = evecs[:, evals.real.argmax()].real
print("stationary of the big component", r(lead / lead.sum(), 8), round(evals.real.max().item(), 6))

# connected components by min-label propagation
labels = torch.arange(n)
for _ in range(n):
    nbr = torch.where(A > 0, labels[None, :].expand(n, n), torch.full((n, n), n))
    new = torch.minimum(labels, nbr.min(1).values)
    if torch.equal(new, labels):
        break
    labels = new
comp, sizes = torch.unique(labels, return_counts=True)
print("components", labels.tolist(), comp.tolist(), sizes.tolist())
reach = torch.linalg.matrix_power(A + torch.eye(n), n) > 0
print("reachability agrees", torch.equal(reach, labels[:, None] == labels[None, :]))

# spectral clustering on the normalized Laplacian
dinv = torch.where(deg > 0, deg.rsqrt(), torch.zeros_like(deg))
L = torch.eye(n) - dinv[:, None] * W * dinv[None, :]
lam, vec = torch.linalg.eigh(L.double())
print("laplacian spectrum", r(lam, 10))
print("zero eigenvalues", int((lam < 1e-4).sum()), "fiedler gap", round((lam[2] - lam[1]).item(), 4))
emb = vec[:, :3]
emb = emb / emb.norm(dim=1, keepdim=True)
centers = emb[[0, 5, 9]].clone()
for it in range(10):
    assign = torch.cdist(emb, centers).argmin(1)
    centers = torch.stack([emb[assign == c].mean(0) for c in range(3)])
print(
    "spectral clusters",
    assign.tolist(),
    "inertia",
    round(torch.cdist(emb, centers).min(1).values.pow(2).sum().item(), 6),
)

# random walks by inverse-CDF sampling with a fixed uniform stream
u = torch.from_numpy(rng.random((4, 6)).astype(np.float32))
cdf = torch.cumsum(P, 1)
cdf[:, -1] = 1.0
walks = torch.zeros(4, 7, dtype=torch.long)
walks[:, 0] = torch.tensor([0, 2, 5, 8])
for t in range(6):
    rows = cdf[walks[:, t]]
    walks[:, t + 1] = torch.searchsorted(rows, u[:, t : t + 1]).squeeze(1).clamp(max=n - 1)
print("walks", walks.tolist())
visits = torch.bincount(walks.flatten(), minlength=n)
print("visit counts", visits.tolist())
co = torch.zeros(n, n)
src, dst = walks[:, :-1].flatten(), walks[:, 1:].flatten()
co.index_put_((src, dst), torch.ones(src.numel()), accumulate=True)
print("transition counts", int(co.sum()), torch.nonzero(co)[:5].tolist())

# triangles, clustering coefficient, k-core style pruning
tri = torch.diagonal(torch.linalg.matrix_power(A, 3)) / 2
degA = A.sum(1)
cc = torch.where(degA > 1, 2 * tri / (degA * (degA - 1)).clamp(min=1), torch.zeros_like(tri))
print("triangles", tri.tolist(), "total", int(torch.trace(A @ A @ A).item() // 6))
print("clustering", r(cc, 10))
alive = torch.ones(n, dtype=torch.bool)
for _ in range(n):
    d = (A * alive[None, :] * alive[:, None]).sum(1)
    drop = alive & (d < 3)
    if not drop.any():
        break
    alive &= ~drop
print("3-core", torch.nonzero(alive).flatten().tolist())
print("block_diag", torch.block_diag(A[:2, :2], torch.ones(1, 2)).tolist())
ti = torch.tril_indices(4, 4, offset=-1)
print("edge list", ti.tolist(), r(W[:4, :4][ti[0], ti[1]], 6))
print("kron path", torch.kron(torch.tensor([[0.0, 1.0], [1.0, 0.0]]), torch.eye(2)).sum().item())
try:
    torch.linalg.matrix_power(torch.ones(2, 3), 2)
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    torch.block_diag(torch.ones(2, 2, 2))
except RuntimeError as e:
    print("RuntimeError", str(e))
