"""Analytic KL divergences between posteriors and priors, the registry, and what is not implemented."""

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


pairs = [
    (D.Normal(torch.tensor([0.5, -1.0]), torch.tensor([1.5, 0.3])), D.Normal(0.0, 1.0)),
    (D.Bernoulli(probs=torch.tensor([0.2, 0.9])), D.Bernoulli(logits=torch.tensor([0.0, 1.0]))),
    (D.Categorical(logits=torch.tensor([1.0, 2.0, 0.5])), D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))),
    (D.Beta(torch.tensor([2.0, 0.7]), torch.tensor([3.0, 0.4])), D.Beta(1.0, 1.0)),
    (D.Gamma(torch.tensor([2.0, 5.0]), torch.tensor([1.0, 0.5])), D.Gamma(1.0, 2.0)),
    (D.Dirichlet(torch.tensor([1.5, 2.0, 0.5])), D.Dirichlet(torch.ones(3))),
    (D.Exponential(torch.tensor([0.5, 2.0])), D.Exponential(1.0)),
    (D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), D.Laplace(0.5, 1.0)),
    (D.Poisson(torch.tensor([3.0, 0.5])), D.Poisson(1.0)),
    (D.Uniform(0.0, torch.tensor([1.0, 2.0])), D.Uniform(-1.0, 3.0)),
    (D.Uniform(0.2, 0.8), D.Normal(0.0, 1.0)),
    (D.Exponential(2.0), D.Gamma(2.0, 3.0)),
    (D.Beta(2.0, 3.0), D.Uniform(0.0, 1.0)),
    (D.Gumbel(0.0, 1.0), D.Normal(0.5, 2.0)),
    (D.HalfNormal(torch.tensor([1.0, 2.0])), D.HalfNormal(1.5)),
    (D.Binomial(10, torch.tensor([0.3, 0.6])), D.Binomial(10, 0.5)),
    (D.Geometric(torch.tensor([0.3])), D.Geometric(torch.tensor([0.6]))),
    (D.OneHotCategorical(logits=torch.tensor([0.0, 1.0])), D.OneHotCategorical(probs=torch.tensor([0.5, 0.5]))),
    (D.ContinuousBernoulli(torch.tensor([0.3, 0.7])), D.ContinuousBernoulli(0.5)),
    (D.LogNormal(0.0, 1.0), D.LogNormal(1.0, 2.0)),
]
for p, q in pairs:
    kl = D.kl_divergence(p, q)
    print(type(p).__name__, type(q).__name__, r(kl), kl.shape)

# independent diagonal Gaussians: KL sums over the event dims
mu = torch.tensor([[0.1, -0.2, 0.3], [1.0, 0.0, -1.0]], requires_grad=True)
log_sigma = torch.tensor([[-0.5, 0.0, 0.2], [0.1, 0.1, 0.1]], requires_grad=True)
q = D.Independent(D.Normal(mu, log_sigma.exp()), 1)
prior = D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1)
kl = D.kl_divergence(q, prior)
print("independent", r(kl), kl.shape, kl.grad_fn is not None)
kl.sum().backward()
print("grad mu", r(mu.grad), "grad log_sigma", r(log_sigma.grad))

# MVN vs diagonal prior written as MVN
L = torch.tensor([[1.0, 0.0], [0.5, 0.8]])
qm = D.MultivariateNormal(torch.tensor([0.3, -0.3]), scale_tril=L)
pm = D.MultivariateNormal(torch.zeros(2), covariance_matrix=2.0 * torch.eye(2))
print("mvn", round(D.kl_divergence(qm, pm).item(), 4), round(D.kl_divergence(pm, qm).item(), 4))
# transformed distributions with the same transform reduce to the base KL
t1 = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])
t2 = D.TransformedDistribution(D.Normal(1.0, 2.0), [D.transforms.ExpTransform()])
print("transformed", round(D.kl_divergence(t1, t2).item(), 4))

# a pair nobody registered
for p, q in [
    (D.Normal(0.0, 1.0), D.StudentT(3.0)),
    (D.Beta(2.0, 2.0), D.Normal(0.0, 1.0)),
    (D.Independent(D.Normal(torch.zeros(2, 2), 1.0), 1), D.Independent(D.Normal(torch.zeros(2, 2), 1.0), 2)),
]:
    try:
        D.kl_divergence(p, q)
    except Exception as e:
        print(type(e).__name__, repr(str(e)))


class Spike(D.Normal):
    """A Normal subclass with its own KL rule."""


@D.register_kl(Spike, D.Normal)
def _kl_spike_normal(p, q):
    return torch.zeros_like(p.loc) + 42.0


print("custom", D.kl_divergence(Spike(0.0, 1.0), D.Normal(0.0, 1.0)).item())
print("subclass falls back", round(D.kl_divergence(D.Normal(0.0, 1.0), Spike(1.0, 1.0)).item(), 4))

# MC estimate versus the closed form
torch.manual_seed(0)
p, q = D.Normal(1.0, 0.5), D.Normal(0.0, 1.0)
z = p.sample((200000,))
mc = (p.log_prob(z) - q.log_prob(z)).mean()
print("mc close", abs(mc.item() - D.kl_divergence(p, q).item()) < 0.01)
