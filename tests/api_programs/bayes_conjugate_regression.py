"""Conjugate Bayesian linear regression (Normal-Inverse-Gamma): posterior, evidence, Student-t predictive, sampling."""

import math

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
n, d = 30, 3
X = torch.cat([torch.ones(n, 1), torch.randn(n, d - 1)], 1).double()
w_true = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
y = X @ w_true + 0.3 * torch.randn(n, dtype=torch.float64)

# prior: w | s2 ~ N(m0, s2 V0), s2 ~ InvGamma(a0, b0)
m0 = torch.zeros(d, dtype=torch.float64)
V0 = 10.0 * torch.eye(d, dtype=torch.float64)
a0, b0 = 2.0, 1.0
V0_inv = torch.linalg.inv(V0)
Vn_inv = V0_inv + X.T @ X
Ln = torch.linalg.cholesky(Vn_inv)
Vn = torch.cholesky_inverse(Ln)
mn = torch.cholesky_solve((V0_inv @ m0 + X.T @ y).unsqueeze(-1), Ln).squeeze(-1)
an = a0 + n / 2
bn = b0 + 0.5 * (y @ y + m0 @ V0_inv @ m0 - mn @ Vn_inv @ mn)
print("posterior mean", r(mn), "an", an, "bn", round(bn.item(), 4))
print("Vn sym", torch.allclose(Vn, Vn.T), "dtype", Vn.dtype)
s2_post = D.InverseGamma(torch.tensor(an, dtype=torch.float64), bn)
print(
    "s2 mean/mode/var", round(s2_post.mean.item(), 5), round(s2_post.mode.item(), 5), round(s2_post.variance.item(), 7)
)

# log marginal likelihood (evidence) in closed form
_, logdetV0 = torch.linalg.slogdet(V0)
logdetVn = -2 * Ln.diagonal().log().sum()
log_ev = (
    -n / 2 * math.log(2 * math.pi)
    + 0.5 * (logdetVn - logdetV0)
    + a0 * math.log(b0)
    - an * torch.log(bn)
    + math.lgamma(an)
    - math.lgamma(a0)
)
print("log evidence", round(log_ev.item(), 4))
# the evidence as a multivariate Student-t is awkward; check it against the Gaussian evidence at s2 fixed
s2 = 0.09
cov_y = s2 * (torch.eye(n, dtype=torch.float64) + X @ V0 @ X.T)
ev_fixed = D.MultivariateNormal(X @ m0, covariance_matrix=cov_y).log_prob(y)
print("evidence at fixed s2", round(ev_fixed.item(), 4))

# marginal posterior of each weight is Student-t with 2 an degrees of freedom
scale = torch.sqrt(bn / an * Vn.diagonal())
marg = D.StudentT(2 * an, mn, scale)
print("marginal", marg.batch_shape, r(marg.mean), r(marg.variance), r(marg.log_prob(w_true)))
print("t entropy", r(marg.entropy()))

# posterior predictive at new inputs
Xs = torch.tensor([[1.0, 0.0, 0.0], [1.0, 2.0, -1.0]], dtype=torch.float64)
pred_scale = torch.sqrt(bn / an * (1 + (Xs @ Vn * Xs).sum(-1)))
pred = D.StudentT(2 * an, Xs @ mn, pred_scale)
print("predictive", r(pred.loc), r(pred.scale), r(pred.log_prob(torch.tensor([0.5, -3.5], dtype=torch.float64))))

# Monte Carlo from the joint posterior agrees with the analytic moments
torch.manual_seed(1)
s2_draws = s2_post.sample((20000,))
z = torch.randn(20000, d, dtype=torch.float64)
w_draws = mn + torch.sqrt(s2_draws).unsqueeze(-1) * (z @ torch.linalg.cholesky(Vn).T)
print(
    "mc mean close",
    torch.allclose(w_draws.mean(0), mn, atol=0.01),
    "mc var close",
    torch.allclose(w_draws.var(0), marg.variance, rtol=0.1),
)
print("draw dtypes", s2_draws.dtype, w_draws.dtype)

# a Normal-Gamma on the precision gives the same posterior
tau_post = D.Gamma(torch.tensor(an, dtype=torch.float64), bn)
print("E[1/tau] = E[s2]", round((1 / tau_post.sample((40000,))).mean().item(), 3), round(s2_post.mean.item(), 3))
print(
    "gamma vs inverse gamma log_prob",
    round((tau_post.log_prob(torch.tensor(10.0, dtype=torch.float64)) + 2 * math.log(10.0)).item(), 4),
    round(s2_post.log_prob(torch.tensor(0.1, dtype=torch.float64)).item(), 4),
)
print(s2_post)
print(type(s2_post.base_dist).__name__, s2_post.transforms)
