"""A catalogue of torch.distributions families at fixed parameters: reprs, batch/event shapes, supports,
arg_constraints, log_prob/cdf/icdf, moments and entropy, expand() and Independent reinterpretation."""

import numpy as np
import torch
import torch.distributions as D

torch.set_printoptions(precision=4)


def r(x, k=6):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


def describe(name, d, value):
    """Print the structural facts and the analytic quantities a family defines (or the error it raises)."""
    print(name, repr(d))
    print(
        "  shapes",
        tuple(d.batch_shape),
        tuple(d.event_shape),
        "rsample",
        d.has_rsample,
        "enum",
        d.has_enumerate_support,
    )
    print("  support", d.support, "discrete", d.support.is_discrete, "event_dim", d.support.event_dim)
    print("  constraints", sorted((k, str(v)) for k, v in d.arg_constraints.items()))
    print("  log_prob", r(d.log_prob(value)))
    for q in ("mean", "mode", "variance", "stddev"):
        try:
            print("  " + q, r(getattr(d, q)))
        except NotImplementedError as e:
            print("  " + q, "NotImplementedError", type(e).__name__)
    for q in ("entropy", "cdf", "icdf"):
        try:
            out = d.entropy() if q == "entropy" else getattr(d, q)(value if q == "cdf" else torch.full_like(value, 0.3))
            print("  " + q, r(out))
        except NotImplementedError:
            print("  " + q, "NotImplementedError")
    print("  sample", tuple(d.sample((2,)).shape), d.sample().dtype)


t = torch.tensor
describe("normal", D.Normal(t([0.0, 1.0]), t([1.0, 0.5])), t([0.3, 1.2]))
describe("lognormal", D.LogNormal(t([0.0, 0.5]), t([0.5, 1.0])), t([0.7, 2.0]))
describe("halfnormal", D.HalfNormal(t([1.0, 2.0])), t([0.5, 1.5]))
describe("beta", D.Beta(t([2.0, 0.5]), t([3.0, 0.5])), t([0.25, 0.9]))
describe("gamma", D.Gamma(t([2.0, 3.0]), t([1.0, 0.5])), t([1.5, 4.0]))
describe("chi2", D.Chi2(t([3.0])), t([2.0]))
describe("exponential", D.Exponential(t([0.5, 2.0])), t([1.0, 0.25]))
describe("laplace", D.Laplace(t([0.0]), t([2.0])), t([1.0]))
describe("cauchy", D.Cauchy(t([1.0]), t([0.5])), t([0.0]))
describe("studentt", D.StudentT(t([4.0, 1.5]), t([0.0, 1.0]), t([1.0, 2.0])), t([0.5, -1.0]))
describe("uniform", D.Uniform(t([0.0, -1.0]), t([2.0, 3.0])), t([0.5, 2.5]))
describe("gumbel", D.Gumbel(t([0.0]), t([2.0])), t([1.0]))
describe("weibull", D.Weibull(t([1.5]), t([2.0])), t([1.0]))
describe("pareto", D.Pareto(t([1.0]), t([3.0])), t([2.0]))
describe("vonmises", D.VonMises(t([0.5]), t([2.0])), t([1.0]))
describe("bernoulli_p", D.Bernoulli(probs=t([0.2, 0.9])), t([1.0, 0.0]))
describe("bernoulli_l", D.Bernoulli(logits=t([-1.0, 3.0])), t([1.0, 1.0]))
describe("binomial", D.Binomial(5, probs=t([0.3, 0.6])), t([2.0, 5.0]))
describe("geometric", D.Geometric(probs=t([0.3])), t([2.0]))
describe("poisson", D.Poisson(t([2.5, 0.5])), t([3.0, 0.0]))
describe("negbinom", D.NegativeBinomial(t([3.0]), probs=t([0.4])), t([2.0]))
describe("categorical_p", D.Categorical(probs=t([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])), t([2, 0]))
describe("categorical_l", D.Categorical(logits=t([1.0, 0.0, -1.0])), t(1))
describe("onehot", D.OneHotCategorical(probs=t([0.1, 0.6, 0.3])), t([0.0, 1.0, 0.0]))
describe("multinomial", D.Multinomial(4, probs=t([0.2, 0.3, 0.5])), t([1.0, 1.0, 2.0]))
describe("dirichlet", D.Dirichlet(t([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]])), t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]))
describe("contbern", D.ContinuousBernoulli(probs=t([0.2, 0.5, 0.8])), t([0.3, 0.5, 0.9]))

