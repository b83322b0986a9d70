"""Linear solvers as regression and scientific code calls them: solve and solve_ex (left=False, batched and
broadcast right-hand sides), lstsq with each CPU driver and its residuals/rank/singular_values fields, inv and
inv_ex with info, lu_factor/lu_solve/lu, and solve_triangular's upper/left/unitriangular flags."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg


def r4(t):
    return torch.round(t, decimals=4)


def spd(n, batch=(), dtype=torch.float64):
    m = torch.randn(*batch, n, n, dtype=dtype)
    return m @ m.mT + n * torch.eye(n, dtype=dtype)


# --- solve: left and right, batched, broadcast -----------------------------------------------------------------
A = spd(3)
B = torch.randn(3, 2, dtype=torch.float64)
X = LA.solve(A, B)
print("solve X", r4(X))
print("residual", f"{(A @ X - B).abs().max().item():.2e}" if (A @ X - B).abs().max() > 1e-12 else "tiny")
Xr = LA.solve(A, B.mT, left=False)
print("left=False", tuple(Xr.shape), torch.allclose(Xr @ A, B.mT))
b = torch.randn(3, dtype=torch.float64)
x = LA.solve(A, b)
print("vector rhs", tuple(x.shape), r4(x))
Ab = spd(3, (4,))
xb = LA.solve(Ab, b)
print("batched A, shared b", tuple(xb.shape), r4(xb[0]))
Bb = torch.randn(2, 1, 3, 5, dtype=torch.float64)
Xb = LA.solve(Ab, Bb)
print("broadcast", tuple(Xb.shape), torch.allclose(Ab @ Xb, Bb.expand(2, 4, 3, 5)))
res = LA.solve_ex(A, B)
print("solve_ex fields", type(res).__name__, res.info.item(), res.info.dtype)
sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
res = LA.solve_ex(torch.stack([A[:2, :2], sing]), torch.ones(2, 2, dtype=torch.float64))
print("solve_ex batched info", res.info.tolist())

# --- lstsq: drivers and fields -------------------------------------------------------------------------------
torch.manual_seed(1)
Xd = torch.randn(20, 3, dtype=torch.float64)
w_true = torch.tensor([[1.5], [-2.0], [0.25]], dtype=torch.float64)
y = Xd @ w_true + 0.01 * torch.randn(20, 1, dtype=torch.float64)
for driver in ["gels", "gelsy", "gelsd", "gelss"]:
    out = LA.lstsq(Xd, y, driver=driver)
    print(driver, r4(out.solution.flatten()), "res", tuple(out.residuals.shape), r4(out.residuals),
          "rank", out.rank, "sv", None if out.singular_values.numel() == 0 else r4(out.singular_values))
out = LA.lstsq(Xd, y)
print("default fields", type(out).__name__, tuple(out.solution.shape))
print("normal equations agree", torch.allclose(out.solution, LA.solve(Xd.mT @ Xd, Xd.mT @ y)))
Xdef = torch.cat([Xd[:, :2], Xd[:, :1] + Xd[:, 1:2]], dim=1)
out = LA.lstsq(Xdef, y, driver="gelsd")
print("rank deficient rank", out.rank.item(), "sv", r4(out.singular_values))
out = LA.lstsq(Xdef, y, rcond=None, driver="gelsy")
print("gelsy rank", out.rank.item(), "fit", round((Xdef @ out.solution - y).norm().item(), 4))
Xbat = torch.randn(3, 6, 2, dtype=torch.float64)
ybat = torch.randn(3, 6, 4, dtype=torch.float64)
out = LA.lstsq(Xbat, ybat, driver="gelsd")
print("batched lstsq", tuple(out.solution.shape), tuple(out.residuals.shape), out.rank.tolist())
print("batched residuals", r4(out.residuals))
under = LA.lstsq(torch.randn(2, 4, dtype=torch.float64), torch.randn(2, 1, dtype=torch.float64), driver="gelsd")
print("underdetermined", tuple(under.solution.shape), tuple(under.residuals.shape))

# --- inverses ------------------------------------------------------------------------------------------------
Ai = LA.inv(A)
print("inv", r4(Ai))
print("inv @ A = I", torch.allclose(Ai @ A, torch.eye(3, dtype=torch.float64)))
ie = LA.inv_ex(torch.stack([A[:2, :2], sing]))
print("inv_ex info", ie.info.tolist(), type(ie).__name__)
print("tensor.inverse", torch.allclose(A.inverse(), Ai))
f32 = torch.randn(2, 3, 3)
print("float32 inv dtype", LA.inv(f32).dtype, tuple(LA.inv(f32).shape))

# --- LU ------------------------------------------------------------------------------------------------------
torch.manual_seed(2)
M = torch.randn(4, 4, dtype=torch.float64)
LU, piv = LA.lu_factor(M)
print("pivots", piv.tolist(), piv.dtype)
rhs = torch.randn(4, 2, dtype=torch.float64)
print("lu_solve", torch.allclose(LA.lu_solve(LU, piv, rhs), LA.solve(M, rhs)))
print("lu_solve adjoint", torch.allclose(LA.lu_solve(LU, piv, rhs, adjoint=True), LA.solve(M.mT, rhs)))
print("lu_solve left=False", torch.allclose(LA.lu_solve(LU, piv, rhs.mT, left=False), LA.solve(M, rhs.mT, left=False)))
P, L, U = LA.lu(M)
print("P", P)
print("L", r4(L))
print("U", r4(U))
print("PLU = M", torch.allclose(P @ L @ U, M))
lfe = LA.lu_factor_ex(M)
print("lu_factor_ex", type(lfe).__name__, lfe.info.item())
Pw, Lw, Uw = LA.lu(torch.randn(3, 5, dtype=torch.float64))
print("wide lu shapes", tuple(Pw.shape), tuple(Lw.shape), tuple(Uw.shape))

# --- triangular solves ---------------------------------------------------------------------------------------
T = torch.triu(torch.randn(3, 3, dtype=torch.float64)) + 3 * torch.eye(3, dtype=torch.float64)
c = torch.randn(3, 2, dtype=torch.float64)
xu = LA.solve_triangular(T, c, upper=True)
print("upper", r4(xu), torch.allclose(T @ xu, c))
xl = LA.solve_triangular(T.mT, c, upper=False)
print("lower", r4(xl))
xr = LA.solve_triangular(T, c.mT, upper=True, left=False)
print("right", torch.allclose(xr @ T, c.mT))
xun = LA.solve_triangular(T, c, upper=True, unitriangular=True)
Tu = torch.triu(T, 1) + torch.eye(3, dtype=torch.float64)
print("unitriangular", r4(xun), torch.allclose(Tu @ xun, c))
print("triangular_solve legacy", r4(torch.triangular_solve(c, T, upper=True).solution))
