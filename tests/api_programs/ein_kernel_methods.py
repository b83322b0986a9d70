"""Kernel methods in plain torch: Gram matrices by einsum and broadcasting, RBF/polynomial/ARD kernels, kernel
ridge regression, MMD and HSIC with centering matrices, random Fourier features, and a product kernel on a
meshgrid, with gradients of the marginal likelihood and the strides of what the helpers return."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
torch.set_default_dtype(torch.float64)

X = torch.randn(6, 2)
Y = torch.randn(4, 2)
G = torch.einsum("id,jd->ij", X, X)
print("gram", tuple(G.shape), "== X X^T:", torch.allclose(G, X @ X.T))
sq = torch.einsum("id,id->i", X, X)
D2 = sq[:, None] + sq[None, :] - 2 * G
D2_b = (X[:, None, :] - X[None, :, :]).pow(2).sum(-1)
print("squared distances agree:", torch.allclose(D2.clamp_min(0), D2_b, atol=1e-12),
      torch.allclose(D2_b, torch.cdist(X, X) ** 2, atol=1e-10))
print("diag of D2", torch.diagonal(D2_b))


def rbf(A, B, ls=1.0, var=1.0):
    d2 = (A.unsqueeze(-2) - B.unsqueeze(-3)).pow(2).sum(-1)
    return var * torch.exp(-0.5 * d2 / ls**2)


K = rbf(X, X, 0.8)
print("rbf K\n", K[:3, :3])
print("PSD:", bool(torch.linalg.eigvalsh(K).min() > -1e-10), "unit diagonal:", torch.allclose(K.diagonal(),
                                                                                              torch.ones(6)))
Kxy = rbf(X, Y)
print("cross kernel", tuple(Kxy.shape), Kxy.stride())
# ARD: a length scale per input dim, written with einsum
ls = torch.tensor([0.5, 2.0])
Xs, Ys = X / ls, Y / ls
ard = torch.exp(-0.5 * (torch.einsum("id,id->i", Xs, Xs)[:, None] + torch.einsum("jd,jd->j", Ys, Ys)[None]
                        - 2 * torch.einsum("id,jd->ij", Xs, Ys)))
print("ARD kernel matches broadcasting:", torch.allclose(ard, rbf(Xs, Ys), atol=1e-12))
poly = (torch.einsum("id,jd->ij", X, Y) + 1.0) ** 2
# explicit degree-2 features through combinations_with_replacement
idx = torch.combinations(torch.arange(2), 2, with_replacement=True)
w = torch.where(idx[:, 0] == idx[:, 1], 1.0, math.sqrt(2.0))


def phi(Z):
    return torch.cat([torch.ones(len(Z), 1), math.sqrt(2.0) * Z, w * Z[:, idx[:, 0]] * Z[:, idx[:, 1]]], 1)


print("poly features", tuple(phi(X).shape), "kernel trick holds:", torch.allclose(phi(X) @ phi(Y).T, poly))

# kernel ridge regression
f = lambda z: torch.sin(3 * z[:, 0]) + 0.5 * z[:, 1]  # noqa: E731
yt = f(X)
lam = 1e-2
alpha = torch.linalg.solve(K + lam * torch.eye(6), yt)
pred = rbf(Y, X, 0.8) @ alpha
print("KRR predictions", pred)
print("train residual", round((K @ alpha - yt).norm().item(), 4))
L = torch.linalg.cholesky(K + lam * torch.eye(6))
alpha2 = torch.cholesky_solve(yt.unsqueeze(1), L).squeeze(1)
print("cholesky_solve agrees:", torch.allclose(alpha, alpha2))

# GP log marginal likelihood and its gradient with respect to the hyperparameters
log_ls = torch.tensor(math.log(0.8), requires_grad=True)
log_noise = torch.tensor(math.log(0.1), requires_grad=True)
Kn = rbf(X, X, log_ls.exp()) + log_noise.exp() ** 2 * torch.eye(6)
Ln = torch.linalg.cholesky(Kn)
a = torch.cholesky_solve(yt.unsqueeze(1), Ln).squeeze(1)
lml = -0.5 * yt @ a - Ln.diagonal().log().sum() - 3 * math.log(2 * math.pi)
lml.backward()
print("log marginal likelihood", round(lml.item(), 4))
print("d/dlog_ls", round(log_ls.grad.item(), 4), "d/dlog_noise", round(log_noise.grad.item(), 4))
# the analytic gradient: 0.5 tr((a a^T - K^-1) dK)
Kinv = torch.cholesky_inverse(Ln.detach())
dK = rbf(X, X, 0.8) * (X[:, None, :] - X[None, :, :]).pow(2).sum(-1) / 0.8**2
analytic = 0.5 * torch.einsum("ij,ji->", torch.outer(a.detach(), a.detach()) - Kinv, dK)
print("analytic gradient matches:", torch.allclose(analytic, log_ls.grad, atol=1e-8))

# MMD between two samples with a shared kernel
P = torch.randn(30, 2)
Q = torch.randn(30, 2) + torch.tensor([1.0, 0.0])
Kpp, Kqq, Kpq = rbf(P, P), rbf(Q, Q), rbf(P, Q)
n = len(P)
iu = torch.triu_indices(n, n, 1)
mmd2 = Kpp[iu[0], iu[1]].mean() + Kqq[iu[0], iu[1]].mean() - 2 * Kpq.mean()
off = ~torch.eye(n, dtype=torch.bool)
mmd2_mask = Kpp[off].mean() + Kqq[off].mean() - 2 * Kpq.mean()
print("MMD^2 (unbiased)", round(mmd2.item(), 4), "agree:", torch.allclose(mmd2, mmd2_mask))
same = rbf(P[:15], P[:15])[off[:15, :15]].mean() + rbf(P[15:], P[15:])[off[:15, :15]].mean() \
    - 2 * rbf(P[:15], P[15:]).mean()
print("MMD^2 same distribution", round(same.item(), 4))

# HSIC with the centering matrix H = I - 11^T / n
m = 8
Hc = torch.eye(m) - torch.ones(m, m) / m
print("H idempotent:", torch.allclose(Hc @ Hc, Hc), "rank", torch.linalg.matrix_rank(Hc).item())
U = torch.randn(m, 1)
V_dep = U**2 + 0.01 * torch.randn(m, 1)
V_ind = torch.randn(m, 1)


def hsic(A, B):
    return torch.einsum("ij,jk,kl,li->", rbf(A, A), Hc, rbf(B, B), Hc) / (m - 1) ** 2


print("HSIC dependent", round(hsic(U, V_dep).item(), 4), "independent", round(hsic(U, V_ind).item(), 4))
print("trace form equals einsum:", torch.allclose(hsic(U, V_dep),
                                                 torch.trace(rbf(U, U) @ Hc @ rbf(V_dep, V_dep) @ Hc) / (m - 1) ** 2))

# random Fourier features approximate the RBF kernel
Dfeat = 2000
g = torch.Generator().manual_seed(3)
Wf = torch.randn(2, Dfeat, generator=g)
bf = torch.rand(Dfeat, generator=g) * 2 * math.pi


def rff(Z):
    return math.sqrt(2.0 / Dfeat) * torch.cos(Z @ Wf + bf)


approx = rff(X) @ rff(Y).T
print("RFF max error < 0.1:", bool((approx - rbf(X, Y)).abs().max() < 0.1))

# a separable product kernel on a grid: K2d = kron(K_y, K_x), built from meshgrid coordinates
gx = torch.linspace(0, 1, 4)
gy = torch.linspace(0, 1, 3)
GX, GY = torch.meshgrid(gx, gy, indexing="xy")
print("grid", tuple(GX.shape), GX.stride(), GY.stride())
pts = torch.stack([GX.reshape(-1), GY.reshape(-1)], 1)
K2 = rbf(pts, pts, 0.5)
Kkron = torch.kron(rbf(gy[:, None], gy[:, None], 0.5), rbf(gx[:, None], gx[:, None], 0.5))
print("product kernel == kron:", torch.allclose(K2, Kkron), Kkron.shape, Kkron.stride())
ev_kron = torch.cartesian_prod(torch.linalg.eigvalsh(rbf(gy[:, None], gy[:, None], 0.5)),
                               torch.linalg.eigvalsh(rbf(gx[:, None], gx[:, None], 0.5))).prod(1)
print("eigenvalues of a kron are products:",
      torch.allclose(ev_kron.sort().values, torch.linalg.eigvalsh(K2), atol=1e-10))
Kbd = torch.block_diag(rbf(X[:3], X[:3]), rbf(Y[:2], Y[:2]))
print("block-diagonal kernel", tuple(Kbd.shape), Kbd.stride(), "logdet splits:",
      torch.allclose(torch.logdet(Kbd), torch.logdet(rbf(X[:3], X[:3])) + torch.logdet(rbf(Y[:2], Y[:2]))))
torch.set_default_dtype(torch.float32)
