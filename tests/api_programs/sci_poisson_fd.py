"""Finite differences on grids as a computational physicist writes them in PyTorch: the 5-point Laplacian as a conv2d
stencil and by slicing, boundary handling with F.pad modes, torch.gradient and torch.diff, a Poisson problem
solved by Jacobi, red-black Gauss-Seidel and conjugate gradients (matrix-free), a multigrid-style restriction with
avg_pool2d and prolongation with interpolate, the sparse 1-D Laplacian in COO/CSR, and the heat equation."""

import math

import numpy as np
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


N = 17
h = 1.0 / (N - 1)
xs = torch.linspace(0, 1, N, dtype=f64)
X, Y = torch.meshgrid(xs, xs, indexing="ij")
print("grid", X.shape, X.dtype, "h", h, "X[1,0]", X[1, 0].item(), "Y[0,1]", Y[0, 1].item())
u_exact = torch.sin(math.pi * X) * torch.sin(2 * math.pi * Y)
f = -5 * math.pi**2 * u_exact

lap_kernel = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]], dtype=f64).view(1, 1, 3, 3) / h**2


def laplacian_conv(u):
    return F.conv2d(u[None, None], lap_kernel)[0, 0]


def laplacian_slice(u):
    return (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]) / h**2


Lc = laplacian_conv(u_exact)
Ls = laplacian_slice(u_exact)
print(
    "stencil",
    Lc.shape,
    "conv == slice",
    torch.allclose(Lc, Ls),
    "trunc err",
    round((Lc - f[1:-1, 1:-1]).abs().max().item(), 3),
)

# padding modes for boundary conditions
u = torch.arange(12, dtype=f64).view(3, 4)
for mode in ("constant", "reflect", "replicate", "circular"):
    p = F.pad(u[None, None], (1, 1, 1, 1), mode=mode)[0, 0]
    print(mode, p.shape, p[0].tolist())
print("pad value", F.pad(u, (0, 1), value=-1.0)[:, -1].tolist())

# derivatives with torch.gradient and diff
gx, gy = torch.gradient(u_exact, spacing=h)
print(
    "gradient",
    gx.shape,
    "max err dx",
    round((gx - math.pi * torch.cos(math.pi * X) * torch.sin(2 * math.pi * Y)).abs().max().item(), 3),
)
g2 = torch.gradient(u_exact, spacing=(xs, xs), edge_order=2)
print(
    "gradient coords edge2",
    round((g2[1] - 2 * math.pi * torch.sin(math.pi * X) * torch.cos(2 * math.pi * Y)).abs().max().item(), 3),
)
(gd,) = torch.gradient(xs**2, dim=0)
print("gradient unit spacing", r(gd, 4), "dim tuple", torch.gradient(u, dim=(1,))[0][0].tolist())
print(
    "diff",
    torch.diff(u, dim=1)[0].tolist(),
    "n=2",
    torch.diff(xs**3, n=2)[:3].mul(1 / h**2).tolist()[:3] == torch.diff(xs**3, n=2)[:3].div(h**2).tolist()[:3],
)
print(
    "diff prepend",
    torch.diff(torch.tensor([1, 4, 9]), prepend=torch.tensor([0])).tolist(),
    "append",
    torch.diff(torch.tensor([1.0, 2.0]), append=torch.tensor([0.0, 5.0])).tolist(),
)

# Poisson: lap u = f, u = 0 on the boundary
interior = torch.zeros(N, N, dtype=torch.bool)
interior[1:-1, 1:-1] = True


def jacobi(f, iters):
    u = torch.zeros_like(f)
    for _ in range(iters):
        nb = F.conv2d(
            u[None, None],
            torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], dtype=f64).view(1, 1, 3, 3),
            padding=1,
        )[0, 0]
        u = torch.where(interior, (nb - h**2 * f) / 4, u)
    return u


for iters in (50, 200):
    uj = jacobi(f, iters)
    print("jacobi", iters, "err", round((uj - u_exact).abs().max().item(), 4))

red = ((torch.arange(N)[:, None] + torch.arange(N)) % 2 == 0) & interior
black = interior & ~red
ug = torch.zeros_like(f)
for it in range(100):
    for mask in (red, black):
        nb = ug.roll(1, 0) + ug.roll(-1, 0) + ug.roll(1, 1) + ug.roll(-1, 1)
        ug = torch.where(mask, (nb - h**2 * f) / 4, ug)
print("red-black GS err", round((ug - u_exact).abs().max().item(), 4), "masks", int(red.sum()), int(black.sum()))


def A(v):  # -lap on the interior, v zero on the boundary
    out = torch.zeros_like(v)
    out[1:-1, 1:-1] = -laplacian_slice(v)
    return out


