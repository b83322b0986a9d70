"""A 1-D finite-element code as an engineering student writes it with torch: a graded mesh, linear element matrices
assembled with index_put_(accumulate=True), scatter_add and a sparse COO matrix (duplicates summed by coalesce),
Dirichlet conditions by row elimination, the static solve and its convergence order, a vibrating bar's eigenmodes
from a generalized eigenproblem through a Cholesky-reduced eigh, point evaluation with searchsorted and lerp, and
the L2 error by Gauss quadrature."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


def mesh(n, grading=1.0):
    s = torch.linspace(0, 1, n + 1, dtype=f64)
    return s**grading


def assemble(x, kappa=lambda m: torch.ones_like(m), f=lambda m: torch.ones_like(m)):
    """Stiffness K, mass M and load b of -(kappa u')' = f with linear elements (midpoint rule for kappa, f)."""
    n = x.numel() - 1
    h = x[1:] - x[:-1]
    mid = 0.5 * (x[1:] + x[:-1])
    ke = kappa(mid)[:, None, None] / h[:, None, None] * torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=f64)
    me = h[:, None, None] / 6 * torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=f64)
    conn = torch.stack([torch.arange(n), torch.arange(1, n + 1)], 1)
    rows = conn[:, :, None].expand(n, 2, 2).reshape(-1)
    cols = conn[:, None, :].expand(n, 2, 2).reshape(-1)
    K = torch.zeros(n + 1, n + 1, dtype=f64)
    K.index_put_((rows, cols), ke.reshape(-1), accumulate=True)
    M = torch.sparse_coo_tensor(torch.stack([rows, cols]), me.reshape(-1), (n + 1, n + 1)).coalesce().to_dense()
    be = (f(mid) * h / 2)[:, None].expand(n, 2)
    b = torch.zeros(n + 1, dtype=f64).scatter_add(0, conn.reshape(-1), be.reshape(-1))
    return K, M, b, conn


x = mesh(8)
K, M, b, conn = assemble(x)
print("mesh", x.shape, "conn", conn.shape, conn[:3].tolist())
print(
    "K symmetric",
    torch.allclose(K, K.T),
    "row sums 0",
    bool(K.sum(1).abs().max() < 1e-12),
    "tridiagonal",
    torch.equal(K, K.triu(-1).tril(1)),
)
print("K diag", r(K.diagonal(), 4, 2), "M total mass", round(M.sum().item(), 10), "b total", round(b.sum().item(), 10))
Kc = torch.zeros_like(K)
for e in range(conn.shape[0]):
    i, j = conn[e].tolist()
    h = (x[j] - x[i]).item()
    Kc[i, i] += 1 / h
    Kc[j, j] += 1 / h
    Kc[i, j] -= 1 / h
    Kc[j, i] -= 1 / h
print("index_put_ accumulate == loop", torch.allclose(K, Kc))
Msp = torch.sparse_coo_tensor(
    torch.stack([conn[:, [0, 0, 1, 1]].reshape(-1), conn[:, [0, 1, 0, 1]].reshape(-1)]),
    torch.ones(32, dtype=f64),
    (9, 9),
)
print(
    "uncoalesced nnz",
    Msp._nnz(),
    "coalesced nnz",
    Msp.coalesce()._nnz(),
    "duplicates summed",
    Msp.coalesce().values().max().item(),
)


def solve_dirichlet(K, b, left=0.0, right=0.0):
    n = K.shape[0]
    inner = torch.arange(1, n - 1)
    u = torch.zeros(n, dtype=f64)
    u[0], u[-1] = left, right
    rhs = b[inner] - K[inner][:, [0, n - 1]] @ torch.tensor([left, right], dtype=f64)
    u[inner] = torch.linalg.solve(K[inner][:, inner], rhs)
    return u


u = solve_dirichlet(K, b)
exact = lambda s: 0.5 * s * (1 - s)
print(
    "nodal error (exact at nodes in 1-D)",
    f"{(u - exact(x)).abs().max().item():.0e}" if (u - exact(x)).abs().max() > 1e-13 else "< 1e-13",
)

# a harder problem: kappa = 1 + x, f = pi^2 sin(pi x) ... errors by Gauss quadrature
gp = torch.tensor([-math.sqrt(3 / 5), 0.0, math.sqrt(3 / 5)], dtype=f64)
gw = torch.tensor([5 / 9, 8 / 9, 5 / 9], dtype=f64)


def l2_error(x, u, exact_fn):
    h = x[1:] - x[:-1]
    pts = 0.5 * (x[1:] + x[:-1])[:, None] + 0.5 * h[:, None] * gp
    uh = torch.lerp(u[:-1, None], u[1:, None], (gp + 1) / 2)
    err2 = ((uh - exact_fn(pts)) ** 2 * gw).sum(1) * h / 2
    return err2.sum().sqrt().item()


ex2 = lambda s: torch.sin(math.pi * s)
errs = []
for n in (8, 16, 32, 64):
    xm = mesh(n)
    Kn, Mn, bn, _ = assemble(xm, f=lambda m: math.pi**2 * torch.sin(math.pi * m))
    un = solve_dirichlet(Kn, bn)
    errs.append(l2_error(xm, un, ex2))
print("L2 errors", [f"{e:.2e}" for e in errs], "orders", [round(math.log2(errs[i] / errs[i + 1]), 2) for i in range(3)])
xg = mesh(32, grading=2.0)
print("graded mesh smallest/largest h", round((xg[1] - xg[0]).item(), 5), round((xg[-1] - xg[-2]).item(), 5))

# vibrating bar: K v = lam M v with fixed ends; reduce by M's Cholesky factor
x40 = mesh(40)
K40, M40, _, _ = assemble(x40)
inner = torch.arange(1, 40)
Ki, Mi = K40[inner][:, inner], M40[inner][:, inner]
L = torch.linalg.cholesky(Mi)
Linv_K = torch.linalg.solve_triangular(L, Ki, upper=False)
C = torch.linalg.solve_triangular(L, Linv_K.T, upper=False).T
lam, Y = torch.linalg.eigh(0.5 * (C + C.T))
Vm = torch.linalg.solve_triangular(L.T, Y, upper=True)
freqs = lam[:4].sqrt() / math.pi
print("mode frequencies / pi", r(freqs, 4, 3), "exact", [1, 2, 3, 4])
print("M-orthonormal", torch.allclose(Vm.T @ Mi @ Vm, torch.eye(39, dtype=f64), atol=1e-10))
print(
    "eigvals via generalized == eigvals of M^-1 K",
    torch.allclose(torch.sort(torch.linalg.eigvals(torch.linalg.solve(Mi, Ki)).real).values[:4], lam[:4]),
)
mode1 = torch.cat([torch.zeros(1, dtype=f64), Vm[:, 0], torch.zeros(1, dtype=f64)])
mode1 = mode1 * torch.sign(mode1[20])
print("first mode shape ~ sin", round(torch.corrcoef(torch.stack([mode1, torch.sin(math.pi * x40)]))[0, 1].item(), 6))
lumped = M40.sum(1)
lam_l = torch.linalg.eigvalsh(Ki / torch.sqrt(lumped[inner][:, None] * lumped[inner][None, :]))
print("lumped mass lowers frequencies", bool(lam_l[0] < lam[0]), round(lam_l[0].sqrt().item() / math.pi, 4))

# evaluation at arbitrary points
q = torch.tensor([0.05, 0.33, 0.5, 0.999], dtype=f64)
cell = torch.searchsorted(x, q, right=True).clamp(1, x.numel() - 1) - 1
t = (q - x[cell]) / (x[cell + 1] - x[cell])
uq = torch.lerp(u[cell], u[cell + 1], t)
print("cells", cell.tolist(), "u(q)", r(uq, 4, 5), "exact", r(exact(q), 4, 5))
print("bucketize agrees", torch.equal(torch.bucketize(q, x, right=True) - 1, cell))
print("np.interp-style", r(torch.from_numpy(np.interp(q.numpy(), x.numpy(), u.numpy())), 4, 5))

# mistakes
try:
    K.index_put_((rows := torch.tensor([0, 9]), rows), torch.ones(2, dtype=f64), accumulate=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3, dtype=f64).scatter_add(0, torch.tensor([0, 1]), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.cholesky(Ki - 10 * Mi * 1e6)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
