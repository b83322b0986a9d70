"""Bayesian linear regression as a probabilistic-ML course writes it: a conjugate Gaussian prior, the closed-form
posterior as a MultivariateNormal (precision_matrix and scale_tril forms), the posterior predictive, the log
marginal likelihood for choosing the noise level, a mean-field variational fit with rsample and kl_divergence,
and a StudentT-likelihood robust fit."""
import math

import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

n, d = 40, 3
X = torch.cat([torch.ones(n, 1), torch.randn(n, d - 1)], 1)
w_true = torch.tensor([0.5, -1.0, 2.0])
noise = 0.3
y = X @ w_true + noise * torch.randn(n)
print("X", X.shape, "y mean", round(y.mean().item(), 4))

alpha = 1.0  # prior precision
beta = 1.0 / noise ** 2  # noise precision
prior = D.MultivariateNormal(torch.zeros(d), precision_matrix=alpha * torch.eye(d))
S_inv = alpha * torch.eye(d) + beta * X.T @ X
m = beta * torch.linalg.solve(S_inv, X.T @ y)
post = D.MultivariateNormal(m, precision_matrix=S_inv)
print("posterior mean", post.mean)
print("posterior stddev", post.stddev)
print("covariance", post.covariance_matrix)
print("scale_tril lower", torch.allclose(post.scale_tril, post.scale_tril.tril()))
print("entropy", round(post.entropy().item(), 4), "log_prob(w_true)", round(post.log_prob(w_true).item(), 4))
print("kl(post || prior)", round(D.kl_divergence(post, prior).item(), 4))
same = D.MultivariateNormal(m, scale_tril=post.scale_tril)
print("scale_tril form log_prob", round(same.log_prob(w_true).item(), 4))

# posterior predictive at new points: N(x^T m, 1/beta + x^T S x)
Xs = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, -1.0], [1.0, 2.0, 2.0]])
pred_mean = Xs @ m
pred_var = 1 / beta + (Xs @ post.covariance_matrix * Xs).sum(-1)
pred = D.Normal(pred_mean, pred_var.sqrt())
print("predictive mean", pred.mean, "sd", pred.stddev)
print("95% interval", pred.icdf(torch.tensor(0.025)), pred.icdf(torch.tensor(0.975)))
torch.manual_seed(1)
ws = post.sample((4000,))
mc = Xs @ ws.T
print("mc predictive mean", [round(v, 2) for v in mc.mean(1).tolist()], "sd of mean",
      [round(v, 3) for v in mc.std(1).tolist()])
print("mc vs analytic", torch.allclose(mc.mean(1), pred_mean, atol=0.02))


# log marginal likelihood (evidence) for a grid of noise levels
def evidence(noise_sd):
    cov = X @ X.T / alpha + noise_sd ** 2 * torch.eye(n)
    return D.MultivariateNormal(torch.zeros(n), covariance_matrix=cov).log_prob(y)


for s in (0.1, 0.2, 0.3, 0.5, 1.0):
    print(f"noise {s:.1f} log evidence {evidence(s).item():.2f}")  # a 40x40 float32 Cholesky: round coarsely

# mean-field VI: q(w) = Independent(Normal(mu, softplus(rho)))
mu = torch.zeros(d, requires_grad=True)
rho = torch.full((d,), -2.0, requires_grad=True)
opt = torch.optim.Adam([mu, rho], lr=0.05)
prior_diag = D.Independent(D.Normal(torch.zeros(d), torch.ones(d) / math.sqrt(alpha)), 1)
torch.manual_seed(2)
for it in range(400):
    q = D.Independent(D.Normal(mu, torch.nn.functional.softplus(rho)), 1)
    w = q.rsample((8,))  # 8 x d
    ll = D.Normal(w @ X.T, noise).log_prob(y).sum(-1).mean()
    elbo = ll - D.kl_divergence(q, prior_diag)
    opt.zero_grad()
    (-elbo).backward()
    opt.step()
    if it % 100 == 0:
        print(f"vi it {it:3d} -elbo {-elbo.item():.3f}")
q_sd = torch.nn.functional.softplus(rho.detach())
print("vi mean", [round(v, 2) for v in mu.detach().tolist()], "exact", [round(v, 2) for v in m.tolist()])
print("vi sd <= exact marginal sd (mean-field underestimates)", bool((q_sd <= post.stddev + 0.01).all()))

# robust regression: StudentT likelihood with outliers, MAP by LBFGS
y_out = y.clone()
y_out[:3] += torch.tensor([8.0, -6.0, 10.0])
w_ls = torch.linalg.lstsq(X, y_out[:, None]).solution.squeeze(1)
w_t = torch.zeros(d, requires_grad=True)
opt = torch.optim.LBFGS([w_t], lr=1.0, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = -D.StudentT(3.0, X @ w_t, noise).log_prob(y_out).sum() - prior.log_prob(w_t)
    loss.backward()
    return loss


opt.step(closure)
print("least squares with outliers", [round(v, 2) for v in w_ls.tolist()])
print("StudentT MAP", [round(v, 2) for v in w_t.detach().tolist()], "true", w_true.tolist())
print("StudentT closer", bool((w_t.detach() - w_true).norm() < (w_ls - w_true).norm()))
st = D.StudentT(torch.tensor([3.0, 10.0, 100.0]))
print("StudentT var", st.variance, "entropy", st.entropy(), "mean", st.mean)
