"""Complex linear algebra as quantum and signal-processing code writes it in complex128: Hermitian eigh with
UPLO, unitary QR/SVD (phases normalised), solve/inv/det/slogdet of complex matrices, cholesky of an HPD
matrix, matrix_exp of a Hamiltonian, complex norms and vecdot, and gradients of real losses through them."""

import torch

torch.manual_seed(31)
torch.set_printoptions(precision=4, sci_mode=False)
LA = torch.linalg
c128 = torch.complex128


def r4(t):
    """Round to 4 decimals; adding 0.0 turns the -0.0 of a rounded 1e-17 into 0.0."""
    if t.is_complex():
        return torch.complex(torch.round(t.real, decimals=4) + 0.0, torch.round(t.imag, decimals=4) + 0.0)
    return torch.round(t, decimals=4) + 0.0


def dephase(Q):
    """Rotate each column so its largest-magnitude entry is real and positive."""
    idx = Q.abs().argmax(dim=-2, keepdim=True)
    ph = torch.gather(Q, -2, idx)
    return Q * (ph.abs() / ph)


Z = torch.randn(3, 3, dtype=c128)
H = Z @ Z.mH + 3 * torch.eye(3, dtype=c128)
print("Hermitian", torch.allclose(H, H.mH), H.dtype)
w, V = LA.eigh(H)
print("eigh values real", w.dtype, r4(w))
print("V unitary", torch.allclose(V.mH @ V, torch.eye(3, dtype=c128)))
Vd = dephase(V)
print("V dephased", r4(Vd))
print("reconstruct", torch.allclose(V @ torch.diag(w).to(c128) @ V.mH, H))
Hl = torch.tril(H) + torch.triu(torch.full((3, 3), 9 + 9j, dtype=c128), 1)
print("UPLO=L", torch.allclose(LA.eigvalsh(Hl, UPLO="L"), w))
Hu = torch.triu(H) + torch.tril(torch.full((3, 3), 7 - 2j, dtype=c128), -1)
print("UPLO=U", torch.allclose(LA.eigvalsh(Hu, UPLO="U"), w))

# --- cholesky, solve, inv, det --------------------------------------------------------------------------------
L = LA.cholesky(H)
print("L diag real positive", r4(torch.diagonal(L)))
print("L L^H = H", torch.allclose(L @ L.mH, H))
print("upper = L^H", torch.allclose(LA.cholesky(H, upper=True), L.mH))
b = torch.randn(3, 2, dtype=c128)
x = LA.solve(H, b)
print("solve", r4(x))
print("cholesky_solve agrees", torch.allclose(torch.cholesky_solve(b, L), x))
print("inv", r4(LA.inv(Z)))
print("det", r4(LA.det(Z)), "slogdet", [r4(t) for t in LA.slogdet(Z)])
print("det of H real", r4(LA.det(H)))
print("|sign| = 1", round(LA.slogdet(Z).sign.abs().item(), 4), LA.slogdet(Z).logabsdet.dtype)
print("solve_triangular", r4(LA.solve_triangular(L, b, upper=False)))
LU, piv = LA.lu_factor(Z)
print("lu_solve adjoint", torch.allclose(LA.lu_solve(LU, piv, b, adjoint=True), LA.solve(Z.mH, b)))

# --- QR and SVD ----------------------------------------------------------------------------------------------
A = torch.randn(4, 3, dtype=c128)
Q, R = LA.qr(A)
print("Q^H Q = I", torch.allclose(Q.mH @ Q, torch.eye(3, dtype=c128)), "|diag R|", r4(torch.diagonal(R).abs()))
U, S, Vh = LA.svd(A, full_matrices=False)
print("singular values", S.dtype, r4(S))
print("svd reconstruct", torch.allclose(U @ torch.diag(S).to(c128) @ Vh, A))
print("svdvals", torch.allclose(LA.svdvals(A), S))
print("|U| dephased", r4(dephase(U).abs()))
print("full U", tuple(LA.svd(A).U.shape), "pinv", torch.allclose(LA.pinv(A) @ A, torch.eye(3, dtype=c128)))
print("rank", LA.matrix_rank(A).item(), "rank hermitian", LA.matrix_rank(H, hermitian=True).item())
ev = LA.eigvals(Z)
print("eigvals |.| sorted", r4(torch.sort(ev.abs()).values))
print("sum eig = trace", r4(ev.sum()), r4(torch.trace(Z)))

# --- matrix functions on Hamiltonians ------------------------------------------------------------------------
sx = torch.tensor([[0, 1], [1, 0]], dtype=c128)
sz = torch.tensor([[1, 0], [0, -1]], dtype=c128)
Ham = 0.5 * sx + 0.3 * sz
Uev = LA.matrix_exp(-1j * 0.8 * Ham)
print("propagator", r4(Uev))
print("unitary", torch.allclose(Uev @ Uev.mH, torch.eye(2, dtype=c128)))
psi0 = torch.tensor([1, 0], dtype=c128)
psi = Uev @ psi0
print("populations", r4(psi.abs() ** 2))
wH, VH = LA.eigh(Ham)
Uspec = VH @ torch.diag(torch.exp(-1j * 0.8 * wH)) @ VH.mH
print("spectral = expm", torch.allclose(Uspec, Uev))
print("matrix_power complex", r4(LA.matrix_power(Uev, 3)))
print("kron", tuple(torch.kron(sx, sz).shape), r4(LA.eigvalsh(torch.kron(sx, sz))))

# --- norms, vecdot -------------------------------------------------------------------------------------------
v = torch.tensor([3 + 4j, 1 - 1j, 2j], dtype=c128)
print("vector norms", [round(LA.vector_norm(v, ord=o).item(), 4) for o in (1, 2, torch.inf)], LA.vector_norm(v).dtype)
print("vecdot", LA.vecdot(v, v), torch.vdot(v, 1j * v))
print("matrix norms", [round(LA.matrix_norm(Z, ord=o).item(), 4) for o in ("fro", "nuc", 2, 1)])
print("cond", round(LA.cond(H).item(), 4), "complex64 eigh", LA.eigvalsh(H.to(torch.complex64)).dtype)
print("cross complex", LA.cross(v, v.conj()))

# --- gradients of real losses --------------------------------------------------------------------------------
Zg = Z.clone().requires_grad_()
LA.svdvals(Zg).sum().backward()
print("nuclear-norm grad", r4(Zg.grad))
Hg = H.clone().requires_grad_()
LA.eigvalsh(Hg)[-1].backward()
print("top eigen grad hermitian", torch.allclose(Hg.grad, Hg.grad.mH), r4(torch.diagonal(Hg.grad).real))
Ag = Z.clone().requires_grad_()
LA.solve(Ag, b).abs().pow(2).sum().backward()
print("solve grad", r4(Ag.grad))
Dg = Z.clone().requires_grad_()
LA.slogdet(Dg).logabsdet.backward()
print("logabsdet grad = inv^H", torch.allclose(Dg.grad, LA.inv(Z).mH))
