"""Approximate posteriors beyond mean-field: a Laplace approximation with Hessians, SVGD particles and HMC."""

import torch

D = torch.distributions
F = torch.nn.functional


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
X = torch.randn(40, 2)
w_true = torch.tensor([1.5, -2.0])
y = torch.bernoulli(torch.sigmoid(X @ w_true))
prior = D.MultivariateNormal(torch.zeros(2), 4.0 * torch.eye(2))


def log_joint(w):
    return D.Bernoulli(logits=X @ w).log_prob(y).sum() + prior.log_prob(w)


# MAP by LBFGS, then the Laplace approximation N(w_map, H^-1)
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.LBFGS([w], lr=1.0, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = -log_joint(w)
    loss.backward()
    return loss


opt.step(closure)
w_map = w.detach()
print("map", r(w_map), "loss", round(-log_joint(w_map).item(), 4))
H = -torch.autograd.functional.hessian(log_joint, w_map)
print("hessian", r(H), "sym", torch.allclose(H, H.T))
J = torch.autograd.functional.jacobian(lambda v: torch.sigmoid(X[:3] @ v), w_map)
print("jacobian", J.shape, r(J))
post = D.MultivariateNormal(w_map, precision_matrix=H)
print("posterior cov", r(post.covariance_matrix), "entropy", round(post.entropy().item(), 4))
# probit-approximated predictive versus MC
xq = torch.tensor([[0.5, 0.5], [2.0, -1.0]])
mu_f = xq @ w_map
var_f = (xq @ post.covariance_matrix * xq).sum(-1)
probit = torch.sigmoid(mu_f / torch.sqrt(1 + torch.pi * var_f / 8))
torch.manual_seed(1)
ws = post.sample((20000,))
mc = torch.sigmoid(xq @ ws.T).mean(-1)
print("probit", r(probit), "mc close", torch.allclose(probit, mc, atol=0.02))
hvp = torch.autograd.functional.hvp(log_joint, w_map, torch.tensor([1.0, 0.0]))[1]
print("hvp", r(hvp), r(-H[0]))
vhp = torch.autograd.functional.vhp(log_joint, w_map, torch.tensor([0.0, 1.0]))[1]
print("vhp", r(vhp))

# SVGD with an RBF kernel and the median heuristic
torch.manual_seed(0)
target = D.MixtureSameFamily(
    D.Categorical(torch.tensor([0.5, 0.5])), D.Independent(D.Normal(torch.tensor([[-2.0, 0.0], [2.0, 0.0]]), 0.7), 1)
)
particles = torch.randn(30, 2) * 0.5
for it in range(200):
    p = particles.clone().requires_grad_()
    (score,) = torch.autograd.grad(target.log_prob(p).sum(), p)
    d2 = torch.cdist(particles, particles).pow(2)
    h = d2.median() / torch.log(torch.tensor(31.0))
    K = torch.exp(-d2 / h)
    grad_K = -(2 / h) * (K.sum(1, keepdim=True) * particles - K @ particles)
    phi = (K @ score - grad_K) / particles.shape[0]
    particles = particles + 0.3 * phi
print("svgd modes", (particles[:, 0] > 0).sum().item() > 5, (particles[:, 0] < 0).sum().item() > 5)
print("svgd mean |x|", round(particles[:, 0].abs().mean().item(), 1))

# Hamiltonian Monte Carlo on the logistic posterior
torch.manual_seed(0)
q = w_map.clone()
samples, accepted = [], 0
for it in range(200):
    p0 = torch.randn(2)
    qn = q.clone().requires_grad_()
    (g,) = torch.autograd.grad(log_joint(qn), qn)
    pn = p0 + 0.5 * 0.1 * g
    for step in range(10):
        qn = (qn + 0.1 * pn).detach().requires_grad_()
        (g,) = torch.autograd.grad(log_joint(qn), qn)
        pn = pn + (0.1 if step < 9 else 0.05) * g
    h0 = -log_joint(q) + 0.5 * p0.pow(2).sum()
    h1 = -log_joint(qn.detach()) + 0.5 * pn.pow(2).sum()
    if torch.rand(()) < torch.exp(h0 - h1):
        q, accepted = qn.detach(), accepted + 1
    samples.append(q)
S = torch.stack(samples[50:])
print("hmc accept", accepted > 120, "mean close", torch.allclose(S.mean(0), w_map, atol=0.4))
print("hmc cov close", torch.allclose(torch.cov(S.T), post.covariance_matrix, atol=0.5))
