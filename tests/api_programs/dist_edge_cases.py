"""Where probabilistic code goes wrong: boundary values, -inf logits and zero probabilities, unnormalized inputs,
heavy tails with undefined moments, dtype and broadcasting rules, expand() of composite distributions, the
constraints module itself, and what validate_args=False lets through."""

import math
import numpy as np
import torch
import torch.distributions as D
from torch.distributions import constraints as C

torch.set_printoptions(precision=4)
t = torch.tensor
inf = float("inf")


def r(x, k=8):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


# categorical families with impossible classes and unnormalized inputs
c = D.Categorical(logits=t([0.0, -inf, 2.0]))
print("cat -inf", r(c.probs), r(c.logits), r(c.entropy()), r(c.log_prob(t([0, 1, 2]))))
c0 = D.Categorical(probs=t([0.0, 0.25, 0.75]))
print("cat zero prob", r(c0.logits), r(c0.entropy()), r(c0.log_prob(t(0))), c0.logits.dtype)
un = D.Categorical(probs=t([[2.0, 6.0], [1.0, 1.0]]))
print("cat unnormalized", r(un.probs), r(un.logits), un.param_shape, un._num_events)
ul = D.Categorical(logits=t([10.0, 11.0, 12.0]))
print("cat shifted logits", r(ul.logits), r(ul.probs), r(D.Categorical(logits=t([0.0, 1.0, 2.0])).logits))
oh = D.OneHotCategorical(logits=t([[0.0, 1.0, -inf], [2.0, 2.0, 2.0]]))
print("onehot", r(oh.log_prob(t([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]))), r(oh.entropy()), r(oh.mean), r(oh.variance))
print("onehot mode", oh.mode.tolist(), oh.sample().dtype, oh.event_shape, oh.param_shape)
mn = D.Multinomial(probs=t([0.2, 0.0, 0.8]))
print("multinomial default count", mn.total_count, r(mn.log_prob(t([0.0, 0.0, 1.0]))), r(mn.log_prob(t([1, 0, 0.0]))))
try:
    mn.log_prob(t([3.0, 0.0, 2.0]))
except ValueError as e:
    print("multinomial count", str(e).replace("\n", " "))
mn5 = D.Multinomial(5, logits=t([0.0, 1.0, 2.0]))
print("multinomial", r(mn5.mean), r(mn5.variance), mn5.total_count, mn5.support, mn5.sample((2,)).shape)
print(
    "bern extreme",
    r(D.Bernoulli(logits=t([100.0, -100.0])).log_prob(t([0.0, 1.0]))),
    r(D.Bernoulli(probs=t([0.0, 1.0])).log_prob(t([0.0, 1.0]))),
    r(D.Bernoulli(probs=t([0.0, 1.0])).entropy()),
)
print("bern logits", r(D.Bernoulli(probs=t([0.0, 0.5, 1.0])).logits), r(D.Bernoulli(logits=t([-50.0, 50.0])).probs))
bi = D.Binomial(total_count=t([3.0, 10.0]), probs=t([0.5, 1.0]))
print("binomial", r(bi.log_prob(t([0.0, 10.0]))), r(bi.mean), r(bi.variance), r(bi.mode), bi.support)
print("binomial enum", D.Binomial(3, t([0.2])).enumerate_support().squeeze(-1).tolist())
print("poisson zero rate", r(D.Poisson(t([0.0, 1.0]), validate_args=False).log_prob(t([0.0, 0.0]))))
print("geometric logits", r(D.Geometric(logits=t([0.0, 2.0])).probs), r(D.Geometric(probs=t([1.0])).log_prob(t([0.0]))))

# continuous boundaries
beta = D.Beta(t([1.0, 2.0, 0.5]), t([1.0, 2.0, 0.5]))
print("beta ends", r(beta.log_prob(t([0.0, 0.0, 0.5]))), r(beta.log_prob(t([1.0, 1.0, 0.01]))))
print("beta moments", r(beta.mean), r(beta.variance), r(beta.mode), r(beta.entropy()))
print("gamma at 0", r(D.Gamma(t([1.0, 2.0, 0.5]), t([1.0, 1.0, 1.0])).log_prob(t([0.0, 0.0, 0.0]))))
print("exp cdf", r(D.Exponential(t(2.0)).cdf(t([0.0, 1.0, inf]))), r(D.Exponential(t(2.0)).icdf(t([0.0, 1.0]))))
n = D.Normal(t(0.0), t(1.0))
print("normal tails", r(n.log_prob(t([-40.0, 40.0]))), r(n.cdf(t([-inf, -10.0, 10.0, inf]))), r(n.icdf(t([0.0, 1.0]))))
u = D.Uniform(t(-1.0), t(1.0), validate_args=False)
print("uniform outside", r(u.log_prob(t([-2.0, 0.0, 1.0, 2.0]))), r(u.cdf(t([-2.0, 2.0]))))
print("uniform support", D.Uniform(t(-1.0), t(1.0)).support, D.Uniform(0.0, 1.0).support.lower_bound)
lap = D.Laplace(t(0.0), t(1.0))
print("laplace icdf ends", r(lap.icdf(t([0.0, 0.5, 1.0]))), r(lap.cdf(t([-inf, inf]))))

