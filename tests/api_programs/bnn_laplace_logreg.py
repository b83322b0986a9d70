"""Laplace approximation for Bayesian logistic regression: MAP fit, Hessian, probit predictive, evidence."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
n, d = 120, 3
X = torch.cat([torch.randn(n, d - 1), torch.ones(n, 1)], 1).double()
w_true = torch.tensor([1.5, -2.0, 0.3], dtype=torch.float64)
y = torch.bernoulli(torch.sigmoid(X @ w_true))
prior = D.MultivariateNormal(torch.zeros(d, dtype=torch.float64), precision_matrix=torch.eye(d, dtype=torch.float64))
print("prior", prior.loc.dtype, prior.event_shape)


def neg_log_joint(w):
    lik = D.Bernoulli(logits=X @ w).log_prob(y).sum()
    return -(lik + prior.log_prob(w))


w = torch.zeros(d, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([w], lr=1.0, max_iter=50, line_search_fn="strong_wolfe", tolerance_grad=1e-10)


def closure():
    opt.zero_grad()
    loss = neg_log_joint(w)
    loss.backward()
    return loss


opt.step(closure)
w_map = w.detach()
print("w_map", r(w_map.round(decimals=2)), "grad small", bool(w.grad.abs().max() < 1e-5))

H = torch.autograd.functional.hessian(neg_log_joint, w_map)
p = torch.sigmoid(X @ w_map)
H_manual = X.T @ (X * (p * (1 - p)).unsqueeze(1)) + torch.eye(d, dtype=torch.float64)
print("hessian", H.shape, H.dtype, "matches closed form", torch.allclose(H, H_manual))
print("symmetric", torch.allclose(H, H.T), "pd", bool(torch.linalg.eigvalsh(H).min() > 0))
post = D.MultivariateNormal(w_map, precision_matrix=H)
print("posterior std", r(post.stddev.round(decimals=3)))
cov_via_cholesky = torch.cholesky_inverse(torch.linalg.cholesky(H))
print("cov agree", torch.allclose(post.covariance_matrix, cov_via_cholesky))

# hvp/vhp agree with H @ v
v = torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64)
_, hv = torch.autograd.functional.hvp(neg_log_joint, w_map, v)
_, vh = torch.autograd.functional.vhp(neg_log_joint, w_map, v)
print("hvp", torch.allclose(hv, H @ v), torch.allclose(vh, v @ H))
jac = torch.autograd.functional.jacobian(lambda ww: torch.sigmoid(X[:4] @ ww), w_map)
print("jacobian", jac.shape)

# probit approximation to the predictive vs Monte Carlo
Xt = torch.tensor([[0.0, 0.0, 1.0], [2.0, 2.0, 1.0], [3.0, -3.0, 1.0]], dtype=torch.float64)
mu_a = Xt @ w_map
var_a = ((Xt @ post.covariance_matrix) * Xt).sum(-1)
probit = torch.sigmoid(mu_a / torch.sqrt(1 + math.pi * var_a / 8))
torch.manual_seed(1)
ws = post.sample((20000,))
mc = torch.sigmoid(ws @ Xt.T).mean(0)
print("probit", r(probit.round(decimals=2)), "mc", r(mc.round(decimals=2)))
print("plugin", r(torch.sigmoid(mu_a).round(decimals=2)))

# Laplace evidence: log p(y) ~ log p(y, w*) + d/2 log 2pi - 1/2 log|H|
sign, logabsdet = torch.linalg.slogdet(H)
log_evidence = -neg_log_joint(w_map) + 0.5 * d * math.log(2 * math.pi) - 0.5 * logabsdet
print("sign", sign.item(), "log evidence", round(log_evidence.item(), 2))
for prec in [0.01, 1.0, 100.0]:
    pr = D.MultivariateNormal(
        torch.zeros(d, dtype=torch.float64), precision_matrix=prec * torch.eye(d, dtype=torch.float64)
    )
    wp = w_map.clone().requires_grad_()
    o = torch.optim.LBFGS([wp], max_iter=50, line_search_fn="strong_wolfe")

    def cl():
        o.zero_grad()
        l = -(D.Bernoulli(logits=X @ wp).log_prob(y).sum() + pr.log_prob(wp))
        l.backward()
        return l

    o.step(cl)
    f = lambda ww: -(D.Bernoulli(logits=X @ ww).log_prob(y).sum() + pr.log_prob(ww))
    Hp = torch.autograd.functional.hessian(f, wp.detach())
    ev = -f(wp.detach()) + 0.5 * d * math.log(2 * math.pi) - 0.5 * torch.logdet(Hp)
    print("prior precision", prec, "evidence", round(ev.item(), 1), "|w|", round(wp.norm().item(), 2))
try:
    torch.autograd.functional.hessian(lambda ww: ww * 2, w_map)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.cholesky(-H)
except Exception as e:
    print(type(e).__name__, e)
