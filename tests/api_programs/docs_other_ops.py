"""torch "other operations" docstring examples: diff, gradient, trapezoid, cross, kron, rot90, tensordot, einsum..."""

import numpy as np
import torch

rng = np.random.default_rng(3)
a = torch.tensor([1, 3, 2])
print("diff", torch.diff(a), torch.diff(a, n=2), torch.diff(a, append=torch.tensor([4, 5])))
b = torch.tensor([4, 5])
print("diff prepend", torch.diff(a, prepend=b, append=b), torch.diff(torch.tensor([True, False, True])))
m = torch.tensor([[1, 2, 3], [3, 4, 5]])
print("diff dim", torch.diff(m, dim=0), torch.diff(m, dim=1), torch.diff(m, n=3, dim=1).shape)
print("diff 2d prepend", torch.diff(m, dim=0, prepend=torch.tensor([[0, 0, 0]])))
coordinates = (torch.tensor([-2.0, -1.0, 1.0, 4.0]),)
values = torch.tensor([4.0, 1.0, 1.0, 16.0])
print("gradient coords", torch.gradient(values, spacing=coordinates))
t = torch.tensor([[1, 2, 4, 8], [10, 20, 40, 80]])
print("gradient 2d", torch.gradient(t))
print("gradient scalar spacing", torch.gradient(t, spacing=2.0), torch.gradient(t, spacing=[3.0, 2.0]))
print("gradient dim", torch.gradient(t, dim=1), torch.gradient(t, spacing=2.0, dim=1, edge_order=2))
print("gradient coords list", torch.gradient(t, spacing=[torch.tensor([0.0, 1.0]), torch.tensor([0.0, 1.0, 3.0, 4.0])]))
y = torch.tensor([1.0, 5.0, 10.0])
print("trapezoid", torch.trapezoid(y), torch.trapezoid(y, dx=2), torch.trapezoid(y, torch.tensor([1.0, 3.0, 6.0])))
y2 = torch.arange(9.0).reshape(3, 3)
print("trapezoid 2d", torch.trapezoid(y2), torch.trapezoid(y2, dim=0), torch.trapz(y2, dx=0.5))
xx = torch.tensor([[1.0, 2.0, 3.0], [1.0, 3.0, 5.0], [1.0, 4.0, 7.0]])
print("trapezoid x 2d", torch.trapezoid(y2, xx), torch.trapezoid(torch.tensor([1, 2, 3])).dtype)
print("cumulative_trapezoid", torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y, dx=2))
print("cumulative_trapezoid x", torch.cumulative_trapezoid(y2, xx), torch.cumulative_trapezoid(y2, dim=0))
u = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 2.0, 3.0]])
v = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.5, 2.0]])
print("cross", torch.cross(u, v, dim=1), torch.linalg.cross(u, v), torch.linalg.cross(u[:1], v).shape)
print("cross int", torch.linalg.cross(torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6])), u.cross(v, dim=0))
mat1 = torch.eye(2)
mat2 = torch.ones(2, 2)
print("kron", torch.kron(mat1, mat2), torch.kron(torch.tensor([1, 2]), torch.tensor([[1], [10]])))
print("kron 3d", torch.kron(torch.ones(2, 1, 2), torch.arange(4.0).reshape(2, 2)).shape)
A = torch.tensor([[0, 1], [1, 0]])
B = torch.tensor([[3, 4, 5], [6, 7, 8]])
C = torch.tensor(7)
D = torch.tensor([1, 2, 3])
E = torch.tensor([[4], [5], [6]])
print("block_diag", torch.block_diag(A, B, C, D, E))
print("block_diag float", torch.block_diag(torch.ones(1, 2), torch.tensor([[2.5]])), torch.block_diag().shape)
x = torch.arange(4).view(2, 2)
print("rot90", torch.rot90(x, 1, [0, 1]), torch.rot90(x, -1), torch.rot90(x, 2, [1, 0]), torch.rot90(x, 5))
x3 = torch.arange(8).view(2, 2, 2)
print("rot90 3d", torch.rot90(x3, 1, [1, 2]))
r = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8]).view(4, 2)
print("roll", torch.roll(r, 1), torch.roll(r, 1, 0), torch.roll(r, -1, 0))
print("roll dims", torch.roll(r, shifts=(2, 1), dims=(0, 1)), torch.roll(torch.arange(5), 7))
print("flip", torch.flip(x3, [0, 1]), torch.fliplr(x), torch.flipud(x), x3.flip(-1)[0])
a = torch.arange(60.0).reshape(3, 4, 5)
b = torch.arange(24.0).reshape(4, 3, 2)
print("tensordot", torch.tensordot(a, b, dims=([1, 0], [0, 1])))
c = torch.from_numpy(rng.standard_normal((3, 4, 5)).astype(np.float64))
d = torch.from_numpy(rng.standard_normal((4, 5, 6)).astype(np.float64))
print("tensordot int", torch.tensordot(c, d, dims=2).round(decimals=4)[0], torch.tensordot(c, d, dims=0).shape)
print("tensordot tensor dims", torch.tensordot(c, d, dims=torch.tensor([[1, 2], [0, 1]])).shape)
print("tensordot outer", torch.tensordot(torch.tensor([1, 2]), torch.tensor([3, 4]), dims=0))
print(
    "einsum trace",
    torch.einsum("ii", torch.arange(9.0).reshape(3, 3)),
    torch.einsum("ii->i", torch.arange(9).reshape(3, 3)),
)
xo, yo = torch.arange(5.0), torch.arange(4.0)
print("einsum outer", torch.einsum("i,j->ij", xo, yo).shape, torch.einsum(xo, [0], yo, [1], [0, 1])[4])
As = torch.arange(6.0).reshape(2, 3)
Bs = torch.arange(12.0).reshape(3, 4)
print("einsum mm", torch.einsum("ij,jk", As, Bs), torch.einsum("ij,jk->ik", [As, Bs]).shape)
Ab = torch.arange(24.0).reshape(2, 3, 4)
print("einsum ellipsis", torch.einsum("...ij->...ji", Ab).shape, torch.einsum("b...,b...->b", Ab, Ab))
print("einsum sublist ellipsis", torch.einsum(Ab, [..., 0, 1], [..., 1, 0]).shape, torch.einsum("i...->...", Ab).shape)
print("einsum bilinear", torch.einsum("bn,anm,bm->ba", torch.ones(2, 3), torch.ones(4, 3, 5), torch.ones(2, 5)))
x1 = torch.tensor([[0.9041, 0.0196], [-0.3108, -2.4423], [-0.4821, 1.059]])
x2 = torch.tensor([[-2.1763, -0.4713], [-0.6986, 1.3702]])
print("cdist", torch.cdist(x1, x2, p=2.0))
for p in [0.0, 1.0, 3.0, float("inf")]:
    print("cdist p", p, torch.cdist(x1, x2, p=p))
