"""Stochastic log-determinant and trace estimates as GPyTorch computes them: Hutchinson probes (Rademacher and
Gaussian), Lanczos tridiagonalisation with full reorthogonalisation, and stochastic Lanczos quadrature."""

import math

import torch

torch.manual_seed(11)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64

n = 50
x = torch.rand(n, 2, dtype=f64)
K = torch.exp(-0.5 * torch.cdist(x, x).pow(2) / 0.3**2) + 0.1 * torch.eye(n, dtype=f64)
exact_logdet = torch.logdet(K)
exact_trace = torch.trace(K)
print("exact", round(exact_logdet.item(), 4), round(exact_trace.item(), 4), exact_logdet.dtype)

z_rad = torch.randint(0, 2, (n, 200), dtype=f64).mul_(2).sub_(1)
print("rademacher", z_rad.unique().tolist(), z_rad.dtype, (z_rad.abs() == 1).all().item())
z_gauss = torch.randn(n, 200, dtype=f64)
hutch_rad = (z_rad * (K @ z_rad)).sum(0).mean()
hutch_gauss = torch.einsum("ip,ij,jp->p", z_gauss, K, z_gauss).mean()
print(
    "hutchinson close",
    abs(hutch_rad.item() - exact_trace.item()) / exact_trace.item() < 0.1,
    abs(hutch_gauss.item() - exact_trace.item()) / exact_trace.item() < 0.2,
)
z_b = torch.empty(n, 8, dtype=f64).bernoulli_(0.5).mul_(2).sub_(1)
print("bernoulli probes", z_b.unique().tolist())


def lanczos(mvm, q0, k):
    Q = torch.zeros(q0.shape[0], k, dtype=q0.dtype)
    alpha = torch.zeros(k, dtype=q0.dtype)
    beta = torch.zeros(k - 1, dtype=q0.dtype)
    q = q0 / torch.linalg.vector_norm(q0)
    for j in range(k):
        Q[:, j] = q
        w = mvm(q)
        alpha[j] = q @ w
        w = w - Q[:, : j + 1] @ (Q[:, : j + 1].mT @ w)
        w = w - Q[:, : j + 1] @ (Q[:, : j + 1].mT @ w)
        if j < k - 1:
            beta[j] = torch.linalg.vector_norm(w)
            q = w / beta[j]
    T = torch.diag(alpha) + torch.diag(beta, 1) + torch.diag(beta, -1)
    return Q, T


Q, T = lanczos(lambda v: K @ v, torch.randn(n, dtype=f64), 20)
print("Q orthonormal", torch.allclose(Q.mT @ Q, torch.eye(20, dtype=f64), atol=1e-8), "T", tuple(T.shape))
print("T tridiagonal", torch.equal(T.triu(2), torch.zeros_like(T)), "symmetric", torch.allclose(T, T.mT))
print("QTKQ = T", torch.allclose(Q.mT @ K @ Q, T, atol=1e-8))
evals_T = torch.linalg.eigvalsh(T)
evals_K = torch.linalg.eigvalsh(K)
print("ritz top", round(evals_T[-1].item(), 6), "true top", round(evals_K[-1].item(), 6))
print("ritz bottom >= min", bool(evals_T[0] >= evals_K[0] - 1e-10))


def slq_logdet(mvm, n, probes, k):
    est = []
    for _ in range(probes):
        z = torch.randint(0, 2, (n,), dtype=f64) * 2 - 1
        _, T = lanczos(mvm, z, k)
        theta, U = torch.linalg.eigh(T)
        est.append(n * (U[0].pow(2) * theta.log()).sum())
    est = torch.stack(est)
    return est.mean(), est.std()


mean, std = slq_logdet(lambda v: K @ v, n, 30, 25)
print("slq close", abs(mean.item() - exact_logdet.item()) < 3 * std.item() / math.sqrt(30) + 1.0, std.dtype)
# gradient of the logdet estimate: tr(K^-1 dK) by Hutchinson with a solve
ls = torch.tensor(0.3, dtype=f64, requires_grad=True)
Kl = torch.exp(-0.5 * torch.cdist(x, x).pow(2) / ls**2) + 0.1 * torch.eye(n, dtype=f64)
g_exact = torch.autograd.grad(torch.logdet(Kl), ls, retain_graph=True)[0]
dK = torch.autograd.functional.jacobian(
    lambda l: torch.exp(-0.5 * torch.cdist(x, x).pow(2) / l**2) + 0.1 * torch.eye(n, dtype=f64), ls.detach()
)
print("dK", tuple(dK.shape), dK.dtype)
Kinv_z = torch.linalg.solve(Kl.detach(), z_gauss)
g_hutch = (Kinv_z * (dK @ z_gauss)).sum(0).mean()
print(
    "logdet grad exact",
    round(g_exact.item(), 3),
    "hutchinson close",
    abs(g_hutch.item() - g_exact.item()) < 0.15 * abs(g_exact.item()),
)
sign, lad = torch.linalg.slogdet(Kl)
print("slogdet grad", round(torch.autograd.grad(lad, ls)[0].item(), 3), sign.requires_grad, lad.grad_fn.name())
print(
    "eigh logdet",
    round(torch.linalg.eigvalsh(K).log().sum().item(), 4),
    "chol logdet",
    round(2 * torch.linalg.cholesky(K).diagonal().log().sum().item(), 4),
)
print("diag offsets", torch.diag(torch.tensor([1.0, 2.0]), -1), torch.diag(torch.ones(3, 3), 1))
