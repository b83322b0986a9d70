"""Radius and kNN graphs for molecular conformers: cdist in its compute modes and p-norms, self-loop masks,
nonzero(as_tuple=True), edge filtering across a batch with block-diagonal masks, kNN by topk(largest=False),
periodic images with minimum-image shifts, canonical undirected edges by unique(dim=1), sorting edges by
target with stable argsort, and cdist gradients including coincident points."""

import torch

torch.manual_seed(0)
f64 = torch.float64

pos = torch.tensor([[0.0, 0.0, 0.0], [1.09, 0.0, 0.0], [-0.36, 1.03, 0.0], [-0.36, -0.51, 0.89],
                    [-0.36, -0.51, -0.89], [3.2, 0.1, 0.2], [4.1, 0.4, -0.3], [3.0, 1.2, 0.9]], dtype=f64)
batch = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1])
cutoff = 1.6

D = torch.cdist(pos, pos)
for mode in ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]:
    Dm = torch.cdist(pos, pos, compute_mode=mode)
    print(mode, round(float(Dm.sum()), 4), bool(torch.allclose(D, Dm, atol=1e-6)))
for p in [0.0, 1.0, 1.5, float("inf")]:
    print("p", p, torch.cdist(pos[:3], pos[5:], p=p).round(decimals=4).tolist())

same = batch[:, None] == batch[None, :]
mask = (D < cutoff) & same & ~torch.eye(8, dtype=torch.bool)
row, col = mask.nonzero(as_tuple=True)
print("edges", row.tolist(), col.tolist())
print("argwhere", torch.argwhere(mask).shape, torch.equal(torch.argwhere(mask).T, torch.stack([row, col])))
print("degree", torch.bincount(row, minlength=8).tolist())
dist = D[row, col]
print("dist", dist.round(decimals=4).tolist()[:6], dist.dtype)

# canonical undirected edges and their multiplicity
und = torch.stack([torch.minimum(row, col), torch.maximum(row, col)])
uniq, inv, cnt = torch.unique(und, dim=1, return_inverse=True, return_counts=True)
print("undirected", uniq.tolist(), cnt.tolist(), inv.tolist()[:8])
ti, tj = torch.triu_indices(5, 5, offset=1)
print("triu pairs", ti.tolist(), tj.tolist())

# sort by target (stable), to get CSR row pointers
order = torch.argsort(col, stable=True)
s_row, s_col = row[order], col[order]
ptr = torch.zeros(9, dtype=torch.long)
ptr[1:] = torch.cumsum(torch.bincount(s_col, minlength=8), 0)
print("sorted", s_col.tolist(), s_row.tolist(), ptr.tolist())
print("sort stable", torch.sort(torch.tensor([2, 1, 2, 1, 0]), stable=True, descending=True)[1].tolist())

# kNN graph (k=3) within each molecule: mask other molecules with inf
Dk = D.masked_fill(~same, float("inf")).fill_diagonal_(float("inf"))
knn_d, knn_i = Dk.topk(3, dim=1, largest=False)
print("knn idx", knn_i.tolist())
print("knn d", knn_d.round(decimals=4)[:, -1].tolist())
print("isinf", torch.isinf(knn_d).sum().item())

# periodic box: minimum image convention
box = torch.tensor([5.0, 5.0, 5.0], dtype=f64)
frac = torch.tensor([[0.1, 0.1, 0.1], [4.8, 0.2, 4.9], [2.5, 2.5, 2.5], [0.3, 4.7, 0.2]], dtype=f64)
rij = frac[None, :, :] - frac[:, None, :]
shift = torch.round(rij / box)
rij = rij - shift * box
dpbc = rij.norm(dim=-1)
print("pbc", dpbc.round(decimals=4).tolist())
print("shifts", shift[0].tolist())
print("remainder wrap", torch.remainder(torch.tensor([-0.2, 5.3, 10.0], dtype=f64), 5.0).round(decimals=4).tolist())
print("fmod wrap", torch.fmod(torch.tensor([-0.2, 5.3, 10.0], dtype=f64), 5.0).round(decimals=4).tolist())

# gradients of cdist, including coincident points (zero distance) and p=1
a = torch.tensor([[0.0, 0.0], [1.0, 2.0], [1.0, 2.0]], dtype=f64, requires_grad=True)
for p in [2.0, 1.0, 3.0, float("inf")]:
    d = torch.cdist(a, a, p=p)
    (g,) = torch.autograd.grad(d.sum(), a)
    print("cdist grad p", p, d.grad_fn.name(), g.round(decimals=4).tolist())
b = torch.randn(2, 4, 3, dtype=f64, requires_grad=True)
c = torch.randn(2, 5, 3, dtype=f64)
d = torch.cdist(b, c)
print("batched", tuple(d.shape), round(float(d.sum()), 4))
print("gradcheck", torch.autograd.gradcheck(lambda t: torch.cdist(t, c, p=1.5), (b,)))

for name, fn in {
    "cdist dim": lambda: torch.cdist(pos, pos[:, :2]),
    "cdist 1d": lambda: torch.cdist(pos[0], pos[1]),
    "cdist neg p": lambda: torch.cdist(pos, pos, p=-1.0),
    "cdist int": lambda: torch.cdist(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long)),
    "cdist mode": lambda: torch.cdist(pos, pos, compute_mode="fast"),
    "topk too many": lambda: Dk.topk(9, dim=1, largest=False),
    "unique dim oob": lambda: torch.unique(und, dim=2),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
