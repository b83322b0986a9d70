"""Conjugate Bayesian updates as used in bandits and A/B tests: Beta-Bernoulli, Gamma-Poisson, Dirichlet-Categorical,
Normal-Gamma."""

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
# Beta-Bernoulli A/B test
clicks = torch.tensor([[12.0, 88.0], [20.0, 80.0]])
post = D.Beta(1 + clicks[:, 0], 1 + clicks[:, 1])
print("beta mean", r(post.mean), "var", r(post.variance), "mode", r(post.mode))
print("beta entropy", r(post.entropy()), "conc", r(post.concentration1), r(post.concentration0))
torch.manual_seed(1)
s = post.sample((20000,))
print("P(B > A)", round((s[:, 1] > s[:, 0]).float().mean().item(), 2))
print("beta log_prob", r(post.log_prob(torch.tensor([0.12, 0.2]))))
print("kl from prior", D.kl_divergence(post, D.Beta(torch.ones(2), torch.ones(2))).round(decimals=3).tolist())

# Thompson sampling over 3 arms
true_p = torch.tensor([0.3, 0.5, 0.7])
a, b = torch.ones(3), torch.ones(3)
pulls = torch.zeros(3)
torch.manual_seed(2)
for t in range(300):
    theta = D.Beta(a, b).sample()
    arm = int(theta.argmax())
    reward = D.Bernoulli(true_p[arm]).sample()
    a[arm] += reward
    b[arm] += 1 - reward
    pulls[arm] += 1
print("best arm pulled most", int(pulls.argmax()), "pulls sum", int(pulls.sum()))

# Gamma-Poisson: arrivals per hour
counts = torch.tensor([3.0, 5.0, 4.0, 6.0, 2.0])
g = D.Gamma(2.0 + counts.sum(), 1.0 + len(counts))
print(
    "gamma", round(g.mean.item(), 4), round(g.variance.item(), 4), round(g.mode.item(), 4), round(g.entropy().item(), 4)
)
print("gamma cdf", r(g.cdf(torch.tensor([3.0, 4.0, 5.0]))))
nb = D.NegativeBinomial(total_count=g.concentration, probs=1 / (1 + g.rate))
print(
    "predictive", round(nb.mean.item(), 4), round(nb.variance.item(), 4), r(nb.log_prob(torch.tensor([0.0, 4.0, 10.0])))
)
torch.manual_seed(3)
mc = D.Poisson(g.sample((40000,))).sample()
print("mc predictive mean", round(mc.mean().item(), 1))
print(
    "poisson",
    r(D.Poisson(torch.tensor([0.5, 4.0])).log_prob(torch.tensor([0.0, 4.0]))),
    r(D.Poisson(4.0).entropy() if False else D.Poisson(torch.tensor(4.0)).variance),
)

# Dirichlet-Categorical language model smoothing
vocab_counts = torch.tensor([10.0, 0.0, 3.0, 7.0])
dpost = D.Dirichlet(0.5 + vocab_counts)
print("dirichlet mean", r(dpost.mean), "var", r(dpost.variance))
print(
    "dirichlet lp",
    round(dpost.log_prob(torch.tensor([0.4, 0.05, 0.15, 0.4])).item(), 4),
    round(dpost.entropy().item(), 4),
)
torch.manual_seed(4)
ds = dpost.sample((5000,))
print("dirichlet sample", ds.shape, bool(torch.allclose(ds.sum(-1), torch.ones(5000))), r(ds.mean(0).round(decimals=2)))
dm = D.Categorical(probs=dpost.mean)
print("categorical", r(dm.log_prob(torch.tensor([0, 1, 2, 3]))), round(dm.entropy().item(), 4))
print("kl dirichlet", round(D.kl_divergence(dpost, D.Dirichlet(torch.full((4,), 0.5))).item(), 4))

# Normal with unknown mean and precision (Normal-Gamma), Student-t posterior predictive
obs = torch.tensor([2.1, 1.9, 2.5, 2.2, 1.7, 2.0])
mu0, k0, a0, b0 = 0.0, 1.0, 2.0, 2.0
nobs = obs.numel()
xbar = obs.mean()
kn = k0 + nobs
mun = (k0 * mu0 + nobs * xbar) / kn
an = a0 + nobs / 2
bn = b0 + 0.5 * ((obs - xbar) ** 2).sum() + k0 * nobs * (xbar - mu0) ** 2 / (2 * kn)
tau = D.Gamma(an, bn)
pred = D.StudentT(2 * an, mun, torch.sqrt(bn * (kn + 1) / (an * kn)))
print("posterior mean", round(mun.item(), 4), "tau mean", round(tau.mean.item(), 4))
print("student", round(pred.df.item(), 1), round(pred.loc.item(), 4), round(pred.scale.item(), 4))
print(
    "student lp",
    r(pred.log_prob(torch.tensor([2.0, 4.0]))),
    round(pred.variance.item(), 4),
    round(pred.entropy().item(), 4),
)
print("student cdf", r(pred.cdf(torch.tensor([2.0]))) if False else "skip")
ig = D.InverseGamma(an, bn)
print(
    "inverse gamma", round(ig.mean.item(), 4), round(ig.mode.item(), 4), round(ig.log_prob(torch.tensor(0.5)).item(), 4)
)
hc = D.HalfCauchy(torch.tensor(1.0))
print(
    "half cauchy",
    round(hc.log_prob(torch.tensor(2.0)).item(), 4),
    round(hc.cdf(torch.tensor(1.0)).item(), 4),
    round(hc.icdf(torch.tensor(0.5)).item(), 4),
)
try:
    D.Beta(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.NegativeBinomial(total_count=torch.tensor(-1.0), probs=torch.tensor(0.5))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.Poisson(torch.tensor(-1.0))
except Exception as e:
    print(type(e).__name__, e)
