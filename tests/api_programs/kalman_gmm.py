"""probabilistic state estimation: a Kalman filter and RTS smoother (cholesky, solve_triangular, cholesky_solve),
system identification by lstsq, Gaussian-mixture EM with logsumexp, MixtureSameFamily and LowRankMultivariateNormal
fitted by gradient descent, the Wishart's moments and density, and the errors of the linear-algebra calls."""

import numpy as np
import torch
from torch import distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(31)
f64 = torch.float64


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


dt = 0.1
A = torch.tensor([[1.0, dt, 0.5 * dt**2], [0.0, 1.0, dt], [0.0, 0.0, 1.0]], dtype=f64)
Hm = torch.tensor([[1.0, 0.0, 0.0]], dtype=f64)
Q = 0.01 * torch.eye(3, dtype=f64)
R = torch.tensor([[0.25]], dtype=f64)
steps = 40
x = torch.tensor([0.0, 1.0, -0.2], dtype=f64)
xs, zs = [], []
w = torch.from_numpy(rng.standard_normal((steps, 3)) * 0.1)
v = torch.from_numpy(rng.standard_normal((steps, 1)) * 0.5)
for k in range(steps):
    x = A @ x + w[k]
    xs.append(x)
    zs.append(Hm @ x + v[k])
X, Z = torch.stack(xs), torch.stack(zs)
print("trajectory", X.shape, r(X[-1]), r(Z[:4]))

m, P = torch.zeros(3, dtype=f64), torch.eye(3, dtype=f64)
means, covs, preds, pcovs, nll = [], [], [], [], torch.zeros((), dtype=f64)
for k in range(steps):
    mp, Pp = A @ m, A @ P @ A.T + Q
    S = Hm @ Pp @ Hm.T + R
    L = torch.linalg.cholesky(S)
    innov = Z[k] - Hm @ mp
    K = torch.cholesky_solve(Hm @ Pp, L).T
    m = mp + K @ innov
    P = (torch.eye(3, dtype=f64) - K @ Hm) @ Pp
    nll = nll - D.MultivariateNormal(Hm @ mp, scale_tril=L).log_prob(Z[k])
    means.append(m)
    covs.append(P)
    preds.append(mp)
    pcovs.append(Pp)
print("filtered", r(means[-1]), r(torch.diagonal(covs[-1])), "nll", round(nll.item(), 4))
rmse_f = (torch.stack(means)[:, 0] - X[:, 0]).pow(2).mean().sqrt()
ms, Ps = means[-1], covs[-1]
smoothed = [ms]
for k in range(steps - 2, -1, -1):
    G = torch.linalg.solve(pcovs[k + 1], A @ covs[k]).T
    ms = means[k] + G @ (ms - preds[k + 1])
    Ps = covs[k] + G @ (Ps - pcovs[k + 1]) @ G.T
    smoothed.append(ms)
smoothed = torch.stack(smoothed[::-1])
rmse_s = (smoothed[:, 0] - X[:, 0]).pow(2).mean().sqrt()
print(
    "rmse filter",
    round(rmse_f.item(), 4),
    "smoother",
    round(rmse_s.item(), 4),
    "raw",
    round((Z[:, 0] - X[:, 0]).pow(2).mean().sqrt().item(), 4),
)
Lp = torch.linalg.cholesky(pcovs[5])
y = torch.linalg.solve_triangular(Lp, torch.eye(3, dtype=f64), upper=False)
print("solve_triangular", torch.allclose(y @ Lp, torch.eye(3, dtype=f64)), r(y.diagonal()))
print("left=False", r(torch.linalg.solve_triangular(Lp.T, torch.ones(2, 3, dtype=f64), upper=True, left=False)))
print(
    "unitriangular", r(torch.linalg.solve_triangular(Lp, torch.ones(3, 1, dtype=f64), upper=False, unitriangular=True))
)
print("cholesky_ex", torch.linalg.cholesky_ex(pcovs[5]).info.item(), torch.linalg.cholesky_ex(-pcovs[5]).info.item())
print(
    "inv_ex",
    torch.linalg.inv_ex(pcovs[5]).info.item(),
    "cholesky_inverse",
    torch.allclose(torch.cholesky_inverse(Lp), torch.linalg.inv(pcovs[5])),
)

