"""Gaussian-mixture EM in torch: k-means-style initialisation, E steps with MultivariateNormal.log_prob and
torch.logsumexp, M steps with weighted means and covariances (einsum), a regularised covariance, the
log-likelihood's monotone increase, BIC over the number of components, and a diagonal-covariance variant with
Independent(Normal)."""

import torch
from torch.distributions import Categorical, Independent, MixtureSameFamily, MultivariateNormal, Normal

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

true_means = torch.tensor([[0.0, 0.0], [3.0, 3.0], [-3.0, 2.0]], dtype=dt)
true_covs = torch.stack([torch.tensor([[1.0, 0.6], [0.6, 1.0]]), torch.eye(2) * 0.5,
                         torch.tensor([[0.8, -0.3], [-0.3, 0.4]])]).to(dt)
true_w = torch.tensor([0.5, 0.3, 0.2], dtype=dt)
gen = MixtureSameFamily(Categorical(probs=true_w), MultivariateNormal(true_means, covariance_matrix=true_covs))
X = gen.sample((300,))
print("X", X.shape, X.dtype, "true mixture log-lik", round(gen.log_prob(X).sum().item(), 4))


def e_step(X, pi, mu, cov):
    comp = MultivariateNormal(mu, covariance_matrix=cov)
    logp = comp.log_prob(X.unsqueeze(1)) + pi.log()
    ll = torch.logsumexp(logp, dim=1)
    return (logp - ll.unsqueeze(1)).exp(), ll.sum()


def m_step(X, R, reg=1e-6):
    Nk = R.sum(0)
    pi = Nk / Nk.sum()
    mu = (R.T @ X) / Nk.unsqueeze(1)
    diff = X.unsqueeze(1) - mu
    cov = torch.einsum("nk,nki,nkj->kij", R, diff, diff) / Nk.view(-1, 1, 1)
    cov = cov + reg * torch.eye(X.shape[1], dtype=X.dtype)
    return pi, mu, cov


def fit(X, k, iters=100, seed=0, tol=1e-8):
    g = torch.Generator().manual_seed(seed)
    mu = X[torch.randperm(len(X), generator=g)[:k]].clone()
    cov = torch.eye(X.shape[1], dtype=X.dtype).expand(k, -1, -1).clone()
    pi = torch.full((k,), 1.0 / k, dtype=X.dtype)
    lls = []
    for it in range(iters):
        R, ll = e_step(X, pi, mu, cov)
        lls.append(ll.item())
        if it > 0 and abs(lls[-1] - lls[-2]) < tol:
            break
        pi, mu, cov = m_step(X, R)
    return pi, mu, cov, lls


pi, mu, cov, lls = fit(X, 3)
print("EM iterations", len(lls), "first lls", [round(v, 3) for v in lls[:4]], "final", round(lls[-1], 4))
print("monotone", all(b >= a - 1e-9 for a, b in zip(lls, lls[1:])))
order = mu[:, 0].argsort()
print("weights", pi[order])
print("means\n", mu[order])
print("covariances\n", cov[order])
R, _ = e_step(X, pi, mu, cov)
print("responsibilities", R.shape, "rows sum to 1", torch.allclose(R.sum(1), torch.ones(300, dtype=dt)))
hard = R.argmax(1)
print("hard cluster sizes", torch.bincount(hard, minlength=3)[order].tolist())
ent = -(R * R.clamp_min(1e-300).log()).sum(1)
print("mean assignment entropy", round(ent.mean().item(), 4))

for k in (1, 2, 3, 4):
    pk, mk, ck, lk = fit(X, k, seed=k)
    n_params = (k - 1) + k * 2 + k * 3
    bic = -2 * lk[-1] + n_params * torch.log(torch.tensor(300.0, dtype=dt)).item()
    print(f"k={k} ll={lk[-1]:.3f} bic={bic:.3f}")

fitted = MixtureSameFamily(Categorical(probs=pi), MultivariateNormal(mu, covariance_matrix=cov))
print("fitted log-lik", round(fitted.log_prob(X).sum().item(), 4), "mixture mean", fitted.mean)
grid = torch.tensor([[0.0, 0.0], [3.0, 3.0], [10.0, 10.0]], dtype=dt)
print("density at grid", fitted.log_prob(grid))
torch.manual_seed(1)
print("samples", fitted.sample((3,)))

# diagonal covariances via Independent(Normal)
mu_d = mu.clone()
var_d = torch.ones_like(mu)
pi_d = torch.full((3,), 1 / 3, dtype=dt)
for it in range(30):
    comp = Independent(Normal(mu_d, var_d.sqrt()), 1)
    logp = comp.log_prob(X.unsqueeze(1)) + pi_d.log()
    R = torch.softmax(logp, dim=1)
    Nk = R.sum(0)
    pi_d = Nk / len(X)
    mu_d = (R.T @ X) / Nk.unsqueeze(1)
    var_d = (R.T @ X.pow(2)) / Nk.unsqueeze(1) - mu_d.pow(2) + 1e-6
ll_d = torch.logsumexp(logp, 1).sum()
print("diag comp batch/event", comp.batch_shape, comp.event_shape)
print("diag GMM ll", round(ll_d.item(), 4), "variances\n", var_d[var_d[:, 0].argsort()])
print("full beats diag", lls[-1] > ll_d.item())
