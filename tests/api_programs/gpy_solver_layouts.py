"""The memory layouts and out= contracts of the linear solvers GP code chains together: column-major LAPACK
results (strides), batched vector solves, right-side triangular solves, lstsq, LU, and out= dtype checks."""

import torch

torch.manual_seed(2)
f64 = torch.float64


def spd(*batch, n=4):
    a = torch.randn(*batch, n, n, dtype=f64)
    return a @ a.mT + n * torch.eye(n, dtype=f64)


K = spd(2)
L = torch.linalg.cholesky(K)
y = torch.randn(2, 4, 1, dtype=f64)
alpha = torch.cholesky_solve(y, L)
print("L", L.stride(), L.is_contiguous(), "alpha", alpha.stride(), alpha.is_contiguous())
print("single col", torch.cholesky_solve(y[0], L[0]).stride(), torch.linalg.solve(K[0], y[0]).stride())
print("vector batch", torch.linalg.solve(K, y[..., 0]).stride(), torch.linalg.solve(K[0], y[0, :, 0]).stride())
print("vector batch 3-d", torch.linalg.solve(spd(3, 2), torch.randn(3, 2, 4, dtype=f64)).stride())
Ks = torch.randn(2, 3, 4, dtype=f64)
right = torch.linalg.solve_triangular(L.mT, Ks, upper=True, left=False)
print("right solve", right.stride(), torch.allclose(right @ L.mT, Ks))
print("left solve", torch.linalg.solve_triangular(L, Ks.mT, upper=False).stride())
try:
    print(L.view(-1).shape)
except RuntimeError as e:
    print(type(e).__name__, e)
print("reshape ok", L.reshape(2, -1).shape, L.mT.is_contiguous(), L.mT.view(2, -1).shape)
print(
    "inv",
    torch.linalg.inv(K).stride(),
    "cholinv",
    torch.cholesky_inverse(L).stride(),
    torch.cholesky_inverse(L[0]).stride(),
)
print("eigh", torch.linalg.eigh(K).eigenvectors.stride(), torch.linalg.eigh(K).eigenvalues.stride())
LU, piv = torch.linalg.lu_factor(K)
print("lu_factor", LU.stride(), piv.stride(), piv.dtype)
P, Lm, U = torch.linalg.lu(K)
print("lu", P.stride(), Lm.stride(), U.stride(), torch.allclose(P @ Lm @ U, K))
print("lu_solve", torch.linalg.lu_solve(LU, piv, y).stride(), torch.linalg.lu_solve(LU, piv, y, adjoint=True).stride())
print("lu_solve right", torch.linalg.lu_solve(LU, piv, y.mT, left=False).stride())
X = torch.randn(6, 3, dtype=f64)
sol = torch.linalg.lstsq(X, torch.randn(6, 2, dtype=f64))
print("lstsq", sol.solution.shape, sol.solution.stride(), sol.residuals.shape, sol.rank, sol.singular_values.shape)
print(
    "lstsq gelsd", torch.linalg.lstsq(X, torch.randn(6, 2, dtype=f64), driver="gelsd").singular_values.round(decimals=3)
)
a, tau = torch.geqrf(X)
print("geqrf", a.stride(), tau.stride(), "Q", torch.linalg.householder_product(a, tau).stride())
Q, R = torch.linalg.qr(X)
print("qr", Q.stride(), R.stride(), torch.allclose(Q @ R, X))

for name, call in [
    ("cholesky", lambda o: torch.linalg.cholesky(K[0], out=o)),
    ("solve", lambda o: torch.linalg.solve(K[0], y[0], out=o)),
    ("cholesky_solve", lambda o: torch.cholesky_solve(y[0], L[0], out=o)),
    ("cholesky_inverse", lambda o: torch.cholesky_inverse(L[0], out=o)),
    ("solve_triangular", lambda o: torch.linalg.solve_triangular(L[0], y[0], upper=False, out=o)),
    ("inv", lambda o: torch.linalg.inv(K[0], out=o)),
    ("pinv", lambda o: torch.linalg.pinv(K[0], out=o)),
]:
    for dt in (torch.float64, torch.float32, torch.int64):
        out = torch.empty(0, dtype=dt)
        try:
            r = call(out)
            print(name, dt, "ok", r is out, tuple(r.shape), r.stride())
        except RuntimeError as e:
            print(name, dt, type(e).__name__, e)
out = torch.empty(4, 1, dtype=f64)
res = torch.cholesky_solve(y[0], L[0], out=out)
print("same shape out keeps strides", res.stride(), res.data_ptr() == out.data_ptr())
with torch.no_grad():
    o = torch.empty(0, dtype=f64)
    torch.linalg.cholesky(K[0], out=o)
print("out values", torch.allclose(o, L[0]))
Kg = K[0].clone().requires_grad_()
try:
    torch.linalg.cholesky(Kg, out=torch.empty(0, dtype=f64))
except RuntimeError as e:
    print(type(e).__name__, e)