print("cdist batch", torch.cdist(x1.unsqueeze(0).expand(2, 3, 2), x2).shape, torch.pdist(x1), torch.pdist(x1, p=1))
tr = torch.arange(1.0, 17.0).reshape(4, 4)
print("tril", torch.tril(tr), torch.tril(tr, diagonal=1), torch.tril(tr, -1))
print("triu", torch.triu(tr), torch.triu(tr, 1), torch.triu(tr[:2], diagonal=-1), torch.triu(tr[:, :2], 3))
de = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print("diag_embed", torch.diag_embed(de), torch.diag_embed(de, offset=1, dim1=0, dim2=2).shape)
print("diagflat", torch.diagflat(torch.tensor([1, 2, 3])), torch.diagflat(torch.tensor([1, 2]), 1), torch.diagflat(de))
print("diag", torch.diag(torch.tensor([1, 2])), torch.diag(tr, -1), torch.diagonal(tr, offset=1), torch.diag(tr, 5))
xv = torch.tensor([1, 2, 3, 5])
print("vander", torch.vander(xv), torch.vander(xv, N=3), torch.vander(xv, N=3, increasing=True))
print("vander float", torch.vander(torch.tensor([0.5, 2.0]), 4), torch.vander(xv, 0).shape)
xr = torch.ones(3, 3)
xr[1].fill_(2)
xr[2].fill_(3)
print("renorm", torch.renorm(xr, 1, 0, 5), torch.renorm(xr, 2, 1, 3))
print("histc", torch.histc(torch.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3))
cx = torch.tensor([[0.7308, 1.0060, 0.5270, 1.4516], [-0.1383, 1.5706, 0.4724, 0.4141], [0.3447, 0.0210, 0.5, 0.1]])
print("corrcoef", torch.corrcoef(cx), torch.corrcoef(cx[0]))
xc = torch.tensor([[0, 1, 2], [2, 1, 0]])
print("cov", torch.cov(xc), torch.cov(xc, correction=0))
fw = torch.tensor([1, 6, 9])
aw = torch.tensor([0.4282, 0.0255, 0.4144])
print("cov weights", torch.cov(xc, fweights=fw, aweights=aw), torch.cov(xc, fweights=fw).dtype)
print("cov 1d", torch.cov(torch.tensor([1.0, 2.0, 4.0])), torch.cov(torch.tensor([[1.0, 2.0, 4.0]]), correction=0))
for bad in [
    lambda: torch.diff(torch.tensor(1.0)),
    lambda: torch.diff(m, n=-1),
    lambda: torch.gradient(torch.tensor([1.0])),
    lambda: torch.gradient(t, spacing=[1.0]),
    lambda: torch.gradient(values, edge_order=3),
    lambda: torch.trapezoid(y, torch.tensor([1.0, 2.0])),
    lambda: torch.cross(torch.ones(2, 2), torch.ones(2, 2), dim=1),
    lambda: torch.linalg.cross(torch.ones(3, 3), torch.ones(2, 3)),
    lambda: torch.rot90(x, 1, [0, 0]),
    lambda: torch.rot90(x, 1, [0]),
    lambda: torch.roll(r, (1, 2), 0),
    lambda: torch.tensordot(a, b, dims=([1], [0, 1])),
    lambda: torch.tensordot(a, b, dims=-1),
    lambda: torch.einsum("ij,jk", As, As),
    lambda: torch.einsum("ij->k", As),
    lambda: torch.einsum("ij", As, Bs),
    lambda: torch.cdist(x1, x2, p=-1.0),
    lambda: torch.cdist(x1, torch.ones(2, 3)),
    lambda: torch.tril(torch.ones(3)),
    lambda: torch.vander(torch.ones(2, 2)),
    lambda: torch.vander(xv, N=-1),
    lambda: torch.renorm(xr, -1, 0, 5),
    lambda: torch.cov(xc, fweights=torch.tensor([1.5, 2.0, 1.0])),
    lambda: torch.cov(xc, fweights=torch.tensor([-1, 2, 1])),
    lambda: torch.cov(torch.ones(2, 2, 2)),
    lambda: torch.kron(torch.ones(2), torch.ones(2, dtype=torch.int64)).dtype,
    lambda: torch.diag(torch.ones(2, 2, 2)),
    lambda: torch.diag_embed(de, dim1=0, dim2=0),
    lambda: torch.block_diag(torch.ones(1, 1, 1)),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