# heavy tails: moments that do not exist
print("cauchy moments", r(D.Cauchy(t(0.0), t(1.0)).mean), r(D.Cauchy(t(0.0), t(1.0)).variance))
st = D.StudentT(t([0.5, 1.0, 1.5, 2.5]))
print("studentt moments", r(st.mean), r(st.variance))
pa = D.Pareto(t([1.0, 1.0, 1.0]), t([0.5, 1.5, 3.0]))
print("pareto moments", r(pa.mean), r(pa.variance), r(pa.entropy()), pa.support)
fs = D.FisherSnedecor(t([3.0, 3.0, 3.0]), t([1.5, 3.0, 5.0]))
print("fisher moments", r(fs.mean), r(fs.variance))
ig = D.InverseGamma(t([0.5, 1.5, 3.0]), t([1.0, 1.0, 1.0]))
print("invgamma moments", r(ig.mean), r(ig.variance), r(ig.mode))
print(
    "halfcauchy",
    r(D.HalfCauchy(t(1.0)).log_prob(t([0.0, 1.0]))),
    r(D.HalfCauchy(t(1.0)).cdf(t([1.0]))),
    r(D.HalfCauchy(t(1.0)).mean),
)

# dtype and broadcasting
for args in [(0.0, 1.0), (t(0.0, dtype=torch.float64), 1.0), (t([0.0, 1.0]), t([[1.0], [2.0]]))]:
    d = D.Normal(*args)
    print("normal dtype", d.loc.dtype, d.scale.dtype, d.batch_shape, d.log_prob(t(0.5)).dtype)
try:
    D.Normal(t([0.0, 1.0]), t([1.0, 1.0, 1.0]))
except (ValueError, RuntimeError) as e:
    print("broadcast error", type(e).__name__, str(e)[:80])
try:
    D.Normal(t(0.0), t(1.0)).log_prob(t([[0.0, 1.0]])).shape
    print("value broadcast ok", D.Normal(t([0.0, 1.0]), t(1.0)).log_prob(t([[0.0], [1.0]])).shape)
    D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1).log_prob(torch.zeros(2))
except (ValueError, RuntimeError) as e:
    print("event shape error", type(e).__name__, str(e)[:120])

# expand() of composite distributions keeps event shapes and shares parameters
mvn = D.MultivariateNormal(torch.zeros(2), scale_tril=t([[1.0, 0.0], [0.3, 0.8]]))
e = mvn.expand((3,))
print("mvn expand", e.batch_shape, e.event_shape, e.loc.shape, r(e.log_prob(torch.zeros(3, 2))), e.sample((2,)).shape)
ind = D.Independent(D.Beta(torch.ones(2), torch.ones(2) * 2), 1).expand((4,))
print("indep expand", ind.batch_shape, ind.event_shape, type(ind).__name__, ind.base_dist.batch_shape)
td = D.TransformedDistribution(D.Normal(t([0.0]), t([1.0])), [D.transforms.ExpTransform()]).expand((2, 1))
print("transformed expand", td.batch_shape, td.base_dist.batch_shape, r(td.log_prob(t([[1.0], [2.0]]))))
mix = D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(t([0.0, 1.0]), t([1.0, 1.0]))).expand((3,))
print("mixture expand", mix.batch_shape, mix.component_distribution.batch_shape, r(mix.log_prob(t([0.0, 0.5, 1.0]))))
try:
    D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).expand((3,))
except (ValueError, RuntimeError) as e:
    print("bad expand", type(e).__name__, str(e)[:100])

# the constraints module on its own
checks = [
    (C.real, t([0.0, inf, float("nan")])),
    (C.positive, t([0.0, 1.0])),
    (C.nonnegative, t([0.0, -1e-8])),
    (C.unit_interval, t([0.0, 1.0, 1.1])),
    (C.half_open_interval(0.0, 1.0), t([0.0, 1.0])),
    (C.integer_interval(0, 3), t([0.0, 1.5, 3.0])),
    (C.nonnegative_integer, t([0.0, 2.0, -1.0])),
    (C.boolean, t([0.0, 1.0, 0.5])),
    (C.simplex, t([[0.5, 0.5], [0.6, 0.6]])),
    (C.positive_definite, t([[2.0, 1.0], [1.0, 2.0]])),
    (C.lower_triangular, t([[1.0, 0.0], [1.0, 1.0]])),
    (C.corr_cholesky, t([[1.0, 0.0], [0.6, 0.8]])),
    (C.independent(C.positive, 1), t([[1.0, 2.0], [1.0, -1.0]])),
    (C.greater_than_eq(1.0), t([1.0, 0.5])),
    (C.less_than(2.0), t([1.0, 2.0])),
    (C.square, torch.ones(2, 3)),
    (C.symmetric, t([[1.0, 2.0], [2.0, 1.0]])),
    (C.positive_semidefinite, t([[1.0, 1.0], [1.0, 1.0]])),
    (C.one_hot, t([[0.0, 1.0], [1.0, 1.0]])),
    (C.multinomial(3), t([1.0, 2.0])),
]
for con, v in checks:
    print("constraint", con, con.event_dim, con.is_discrete, con.check(v).tolist())
cat_c = C.cat([C.positive, C.real], dim=0, lengths=[1, 2])
stack_c = C.stack([C.unit_interval, C.real], dim=0)
print("cat/stack", cat_c.check(t([1.0, -1.0, 5.0])).tolist(), stack_c.check(t([[0.5, 2.0], [-3.0, 1.0]])).tolist())
print("dependent", C.is_dependent(C.dependent), C.is_dependent(C.real), C.dependent_property, D.Binomial.support)
print("nan scale off", r(D.Normal(t(0.0), t(math.nan), validate_args=False).log_prob(t(0.0))))
