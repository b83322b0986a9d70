"""Matrix decompositions as numerical code uses them: cholesky/cholesky_ex (upper=), QR in its three modes,
eigh/eigvalsh with UPLO, eig/eigvals of non-symmetric matrices (complex, sorted by magnitude), svd/svdvals with
full_matrices, and householder_product from geqrf; signs normalised where they are arbitrary."""

import torch

torch.manual_seed(3)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
f64 = torch.float64


def r4(t):
    return torch.round(t, decimals=4)


def fix_cols(Q, R=None):
    """Flip each column of Q (and row of R) so its largest-magnitude entry is positive."""
    idx = Q.abs().argmax(dim=-2, keepdim=True)
    s = torch.sign(torch.gather(Q, -2, idx))
    s = torch.where(s == 0, torch.ones_like(s), s)
    if R is None:
        return Q * s
    return Q * s, R * s.mT


G = torch.randn(4, 4, dtype=f64)
S = G @ G.mT + 0.5 * torch.eye(4, dtype=f64)

# --- Cholesky ------------------------------------------------------------------------------------------------
L = LA.cholesky(S)
print("L", r4(L))
print("L L^T = S", torch.allclose(L @ L.mT, S))
U = LA.cholesky(S, upper=True)
print("upper = L^T", torch.allclose(U, L.mT))
print("torch.cholesky legacy upper", torch.allclose(torch.cholesky(S, upper=True), U))
Sb = torch.stack([S, 2 * S, S + torch.eye(4, dtype=f64)])
print("batched diag", r4(torch.diagonal(LA.cholesky(Sb), dim1=-2, dim2=-1)))
bad = S.clone()
bad[2, 2] = -5.0
ce = LA.cholesky_ex(torch.stack([S, bad]))
print("cholesky_ex info", ce.info.tolist(), type(ce).__name__)
print("cholesky_solve", torch.allclose(torch.cholesky_solve(torch.ones(4, 1, dtype=f64), L),
                                         LA.solve(S, torch.ones(4, 1, dtype=f64))))
print("cholesky_inverse", r4(torch.cholesky_inverse(L)[0]))
print("logdet via chol", round(2 * torch.log(torch.diagonal(L)).sum().item(), 4), round(torch.logdet(S).item(), 4))

# --- QR ------------------------------------------------------------------------------------------------------
A = torch.randn(5, 3, dtype=f64)
for mode in ["reduced", "complete", "r"]:
    Q, R = LA.qr(A, mode=mode)
    print(mode, tuple(Q.shape), tuple(R.shape))
Q, R = LA.qr(A)
Qn, Rn = fix_cols(Q, R)
print("Q", r4(Qn))
print("R", r4(Rn))
print("QR = A", torch.allclose(Qn @ Rn, A), "Q^T Q = I", torch.allclose(Q.mT @ Q, torch.eye(3, dtype=f64)))
Qc, Rc = LA.qr(A, mode="complete")
print("complete orthogonal", torch.allclose(Qc.mT @ Qc, torch.eye(5, dtype=f64)), r4(Rc[3:].abs().sum()))
print("|diag R|", r4(torch.diagonal(R).abs()))
print("tensor.qr some=False", tuple(torch.qr(A, some=False).Q.shape))
wide = torch.randn(2, 4, dtype=f64)
print("wide qr", [tuple(t.shape) for t in LA.qr(wide)])

# --- householder_product -------------------------------------------------------------------------------------
a, tau = torch.geqrf(A)
print("geqrf shapes", tuple(a.shape), tuple(tau.shape))
Qh = LA.householder_product(a, tau)
print("householder Q = qr Q", torch.allclose(Qh, Q))
print("orgqr", torch.allclose(torch.orgqr(a, tau), Qh))
print("ormqr", torch.allclose(torch.ormqr(a, tau, torch.eye(5, 2, dtype=f64)), Qc[:, :2]))

# --- eigh / eigvalsh -----------------------------------------------------------------------------------------
w, V = LA.eigh(S)
print("eigvals", r4(w))
print("V", r4(fix_cols(V)))
print("reconstruct", torch.allclose(V @ torch.diag(w) @ V.mT, S))
Sl = torch.tril(S) + 100 * torch.triu(torch.ones(4, 4, dtype=f64), 1)
print("UPLO=L ignores upper", torch.allclose(LA.eigvalsh(Sl, UPLO="L"), w))
Su = torch.triu(S) - 100 * torch.tril(torch.ones(4, 4, dtype=f64), -1)
print("UPLO=U", r4(LA.eigh(Su, UPLO="U").eigenvalues))
wb = LA.eigvalsh(Sb)
print("batched eigvalsh", r4(wb))
print("ascending", bool((wb[:, 1:] >= wb[:, :-1]).all()))
print("trace = sum", round(torch.trace(S).item(), 4), round(w.sum().item(), 4))

# --- eig / eigvals of non-symmetric matrices -----------------------------------------------------------------
N = torch.tensor([[0.0, -2.0, 1.0], [2.0, 0.0, 0.5], [0.0, 0.0, 3.0]], dtype=f64)
ev = LA.eigvals(N)
print("eigvals dtype", ev.dtype)
mags = torch.sort(ev.abs()).values
print("sorted |eig|", r4(mags))
print("sorted real parts", r4(torch.sort(ev.real).values))
print("imag magnitudes", r4(torch.sort(ev.imag.abs()).values))
w2, V2 = LA.eig(N)
print("eig dtypes", w2.dtype, V2.dtype)
print("A V = V diag(w)", torch.allclose(N.to(torch.complex128) @ V2, V2 * w2))
print("column norms", r4(LA.vector_norm(V2, dim=0)))
rot = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
print("rotation eig |.|", r4(torch.sort(LA.eigvals(rot).abs()).values), LA.eigvals(rot).dtype)
Nb = torch.randn(3, 4, 4, dtype=f64)
print("batched eigvals spectral radius", r4(LA.eigvals(Nb).abs().max(dim=-1).values))
print("det = prod eig", round(LA.det(N).item(), 4), round(torch.prod(ev).real.item(), 4))

# --- SVD -----------------------------------------------------------------------------------------------------
M = torch.randn(5, 3, dtype=f64)
Uf, Sv, Vh = LA.svd(M)
print("full shapes", tuple(Uf.shape), tuple(Sv.shape), tuple(Vh.shape))
Ur, Sr, Vhr = LA.svd(M, full_matrices=False)
print("reduced shapes", tuple(Ur.shape), tuple(Sr.shape), tuple(Vhr.shape))
print("singular values", r4(Sr))
print("svdvals", torch.allclose(LA.svdvals(M), Sr))
print("reconstruct", torch.allclose(Ur @ torch.diag(Sr) @ Vhr, M))
s = torch.sign(Ur.gather(0, Ur.abs().argmax(0, keepdim=True)))
print("U normalised", r4(Ur * s))
print("Vh normalised", r4(Vhr * s.mT))
print("best rank-1 error", round(LA.matrix_norm(M - Sr[0] * torch.outer(Ur[:, 0], Vhr[0])).item(), 4),
      round(Sr[1:].pow(2).sum().sqrt().item(), 4))
old = torch.svd(M)
print("torch.svd V not Vh", torch.allclose(old.V.mT.abs(), Vhr.abs()), type(old).__name__)
print("batched svdvals", r4(LA.svdvals(torch.randn(2, 3, 6, dtype=f64))))
print("float32 svdvals", LA.svdvals(torch.randn(3, 3)).dtype)