def cg(b, tol=1e-10, maxit=200):
    x = torch.zeros_like(b)
    rr = b - A(x)
    p = rr.clone()
    rs = torch.sum(rr * rr)
    for k in range(maxit):
        Ap = A(p)
        alpha = rs / torch.sum(p * Ap)
        x = x + alpha * p
        rr = rr - alpha * Ap
        rs_new = torch.sum(rr * rr)
        if rs_new.sqrt() < tol:
            return x, k + 1
        p = rr + (rs_new / rs) * p
        rs = rs_new
    return x, maxit


b = torch.where(interior, -f, torch.zeros_like(f))
u_cg, its = cg(b)
print(
    "CG iterations",
    its,
    "err",
    round((u_cg - u_exact).abs().max().item(), 4),
    "residual",
    float(A(u_cg).sub(b).norm()) < 1e-8,
)

# discretisation error falls as h^2
errs = []
for n in (9, 17, 33):
    hh = 1.0 / (n - 1)
    g = torch.linspace(0, 1, n, dtype=f64)
    Xg, Yg = torch.meshgrid(g, g, indexing="xy")
    ue = torch.sin(math.pi * Xg) * torch.sin(math.pi * Yg)
    Ln = F.conv2d(ue[None, None], lap_kernel * h**2 / hh**2)[0, 0]
    errs.append((Ln + 2 * math.pi**2 * ue[1:-1, 1:-1]).abs().max().item())
print("stencil orders", [round(math.log2(errs[i] / errs[i + 1]), 2) for i in range(2)])

# restriction / prolongation
coarse = F.avg_pool2d(u_exact[None, None, :16, :16], 2)
fine = F.interpolate(coarse, scale_factor=2, mode="bilinear", align_corners=False)
print(
    "restrict",
    coarse.shape,
    "prolong",
    fine.shape,
    "err",
    round((fine[0, 0] - u_exact[:16, :16]).abs().max().item(), 3),
)
fine_ac = F.interpolate(u_exact[None, None], size=(33, 33), mode="bilinear", align_corners=True)
print("align_corners keeps nodes", torch.allclose(fine_ac[0, 0, ::2, ::2], u_exact))
up_nn = F.interpolate(coarse, scale_factor=2, mode="nearest")
print("nearest", up_nn.shape, torch.equal(up_nn[0, 0, ::2, ::2], coarse[0, 0]))

# sparse 1-D Laplacian: -u'' = pi^2 sin(pi x)
n1 = 31
idx = torch.arange(n1)
rows = torch.cat([idx, idx[1:], idx[:-1]])
cols = torch.cat([idx, idx[:-1], idx[1:]])
vals = torch.cat([torch.full((n1,), 2.0, dtype=f64), torch.full((2 * (n1 - 1),), -1.0, dtype=f64)])
h1 = 1.0 / (n1 + 1)
Asp = torch.sparse_coo_tensor(torch.stack([rows, cols]), vals / h1**2, (n1, n1)).coalesce()
print("sparse", Asp.layout, Asp._nnz(), Asp.is_coalesced(), Asp.indices()[:, :3].tolist())
x1 = torch.linspace(h1, 1 - h1, n1, dtype=f64)
rhs = math.pi**2 * torch.sin(math.pi * x1)
u1 = torch.linalg.solve(Asp.to_dense(), rhs)
print("1-D solve err", f"{(u1 - torch.sin(math.pi * x1)).abs().max().item():.2e}")
Acsr = Asp.to_sparse_csr()
print("csr", Acsr.layout, Acsr.crow_indices()[:4].tolist(), "matvec", torch.allclose(Acsr @ u1, rhs))
print("spmm", torch.allclose(torch.sparse.mm(Asp, u1[:, None])[:, 0], rhs))

# heat equation u_t = u_xx, explicit Euler with the CFL limit
dx = 1.0 / 32
dt = 0.4 * dx**2
xh = torch.linspace(0, 1, 33, dtype=f64)
uh = torch.sin(math.pi * xh)
k1 = torch.tensor([1.0, -2.0, 1.0], dtype=f64).view(1, 1, 3)
steps = int(0.05 / dt)
for _ in range(steps):
    uh = uh.clone()
    uh[1:-1] = uh[1:-1] + dt / dx**2 * F.conv1d(uh[None, None], k1)[0, 0]
print("heat steps", steps, "decay", round(uh.max().item(), 4), "exact", round(math.exp(-(math.pi**2) * steps * dt), 4))

try:
    F.pad(u, (1, 1), mode="reflect", value=1.0)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.pad(u[None, None], (5, 5, 0, 0), mode="reflect")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.gradient(torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.gradient(u, spacing=[1.0, 2.0, 3.0])
except Exception as e:
    print(type(e).__name__, e)
