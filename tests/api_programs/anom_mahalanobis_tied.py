"""Mahalanobis OOD detection (Lee et al. 2018): class-conditional means by index_add_/scatter_reduce, a tied
covariance with pinv and a shrinkage variant, minimum class distance scores, input preprocessing through the
score's gradient, relative Mahalanobis with a background Gaussian, and MultivariateNormal log-densities."""

import torch
from torch.distributions import MultivariateNormal

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

K, D, N = 3, 4, 60
centers = torch.tensor([[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 2.0, 0]], dtype=torch.float64)
y = torch.arange(N) % K
feats = centers[y] + 0.5 * torch.randn(N, D, dtype=torch.float64)
sums = torch.zeros(K, D, dtype=torch.float64).index_add_(0, y, feats)
counts = torch.bincount(y, minlength=K)
means = sums / counts.unsqueeze(1)
means2 = torch.zeros(K, D, dtype=torch.float64).scatter_reduce(
    0, y.unsqueeze(1).expand(-1, D), feats, "mean", include_self=False
)
means3 = torch.stack([feats[y == k].mean(0) for k in range(K)])
print("means", means, torch.allclose(means, means2), torch.allclose(means, means3))
print("counts", counts, counts.dtype)
centered = feats - means[y]
cov = centered.T @ centered / N
prec = torch.linalg.pinv(cov)
prec_h = torch.linalg.pinv(cov, hermitian=True)
print(
    "cov", cov.diagonal(), torch.allclose(prec, prec_h), torch.allclose(prec @ cov, torch.eye(D, dtype=torch.float64))
)
alpha = 0.1
shrunk = (1 - alpha) * cov + alpha * torch.trace(cov) / D * torch.eye(D, dtype=cov.dtype)
print("shrunk", torch.linalg.eigvalsh(shrunk), torch.linalg.cond(shrunk).round(decimals=4))


def maha_scores(x):
    diff = x.unsqueeze(1) - means.unsqueeze(0)
    m = torch.einsum("nkd,de,nke->nk", diff, prec, diff)
    return -m.min(dim=1).values, m.argmin(1)


test = torch.cat([centers + 0.1, torch.tensor([[5.0, 5.0, -3.0, 4.0]], dtype=torch.float64)])
s, pred = maha_scores(test)
print("scores", s, pred)
x = test.clone().requires_grad_(True)
diff = x.unsqueeze(1) - means.unsqueeze(0)
m = torch.einsum("nkd,de,nke->nk", diff, prec, diff)
loss = m.gather(1, pred.unsqueeze(1)).mean()
loss.backward()
x_hat = x.detach() - 0.01 * torch.sign(x.grad)
print("grad", x.grad[0], "preproc", maha_scores(x_hat)[0])

# relative Mahalanobis: subtract the distance to a class-agnostic Gaussian
mu0 = feats.mean(0)
cov0 = torch.cov(feats.T, correction=0)
d0 = torch.einsum("nd,de,ne->n", test - mu0, torch.linalg.inv(cov0), test - mu0)
print("relative", -(-s - d0))

dists = [MultivariateNormal(means[k], covariance_matrix=cov) for k in range(K)]
lp = torch.stack([d.log_prob(test) for d in dists], 1)
print("log_prob", lp)
mvn = MultivariateNormal(means, scale_tril=torch.linalg.cholesky(cov).expand(K, D, D))
print("batched", mvn.batch_shape, mvn.event_shape, torch.allclose(mvn.log_prob(test.unsqueeze(1)), lp))
print("entropy", mvn.entropy(), mvn.mean.shape, mvn.covariance_matrix.shape)
print(
    "mahalanobis via mvn",
    torch.allclose(
        -2 * (lp - lp.max(1, keepdim=True).values)[:, :1], -2 * (lp[:, :1] - lp.max(1, keepdim=True).values)
    ),
)
prec_mvn = MultivariateNormal(torch.zeros(2), precision_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print(prec_mvn.covariance_matrix, prec_mvn.log_prob(torch.ones(2)), prec_mvn)
print(
    "bincount",
    torch.bincount(torch.tensor([1, 1, 3]), weights=torch.tensor([0.5, 1.0, 2.0])),
    torch.bincount(torch.tensor([], dtype=torch.long)),
    torch.bincount(torch.tensor([0, 2]), minlength=1),
)
print(
    "scatter_reduce amax",
    torch.zeros(2, dtype=torch.float64).scatter_reduce(
        0, torch.tensor([0, 0, 1]), torch.tensor([-1.0, -2.0, 3.0], dtype=torch.float64), "amax"
    ),
)
print("index_add alpha", torch.ones(3).index_add(0, torch.tensor([0, 0]), torch.tensor([1.0, 2.0]), alpha=-1))
for bad in [
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(torch.tensor([[1]])),
    lambda: torch.zeros(2, 3).index_add_(0, torch.tensor([0]), torch.ones(1, 2)),
    lambda: torch.zeros(3).index_add_(0, torch.tensor([0.0]), torch.ones(1)),
    lambda: MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda: MultivariateNormal(torch.zeros(2)),
    lambda: torch.linalg.pinv(torch.ones(3)),
]:
    try:
        bad()
    except (RuntimeError, ValueError, IndexError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:200])
