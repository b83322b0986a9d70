"""Gradients of log-densities, entropies, moments and KL divergences for the matrix-variate and less common
families (MultivariateNormal by scale_tril/precision/covariance, LowRank, Wishart, LKJ, VonMises, Binomial at
saturated logits, ContinuousBernoulli near its lambda = 1/2 Taylor switch) as used by variational-inference code."""

import numpy as np
import torch
import torch.distributions as D

t = torch.tensor


def r(x, k=9):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


def g(name, build, *params):
    """Print the summed quantity and its gradient w.r.t. each parameter."""
    ps = [p.clone().requires_grad_(True) for p in params]
    out = build(*ps)
    grads = torch.autograd.grad(out.sum(), ps, allow_unused=True)
    print(name, r(out), [None if gr is None else r(gr) for gr in grads])


g("cat -inf entropy", lambda l: D.Categorical(logits=l).entropy(), t([0.0, -float("inf"), 1.0]))
g("cat zero probs entropy", lambda p: D.Categorical(probs=p).entropy(), t([0.0, 0.3, 0.7]))
g("cat zero probs logp", lambda p: D.Categorical(probs=p).log_prob(t(1)), t([0.0, 0.3, 0.7]))
g("bern probs at 0", lambda p: D.Bernoulli(probs=p).log_prob(t([0.0, 1.0])), t([0.0, 1.0]))
g("bern entropy", lambda p: D.Bernoulli(probs=p).entropy(), t([0.0, 0.5]))
g(
    "mvn tril",
    lambda L: D.MultivariateNormal(torch.zeros(2), scale_tril=L).log_prob(t([1.0, -1.0])),
    t([[1.0, 0.0], [0.5, 2.0]]),
)
g(
    "mvn prec",
    lambda P: D.MultivariateNormal(torch.zeros(2), precision_matrix=P).log_prob(t([1.0, -1.0])),
    t([[2.0, 0.5], [0.5, 1.0]]),
)
g(
    "mvn entropy cov",
    lambda C: D.MultivariateNormal(torch.zeros(2), covariance_matrix=C).entropy(),
    t([[2.0, 0.5], [0.5, 1.0]]),
)
g(
    "lowrank",
    lambda W, d: D.LowRankMultivariateNormal(torch.zeros(3), W, d).log_prob(t([0.5, 0.0, -0.5])),
    t([[1.0], [0.5], [0.2]]),
    t([1.0, 2.0, 0.5]),
)
g(
    "lowrank entropy",
    lambda W, d: D.LowRankMultivariateNormal(torch.zeros(3), W, d).entropy(),
    t([[1.0], [0.5], [0.2]]),
    t([1.0, 2.0, 0.5]),
)
g(
    "wishart",
    lambda df, C: D.Wishart(df, covariance_matrix=C).log_prob(t([[2.0, 0.5], [0.5, 3.0]])),
    t(4.0),
    t([[1.0, 0.3], [0.3, 2.0]]),
)
g("wishart entropy", lambda df: D.Wishart(df, covariance_matrix=t([[1.0, 0.3], [0.3, 2.0]])).entropy(), t(4.0))
g("vonmises", lambda l, k: D.VonMises(l, k).log_prob(t([0.5, 2.0])), t([0.0, 1.0]), t([0.5, 20.0]))
g(
    "lkj",
    lambda c: D.LKJCholesky(3, c).log_prob(
        torch.linalg.cholesky(t([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]]))
    ),
    t(2.0),
)
g("binomial logits", lambda l: D.Binomial(5, logits=l).log_prob(t([0.0, 5.0, 2.0])), t([30.0, -30.0, 0.0]))
g("binomial entropy", lambda p: D.Binomial(5, probs=p).entropy(), t([0.3]))
g("poisson 0", lambda r: D.Poisson(r).log_prob(t([0.0, 3.0])), t([1.0, 2.0]))
g("negbin logp", lambda p: D.NegativeBinomial(t(3.0), probs=p).log_prob(t([2.0])), t([0.4]))
g("geometric", lambda p: D.Geometric(probs=p).log_prob(t([0.0, 3.0])), t([0.3, 1.0]))
g("geometric entropy", lambda p: D.Geometric(probs=p).entropy(), t([0.3]))
g("dirichlet", lambda c: D.Dirichlet(c).log_prob(t([0.2, 0.3, 0.5])), t([1.0, 2.0, 3.0]))
g("kl dirichlet", lambda c: D.kl_divergence(D.Dirichlet(c), D.Dirichlet(t([1.0, 1.0, 1.0]))), t([1.0, 2.0, 3.0]))
g(
    "kl mvn",
    lambda L: D.kl_divergence(
        D.MultivariateNormal(torch.zeros(2), scale_tril=L), D.MultivariateNormal(torch.ones(2), torch.eye(2))
    ),
    t([[1.0, 0.0], [0.5, 2.0]]),
)
g(
    "kl lowrank",
    lambda W: D.kl_divergence(
        D.LowRankMultivariateNormal(torch.zeros(2), W, torch.ones(2)), D.MultivariateNormal(torch.ones(2), torch.eye(2))
    ),
    t([[1.0], [0.5]]),
)
g("kl beta", lambda a: D.kl_divergence(D.Beta(a, t(2.0)), D.Beta(t(1.0), t(1.0))), t(3.0))
g("kl gamma", lambda a: D.kl_divergence(D.Gamma(a, t(2.0)), D.Gamma(t(1.0), t(1.0))), t(3.0))
g("contbern entropy", lambda p: D.ContinuousBernoulli(p).entropy(), t([0.2, 0.5, 0.4999]))
g("contbern logp", lambda p: D.ContinuousBernoulli(p).log_prob(t([0.3, 0.3, 0.3])), t([0.2, 0.5, 0.4999]))
g("contbern mean", lambda p: D.ContinuousBernoulli(p).mean, t([0.2, 0.5, 0.4999]))
g("contbern var", lambda p: D.ContinuousBernoulli(p).variance, t([0.2, 0.5, 0.4999]))
g("contbern cdf", lambda p: D.ContinuousBernoulli(p).cdf(t([0.3, 0.3, 0.3])), t([0.2, 0.5, 0.4999]))
g("contbern icdf", lambda p: D.ContinuousBernoulli(p).icdf(t([0.3, 0.3, 0.3])), t([0.2, 0.5, 0.4999]))
g("gamma cdf", lambda x: D.Gamma(t(2.0), t(1.0)).cdf(x), t([1.0]))
g(
    "relaxed cat",
    lambda tmp: D.RelaxedOneHotCategorical(tmp, probs=t([0.2, 0.3, 0.5])).log_prob(t([0.1, 0.2, 0.7])),
    t(0.5),
)
g(
    "halfnormal",
    lambda s: D.HalfNormal(s).log_prob(t([0.5])) + D.HalfNormal(s).entropy() + D.HalfNormal(s).cdf(t([0.5])),
    t([2.0]),
)
g("gumbel entropy", lambda s: D.Gumbel(t(0.0), s).entropy() + D.Gumbel(t(0.0), s).cdf(t([0.5])), t([2.0]))
g("weibull", lambda k: D.Weibull(t(1.0), k).mean + D.Weibull(t(1.0), k).variance, t([2.0]))
g("pareto", lambda a: D.Pareto(t(1.0), a).entropy() + D.Pareto(t(1.0), a).variance, t([3.0]))
g("fisher", lambda a: D.FisherSnedecor(a, t(5.0)).variance, t([3.0]))
g("kumaraswamy", lambda a: D.Kumaraswamy(a, t(5.0)).variance + D.Kumaraswamy(a, t(5.0)).entropy(), t([3.0]))
g("invgamma", lambda a: D.InverseGamma(a, t(5.0)).entropy(), t([3.0]))
g(
    "genpareto",
    lambda c: (
        D.GeneralizedPareto(t(0.0), t(1.0), c).log_prob(t([1.0])) + D.GeneralizedPareto(t(0.0), t(1.0), c).entropy()
    ),
    t([0.2]),
)
g(
    "mixture cdf",
    lambda l: D.MixtureSameFamily(D.Categorical(logits=l), D.Normal(t([0.0, 1.0]), t([1.0, 1.0]))).cdf(t([0.5])),
    t([0.0, 1.0]),
)
for label, fn in [
    ("vonmises entropy", lambda: D.VonMises(t(0.0), t(1.0)).entropy()),
    ("kl vonmises", lambda: D.kl_divergence(D.VonMises(t(0.0), t(3.0)), D.VonMises(t(1.0), t(1.0)))),
]:
    try:
        fn()
    except NotImplementedError as e:
        print(label, "NotImplementedError", str(e))
