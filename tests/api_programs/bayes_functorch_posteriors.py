"""Per-example posterior quantities with torch.func: vmapped log densities, Fisher information, Hessians of ELBOs."""

import torch
from torch.func import functional_call, grad, hessian, jacrev, vmap

D = torch.distributions
nn = torch.nn


def r(t):
    return t.detach().round(decimals=4).tolist()


# Dirichlet-multinomial topic proportions: per-document log densities and their curvature
theta = torch.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]])
alpha = torch.tensor([1.0, 2.0, 3.0])
lp = vmap(lambda v: D.Dirichlet(alpha).log_prob(v))(theta)
print("dirichlet lp", r(lp))
H = hessian(lambda a: D.Dirichlet(a).log_prob(theta).sum())(alpha)
print("hessian in alpha", r(H), "negative definite", bool((torch.linalg.eigvalsh(H) < 0).all()))
print(
    "beta hessian",
    r(hessian(lambda a: D.Beta(a[0], a[1]).log_prob(torch.tensor([0.3, 0.6])).sum())(torch.tensor([2.0, 3.0]))),
)
print(
    "studentT df curvature",
    round(hessian(lambda df: D.StudentT(df).log_prob(torch.tensor([0.5, 2.0])).sum())(torch.tensor(3.0)).item(), 4),
)

# Fisher information of a Gaussian location-scale model, per example then averaged
x = torch.tensor([0.3, -1.2, 2.0, 0.7])


def loglik(params, xi):
    return D.Normal(params[0], params[1].exp()).log_prob(xi)


params = torch.tensor([0.5, 0.1])
scores = vmap(grad(loglik), in_dims=(None, 0))(params, x)
print("scores", r(scores))
fisher = scores.T @ scores / x.shape[0]
print("empirical fisher", r(fisher))
print("observed info", r(-hessian(lambda p: loglik(p, x).mean())(params)))

# gradients of log densities for discrete and bounded families
print(
    "binomial",
    round(grad(lambda p: D.Binomial(10, p).log_prob(torch.tensor(3.0)))(torch.tensor(0.4)).item(), 4),
    "logits",
    round(grad(lambda l: D.Binomial(10, logits=l).log_prob(torch.tensor(3.0)))(torch.tensor(0.4)).item(), 4),
)
print(
    "negbin", round(grad(lambda c: D.NegativeBinomial(c, 0.3).log_prob(torch.tensor(3.0)))(torch.tensor(2.5)).item(), 4)
)
print(
    "multinomial", r(grad(lambda l: D.Multinomial(6, logits=l).log_prob(torch.tensor([1.0, 2.0, 3.0])))(torch.zeros(3)))
)
print(
    "cont bern near 1/2",
    round(grad(lambda l: D.ContinuousBernoulli(logits=l).log_prob(torch.tensor(0.3)))(torch.tensor(0.001)).item(), 4),
)
print("vonmises", round(grad(lambda k: D.VonMises(0.0, k).log_prob(torch.tensor(0.5)))(torch.tensor(3.0)).item(), 4))
print("lkj", round(grad(lambda c: D.LKJCholesky(3, c).log_prob(torch.eye(3)))(torch.tensor(2.0)).item(), 4))
print(
    "wishart df",
    round(grad(lambda df: D.Wishart(df, torch.eye(2)).log_prob(3 * torch.eye(2)))(torch.tensor(4.0)).item(), 4),
)
print(
    "mixture weights",
    r(
        grad(
            lambda l: D.MixtureSameFamily(D.Categorical(logits=l), D.Normal(torch.tensor([-1.0, 1.0]), 1.0)).log_prob(
                torch.tensor(0.3)
            )
        )(torch.zeros(2))
    ),
)
print("gamma cdf in rate", round(grad(lambda b: D.Gamma(2.0, b).cdf(torch.tensor(1.5)))(torch.tensor(3.0)).item(), 4))
print(
    "gumbel icdf in scale", round(grad(lambda s: D.Gumbel(0.0, s).icdf(torch.tensor(0.3)))(torch.tensor(3.0)).item(), 4)
)

# Jacobian of an MVN log density in its Cholesky factor
X = torch.tensor([[0.2, 0.3, 0.5], [1.0, -1.0, 0.0]])
J = jacrev(lambda L: D.MultivariateNormal(torch.zeros(3), scale_tril=L).log_prob(X))(2 * torch.eye(3))
print("jacobian", J.shape, r(J[1]))

# per-example gradients of a Bayesian logistic regression log joint through functional_call
torch.manual_seed(0)
model = nn.Linear(3, 1)
Xb, yb = torch.randn(5, 3), torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
pvals = {k: v.detach() for k, v in model.named_parameters()}


def log_joint(p, xi, yi):
    logit = functional_call(model, p, (xi.unsqueeze(0),)).squeeze()
    prior = sum(D.Normal(0.0, 1.0).log_prob(v).sum() for v in p.values()) / 5
    return D.Bernoulli(logits=logit).log_prob(yi) + prior


g = vmap(grad(log_joint), in_dims=(None, 0, 0))(pvals, Xb, yb)
print("per-example grads", {k: tuple(v.shape) for k, v in g.items()}, r(g["bias"].squeeze(-1)))
print(
    "sum matches full",
    torch.allclose(
        g["weight"].sum(0),
        grad(lambda p: vmap(log_joint, in_dims=(None, 0, 0))(p, Xb, yb).sum())(pvals)["weight"],
        atol=1e-5,
    ),
)

# KL between per-example posteriors and a shared prior, vmapped
mus, sigmas = torch.tensor([0.0, 1.0, -0.5]), torch.tensor([1.0, 0.5, 2.0])
print("vmap kl", r(vmap(lambda m, s: D.kl_divergence(D.Normal(m, s), D.Normal(0.0, 1.0)))(mus, sigmas)))
print("vmap gamma entropy", r(vmap(lambda a: D.Gamma(a, 2.0).entropy())(torch.tensor([1.0, 2.0]))))
print(
    "vmap categorical",
    r(
        vmap(lambda l, i: D.Categorical(logits=l).log_prob(i))(
            torch.tensor([[0.1, 0.5], [2.0, 0.0]]), torch.tensor([0, 1])
        )
    ),
)
try:
    vmap(lambda m: D.Normal(m, 1.0).rsample())(torch.zeros(3))
except Exception as e:
    print(type(e).__name__, str(e).split(".")[0])