# system identification: recover A from the true states by least squares
sol = torch.linalg.lstsq(X[:-1], X[1:])
print("lstsq A^T", r(sol.solution, 9), sol.solution.shape)
print(
    "lstsq driver gelsd",
    r(torch.linalg.lstsq(X[:-1], X[1:], driver="gelsd").solution, 3),
    "rank",
    torch.linalg.lstsq(X[:-1], X[1:], driver="gelsd").rank.item(),
)
print("pinv solve", torch.allclose(torch.linalg.pinv(X[:-1]) @ X[1:], sol.solution, atol=1e-8))

# Gaussian mixture EM in 2-D
comp_means = torch.tensor([[-2.0, 0.0], [2.0, 1.0], [0.0, 3.0]], dtype=f64)
labels = torch.from_numpy(rng.integers(0, 3, 150))
pts = comp_means[labels] + torch.from_numpy(rng.standard_normal((150, 2)) * 0.6)
mu = pts[[0, 50, 100]].clone()
cov = torch.eye(2, dtype=f64).repeat(3, 1, 1)
pi = torch.full((3,), 1 / 3, dtype=f64)
for it in range(12):
    logp = D.MultivariateNormal(mu, covariance_matrix=cov).log_prob(pts[:, None]) + pi.log()
    ll = torch.logsumexp(logp, 1)
    resp = (logp - ll[:, None]).exp()
    nk = resp.sum(0)
    pi = nk / len(pts)
    mu = resp.T @ pts / nk[:, None]
    diff = pts[:, None] - mu
    cov = torch.einsum("nk,nki,nkj->kij", resp, diff, diff) / nk[:, None, None] + 1e-6 * torch.eye(2, dtype=f64)
    if it % 4 == 3:
        print(f"em {it} loglik {ll.sum().item():.4f} pi {r(pi, 3)}")
order = mu[:, 0].argsort()
print("em means", r(mu[order], 6), "hard counts", torch.bincount(resp.argmax(1), minlength=3)[order].tolist())
mix = D.MixtureSameFamily(D.Categorical(probs=pi), D.MultivariateNormal(mu, covariance_matrix=cov))
print("mixture log_prob", r(mix.log_prob(pts[:3])), mix.batch_shape, mix.event_shape, r(mix.mean), r(mix.variance))

# fitting a 1-D mixture and a low-rank Gaussian by gradient descent
data = torch.cat([torch.from_numpy(rng.normal(-1.5, 0.4, 60)), torch.from_numpy(rng.normal(1.0, 0.7, 90))]).float()
logits = torch.zeros(2, requires_grad=True)
locs = torch.tensor([-0.5, 0.5], requires_grad=True)
log_scales = torch.zeros(2, requires_grad=True)
opt = torch.optim.Adam([logits, locs, log_scales], lr=0.05)
for step in range(30):
    gm = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(locs, log_scales.exp()))
    loss = -gm.log_prob(data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"mixture fit {step} nll {loss.item():.4f} locs {r(locs, 2)} weights {r(logits.softmax(0), 2)}")
print("cdf", r(gm.cdf(torch.tensor([-1.5, 0.0, 1.0]))))
cov_factor = torch.tensor([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.2, -0.3]])
cov_diag = torch.tensor([0.5, 0.4, 0.3, 0.2])
lr_mvn = D.LowRankMultivariateNormal(torch.zeros(4), cov_factor, cov_diag)
full = D.MultivariateNormal(torch.zeros(4), covariance_matrix=cov_factor @ cov_factor.T + torch.diag(cov_diag))
probe = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
print(
    "low-rank log_prob",
    r(lr_mvn.log_prob(probe)),
    torch.allclose(lr_mvn.log_prob(probe), full.log_prob(probe), atol=1e-5),
)
print("low-rank entropy", round(lr_mvn.entropy().item(), 4), round(full.entropy().item(), 4), r(lr_mvn.variance))
print(
    "kl",
    round(D.kl_divergence(lr_mvn, full).item(), 5),
    round(D.kl_divergence(full, D.MultivariateNormal(torch.ones(4), torch.eye(4))).item(), 4),
)
scale = torch.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=f64)
wish = D.Wishart(df=torch.tensor(5.0, dtype=f64), covariance_matrix=scale)
print("wishart mean", r(wish.mean), "variance", r(wish.variance), "entropy", round(wish.entropy().item(), 4))
print("wishart log_prob", round(wish.log_prob(scale * 4).item(), 4), wish.event_shape)
for bad in [
    lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda: torch.linalg.solve_triangular(torch.eye(3), torch.ones(3)),
    lambda: torch.linalg.lstsq(torch.ones(3, 2), torch.ones(4, 1)),
    lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)),
    lambda: D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
]:
    try:
        bad()
        print("no error")
    except (RuntimeError, ValueError, TypeError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:110])
