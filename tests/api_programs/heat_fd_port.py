"""a numpy finite-difference heat-equation code ported to torch op by op: explicit and implicit steps, periodic
rolls, np.gradient/np.diff/np.trapz equivalents with spacing, edge_order and dims, a Kronecker Laplacian, energy
integrals, and the errors of numpy-style arguments."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


# 1-D rod: u_t = alpha u_xx on [0, 1], Dirichlet ends, explicit FTCS
nx, alpha = 21, 0.5
x = torch.linspace(0.0, 1.0, nx, dtype=torch.float64)
dx = (x[1] - x[0]).item()
dt = 0.4 * dx * dx / alpha
u = torch.sin(math.pi * x) + 0.5 * torch.sin(3 * math.pi * x)
u0 = u.clone()
for _ in range(50):
    lap = torch.diff(u, n=2) / dx**2
    u = torch.cat([u[:1], u[1:-1] + alpha * dt * lap, u[-1:]])
t_end = 50 * dt
exact = math.exp(-alpha * math.pi**2 * t_end) * torch.sin(math.pi * x) + 0.5 * math.exp(
    -9 * alpha * math.pi**2 * t_end
) * torch.sin(3 * math.pi * x)
print("ftcs", r(u[5:11]), "max err", round((u - exact).abs().max().item(), 5), u.dtype)
print("diff shapes", torch.diff(u).shape, torch.diff(u, n=3).shape, torch.diff(u, n=0).equal(u))
print("diff prepend/append", r(torch.diff(u0[:4], prepend=torch.zeros(1, dtype=torch.float64), append=u0[-1:])))

# energy and flux integrals: np.trapz -> torch.trapezoid
energy = torch.trapezoid(u**2, x)
print("energy", round(energy.item(), 6), round(torch.trapezoid(u0**2, dx=dx).item(), 6))
flux = torch.gradient(u, spacing=dx, edge_order=2)[0]
print("flux ends", round(flux[0].item(), 4), round(flux[-1].item(), 4), len(torch.gradient(u)))
print("cumulative", r(torch.cumulative_trapezoid(u0, dx=dx)[-4:]), torch.cumulative_trapezoid(u0, x).shape)

# non-uniform grid: gradient with coordinates, edge_order 1 vs 2
xs = torch.tensor([0.0, 0.1, 0.25, 0.45, 0.7, 1.0], dtype=torch.float64)
fs = xs**3
g1 = torch.gradient(fs, spacing=(xs,))[0]
g2 = torch.gradient(fs, spacing=[xs], edge_order=2)[0]
print("nonuniform e1", r(g1), "e2", r(g2), "true", r(3 * xs**2))

# 2-D plate with periodic x (roll) and insulated y (gradient), explicit step
ny, nxx = 6, 8
X, Y = torch.meshgrid(torch.arange(nxx, dtype=torch.float32), torch.arange(ny, dtype=torch.float32), indexing="xy")
Xi, Yi = torch.meshgrid(torch.arange(nxx, dtype=torch.float32), torch.arange(ny, dtype=torch.float32), indexing="ij")
print("meshgrid", X.shape, Xi.shape, torch.equal(X, Xi.T))
T = torch.exp(-((X - 3.5) ** 2) / 4 - ((Y - 2.5) ** 2) / 2)
for _ in range(10):
    lap_x = torch.roll(T, 1, dims=1) + torch.roll(T, -1, dims=1) - 2 * T
    Tp = torch.nn.functional.pad(T[None, None], (0, 0, 1, 1), mode="replicate")[0, 0]
    lap_y = Tp[2:] + Tp[:-2] - 2 * T
    T = T + 0.2 * (lap_x + lap_y)
print("plate", r(T[2], 8), round(T.sum().item(), 4))
gy, gx = torch.gradient(T)
print("grad 2d", r(gy[2, :4]), r(gx[2, :4]))
gx_only = torch.gradient(T, dim=1, spacing=0.5)
print("grad dim", len(gx_only), torch.allclose(gx_only[0], 2 * gx))
gyx = torch.gradient(T, spacing=[2.0, 0.5], dim=(0, 1), edge_order=2)
print("grad dims", r(gyx[0][0, :3]), r(gyx[1][0, :3]))
print("roll multi", torch.roll(torch.arange(6).view(2, 3), shifts=(1, -1), dims=(0, 1)).tolist())
print("roll flat", torch.roll(torch.arange(6).view(2, 3), 2).tolist())
print(
    "trapezoid 2d",
    r(torch.trapezoid(T, dim=0)[:4]),
    round(torch.trapezoid(torch.trapezoid(T, dx=0.5), dx=2.0).item(), 4),
)

# implicit step: (I - dt L) u_new = u with a Kronecker-sum Laplacian
n = 4
D = torch.diag(torch.full((n,), -2.0)) + torch.diag(torch.ones(n - 1), 1) + torch.diag(torch.ones(n - 1), -1)
I = torch.eye(n)
L = torch.kron(D, I) + torch.kron(I, D)
print("kron", L.shape, L.diagonal()[:4].tolist(), torch.trace(L).item(), int(torch.count_nonzero(L)))
A = torch.eye(n * n) - 0.1 * L
rhs = torch.zeros(n * n)
rhs[5] = 1.0
sol = torch.linalg.solve(A, rhs)
print("implicit", r(sol.view(n, n)[1], 4), round(sol.sum().item(), 4))
print("banded", torch.diagonal(L, offset=1)[:5].tolist(), torch.diagonal(L, offset=-n)[:3].tolist())
print(
    "tridiag from diag_embed",
    torch.diag_embed(torch.ones(2, 3), offset=-1).shape,
    torch.diagflat(torch.tensor([1, 2]), 1).tolist(),
)
print(
    "triu/tril",
    torch.triu(D, 1).sum().item(),
    torch.tril(D, -1).sum().item(),
    torch.tril(torch.ones(2, 3), diagonal=1).tolist(),
)

# numpy habits: axis=, keepdims=, dtypes
print("axis alias", torch.sum(T, axis=0).shape, T.mean(axis=1, keepdim=True).shape, torch.diff(T, axis=1).shape)
for name, bad in [
    ("keepdims", lambda: torch.sum(T, dim=0, keepdims=True)),
    ("edge_order 3", lambda: torch.gradient(u, edge_order=3)),
    ("spacing len", lambda: torch.gradient(T, spacing=[1.0, 2.0, 3.0])),
    ("too few points", lambda: torch.gradient(torch.tensor([1.0]), edge_order=1)),
    ("diff n<0", lambda: torch.diff(u, n=-1)),
    ("diff 0-d", lambda: torch.diff(torch.tensor(1.0))),
    ("trapezoid dx+x", lambda: torch.trapezoid(u, x, dx=0.1)),
    ("roll mismatch", lambda: torch.roll(T, (1, 2), dims=0)),
    ("kron dtype", lambda: torch.linalg.solve(torch.eye(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))),
    ("trapezoid int x", lambda: torch.trapezoid(torch.tensor([1, 2, 3]), torch.tensor([1, 2]))),
]:
    try:
        out = bad()
        print(name, "ok", out if not isinstance(out, tuple) else len(out))
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:110])
print("int trapezoid", torch.trapezoid(torch.tensor([1, 2, 4])), torch.trapezoid(torch.tensor([1, 2, 4]), dx=2).dtype)
print(
    "int gradient", torch.gradient(torch.tensor([1, 4, 9, 16]))[0].dtype, torch.diff(torch.tensor([True, False, False]))
)
print("cumulative int", torch.cumulative_trapezoid(torch.tensor([1, 2, 4])).dtype)
