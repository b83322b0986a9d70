"""Factor once, solve many times, as simulation and optimisation code does: lu_factor + lu_solve over time
steps, torch.lu/lu_unpack with get_infos, ldl_factor/ldl_solve of a symmetric indefinite KKT system,
cholesky_solve for many right-hand sides, and the Tensor-method spellings (det, slogdet, pinverse, lu)."""

import torch

torch.manual_seed(51)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def r4(t):
    return torch.round(t, decimals=4) + 0.0


# --- implicit Euler for a 1-D heat equation: one LU, many solves -------------------------------------------------
n, dt = 6, 0.1
off = torch.ones(n - 1, dtype=f64)
lap = -2 * torch.eye(n, dtype=f64) + torch.diag(off, 1) + torch.diag(off, -1)
system = torch.eye(n, dtype=f64) - dt * lap
LU, piv = LA.lu_factor(system)
u = torch.sin(torch.linspace(0, torch.pi, n + 2, dtype=f64)[1:-1])[:, None]
for step in range(5):
    u = LA.lu_solve(LU, piv, u)
    print("step", step, r4(u.flatten()))
print("same as solve", torch.allclose(LA.lu_solve(LU, piv, u), LA.solve(system, u)))

# --- torch.lu / lu_unpack --------------------------------------------------------------------------------------
A = torch.randn(2, 4, 4, dtype=f64)
A_LU, pivots, infos = torch.lu(A, get_infos=True)
print("infos", infos.tolist(), infos.dtype, "pivots", pivots.tolist())
P, L, U = torch.lu_unpack(A_LU, pivots)
print("P L U = A", torch.allclose(P @ L @ U, A))
print("L unit diag", torch.diagonal(L, dim1=-2, dim2=-1).tolist())
Pn, Ln, Un = torch.lu_unpack(A_LU, pivots, unpack_data=False)
print("unpack_data=False", Ln.numel(), Un.numel(), tuple(Pn.shape))
Po, Lo, Uo = torch.lu_unpack(A_LU, pivots, unpack_pivots=False)
print("unpack_pivots=False", Po.numel(), tuple(Lo.shape))
AL, pv = A[0].lu()
print("Tensor.lu", torch.allclose(AL, A_LU[0]), pv.tolist())
print("lu_solve legacy", torch.allclose(torch.lu_solve(torch.ones(2, 4, 1, dtype=f64), A_LU, pivots),
                                         LA.solve(A, torch.ones(2, 4, 1, dtype=f64))))

# --- LDL of a KKT system ---------------------------------------------------------------------------------------
Hm = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=f64)
Cm = torch.tensor([[1.0, 1.0]], dtype=f64)
KKT = torch.cat([torch.cat([Hm, Cm.mT], 1), torch.cat([Cm, torch.zeros(1, 1, dtype=f64)], 1)], 0)
print("KKT eigenvalues", r4(LA.eigvalsh(KKT)))
LD, pivl = LA.ldl_factor(KKT)
rhs = torch.tensor([[1.0], [2.0], [1.0]], dtype=f64)
sol = LA.ldl_solve(LD, pivl, rhs)
print("ldl solution", r4(sol.flatten()), torch.allclose(KKT @ sol, rhs))
print("ldl pivots dtype", pivl.dtype, "ldl_factor_ex info", LA.ldl_factor_ex(KKT).info.item())
print("cholesky_ex refuses KKT", LA.cholesky_ex(KKT).info.item())

# --- many right-hand sides through one Cholesky ------------------------------------------------------------------
G = torch.randn(5, 5, dtype=f64)
Sp = G @ G.mT + 5 * torch.eye(5, dtype=f64)
Lc = LA.cholesky(Sp)
Bs = torch.randn(5, 100, dtype=f64)
Xs = torch.cholesky_solve(Bs, Lc)
print("cholesky_solve 100 rhs", tuple(Xs.shape), torch.allclose(Sp @ Xs, Bs))
Uc = LA.cholesky(Sp, upper=True)
print("upper factor", torch.allclose(torch.cholesky_solve(Bs, Uc, upper=True), Xs))
print("Mahalanobis", r4((Bs[:, :4] * Xs[:, :4]).sum(0)))
z = LA.solve_triangular(Lc, Bs[:, :4], upper=False)
print("via triangular", r4(z.pow(2).sum(0)))
print("cholesky_inverse", torch.allclose(torch.cholesky_inverse(Lc), LA.inv(Sp)))

# --- Tensor methods ----------------------------------------------------------------------------------------------
M = torch.randn(3, 3, dtype=f64)
print("det", round(M.det().item(), 4), "logdet of M M^T", round((M @ M.mT).logdet().item(), 4))
print("slogdet", [round(t.item(), 4) for t in M.slogdet()])
print("pinverse", torch.allclose(M.pinverse(), LA.inv(M)))
print("inverse", r4(M.inverse()))
print("matrix_exp method", r4(M.matrix_exp().diagonal()))
print("cholesky_solve method", r4(torch.ones(5, 1, dtype=f64).cholesky_solve(Lc).flatten()))
print("triangular method", r4(torch.ones(3, 1, dtype=f64).triangular_solve(M.triu(), upper=True).solution.flatten()))
print("outer/ger", r4(torch.outer(M[0], M[1])[0]), "addr", r4(torch.addr(torch.zeros(3, 3, dtype=f64), M[0], M[1])[0]))
print("trace", round(M.trace().item(), 4), "diag", r4(M.diag()), "tril sum", round(M.tril(-1).sum().item(), 4))
