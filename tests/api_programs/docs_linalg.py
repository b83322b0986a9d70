"""torch.linalg docstring examples on fixed matrices: norms, solves, factorizations (sign-free prints), errors."""

import numpy as np
import torch

rng = np.random.default_rng(5)
A = torch.from_numpy(rng.standard_normal((3, 3))).double()
S = A @ A.mT + 3 * torch.eye(3, dtype=torch.float64)
a = torch.arange(9, dtype=torch.float) - 4
B = a.reshape((3, 3))
print(
    "norm",
    torch.linalg.norm(a),
    torch.linalg.norm(B),
    torch.linalg.norm(a, float("inf")),
    torch.linalg.norm(B, float("inf")),
)
print(
    "norm ords",
    torch.linalg.norm(a, -float("inf")),
    torch.linalg.norm(B, "fro"),
    torch.linalg.norm(B, "nuc").round(decimals=4),
)
print("norm ints", torch.linalg.norm(a, 1), torch.linalg.norm(B, 1), torch.linalg.norm(a, -1), torch.linalg.norm(B, -1))
print(
    "norm 2",
    torch.linalg.norm(a, 2),
    torch.linalg.norm(B, 2).round(decimals=4),
    torch.linalg.norm(B, -2).round(decimals=4),
)
print(
    "norm dim",
    torch.linalg.norm(B, dim=0),
    torch.linalg.norm(B, dim=1, keepdim=True).shape,
    torch.linalg.norm(B, ord=3, dim=1),
)
Bb = torch.arange(8, dtype=torch.float).reshape(2, 2, 2)
print(
    "norm batch",
    torch.linalg.norm(Bb, dim=(1, 2)),
    torch.linalg.norm(Bb[0, :, :]),
    torch.linalg.norm(Bb, dtype=torch.float64).dtype,
)
print(
    "vector_norm",
    torch.linalg.vector_norm(B, ord=3.5),
    torch.linalg.vector_norm(a, 0),
    torch.linalg.vector_norm(B, dim=(0, 1)),
)
print(
    "matrix_norm",
    torch.linalg.matrix_norm(B),
    torch.linalg.matrix_norm(Bb, ord=-1),
    torch.linalg.matrix_norm(Bb, ord=float("inf")),
)
print(
    "det",
    torch.linalg.det(S).round(decimals=4),
    torch.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]])),
    torch.linalg.det(torch.zeros(0, 0)),
)
sign, logabsdet = torch.linalg.slogdet(A)
print("slogdet", sign, logabsdet.round(decimals=4), torch.logdet(S).round(decimals=4), torch.logdet(-torch.eye(2)))
Ainv = torch.linalg.inv(S)
print(
    "inv",
    torch.dist(S @ Ainv, torch.eye(3, dtype=torch.float64)) < 1e-12,
    torch.linalg.inv(torch.tensor([[2.0, 0.0], [0.0, 4.0]])),
)
inv_ex = torch.linalg.inv_ex(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
print("inv_ex info", inv_ex.info, torch.linalg.inv_ex(torch.eye(2)).info, type(inv_ex).__name__)
b = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
x = torch.linalg.solve(S, b)
print(
    "solve",
    torch.allclose(S @ x, b),
    torch.linalg.solve(torch.tensor([[3.0, 1.0], [1.0, 2.0]]), torch.tensor([9.0, 8.0])),
)
Bm = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
print(
    "solve left",
    torch.linalg.solve(S[:2, :2], Bm, left=False).round(decimals=4),
    torch.linalg.solve(S, torch.ones(2, 3, 1, dtype=torch.float64)).shape,
)
L = torch.linalg.cholesky(S)
print(
    "cholesky",
    torch.allclose(L @ L.mT, S),
    L.triu(1).abs().sum(),
    torch.linalg.cholesky(S, upper=True).tril(-1).abs().sum(),
)
print(
    "cholesky_ex",
    torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).info,
    torch.cholesky_solve(b.unsqueeze(1), L).squeeze().round(decimals=4),
)
print("cholesky_inverse", torch.allclose(torch.cholesky_inverse(L), Ainv))
Q, R = torch.linalg.qr(A)
print(
    "qr", torch.allclose(Q @ R, A), torch.allclose(Q.mT @ Q, torch.eye(3, dtype=torch.float64)), R.tril(-1).abs().sum()
)
print(
    "qr modes",
    [t.shape for t in torch.linalg.qr(torch.ones(4, 2), mode="complete")],
    torch.linalg.qr(torch.ones(4, 2), mode="r")[0].shape,
)
w, V = torch.linalg.eigh(S)
print(
    "eigh",
    w.round(decimals=4),
    torch.allclose(V @ torch.diag(w) @ V.mT, S),
    torch.linalg.eigvalsh(S, UPLO="U").round(decimals=4),
)
ev = torch.linalg.eigvals(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
print("eigvals", ev, ev.dtype, torch.linalg.eig(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))[0])
U, Sv, Vh = torch.linalg.svd(A, full_matrices=False)
print(
    "svd", Sv.round(decimals=4), torch.allclose(U @ torch.diag(Sv) @ Vh, A), torch.linalg.svdvals(A).round(decimals=4)
)
print(
    "svd shapes",
    [t.shape for t in torch.linalg.svd(torch.ones(4, 2))],
    [t.shape for t in torch.linalg.svd(torch.ones(4, 2), full_matrices=False)],
)
Ls = torch.linalg.lstsq(torch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), torch.tensor([[1.0], [2.0], [4.0]]))
print("lstsq", Ls.solution.round(decimals=4), type(Ls).__name__, Ls.rank, Ls.residuals)
print(
    "matrix_power",
    torch.linalg.matrix_power(torch.tensor([[1, 1], [1, 0]]), 10),
    torch.linalg.matrix_power(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), -1),
)
print("matrix_power 0", torch.linalg.matrix_power(Bm, 0), torch.matrix_power(Bm, 2))
print(
    "matrix_exp",
    torch.linalg.matrix_exp(torch.zeros(2, 2)),
    torch.linalg.matrix_exp(torch.tensor([[0.0, np.pi / 2], [-np.pi / 2, 0.0]])).round(decimals=4) + 0.0,
)
print(
    "pinv",
    torch.linalg.pinv(torch.tensor([[1.0, 2.0], [2.0, 4.0]])).round(decimals=4),
    torch.allclose(torch.linalg.pinv(S), Ainv),
)
print(
    "pinv hermitian",
    torch.allclose(torch.linalg.pinv(S, hermitian=True), Ainv),
    torch.linalg.pinv(torch.ones(3, 2)).shape,
)
print(
    "matrix_rank",
    torch.linalg.matrix_rank(torch.ones(3, 3)),
    torch.linalg.matrix_rank(S),
    torch.linalg.matrix_rank(torch.eye(10)),
    torch.linalg.matrix_rank(torch.ones(2, 4, 3)),
)
print(
    "matrix_rank tol",
    torch.linalg.matrix_rank(torch.diag(torch.tensor([1.0, 1e-3, 1e-9])), atol=1e-4),
    torch.linalg.matrix_rank(torch.diag(torch.tensor([1.0, 0.1])), rtol=0.5),
)
print(
    "cond",
    torch.linalg.cond(torch.tensor([[1.0, 0.0], [0.0, 2.0]])),
    torch.linalg.cond(torch.tensor([[1.0, 0.0], [0.0, 2.0]]), "fro").round(decimals=4),
    torch.linalg.cond(torch.tensor([[1.0, 0.0], [0.0, 2.0]]), 1),
)
print(
    "multi_dot",
    torch.linalg.multi_dot([torch.tensor([1, 2]), torch.tensor([2, 3])]),
    torch.linalg.multi_dot([torch.tensor([[1, 2]]), torch.tensor([2, 3])]),
)
mats = [torch.arange(2 * 3).view(2, 3), torch.arange(3 * 2).view(3, 2), torch.arange(2 * 2).view(2, 2)]
print(
    "multi_dot chain",
    torch.linalg.multi_dot(mats),
    torch.linalg.multi_dot([torch.ones(3), torch.ones(3, 2), torch.ones(2)]),
)
print(
    "vecdot",
    torch.linalg.vecdot(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1.0, -1.0])),
    torch.linalg.vecdot(torch.tensor([1j]), torch.tensor([1j])),
)
print("diagonal", torch.linalg.diagonal(Bb), torch.linalg.diagonal(Bb, offset=1), torch.linalg.matmul(Bm, Bm))
print("tensorinv", torch.linalg.tensorinv(torch.eye(4 * 6).reshape(4, 6, 8, 3), ind=2).shape)
At = torch.eye(2 * 3 * 4, dtype=torch.float64).reshape(2 * 3, 4, 2, 3, 4)
print("tensorsolve", torch.linalg.tensorsolve(At, torch.ones(2 * 3, 4, dtype=torch.float64)).shape)
print(
    "solve_triangular",
    torch.linalg.solve_triangular(torch.tensor([[2.0, 1.0], [0.0, 4.0]]), torch.tensor([[3.0], [8.0]]), upper=True),
)
print(
    "solve_triangular left",
    torch.linalg.solve_triangular(
        torch.tensor([[2.0, 0.0], [1.0, 4.0]]), torch.tensor([[2.0, 8.0]]), upper=False, left=False
    ),
)
print(
    "triangular unit",
    torch.linalg.solve_triangular(
        torch.tensor([[5.0, 1.0], [0.0, 7.0]]), torch.tensor([[3.0], [1.0]]), upper=True, unitriangular=True
    ),
)
LU, piv = torch.linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print("lu_factor", LU, piv, piv.dtype, torch.linalg.lu_solve(LU, piv, torch.tensor([[5.0], [6.0]])))
P, Lw, Up = torch.linalg.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print("lu", P, Lw, Up)
print("householder", torch.linalg.householder_product(torch.tensor([[1.0, 0.0], [0.5, 1.0]]), torch.tensor([1.0, 0.0])))
print("cross", torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])))
for bad in [
    lambda: torch.linalg.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda: torch.linalg.inv(torch.ones(2, 3)),
    lambda: torch.linalg.inv(torch.tensor([[1, 2], [3, 4]])),
    lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)),
    lambda: torch.linalg.solve(torch.eye(2), torch.ones(3)),
    lambda: torch.linalg.det(torch.ones(2, 3)),
    lambda: torch.linalg.norm(B, "fro", dim=0),
    lambda: torch.linalg.norm(a, "nuc"),
    lambda: torch.linalg.matrix_norm(a),
    lambda: torch.linalg.vector_norm(torch.tensor([1, 2])),
    lambda: torch.linalg.matrix_power(torch.ones(2, 3), 2),
    lambda: torch.linalg.matrix_power(torch.tensor([[1, 1], [1, 0]]), -1),
    lambda: torch.linalg.multi_dot([torch.ones(2)]),
    lambda: torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(2, 3)]),
    lambda: torch.linalg.eigh(torch.ones(2, 3)),
    lambda: torch.linalg.qr(torch.ones(2, 2), mode="full"),
    lambda: torch.linalg.solve_triangular(torch.eye(2), torch.ones(2), upper=True),
    lambda: torch.linalg.lstsq(torch.ones(3, 2), torch.ones(2, 1)),
    lambda: torch.linalg.tensorinv(torch.ones(2, 3), ind=0),
    lambda: torch.linalg.cond(torch.ones(2, 3), "fro"),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
