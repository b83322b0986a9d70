"""Chebyshev spectral collocation as a PINN baseline (Trefethen's cheb.m in torch): the differentiation matrix in
float64, a Dirichlet BVP u'' = exp(4x) solved with torch.linalg.solve/lu_factor/solve_ex, eigenvalues of the second-
derivative operator, matrix_exp for u_t = D2 u, lstsq with the gelsd driver, and singular-system errors."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)


def cheb(N):
    if N == 0:
        return torch.zeros(1, 1, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    x = torch.cos(math.pi * torch.arange(N + 1, dtype=torch.float64) / N)
    c = torch.cat([torch.tensor([2.0]), torch.ones(N - 1), torch.tensor([2.0])]).double()
    c = c * (-1.0) ** torch.arange(N + 1)
    X = x.unsqueeze(1).expand(N + 1, N + 1)
    dX = X - X.T
    D = torch.outer(c, 1 / c) / (dX + torch.eye(N + 1, dtype=torch.float64))
    D = D - torch.diag(D.sum(1))
    return D, x


D, x = cheb(4)
print("D", D.dtype, tuple(D.shape))
print(D)
print("D @ x == 1", torch.allclose(D @ x, torch.ones_like(x)), "D @ x^2 == 2x", torch.allclose(D @ x ** 2, 2 * x))

N = 16
D, x = cheb(N)
D2 = (D @ D)[1:-1, 1:-1]
f = torch.exp(4 * x[1:-1])
u = torch.linalg.solve(D2, f)
exact = (torch.exp(4 * x[1:-1]) - math.sinh(4) * x[1:-1] - math.cosh(4)) / 16
print("BVP max err < 1e-9", (u - exact).abs().max().item() < 1e-9, round(u[N // 2 - 1].item(), 6))
LU, piv = torch.linalg.lu_factor(D2)
u2 = torch.linalg.lu_solve(LU, piv, f.unsqueeze(1)).squeeze(1)
print("lu_solve", torch.allclose(u, u2), piv.dtype, tuple(piv.shape))
sol, info = torch.linalg.solve_ex(D2, f)
print("solve_ex info", info.item(), info.dtype)

ev = torch.linalg.eigvals(D2)
print("eig dtype", ev.dtype, "max |imag| small", ev.imag.abs().max().item() < 1e-8)
lam = ev.real.sort(descending=True).values
print("lowest modes", (lam[:4] / (-(math.pi / 2) ** 2)).round(decimals=3).tolist(), "(expect 1,4,9,16)")
print("cond", round(torch.linalg.cond(D2).log10().item(), 2))

u0 = torch.exp(-20 * x[1:-1] ** 2)
uT = torch.linalg.matrix_exp(0.05 * D2) @ u0
print("heat mass ratio", round((uT.sum() / u0.sum()).item(), 3), "max", round(uT.max().item(), 4))

xs = torch.linspace(-1, 1, 30, dtype=torch.float64)
V = torch.stack([torch.cos(k * torch.acos(xs)) for k in range(6)], 1)
coef = torch.linalg.lstsq(V, torch.abs(xs), driver="gelsd")
print("lstsq", coef.solution.round(decimals=4).tolist(), coef.rank.item(), tuple(coef.singular_values.shape))
print("residuals", coef.residuals, torch.linalg.lstsq(V, torch.abs(xs).unsqueeze(1)).residuals.shape)

S = torch.ones(3, 3, dtype=torch.float64)
sol, info = torch.linalg.solve_ex(S, torch.ones(3, dtype=torch.float64))
print("singular solve_ex info", info.item())
for label, fn in [
    ("solve singular", lambda: torch.linalg.solve(S, torch.ones(3, dtype=torch.float64))),
    ("cholesky", lambda: torch.linalg.cholesky(-torch.eye(2))),
    ("inv", lambda: torch.linalg.inv(torch.zeros(2, 2))),
    ("shape", lambda: torch.linalg.solve(D2, torch.ones(3, dtype=torch.float64))),
    ("dtype", lambda: torch.linalg.solve(D2, torch.ones(N - 1))),
    ("lstsq driver", lambda: torch.linalg.lstsq(V, xs, driver="gelsy_x")),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)
