"""Tensor decompositions and networks as numerical code writes them with einsum: an MPS contracted site by site,
a Khatri-Rao product by einsum and kron, CP decomposition by alternating least squares, Tucker/HOSVD through
mode-n unfoldings, a tensor-train matrix-vector product, and the tensor ops they lean on."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
torch.set_default_dtype(torch.float64)

# matrix product state: contract a chain of cores into the full tensor and compute its norm two ways
n_sites, d, chi = 4, 2, 3
cores = [torch.randn(1, d, chi)] + [torch.randn(chi, d, chi) for _ in range(n_sites - 2)] + [torch.randn(chi, d, 1)]
full = cores[0]
for c in cores[1:]:
    full = torch.einsum("...a,apb->...pb", full, c)
full = full.squeeze(0).squeeze(-1)
print("MPS full tensor", tuple(full.shape))
norm_full = full.pow(2).sum().sqrt()
env = torch.ones(1, 1)
for c in cores:
    env = torch.einsum("ab,apc,bpd->cd", env, c, c)
print("norm via transfer matrices", round(env.sqrt().item(), 4), "full", round(norm_full.item(), 4))
print("norms agree:", torch.allclose(env.sqrt().squeeze(), norm_full))
# amplitude of one basis state by picking physical indices
idx = [1, 0, 1, 1]
amp = torch.ones(1)
for c, i in zip(cores, idx):
    amp = amp @ c[:, i, :]
print("amplitude", round(amp.item(), 4), "== full[idx]:", torch.allclose(amp.squeeze(), full[tuple(idx)]))
# left-canonicalize with QR and check isometries
canon = []
carry = torch.ones(1, 1)
for c in cores[:-1]:
    c = torch.einsum("ab,bpc->apc", carry, c)
    left, p, right = c.shape
    q, r = torch.linalg.qr(c.reshape(left * p, right))
    canon.append(q.reshape(left, p, -1))
    carry = r
canon.append(torch.einsum("ab,bpc->apc", carry, cores[-1]))
print("isometries:", [torch.allclose(torch.einsum("apb,apc->bc", q, q), torch.eye(q.shape[-1])) for q in canon[:-1]])
print("canonical form keeps the norm:", torch.allclose(canon[-1].pow(2).sum().sqrt(), norm_full))

# Khatri-Rao (column-wise Kronecker) product
A = torch.randn(3, 2)
B = torch.randn(4, 2)
kr = torch.einsum("ir,jr->ijr", A, B).reshape(-1, 2)
kr_kron = torch.stack([torch.kron(A[:, r], B[:, r]) for r in range(2)], 1)
print("khatri-rao", tuple(kr.shape), torch.allclose(kr, kr_kron))
print("gram identity (A^T A * B^T B):", torch.allclose(kr.T @ kr, (A.T @ A) * (B.T @ B)))

# CP decomposition by alternating least squares on an exactly rank-2 tensor
rank = 2
gU = torch.Generator().manual_seed(0)
U1, U2, U3 = (torch.randn(n, rank, generator=gU) for n in (4, 5, 3))
T = torch.einsum("ir,jr,kr->ijk", U1, U2, U3)
print("tensor", tuple(T.shape), "norm", round(T.norm().item(), 4))


def unfold(t, mode):
    return torch.movedim(t, mode, 0).reshape(t.shape[mode], -1)


def fold(m, mode, shape):
    moved = [shape[mode]] + [s for i, s in enumerate(shape) if i != mode]
    return torch.movedim(m.reshape(moved), 0, mode)


print("unfold/fold round trip:", all(torch.equal(fold(unfold(T, m), m, T.shape), T) for m in range(3)))
g = torch.Generator().manual_seed(1)
F = [torch.randn(s, rank, generator=g) for s in T.shape]
for it in range(100):
    for m in range(3):
        others = [F[i] for i in range(3) if i != m]
        kr_m = torch.einsum("ir,jr->ijr", *others).reshape(-1, rank)
        gram = (others[0].T @ others[0]) * (others[1].T @ others[1])
        F[m] = torch.linalg.solve(gram, (unfold(T, m) @ kr_m).T).T
rec = torch.einsum("ir,jr,kr->ijk", *F)
rel_err = (rec - T).norm() / T.norm()
print("CP-ALS relative error < 1e-8:", bool(rel_err < 1e-8))

# Tucker via HOSVD: factor matrices from unfoldings, core by mode products
X = torch.randn(4, 5, 6)
Us = [torch.linalg.svd(unfold(X, m), full_matrices=False)[0] for m in range(3)]
core = torch.einsum("ijk,ia,jb,kc->abc", X, *Us)
print("core", tuple(core.shape), "factors", [tuple(u.shape) for u in Us])
back = torch.einsum("abc,ia,jb,kc->ijk", core, *Us)
print("full-rank HOSVD exact:", torch.allclose(back, X))
trunc = [u[:, :2] for u in Us]
core2 = torch.einsum("ijk,ia,jb,kc->abc", X, *trunc)
approx = torch.einsum("abc,ia,jb,kc->ijk", core2, *trunc)
print("truncated (2,2,2) relative error", round(((approx - X).norm() / X.norm()).item(), 4))
print("core energy == projected norm:", torch.allclose(core2.norm(), approx.norm()))
# mode-n product by tensordot equals einsum
M = torch.randn(7, 5)
mode1 = torch.movedim(torch.tensordot(X, M, dims=([1], [1])), -1, 1)
print("mode-1 product", tuple(mode1.shape), torch.allclose(mode1, torch.einsum("ijk,aj->iak", X, M)))

# tensor-train matrix times a vector without forming the matrix
tt = [torch.randn(1, 2, 2, 3), torch.randn(3, 2, 2, 3), torch.randn(3, 2, 2, 1)]
Wfull = torch.einsum("aijb,bklc,cmnd->ikmjln", *tt).reshape(8, 8)
x = torch.randn(8)
y = torch.einsum("aijb,bklc,cmnd,jln->ikm", *tt, x.reshape(2, 2, 2)).reshape(8)
print("TT matvec matches dense:", torch.allclose(y, Wfull @ x))
print("dense TT rank (<= 8)", torch.linalg.matrix_rank(Wfull).item())

# differentiating through a contraction network: fit one MPS core to a target amplitude
target = torch.tensor(0.5)
c1 = cores[1].clone().requires_grad_()
opt = torch.optim.SGD([c1], lr=0.01)
for step in range(3):
    opt.zero_grad()
    a = torch.einsum("xa,ab,bc,cy->", cores[0][:, 1, :], c1[:, 0, :], cores[2][:, 1, :], cores[3][:, 1, :])
    loss = (a - target) ** 2
    loss.backward()
    print(f"step {step} amp {a.item():.4f} loss {loss.item():.4f} grad-norm {c1.grad.norm().item():.4f}")
    opt.step()
print("only the chosen slice moves:", torch.equal(c1.detach()[:, 1, :], cores[1][:, 1, :]))
torch.set_default_dtype(torch.float32)
