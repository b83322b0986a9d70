"""torch.linalg as its reference documents it: norm/vector_norm/matrix_norm for each ord, det/slogdet, inv/pinv/
solve/lstsq, qr modes, eigh/eigvalsh, svd/svdvals, matrix_rank, matrix_power, matrix_exp, cholesky(_ex), lu/
lu_factor/lu_solve, solve_triangular, multi_dot, householder_product, vecdot, cond, cross; decompositions printed
through sign-free reconstructions so that LAPACK's choices do not show, and the errors of typical misuse."""

import numpy as np
import torch
from torch import linalg as LA

rng = np.random.default_rng(8)


def D(*s):
    return torch.from_numpy(rng.standard_normal(s))


def r(x, k=6):
    x = torch.as_tensor(x)
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


a = torch.arange(9, dtype=torch.float64) - 4
B = a.reshape(3, 3)
for ord in (None, 0, 1, 2, -1, float("inf"), -float("inf"), 3.5):
    print("vector_norm", ord, round(LA.vector_norm(a, ord if ord is not None else 2).item(), 4),
          r(LA.norm(a, ord)) if ord is not None else round(LA.norm(a).item(), 4))
for ord in ("fro", "nuc", float("inf"), -float("inf"), 1, -1, 2, -2):
    print("matrix_norm", ord, round(LA.matrix_norm(B, ord).item(), 4), round(LA.norm(B, ord).item(), 4))
print("norm dims", r(LA.vector_norm(B, 1, dim=0)), r(LA.vector_norm(B, 3, dim=(0, 1), keepdim=True)),
      LA.vector_norm(B, dim=1, keepdim=True).shape, r(LA.norm(B, dim=1)))
print("norm dtype", LA.vector_norm(B.float(), dtype=torch.float64).dtype, LA.norm(torch.ones(2, 2, dtype=torch.cfloat)),
      r(LA.norm(torch.ones(2, 3, 3), "nuc", dim=(1, 2))))
A = D(4, 4) + 4 * torch.eye(4, dtype=torch.float64)
Ab = D(2, 3, 3) + 3 * torch.eye(3, dtype=torch.float64)
print("det", round(LA.det(A).item(), 4), r(LA.det(Ab)), r(torch.det(Ab)))
sign, logabs = LA.slogdet(-A)
print("slogdet", sign.item(), round(logabs.item(), 4), r(LA.slogdet(Ab).logabsdet))
Ainv = LA.inv(A)
print("inv", torch.allclose(A @ Ainv, torch.eye(4, dtype=torch.float64)), r(Ainv, 4))
inv, info = LA.inv_ex(torch.zeros(2, 2, dtype=torch.float64))
print("inv_ex", info.item(), LA.inv_ex(A).info.item())
b = D(4, 2)
x = LA.solve(A, b)
print("solve", r(x, 4), torch.allclose(A @ x, b), r(LA.solve(A, D(4)), 2), tuple(LA.solve(Ab, D(2, 3)).shape))
xl = LA.solve(A, D(2, 4), left=False)
print("solve left=False", tuple(xl.shape))
tall = D(6, 3)
y = D(6, 2)
sol = LA.lstsq(tall, y)
print("lstsq", r(sol.solution, 4), sol.solution.shape, r(sol.residuals), sol.rank, sol.singular_values)
print("lstsq gelsd", r(LA.lstsq(tall, y, driver="gelsd").solution, 4), LA.lstsq(tall, y, driver="gelsd").rank.item())
P = LA.pinv(tall)
print("pinv", tuple(P.shape), torch.allclose(P @ tall, torch.eye(3, dtype=torch.float64)),
      r(LA.pinv(torch.tensor([[1.0, 2.0], [2.0, 4.0]])), 4))
Sym = tall.T @ tall
print("pinv hermitian", torch.allclose(LA.pinv(Sym, hermitian=True), LA.inv(Sym)))
for mode in ("reduced", "complete", "r"):
    Q, R = LA.qr(tall, mode=mode)
    ok = torch.allclose(Q @ R, tall) if mode != "r" else None
    print("qr", mode, tuple(Q.shape), tuple(R.shape), ok, r(R.diagonal().abs(), 3))
L, V = LA.eigh(Sym)
print("eigh", r(L), torch.allclose(V @ torch.diag(L) @ V.T, Sym), r(LA.eigvalsh(Sym, UPLO="U")))
ev = LA.eigvals(torch.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=torch.float64))
print("eigvals", ev.dtype, sorted(ev.real.tolist()))
lam, vec = LA.eig(torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=torch.float64))
print("eig", sorted(np.round(lam.imag.numpy(), 4).tolist()), vec.dtype, vec.shape)
U, S, Vh = LA.svd(tall, full_matrices=False)
print("svd", tuple(U.shape), r(S), torch.allclose(U @ torch.diag(S) @ Vh, tall), tuple(LA.svd(tall).U.shape))
print("svdvals", r(LA.svdvals(Ab)), r(LA.svdvals(B)))
print("rank", LA.matrix_rank(B).item(), LA.matrix_rank(tall).item(), LA.matrix_rank(Sym, hermitian=True).item(),
      LA.matrix_rank(B, atol=1.0, rtol=0.0).item(), LA.matrix_rank(torch.ones(2, 3, 3)).tolist())
