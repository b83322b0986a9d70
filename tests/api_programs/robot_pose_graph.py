"""2-D pose-graph SLAM as back-end code writes it: SE(2) poses with relative-pose factors from odometry and a loop
closure, residuals with angle wrapping, the Gauss-Newton normal equations assembled from per-factor Jacobian blocks
by index_add_ and as a sparse COO matrix (coalesce, to_dense, sparse.mm), a gauge fixed by a prior, solved with
cholesky; the same problem by Adam on autograd residuals, information-weighted chi2, and the marginal covariance."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def wrap(a):
    return torch.atan2(torch.sin(a), torch.cos(a))


def relative(xi, xj):
    c, s = torch.cos(xi[..., 2]), torch.sin(xi[..., 2])
    dx, dy = xj[..., 0] - xi[..., 0], xj[..., 1] - xi[..., 1]
    return torch.stack([c * dx + s * dy, -s * dx + c * dy, wrap(xj[..., 2] - xi[..., 2])], -1)


# ground truth: a square loop of 8 poses
N = 8
truth = torch.tensor([[0, 0, 0], [1, 0, 0], [2, 0, math.pi / 2], [2, 1, math.pi / 2], [2, 2, math.pi],
                      [1, 2, math.pi], [0, 2, -math.pi / 2], [0, 1, -math.pi / 2]], dtype=f64)
edges = torch.tensor([[i, i + 1] for i in range(N - 1)] + [[7, 0], [1, 6]])
meas = relative(truth[edges[:, 0]], truth[edges[:, 1]])
meas[:N - 1] += torch.randn(N - 1, 3, dtype=f64) * torch.tensor([0.05, 0.05, 0.02], dtype=f64)
info = torch.diag(torch.tensor([100.0, 100.0, 400.0], dtype=f64)).expand(len(edges), 3, 3)
print("edges", edges.shape, edges.dtype, "loop closures", (edges[:, 1] - edges[:, 0]).abs().gt(1).sum().item())

# dead reckoning initial guess by composing odometry
x = torch.zeros(N, 3, dtype=f64)
for i in range(N - 1):
    c, s = math.cos(x[i, 2].item()), math.sin(x[i, 2].item())
    d = meas[i]
    x[i + 1] = x[i] + torch.stack([c * d[0] - s * d[1], s * d[0] + c * d[1], d[2]])
    x[i + 1, 2] = wrap(x[i + 1, 2])
print("dead-reckoning drift", round((x[-1, :2] - truth[-1, :2]).norm().item(), 4))


def residuals(x):
    return relative(x[edges[:, 0]], x[edges[:, 1]]) - meas


def chi2(x):
    r = residuals(x)
    r = torch.cat([r[:, :2], wrap(r[:, 2:])], -1)
    return torch.einsum("ei,eij,ej->", r, info, r)


print("initial chi2", round(chi2(x).item(), 2))
for it in range(6):
    r = residuals(x)
    r[:, 2] = wrap(r[:, 2])
    Ji, Jj = torch.func.vmap(torch.func.jacrev(relative, argnums=(0, 1)))(x[edges[:, 0]], x[edges[:, 1]])
    H = torch.zeros(3 * N, 3 * N, dtype=f64)
    b = torch.zeros(3 * N, dtype=f64)
    rows, cols, vals = [], [], []
    for e, (i, j) in enumerate(edges.tolist()):
        for (a, Ja) in ((i, Ji[e]), (j, Jj[e])):
            b.index_add_(0, torch.arange(3 * a, 3 * a + 3), Ja.T @ info[e] @ r[e])
            for (c, Jc) in ((i, Ji[e]), (j, Jj[e])):
                blk = Ja.T @ info[e] @ Jc
                rr, cc = torch.meshgrid(torch.arange(3 * a, 3 * a + 3), torch.arange(3 * c, 3 * c + 3), indexing="ij")
                rows.append(rr.reshape(-1))
                cols.append(cc.reshape(-1))
                vals.append(blk.reshape(-1))
    Hs = torch.sparse_coo_tensor(torch.stack([torch.cat(rows), torch.cat(cols)]), torch.cat(vals), (3 * N, 3 * N))
    Hs = Hs.coalesce()
    H = Hs.to_dense()
    H[:3, :3] += torch.eye(3, dtype=f64) * 1e6  # gauge prior on the first pose
    L = torch.linalg.cholesky(H)
    dx = -torch.cholesky_solve(b.unsqueeze(-1), L).squeeze(-1)
    x = x + dx.view(N, 3)
    x[:, 2] = wrap(x[:, 2])
    if it in (0, 5):
        print(f"gn it {it} chi2 {chi2(x).item():.3f} |dx| {dx.norm().item():.5f} nnz {Hs._nnz()}")
Hb = torch.sparse.mm(Hs, b.unsqueeze(-1)).squeeze(-1)
print("H symmetric", torch.allclose(H, H.T), "sparse.mm", torch.allclose(Hb, Hs.to_dense() @ b))
print("coalesced", Hs.is_coalesced(), Hs.indices().shape, Hs.values().dtype)
err = (x[:, :2] - truth[:, :2]).norm(dim=-1)
heading_ok = wrap(x[:, 2] - truth[:, 2]).abs().max().item() < 0.05
print("position error max", round(err.max().item(), 3), "heading err", heading_ok)
cov = torch.cholesky_inverse(L)
sig = cov.diagonal().view(N, 3).sqrt()
print("marginal std grows away from anchor", bool(sig[4, 0] > sig[1, 0]), sig[:, 0].round(decimals=4).tolist()[:3])

# the same by first-order optimisation
xa = torch.zeros(N, 3, dtype=f64)
xa[1:] = x[1:] + 0.05
xa.requires_grad_(True)
opt = torch.optim.Adam([xa], lr=0.01)
for step in range(300):
    loss = chi2(xa) + 1e4 * xa[0].pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("adam chi2", round(chi2(xa.detach()).item(), 1), "gn chi2", round(chi2(x).item(), 3))
try:
    torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.ones(3), (24,))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.sparse_coo_tensor(torch.tensor([[0, 30]]), torch.ones(2), (24,), check_invariants=True)
except Exception as e:
    print(type(e).__name__, e)
