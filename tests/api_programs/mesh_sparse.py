"""geometry processing with sparse tensors: a triangle mesh's edges and cotangent Laplacian as COO/CSR tensors,
Laplacian smoothing, implicit heat diffusion (cholesky_solve), spectral descriptors (eigh), a sparse graph
convolution trained through torch.sparse.mm, and the reprs and errors of sparse tensors."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(5)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


# a 5x5 grid of vertices lifted onto a bumpy surface, two triangles per cell
n = 5
ii, jj = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
xy = torch.stack([ii.flatten(), jj.flatten()], -1).float() / (n - 1)
z = 0.2 * torch.sin(math.pi * xy[:, 0]) * torch.cos(math.pi * xy[:, 1])
V = torch.cat([xy, z[:, None]], -1) + 0.01 * torch.from_numpy(rng.standard_normal((n * n, 3)).astype(np.float32))
cells = (ii[:-1, :-1] * n + jj[:-1, :-1]).flatten()
faces = torch.cat(
    [torch.stack([cells, cells + n, cells + 1], -1), torch.stack([cells + 1, cells + n, cells + n + 1], -1)]
)
print("mesh", V.shape, faces.shape, faces[:2].tolist())
e = torch.cat([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
e = torch.sort(e, dim=1).values
edges = torch.unique(e, dim=0)
print("edges", edges.shape, edges[:4].tolist())
print("euler characteristic", V.shape[0] - edges.shape[0] + faces.shape[0])

# uniform adjacency as a sparse COO tensor
idx = torch.cat([edges.T, edges.flip(1).T], 1)
A = torch.sparse_coo_tensor(idx, torch.ones(idx.shape[1]), (n * n, n * n))
print("A", A.layout, A.is_sparse, A.is_coalesced(), A._nnz(), A.shape)
A = A.coalesce()
print("coalesced", A.is_coalesced(), A.indices()[:, :5].tolist(), r(A.values(), 5))
deg = torch.sparse.sum(A, dim=1).to_dense()
print("degrees", deg[:10].tolist(), deg.dtype)
dup = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [1, 1, 0]]), torch.tensor([1.0, 2.0, 5.0]), (2, 2))
print("duplicates summed", dup.coalesce().values().tolist(), dup.to_dense().tolist())
print(dup.coalesce())

# smoothing: V <- V + lam * (D^-1 A V - V)
Vs = V.clone()
for it in range(5):
    Vs = Vs + 0.5 * (torch.sparse.mm(A, Vs) / deg[:, None] - Vs)
print("smoothed z", r(Vs[:, 2], 6), "range", round((Vs[:, 2].max() - Vs[:, 2].min()).item(), 4))
print("spmm matches dense", torch.allclose(torch.sparse.mm(A, V), A.to_dense() @ V, atol=1e-6))
print("A @ V", r((A @ V)[3]), "mv", r(torch.mv(A, V[:, 0])[:5]))


# cotangent Laplacian from face angles
def cotangent_laplacian(V, F_):
    i, j, k = F_.unbind(1)

    def cot(a, b, c):
        u, w = V[b] - V[a], V[c] - V[a]
        return (u * w).sum(-1) / torch.linalg.cross(u, w).norm(dim=-1)

    rows = torch.cat([j, k, i, k, i, j])
    cols = torch.cat([k, j, k, i, j, i])
    w = 0.5 * torch.cat([cot(i, j, k)] * 2 + [cot(j, k, i)] * 2 + [cot(k, i, j)] * 2)
    W = torch.sparse_coo_tensor(torch.stack([rows, cols]), w, (V.shape[0],) * 2).coalesce()
    D = torch.sparse.sum(W, 1).to_dense()
    return W, D


W, D = cotangent_laplacian(V, faces)
print("cot weights", W._nnz(), r(W.values(), 5), r(D, 5))
L = torch.diag(D) - W.to_dense()
print("L symmetric", torch.allclose(L, L.T, atol=1e-6), "rows sum 0", round(L.sum(1).abs().max().item(), 5))
tri_area = 0.5 * torch.linalg.cross(V[faces[:, 1]] - V[faces[:, 0]], V[faces[:, 2]] - V[faces[:, 0]]).norm(dim=-1)
M = torch.zeros(n * n).index_add_(0, faces.flatten(), tri_area.repeat_interleave(3) / 3)
print("area", round(tri_area.sum().item(), 4), "mass", r(M, 5))
Ld, Md = L.double(), M.double()
evals, evecs = torch.linalg.eigh(torch.diag(Md.rsqrt()) @ Ld @ torch.diag(Md.rsqrt()))
print("spectrum", r(evals, 6))
phi = Md.rsqrt()[:, None] * evecs
hks = (phi[:, 1:6] ** 2 * torch.exp(-evals[1:6] * 0.01)).sum(1)
print("heat kernel signature", r(hks, 6))
dt = 1e-3
sys = torch.diag(Md) + dt * Ld
chol = torch.linalg.cholesky(sys)
u0 = torch.zeros(n * n, 1, dtype=torch.float64)
u0[12] = 1.0
u = u0
for _ in range(3):
    u = torch.cholesky_solve(Md[:, None] * u, chol)
print("heat diffusion", r(u[10:15, 0], 5), round((Md * u[:, 0]).sum().item(), 6))
print(
    "matches solve",
    torch.allclose(
        u,
        torch.linalg.solve(
            sys, Md[:, None] * torch.cholesky_solve(Md[:, None] * torch.cholesky_solve(Md[:, None] * u0, chol), chol)
        ),
    ),
)

# CSR and conversions
Acsr = A.to_sparse_csr()
print("csr", Acsr.layout, Acsr.crow_indices()[:6].tolist(), Acsr.col_indices()[:6].tolist(), r(Acsr.values(), 3))
print(
    "csr @ dense",
    torch.allclose(Acsr @ V, A.to_dense() @ V, atol=1e-6),
    "back to coo",
    torch.equal(Acsr.to_sparse().to_dense(), A.to_dense()),
)
dense = torch.tensor([[0.0, 2.0, 0.0], [1.5, 0.0, 0.0], [0.0, 0.0, -3.0]])
sp = dense.to_sparse()
print(sp)
print("to_sparse(1)", dense.to_sparse(sparse_dim=1).values().shape, "transpose", sp.t().coalesce().indices().tolist())
print("sparse ops", (sp * 2).to_dense().tolist(), (sp + sp).coalesce().values().tolist(), torch.sparse.sum(sp).item())
print("sparse_dim", sp.sparse_dim(), sp.dense_dim(), sp.to_dense().to_sparse_csr().to_dense().equal(dense))


class SparseGCN(nn.Module):
    def __init__(self, cin, hidden, cout):
        super().__init__()
        self.l1 = nn.Linear(cin, hidden)
        self.l2 = nn.Linear(hidden, cout)

    def forward(self, adj, x):
        h = F.relu(torch.sparse.mm(adj, self.l1(x)))
        return torch.sparse.mm(adj, self.l2(h))


dinv = (deg + 1).rsqrt()
eye = torch.arange(n * n)
ai = torch.cat([A.indices(), torch.stack([eye, eye])], 1)
av = torch.cat([A.values(), torch.ones(n * n)])
A_hat = torch.sparse_coo_tensor(ai, av * dinv[ai[0]] * dinv[ai[1]], A.shape).coalesce()
print("normalized adj", r(A_hat.values(), 5), A_hat._nnz())
gcn = SparseGCN(3, 8, 2)
with torch.no_grad():
    for p in gcn.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32)) * 0.4)
labels = (V[:, 2] > 0).long()
opt = torch.optim.Adam(gcn.parameters(), lr=0.05)
for step in range(8):
    out = gcn(A_hat, V)
    loss = F.cross_entropy(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print(f"gcn step {step} loss {loss.item():.4f}")
print("gcn acc", round((gcn(A_hat, V).argmax(1) == labels).float().mean().item(), 4), r(gcn.l1.weight.grad, 4))
vals = torch.ones(4, requires_grad=True)
S = torch.sparse_coo_tensor(torch.tensor([[0, 1, 2, 2], [1, 0, 2, 0]]), vals, (3, 3))
(torch.sparse.mm(S, torch.arange(6.0).reshape(3, 2)) ** 2).sum().backward()
print("grad through values", vals.grad.tolist())

for bad in [
    lambda: torch.sparse.mm(A, torch.ones(3, 2)),
    lambda: torch.sparse_coo_tensor(torch.tensor([0, 1]), torch.ones(2), (3,)),
]:
    try:
        bad()
        print("no error")
    except (RuntimeError, ValueError, IndexError) as err:
        print(type(err).__name__, str(err).split("\n")[0][:100])
try:
    A.view(-1)
except NotImplementedError as err:
    print("NotImplementedError", str(err).split(" backend")[0])
