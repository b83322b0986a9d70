"""linear algebra workflows: least squares, eigen/SVD reconstructions, norms, conditioning, LU, structured builders."""

import numpy as np
import torch

torch.set_printoptions(precision=4)
rng = np.random.default_rng(11)


def T(*s, dtype=torch.float64):
    return torch.from_numpy(rng.standard_normal(s)).to(dtype)


def r(x):
    return np.round(x.detach().cpu().numpy().astype(np.float64), 4).tolist()


A = T(6, 3)
b = T(6, 2)
for drv in ["gels", "gelsy", "gelsd", "gelss"]:
    res = torch.linalg.lstsq(A, b, driver=drv)
    print(
        drv,
        r(res.solution),
        res.rank if drv != "gels" else None,
        r(res.residuals) if drv != "gelsy" else None,
        res.singular_values.shape,
    )
print("lstsq f32", r(torch.linalg.lstsq(A.float(), b.float()).solution))
M = torch.tensor([[2.0, -1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.0, 3.0]], dtype=torch.float64)
w, V = torch.linalg.eig(M)
order = torch.argsort(w.real * 10 + w.imag)
print("eig", w[order], w.dtype, V.dtype)
print("eig reconstruct", r((V @ torch.diag(w) @ torch.linalg.inv(V)).real - M))
print("eigvals", torch.linalg.eigvals(M.float()).abs().sort().values)
S = M @ M.T
ws, Vs = torch.linalg.eigh(S)
print("eigh", ws, r(torch.abs(Vs[:, 0])), torch.linalg.eigvalsh(S, UPLO="U"))
print("matrix_exp", torch.linalg.matrix_exp(torch.tensor([[0.0, 1.0], [-1.0, 0.0]])))
print("matrix_exp batch", torch.linalg.matrix_exp(torch.zeros(2, 2, 2)))
U, Sv, Vh = torch.linalg.svd(A, full_matrices=False)
print("svd", U.shape, Sv, Vh.shape, r((U * Sv) @ Vh - A)[0])
Uf, Sf, Vhf = torch.linalg.svd(A)
print("svd full", Uf.shape, Vhf.shape, r(torch.abs(Uf.T @ Uf - torch.eye(6)).max()))
print("svdvals", torch.linalg.svdvals(A), torch.svd(A).V.shape)
print("pinv", r(torch.linalg.pinv(A) @ A), r(torch.linalg.pinv(M, hermitian=False))[0])
P = torch.linalg.pinv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
print("pinv singular", P, torch.linalg.pinv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]), rtol=0.5))
v = torch.tensor([3.0, -4.0, 0.0, 1.0])
for o in [None, 0, 1, 2, float("inf"), -float("inf"), 0.5, 3]:
    print("vector_norm", o, torch.linalg.vector_norm(v, ord=2 if o is None else o))
for o in ["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")]:
    print("matrix norm", o, torch.linalg.norm(M, ord=o), torch.linalg.matrix_norm(M, ord=o))
print("norm dims", torch.linalg.norm(A, dim=0), torch.linalg.norm(v), torch.norm(M), torch.norm(v, p=1))
print(
    "vector_norm dim",
    torch.linalg.vector_norm(A, ord=3, dim=(0, 1)),
    torch.linalg.vector_norm(A, dim=1, keepdim=True).shape,
)
print("cond", torch.linalg.cond(M), torch.linalg.cond(M, "fro"), torch.linalg.cond(M, 1), torch.linalg.cond(M, -2))
sing = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=torch.float64)
print("cond singular", torch.linalg.cond(sing) > 1e15)
print(
    "rank",
    torch.linalg.matrix_rank(sing),
    torch.linalg.matrix_rank(A),
    torch.linalg.matrix_rank(sing, tol=1e-8),
    torch.linalg.matrix_rank(M, atol=2.5),
    torch.linalg.matrix_rank(M, rtol=0.5),
    torch.linalg.matrix_rank(S, hermitian=True),
)
x, info = torch.linalg.solve_ex(M, b[:3])
print("solve_ex", r(x), info)
_, info2 = torch.linalg.solve_ex(sing, b[:3])
print("solve_ex singular", info2)
try:
    torch.linalg.solve(sing, b[:3])
except RuntimeError as e:
    print("solve err", type(e).__name__, str(e)[:80])
