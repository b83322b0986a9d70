"""Sparse operators in scientific code: a 2-D Laplacian, CG, power iteration, spdiags, Markov chains."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def laplacian_2d(n):
    """5-point Laplacian on an n x n grid (Dirichlet), assembled from COO triplets."""
    idx = torch.arange(n * n).reshape(n, n)
    rows, cols, vals = [idx.flatten()], [idx.flatten()], [torch.full((n * n,), 4.0)]
    for a, b in ((idx[:, :-1], idx[:, 1:]), (idx[:-1, :], idx[1:, :])):
        for r, c in ((a, b), (b, a)):
            rows.append(r.flatten())
            cols.append(c.flatten())
            vals.append(torch.full((r.numel(),), -1.0))
    i = torch.stack([torch.cat(rows), torch.cat(cols)])
    return torch.sparse_coo_tensor(i, torch.cat(vals), (n * n, n * n)).coalesce()


n = 5
L = laplacian_2d(n).double()
print("L", tuple(L.shape), "nnz", L._nnz(), "dtype", L.dtype)
print("row sums", torch.sparse.sum(L, dim=1).to_dense().reshape(n, n))
Ld = L.to_dense()
print("symmetric", torch.equal(Ld, Ld.t()), "diag", torch.diagonal(Ld)[:3].tolist())


def cg(A, b, tol=1e-10, maxiter=100):
    x = torch.zeros_like(b)
    r = b - torch.sparse.mm(A, x.unsqueeze(1)).squeeze(1)
    p = r.clone()
    rs = r @ r
    for k in range(maxiter):
        Ap = torch.sparse.mm(A, p.unsqueeze(1)).squeeze(1)
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        if rs_new.sqrt() < tol:
            return x, k + 1
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, maxiter


b = torch.ones(n * n, dtype=torch.float64)
x, iters = cg(L, b)
print("cg iterations", iters)
print("cg residual small", (L @ x - b).norm().item() < 1e-10)
print("cg solution center", round(x[n * n // 2].item(), 6))
print("matches dense solve", torch.allclose(x, torch.linalg.solve(Ld, b), atol=1e-8))

# power iteration for the largest eigenvalue
v = torch.ones(n * n, dtype=torch.float64)
for _ in range(200):
    w = L @ v
    v = w / w.norm()
lam = (v @ (L @ v)).item()
print("power iteration", round(lam, 4), "eigvalsh max", round(torch.linalg.eigvalsh(Ld)[-1].item(), 4))

# Jacobi iterations with the diagonal split off
D_inv = 1.0 / torch.diagonal(Ld)
off = (L - torch.sparse_coo_tensor(torch.arange(n * n).repeat(2, 1), torch.diagonal(Ld), L.shape)).coalesce()
xj = torch.zeros(n * n, dtype=torch.float64)
for _ in range(50):
    xj = D_inv * (b - off @ xj)
print("jacobi error", f"{(xj - x).abs().max().item():.3e}")

# a 1-D second-difference operator from spdiags
m = 6
diags = torch.stack([torch.full((m,), -1.0), torch.full((m,), 2.0), torch.full((m,), -1.0)])
T = torch.sparse.spdiags(diags, torch.tensor([-1, 0, 1]), (m, m))
print(T)
print("T dense\n", T.to_dense())
print("T csr", torch.sparse.spdiags(diags, torch.tensor([-1, 0, 1]), (m, m), layout=torch.sparse_csr).layout)
h = 1.0 / (m + 1)
grid = torch.linspace(h, 1 - h, m)
f = torch.sin(torch.pi * grid)
print("T f / h^2", [round(v, 4) for v in ((T @ f) / h ** 2).tolist()])
print("pi^2 sin", [round(v, 4) for v in (torch.pi ** 2 * f).tolist()])

# sparse @ sparse: the operator squared (biharmonic stencil) and a Kronecker-free 2-D check
T2 = torch.sparse.mm(T, T)
print("T^2", T2.layout, T2._nnz(), "row 2", T2.to_dense()[2].tolist())

# a random-walk Markov chain on a ring: stationary distribution by repeated sparse products
k = 7
src = torch.arange(k)
P = torch.sparse_coo_tensor(torch.stack([torch.cat([src, src]), torch.cat([(src + 1) % k, (src - 1) % k])]),
                            torch.cat([torch.full((k,), 0.7), torch.full((k,), 0.3)]), (k, k))
pi = torch.zeros(k)
pi[0] = 1.0
for step in range(60):
    pi = torch.sparse.mm(P.t(), pi.unsqueeze(1)).squeeze(1)
print("markov pi", [round(v, 4) for v in pi.tolist()], "sum", round(pi.sum().item(), 4))
print("rows stochastic", torch.allclose(torch.sparse.sum(P, dim=1).to_dense(), torch.ones(k)))

# hybrid COO: sparse rows of dense 3-vectors (per-node vector fields)
V = torch.sparse_coo_tensor(torch.tensor([[0, 3, 5]]), torch.randn(3, 3), (6, 3))
print("hybrid", V.sparse_dim(), V.dense_dim(), "norms", [round(v, 4) for v in V.to_dense().norm(dim=1).tolist()])
print("hybrid sum over rows", [round(v, 4) for v in torch.sparse.sum(V, dim=0).tolist()])
print("hybrid * 2", [round(v, 4) for v in (V * 2).coalesce().values()[0].tolist()])