M = torch.tensor([[1.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
print("matrix_power", LA.matrix_power(M, 5).tolist(), LA.matrix_power(M, 0).tolist(), LA.matrix_power(M, -2).tolist())
print("matrix_exp", r(LA.matrix_exp(torch.tensor([[0.0, 1.0], [-1.0, 0.0]]) * np.pi / 2), 4),
      r(torch.matrix_exp(torch.zeros(2, 2, 2)), 4))
C = LA.cholesky(Sym)
print("cholesky", r(C, 4), torch.allclose(C @ C.T, Sym), r(LA.cholesky(Sym, upper=True).diagonal()))
Lc, info = LA.cholesky_ex(-Sym)
print("cholesky_ex", info.item(), LA.cholesky_ex(Sym).info.item())
Pm, Lm, Um = LA.lu(A)
print("lu", torch.allclose(Pm @ Lm @ Um, A), r(Lm.diagonal()), r(Pm.sum(0)))
LU, piv = LA.lu_factor(A)
print("lu_factor", piv.dtype, piv.tolist(), torch.allclose(LA.lu_solve(LU, piv, b), x))
print("lu_factor_ex", LA.lu_factor_ex(A).info.item(), r(LA.lu_solve(LU, piv, b.T, left=False, adjoint=True), 2))
Up = torch.triu(A)
print("solve_triangular", torch.allclose(Up @ LA.solve_triangular(Up, b, upper=True), b),
      r(LA.solve_triangular(torch.tril(A), b, upper=False, unitriangular=True), 4))
mats = [D(2, 5), D(5, 3), D(3, 4), D(4)]
print("multi_dot", r(LA.multi_dot(mats), 4), r(LA.multi_dot([D(3), D(3, 2)])), tuple(LA.multi_dot(mats[:3]).shape))
h = torch.tensor([[1.0, 0.0], [0.5, 1.0], [0.25, -0.5]], dtype=torch.float64)
tau = torch.tensor([1.2, 0.8], dtype=torch.float64)
Hq = LA.householder_product(h, tau)
print("householder", r(Hq, 6), tuple(Hq.shape))
v1, v2 = D(3, 4), D(3, 4)
print("vecdot", r(LA.vecdot(v1, v2)), r(LA.vecdot(v1, v2, dim=0)),
      LA.vecdot(torch.tensor([1j, 2.0]), torch.tensor([1j, 1.0])))
e1, e2 = torch.tensor([1.0, 0, 0]), torch.tensor([0.0, 1, 0])
print("cross", LA.cross(e1, e2).tolist(), r(LA.cross(v1[:, :3], v2[:, :3])))
print("cond", round(LA.cond(A).item(), 3), round(LA.cond(A, "fro").item(), 3), round(LA.cond(A, 1).item(), 3),
      LA.cond(torch.tensor([[1.0, 1.0], [1.0, 1.0]])).item() > 1e6)
print("diagonal/vander", LA.diagonal(Ab, offset=1).shape, LA.vander(torch.tensor([1.0, 2.0, 3.0]), N=3).tolist())
err(lambda: LA.inv(torch.ones(2, 3)))
err(lambda: LA.inv(torch.zeros(2, 2)))
err(lambda: LA.cholesky(-Sym))
err(lambda: LA.solve(A, D(3, 2)))
err(lambda: LA.solve(A.int(), b.int()))
err(lambda: LA.det(torch.ones(3)))
err(lambda: LA.matrix_norm(a, "fro"))
err(lambda: LA.vector_norm(a, "fro"))
err(lambda: LA.norm(a, "fro"))
err(lambda: LA.norm(a, "max", dim=0))
err(lambda: LA.norm(torch.ones(2, 2, 2), "nuc"))
err(lambda: LA.matrix_norm(B, 3))
err(lambda: LA.qr(tall, mode="full"))
err(lambda: LA.multi_dot([D(2, 3)]))
err(lambda: LA.eigh(tall))
err(lambda: LA.lstsq(tall, D(5, 2)))
err(lambda: LA.matrix_power(tall, 2))
err(lambda: LA.cross(D(2, 4), D(2, 4)))
err(lambda: LA.multi_dot([D(2, 3), D(4, 2)]))
err(lambda: LA.multi_dot([D(2, 3), D(3, 3, 3), D(3)]))
err(lambda: LA.householder_product(h.T, tau))
err(lambda: LA.cond(A, "spectral"))
err(lambda: LA.lstsq(tall, y, driver="qr"))
err(lambda: LA.lu_factor(a))
err(lambda: LA.matrix_norm(B, dim=(0, -2)))
err(lambda: LA.norm(Ab, dim=(0, 1, 2)))
err(lambda: LA.vecdot(a, a[:4]))
err(lambda: LA.vander(a, N=1))