print("solve left", r(torch.linalg.solve(M, b[:3].T, left=False)))
Pm, L, Uu = torch.linalg.lu(M)
print("lu", Pm, r(L), r(Uu), r(Pm @ L @ Uu - M))
LU, piv = torch.linalg.lu_factor(M)
print("lu_factor", r(LU), piv, piv.dtype)
print("lu_solve", r(torch.linalg.lu_solve(LU, piv, b[:3]) - torch.linalg.solve(M, b[:3])))
print("old lu_solve", r(torch.lu_solve(b[:3], LU, piv) - torch.linalg.solve(M, b[:3])))
Pu, Lu, Uu2 = torch.lu_unpack(LU, piv)
print("lu_unpack", r(Pu - Pm))
print("det", torch.linalg.det(M), torch.det(sing), torch.linalg.slogdet(M), torch.logdet(S))
print("slogdet neg", torch.linalg.slogdet(-M))
print("inv_ex", torch.linalg.inv_ex(sing).info, r(torch.linalg.inv(M))[0])
Lc = torch.linalg.cholesky(S)
print(
    "cholesky",
    r(Lc),
    r(torch.cholesky_solve(b[:3], Lc) - torch.linalg.solve(S, b[:3])),
    torch.cholesky_inverse(Lc).shape,
)
print("cholesky_ex", torch.linalg.cholesky_ex(-S).info)
Q, R = torch.linalg.qr(A)
print(
    "qr",
    Q.shape,
    R.shape,
    r(torch.diag(R).abs()),
    torch.linalg.qr(A, mode="complete").Q.shape,
    torch.linalg.qr(A, mode="r").Q.shape,
)
print("householder", r(torch.linalg.householder_product(*torch.geqrf(A)).abs() - Q.abs())[0])
print("kron", torch.kron(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[0, 1], [1, 0]])))
print("block_diag", torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3], [4]]), torch.tensor(5)))
print("cartesian_prod", torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5])))
print(
    "combinations",
    torch.combinations(torch.tensor([1, 2, 3, 4]), r=3),
    torch.combinations(torch.tensor([1, 2, 3]), with_replacement=True),
)
print("tril_indices", torch.tril_indices(3, 4, offset=1), torch.triu_indices(4, 3, offset=-1))
print("vander", torch.vander(torch.tensor([1, 2, 3])), torch.vander(torch.tensor([1.0, 2.0]), N=4, increasing=True))
print("linalg.vander", torch.linalg.vander(torch.tensor([1, 2, 3]), N=4))
Bt = T(4, 2, 3)
Ct = T(4, 3, 2)
print(
    "bmm",
    r(torch.bmm(Bt, Ct))[0][0],
    r(torch.baddbmm(torch.ones(4, 2, 2, dtype=torch.float64), Bt, Ct, beta=0.5, alpha=2.0))[0][0],
)
print(
    "addbmm",
    r(torch.addbmm(torch.zeros(2, 2, dtype=torch.float64), Bt, Ct)),
    r(torch.addmm(torch.eye(2, dtype=torch.float64), Bt[0], Ct[0], alpha=-1)),
)
print(
    "einsum",
    r(torch.einsum("bij,bjk->bik", Bt, Ct) - torch.bmm(Bt, Ct)).__len__(),
    r(torch.einsum("ii->", M)),
    r(torch.einsum("ij,ij->i", A, A)),
)
print(
    "einsum ellipsis",
    torch.einsum("...ij->...ji", Bt).shape,
    r(torch.einsum("i,j->ij", v, v[:2])),
    r(torch.einsum(A, [0, 1], A, [0, 1], [1])),
)
print("einsum bilinear", r(torch.einsum("bn,anm,bm->ba", A[:2], T(5, 3, 3), A[2:4])))
print(
    "multi_dot",
    r(torch.linalg.multi_dot([A.T, A, M])),
    r(torch.linalg.matrix_power(M, 3))[0],
    r(torch.linalg.matrix_power(M, -1))[0],
)
print(
    "cross",
    torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])),
    torch.cross(torch.eye(3), torch.ones(3, 3), dim=1),
)
print(
    "vecdot",
    torch.linalg.vecdot(torch.tensor([1 + 1j, 2j]), torch.tensor([1j, 1 + 0j])),
    torch.vdot(torch.tensor([1 + 1j]), torch.tensor([1j])),
)
print(
    "tensorsolve",
    r(
        torch.linalg.tensorsolve(
            torch.eye(6, dtype=torch.float64).reshape(6, 2, 3) * 2, torch.ones(6, dtype=torch.float64)
        )
    ),
)
print(
    "tensorinv",
    torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2) * 4, ind=1).shape,
    torch.tensordot(A, A, dims=([0], [0])).shape,
)
print(
    "diagonal",
    torch.linalg.diagonal(Bt).shape,
    torch.diag_embed(torch.tensor([[1, 2], [3, 4]]), offset=1).shape,
    torch.trace(M),
)
print("complex eigh", torch.linalg.eigvalsh(torch.tensor([[2.0, 1j], [-1j, 2.0]])))
print("complex solve", torch.linalg.solve(torch.tensor([[1 + 1j, 0], [0, 2]]), torch.tensor([2j, 4 + 0j])))
print("ldl", r(torch.linalg.ldl_factor(S).LD)[0], torch.linalg.ldl_factor(S).pivots)
print(
    "solve_triangular",
    r(torch.linalg.solve_triangular(Lc, b[:3], upper=False)),
    r(torch.linalg.solve_triangular(Lc.T, b[:3].T, upper=True, left=False)),
)
print("int dets", torch.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)), torch.linalg.det(M))
print(
    "rank tol", torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0001]]), 1e-3), torch.linalg.slogdet(M).sign
)
