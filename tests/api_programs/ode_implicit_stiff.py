"""Implicit integrators for stiff systems as chemical-kinetics and circuit code writes them: backward Euler and the
trapezoidal rule with Newton iterations whose Jacobians come from torch.func.jacfwd and torch.autograd.functional
(forward-mode, vectorized, over a tuple of state and rate constants), LU factors reused across iterations
(lu_factor/lu_solve, solve_ex's info), a row-vector solve with left=False, stiffness ratios from eigvals, and
Robertson's problem whose mass is conserved."""

import torch
from torch.func import jacfwd, jacrev, vmap

torch.manual_seed(0)
f64 = torch.float64
AF = torch.autograd.functional

k = torch.tensor([0.04, 3e7, 1e4], dtype=f64)


def robertson(y, k):
    y1, y2, y3 = y.unbind(-1)
    r1, r2, r3 = k[0] * y1, k[1] * y2 * y2, k[2] * y2 * y3
    return torch.stack([-r1 + r3, r1 - r2 - r3, r2], dim=-1)


y0 = torch.tensor([1.0, 0.0, 0.0], dtype=f64)
J0 = jacfwd(robertson)(y0, k)
print("J0", J0.tolist())
lam = torch.linalg.eigvals(jacfwd(robertson)(torch.tensor([0.9, 3e-5, 0.1], dtype=f64), k))
print("eigvals", lam.dtype, sorted(round(v, 4) for v in lam.real.tolist()))
nz = lam.real[lam.real.abs() > 1e-8].abs()
print("stiffness ratio > 1e3", bool(nz.max() / nz.min() > 1e3))

jac_y, jac_k = AF.jacobian(
    robertson, (torch.tensor([0.9, 3e-5, 0.1], dtype=f64), k), vectorize=True, strategy="forward-mode"
)
print(
    "forward-mode jacobian",
    type(AF.jacobian(robertson, (y0, k), vectorize=True, strategy="forward-mode")).__name__,
    tuple(jac_y.shape),
    tuple(jac_k.shape),
)
print("dk", jac_k.round(decimals=6).tolist())
Jr = AF.jacobian(robertson, (y0, k))
print("reverse-mode jacobian", type(Jr).__name__, torch.allclose(Jr[0], J0))


def backward_euler(f, y, h, n, tol=1e-10, reuse=False):
    iters = []
    for _ in range(n):
        z = y.clone()
        J = jacrev(f)(z, k)
        LU, piv = torch.linalg.lu_factor(torch.eye(3, dtype=f64) - h * J)
        for it in range(20):
            g = z - y - h * f(z, k)
            if not reuse:
                LU, piv = torch.linalg.lu_factor(torch.eye(3, dtype=f64) - h * jacrev(f)(z, k))
            dz = torch.linalg.lu_solve(LU, piv, g.unsqueeze(-1)).squeeze(-1)
            z = z - dz
            if dz.norm() < tol:
                break
        iters.append(it + 1)
        y = z
    return y, iters


for h in (1e-3, 1e-1, 10.0):
    y, iters = backward_euler(robertson, y0, h, 5)
    print("BE h", h, y.round(decimals=6).tolist(), "mass", round(y.sum().item(), 8), "newton", iters)
y_full, it_full = backward_euler(robertson, y0, 1e-4, 3, reuse=False)
y_reuse, it_reuse = backward_euler(robertson, y0, 1e-4, 3, reuse=True)
print("full Newton", it_full, "chord", it_reuse, torch.allclose(y_full, y_reuse, atol=1e-8))

# trapezoidal rule on a linear stiff test system: A-stable, oscillates for large h * lambda
A = torch.tensor([[-1000.0, 1.0], [0.0, -0.5]], dtype=f64)
yl = torch.tensor([1.0, 1.0], dtype=f64)
for h in (0.01, 1.0):
    I = torch.eye(2, dtype=f64)
    M = torch.linalg.solve(I - h / 2 * A, I + h / 2 * A)
    yt = torch.linalg.matrix_power(M, 5) @ yl
    print(
        "trapezoid h",
        h,
        yt.round(decimals=4).tolist(),
        "|eig|",
        torch.linalg.eigvals(M).abs().round(decimals=4).tolist(),
    )

# solving for a row vector: x (I - hA) = r, and the same system transposed
r = torch.tensor([[1.0, 2.0]], dtype=f64)
xr = torch.linalg.solve(torch.eye(2, dtype=f64) - 0.1 * A, r, left=False)
print("left=False", xr.round(decimals=6).tolist(), torch.allclose(xr @ (torch.eye(2, dtype=f64) - 0.1 * A), r))
res, info = torch.linalg.solve_ex(torch.zeros(2, 2, dtype=f64), r.T)
print("solve_ex singular info", info.item(), res.shape)
batchJ = vmap(jacrev(robertson), in_dims=(0, None))(torch.rand(4, 3, dtype=f64), k)
print("vmap jacobians", tuple(batchJ.shape), batchJ.sum(dim=1).abs().max().item() < 1e-6)

for call in (
    lambda: torch.linalg.solve(A, r.squeeze(0), left=False),
    lambda: torch.linalg.solve(A, r.T, left=False),
    lambda: torch.linalg.solve(A, torch.ones(4, 2, dtype=f64).view(2, 2, 2)[..., 0], left=False),
    lambda: torch.linalg.lu_solve(*torch.linalg.lu_factor(A), r),
    lambda: torch.linalg.lu_factor(torch.zeros(2, 3)),
    lambda: AF.jacobian(robertson, (y0, k), strategy="forward-mode"),
    lambda: AF.jacobian(robertson, (y0, k), vectorize=True, strategy="forward-mode", create_graph=True),
):
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
