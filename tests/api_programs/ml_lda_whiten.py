"""Linear discriminant analysis and whitening in torch: class means and the pooled within-class scatter, Fisher
directions by eigh of Sw^-1/2 Sb Sw^-1/2 and by a generalised eigenproblem through Cholesky, Mahalanobis
distances with cholesky_solve and solve_triangular, shrinkage covariance, QDA log-likelihoods with
MultivariateNormal, PCA whitening through pca_lowrank with its ValueError, and the deprecated torch.cholesky."""

import warnings

import torch
from torch.distributions import MultivariateNormal

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

K, d, n_per = 3, 4, 30
means = torch.tensor([[0.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, -1.0], [-1.0, 2.0, 1.0, 0.5]], dtype=dt)
A = torch.randn(d, d, dtype=dt) * 0.5 + torch.eye(d, dtype=dt)
y = torch.arange(K).repeat_interleave(n_per)
X = means[y] + torch.randn(K * n_per, d, dtype=dt) @ A.T
n = len(y)
print("X", X.shape, "classes", torch.bincount(y).tolist())

mu = torch.stack([X[y == k].mean(0) for k in range(K)])
overall = X.mean(0)
Xc = X - mu[y]
Sw = Xc.T @ Xc / (n - K)
Sb = sum((y == k).sum() * torch.outer(mu[k] - overall, mu[k] - overall) for k in range(K)) / n
print("class means\n", mu)
print("pooled covariance diag", Sw.diagonal(), "Sb rank", torch.linalg.matrix_rank(Sb).item())

# symmetric whitening of the within-class scatter, then eigh
ev, V = torch.linalg.eigh(Sw)
Sw_isqrt = V @ torch.diag(ev.rsqrt()) @ V.T
M = Sw_isqrt @ Sb @ Sw_isqrt
lam, U = torch.linalg.eigh(M)
lam, U = lam.flip(0), U.flip(1)
W = Sw_isqrt @ U[:, :K - 1]
print("discriminant eigenvalues", lam[:K - 1], "rest ~0", lam[K - 1:].abs().max().item() < 1e-10)

# same problem through Cholesky: Sb v = lam Sw v  ->  L^-1 Sb L^-T
L = torch.linalg.cholesky(Sw)
Linv_Sb = torch.linalg.solve_triangular(L, Sb, upper=False)
C = torch.linalg.solve_triangular(L, Linv_Sb.T, upper=False).T
lam2 = torch.linalg.eigvalsh(C).flip(0)
print("cholesky route agrees", torch.allclose(lam, lam2, atol=1e-10))
Z = (X - overall) @ W
Z = Z * torch.sign(Z[0])
print("projected", Z.shape, "class centroids\n", torch.stack([Z[y == k].mean(0) for k in range(K)]))
Zw = torch.cov((Z - torch.stack([Z[y == k].mean(0) for k in range(K)])[y]).T, correction=K)
print("within-class covariance of projections: diag", Zw.diagonal(), "off-diag ~0", Zw[0, 1].abs().item() < 1e-8)

# LDA classification: linear scores with a shared covariance
prior = torch.bincount(y).to(dt) / n
Sw_inv_mu = torch.cholesky_solve(mu.T, L)
lin = X @ Sw_inv_mu - 0.5 * (mu.T * Sw_inv_mu).sum(0) + prior.log()
pred = lin.argmax(1)
print("LDA train accuracy", round((pred == y).double().mean().item(), 4))
cm = torch.bincount(y * K + pred, minlength=K * K).view(K, K)
print("confusion\n", cm)

# Mahalanobis distances to each class mean
diff = X.unsqueeze(1) - mu
sol = torch.cholesky_solve(diff.reshape(-1, d).T, L).T.reshape(n, K, d)
maha = (diff * sol).sum(-1).sqrt()
print("mahalanobis head\n", maha[:3])
z = torch.linalg.solve_triangular(L, diff.reshape(-1, d).T, upper=False)
print("triangular route agrees", torch.allclose(z.pow(2).sum(0).sqrt().reshape(n, K), maha))
print("nearest-mean (mahalanobis) agrees with LDA", (maha.argmin(1) == pred).double().mean().item() > 0.95)

# shrinkage (Ledoit-Wolf style blend toward a scaled identity)
for shrink in (0.0, 0.1, 0.5):
    target = Sw.trace() / d * torch.eye(d, dtype=dt)
    S_s = (1 - shrink) * Sw + shrink * target
    print(f"shrink={shrink} cond={torch.linalg.cond(S_s).item():.4f} logdet={torch.logdet(S_s).item():.4f}")

# QDA with per-class covariances
covs = torch.stack([torch.cov(X[y == k].T) for k in range(K)])
qda = MultivariateNormal(mu, covariance_matrix=covs)
ll = qda.log_prob(X.unsqueeze(1)) + prior.log()
post = ll.softmax(1)
print("QDA batch_shape", qda.batch_shape, "event_shape", qda.event_shape)
print("QDA train accuracy", round((ll.argmax(1) == y).double().mean().item(), 4), "posterior head\n", post[:2])
sign, logabs = torch.linalg.slogdet(covs)
print("class log-dets", logabs, "signs", sign.tolist())

# PCA whitening via pca_lowrank, then its argument check
torch.manual_seed(3)
U_p, S_p, V_p = torch.pca_lowrank(X, q=d, center=True)
Xw = (X - overall) @ V_p / S_p * (n - 1) ** 0.5
print("whitened covariance is identity", torch.allclose(torch.cov(Xw.T), torch.eye(d, dtype=dt), atol=1e-8))
try:
    torch.pca_lowrank(X, q=d + 1)
except ValueError as e:
    print("ValueError:", e)
print("generator untouched after the error", torch.randn(2, dtype=dt))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    U_old = torch.cholesky(Sw, upper=True)
print("torch.cholesky warned", len(caught), caught[0].category.__name__, str(caught[0].message).splitlines()[0])
print("upper factor matches", torch.allclose(U_old, L.mT))
