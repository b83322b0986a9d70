"""Local geometry features as point-cloud preprocessing writes them: kNN covariances by einsum, normals from
batched eigh (UPLO both ways) and eigvalsh, surface variation and linearity/planarity/sphericity, orientation toward
a viewpoint, torch.cov with fweights/aweights and corrcoef, a batched SVD plane fit, PFH-style angle features binned
with bucketize and histc, and the errors of those calls."""

import math

import torch

torch.manual_seed(0)
u, v = torch.meshgrid(torch.linspace(-1, 1, 12), torch.linspace(-1, 1, 12), indexing="ij")
plane = torch.stack([u, v, 0.1 * u * v], -1).reshape(-1, 3)
plane = plane + 0.005 * torch.randn_like(plane)
n = plane.shape[0]
d = torch.cdist(plane, plane)
knn_d, knn_i = d.topk(8, largest=False, sorted=True)
print("knn", knn_i.shape, knn_i[:2].tolist())
nbrs = plane[knn_i]
centered = nbrs - nbrs.mean(1, keepdim=True)
cov = torch.einsum("nki,nkj->nij", centered, centered) / 8
evals, evecs = torch.linalg.eigh(cov)
evals_u, _ = torch.linalg.eigh(torch.triu(cov), UPLO="U")
print("eigh UPLO", torch.allclose(evals, evals_u, atol=1e-6), torch.allclose(evals, torch.linalg.eigvalsh(cov)))
normals = evecs[..., 0]
view = torch.tensor([0.0, 0.0, 5.0])
flip = ((view - plane) * normals).sum(-1) < 0
normals = torch.where(flip.unsqueeze(-1), -normals, normals)
print("normals up", (normals[:, 2] > 0.9).sum().item(), "of", n)
l3, l2, l1 = evals.clamp_min(0).unbind(-1)
curv = l3 / evals.sum(-1)
print("surface variation", round(curv.mean().item(), 4), round(curv.max().item(), 4))
lin = (l1 - l2) / l1
plan = (l2 - l3) / l1
sph = l3 / l1
print("shape features", [round(t.mean().item(), 4) for t in (lin, plan, sph)])

x = plane[:20].t()
print("cov", torch.cov(x).round(decimals=4).tolist()[0])
fw = torch.randint(1, 4, (20,))
aw = torch.rand(20)
print("cov fweights", torch.cov(x, fweights=fw).round(decimals=4).tolist()[2])
print("cov aweights", torch.cov(x, aweights=aw, correction=0).round(decimals=4).tolist()[2])
print("cov both", torch.cov(x, fweights=fw, aweights=aw).round(decimals=4).tolist()[1])
print("corrcoef", torch.corrcoef(x).round(decimals=4).tolist()[0])

A = torch.cat([nbrs[:, :, :2], torch.ones(n, 8, 1)], -1)
sol = torch.linalg.lstsq(A, nbrs[:, :, 2:]).solution
print("lstsq plane", sol.shape, sol[:2].squeeze(-1).round(decimals=3).tolist())
U, S, Vh = torch.linalg.svd(centered, full_matrices=False)
print("svd", U.shape, S.shape, Vh.shape, torch.allclose(S**2 / 8, evals.flip(-1), atol=1e-5))
print("svd normal", torch.allclose(Vh[:, -1].abs(), evecs[..., 0].abs(), atol=1e-3))

src, dst = knn_i[:, 0], knn_i[:, 1]
dvec = plane[dst] - plane[src]
dist = dvec.norm(dim=-1, keepdim=True)
uax = normals[src]
vax = torch.linalg.cross(uax, dvec / dist, dim=-1)
wax = torch.linalg.cross(uax, vax)
alpha = (vax * normals[dst]).sum(-1)
phi = (uax * dvec / dist).sum(-1)
theta = torch.atan2((wax * normals[dst]).sum(-1), (uax * normals[dst]).sum(-1))
edges = torch.linspace(-1, 1, 6)
hist = torch.stack([torch.bucketize(t.clamp(-1, 1), edges[1:-1]) for t in (alpha, phi)], -1)
print("bucketize", hist[:6].tolist(), torch.bincount(hist[:, 0], minlength=5).tolist())
print("histc", torch.histc(theta, bins=4, min=-math.pi, max=math.pi).tolist())
print("histogram", torch.histogram(alpha, bins=3, range=(-1.0, 1.0)).hist.tolist())
b_right = torch.bucketize(torch.tensor([-1.0, 0.0, 1.0]), edges, right=True)
print("right", b_right.tolist(), torch.searchsorted(edges, torch.tensor([0.0]), side="right").tolist())

for call in [lambda: torch.linalg.eigh(torch.randn(3, 4)), lambda: torch.linalg.eigh(cov, UPLO="X"),
             lambda: torch.cov(torch.randn(2, 3, 4)), lambda: torch.cov(x, fweights=fw.float()),
             lambda: torch.histc(torch.tensor([1, 2]), bins=2), lambda: torch.linalg.cross(torch.randn(4, 2),
                 torch.randn(4, 2))]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
