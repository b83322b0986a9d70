"""Sampling from every family the way a simulation script does: scalar (0-d) parameters straight from Python
floats, batched parameters, sample_shape tuples; checks the sample's shape, dtype, support membership, grad
tracking (sample vs rsample) and that re-seeding reproduces the draw. No sampled value is printed."""

import warnings
import torch
import torch.distributions as D

t = torch.tensor

families = {
    "normal": D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
    "normal0d": D.Normal(0.0, 1.0),
    "gamma0d": D.Gamma(t(2.0), t(1.0)),
    "gamma_float": D.Gamma(2.0, 1.0),
    "gamma": D.Gamma(t([0.3, 2.0]), t(1.0)),
    "beta": D.Beta(t([0.5, 2.0]), t([0.5, 3.0])),
    "beta0d": D.Beta(t(2.0), t(1.0)),
    "dirichlet": D.Dirichlet(t([[0.5, 1.0, 2.0]])),
    "chi2": D.Chi2(t(3.0)),
    "studentt": D.StudentT(t(3.0)),
    "fisher": D.FisherSnedecor(t(3.0), t(4.0)),
    "invgamma": D.InverseGamma(t(2.0), t(1.0)),
    "negbin": D.NegativeBinomial(t(3.0), t(0.4)),
    "poisson0d": D.Poisson(t(3.0)),
    "poisson_float": D.Poisson(3.0),
    "poisson": D.Poisson(t([0.5, 30.0])),
    "binomial": D.Binomial(t([3.0, 10.0]), t([0.3, 0.7])),
    "binomial0d": D.Binomial(3, t(0.3)),
    "bernoulli": D.Bernoulli(t([0.3, 0.7])),
    "categorical": D.Categorical(logits=torch.zeros(2, 4)),
    "onehot": D.OneHotCategorical(logits=torch.zeros(2, 4)),
    "multinomial": D.Multinomial(5, t([0.2, 0.8])),
    "geometric": D.Geometric(t([0.3])),
    "mvn": D.MultivariateNormal(torch.zeros(3), torch.eye(3)),
    "lowrank": D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.ones(3)),
    "laplace": D.Laplace(t(0.0), t(1.0)),
    "cauchy": D.Cauchy(t(0.0), t(1.0)),
    "uniform": D.Uniform(t(0.0), t(1.0)),
    "exponential": D.Exponential(t([1.0])),
    "vonmises": D.VonMises(t([0.0, 1.0]), t([0.5, 50.0])),
    "gumbel": D.Gumbel(t(0.0), t(1.0)),
    "weibull": D.Weibull(t(1.0), t(2.0)),
    "relaxed_bern": D.RelaxedBernoulli(t(0.5), t([0.3])),
    "relaxed_cat": D.RelaxedOneHotCategorical(t(0.5), t([0.3, 0.7])),
    "contbern": D.ContinuousBernoulli(t([0.3, 0.5])),
    "kumaraswamy": D.Kumaraswamy(t(2.0), t(3.0)),
    "pareto": D.Pareto(t(1.0), t(2.0)),
    "halfnormal": D.HalfNormal(t(1.0)),
    "halfcauchy": D.HalfCauchy(t(1.0)),
    "logisticnormal": D.LogisticNormal(torch.zeros(2), torch.ones(2)),
    "genpareto": D.GeneralizedPareto(t(0.0), t(1.0), t(0.2)),
    "lkj": D.LKJCholesky(3, t(1.0)),
    "mixture": D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), torch.ones(2))),
    "independent": D.Independent(D.Bernoulli(t([0.3, 0.6])), 1),
    "tanh_normal": D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), D.transforms.TanhTransform()),
}
for name, d in families.items():
    torch.manual_seed(3)
    a = d.sample((2, 3))
    torch.manual_seed(3)
    b = d.sample((2, 3))
    single = d.sample()
    inside = bool(d.support.check(a).all())
    print(name, tuple(a.shape), tuple(single.shape), a.dtype, torch.equal(a, b), inside, a.requires_grad)

# rsample keeps the graph to the parameters; sample never does
for name, make in [
    ("normal", lambda p: D.Normal(p, t(1.0))),
    ("gamma", lambda p: D.Gamma(p.exp(), t(1.0))),
    ("beta", lambda p: D.Beta(p.exp(), t(2.0))),
    ("studentt", lambda p: D.StudentT(p.exp() + 2.0)),
    ("fisher", lambda p: D.FisherSnedecor(p.exp() + 1.0, t(4.0))),
    ("relaxed", lambda p: D.RelaxedBernoulli(t(0.5), logits=p)),
    ("lowrank", lambda p: D.LowRankMultivariateNormal(p.expand(2), torch.ones(2, 1), torch.ones(2))),
]:
    p = t(0.2, requires_grad=True)
    d = make(p)
    z = d.rsample((4,))
    (grad,) = torch.autograd.grad(z.sum(), [p])
    print("rsample", name, tuple(z.shape), z.requires_grad, bool(torch.isfinite(grad)), d.sample().requires_grad)
for name, d in [
    ("poisson", D.Poisson(t(2.0))),
    ("categorical", D.Categorical(t([0.5, 0.5]))),
    ("vonmises", D.VonMises(t(0.0), t(1.0))),
]:
    try:
        d.rsample()
    except NotImplementedError as e:
        print("no rsample", name, type(e).__name__, d.has_rsample)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Wishart's sampler may warn about a near-singular draw
    w = D.Wishart(t(3.0), torch.eye(2)).sample((2,))
print("wishart", tuple(w.shape), w.dtype)