cov = t([[2.0, 0.6, 0.0], [0.6, 1.0, 0.3], [0.0, 0.3, 0.5]])
mvn_c = D.MultivariateNormal(t([0.0, 1.0, -1.0]), covariance_matrix=cov)
mvn_t = D.MultivariateNormal(t([0.0, 1.0, -1.0]), scale_tril=torch.linalg.cholesky(cov))
mvn_p = D.MultivariateNormal(t([0.0, 1.0, -1.0]), precision_matrix=torch.linalg.inv(cov))
x = t([0.5, 0.5, 0.0])
print("mvn log_prob", r(mvn_c.log_prob(x)), r(mvn_t.log_prob(x)), r(mvn_p.log_prob(x)))
print("mvn entropy", r(mvn_c.entropy()), r(mvn_p.entropy()), "var", r(mvn_t.variance), "mode", r(mvn_c.mode))
print("mvn tril", r(mvn_p.scale_tril, 9), "precision", r(mvn_t.precision_matrix, 9))
print("mvn repr", mvn_c, mvn_c.support, mvn_c.arg_constraints["scale_tril"])
lr = D.LowRankMultivariateNormal(t([0.0, 1.0, 2.0]), t([[1.0], [0.5], [-0.5]]), t([0.5, 1.0, 2.0]))
print("lowrank", r(lr.log_prob(t([0.1, 0.9, 2.5]))), r(lr.entropy()), r(lr.variance), r(lr.covariance_matrix, 9))
print("lowrank shapes", lr.batch_shape, lr.event_shape, lr)

base = D.Normal(t([[0.0, 1.0, 2.0], [0.5, 0.5, 0.5]]), t([[1.0, 1.0, 2.0], [0.5, 1.0, 1.5]]))
ind = D.Independent(base, 1)
val = t([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
print("indep", ind, ind.batch_shape, ind.event_shape, r(ind.log_prob(val)), r(ind.entropy()))
print("indep2", D.Independent(base, 2).event_shape, r(D.Independent(base, 2).log_prob(val)))
print("indep support", ind.support, ind.support.event_dim, ind.base_dist is base)
ex = D.Normal(t([0.0]), t([1.0])).expand((4, 3))
print("expand", ex.batch_shape, ex.loc.shape, r(ex.log_prob(torch.zeros(4, 3)), 3), ex)
ec = D.Categorical(logits=t([0.0, 1.0])).expand((2, 3))
print("expand cat", ec.batch_shape, ec.logits.shape, r(ec.entropy()), ec.param_shape)
bcast = D.Normal(t([0.0, 1.0]), t([[1.0], [2.0], [3.0]]))
print("broadcast", bcast.batch_shape, r(bcast.log_prob(t(0.5))))
print("scalar args", D.Normal(0.0, 1.0).batch_shape, D.Normal(0.0, 1.0).loc.dtype, D.Normal(0, 1).loc.dtype)
print(
    "enumerate",
    D.Bernoulli(t([0.3, 0.4])).enumerate_support().tolist(),
    D.Categorical(logits=torch.zeros(2, 3)).enumerate_support(expand=False).shape,
    D.OneHotCategorical(logits=torch.zeros(3)).enumerate_support().tolist(),
)
print(
    "f64",
    D.Gamma(t([2.0], dtype=torch.float64), t([1.0], dtype=torch.float64)).log_prob(t([1.0], dtype=torch.float64)).dtype,
)
