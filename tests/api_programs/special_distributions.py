"""special functions at edge points and the analytic parts of distributions (log_prob, cdf, icdf, entropy, KL)."""

import torch
from torch import distributions as D

torch.set_printoptions(precision=4)
inf = float("inf")
x = torch.tensor([0.0, 0.5, 1.0, 2.5, 10.0], dtype=torch.float64)
print("lgamma", torch.lgamma(torch.tensor([0.0, -1.0, -0.5, 0.5, 1.0, 100.0])))
print("digamma", torch.digamma(torch.tensor([0.0, -1.0, 0.5, 1.0, 10.0])))
print("polygamma", torch.polygamma(1, x[1:]), torch.polygamma(2, torch.tensor([1.0, 3.0])))
print("mvlgamma", torch.mvlgamma(torch.tensor([2.5, 3.0]), p=3))
print("erf", torch.erf(x), torch.erfc(torch.tensor([-inf, 0.0, 5.0])))
print("erfinv", torch.erfinv(torch.tensor([-1.0, -0.5, 0.0, 0.9, 1.0, 1.5])))
print("xlogy", torch.xlogy(torch.tensor([0.0, 0.0, 2.0, 1.0]), torch.tensor([0.0, float("nan"), 3.0, 0.0])))
print("special.xlog1py", torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 1.0])))
print(
    "logsumexp",
    torch.logsumexp(torch.tensor([-inf, -inf]), 0),
    torch.logsumexp(torch.tensor([[-inf, 0.0], [1.0, inf]]), 1),
)
print(
    "logaddexp",
    torch.logaddexp(torch.tensor([-inf, 1.0]), torch.tensor([-inf, 1.0])),
    torch.logaddexp2(torch.tensor([1.0]), torch.tensor([1.0])),
)
s = torch.special
print(
    "expit/logit",
    s.expit(torch.tensor([-100.0, 0.0, 100.0])),
    s.logit(torch.tensor([0.0, 0.25, 1.0])),
    s.logit(torch.tensor([0.0, 1.0]), eps=1e-6),
)
print(
    "ndtr",
    s.ndtr(torch.tensor([-inf, -1.0, 0.0, 3.0])),
    s.ndtri(torch.tensor([0.0, 0.025, 0.5, 1.0])),
    s.log_ndtr(torch.tensor([-10.0, 0.0, 10.0])),
)
print("bessel", s.i0(x), s.i0e(x), s.i1(x), s.i1e(x))
print("bessel_j", s.bessel_j0(x), s.bessel_j1(x))
print(
    "gammainc",
    s.gammainc(torch.tensor([1.0, 2.0, 0.5]), torch.tensor([1.0, 0.5, 3.0])),
    s.gammaincc(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5])),
)
print("sinc", s.sinc(torch.tensor([0.0, 0.5, 1.0, -1.5])), s.entr(torch.tensor([-1.0, 0.0, 0.5, 1.0])))
print(
    "zeta", s.zeta(torch.tensor([2.0, 3.0, 1.0]), torch.tensor([1.0, 2.0, 1.0])), s.multigammaln(torch.tensor([3.0]), 2)
)
print(
    "log1p/expm1",
    s.log1p(torch.tensor([1e-10, -1.0])),
    s.expm1(torch.tensor([1e-10, 1.0])),
    s.exp2(torch.tensor([3.0, -1.0])),
)
print("softmax", s.softmax(torch.tensor([1.0, 2.0, -inf]), 0), s.log_softmax(torch.tensor([1.0, 2.0, 3.0]), 0))
print(
    "sigmoid/logsigmoid",
    torch.sigmoid(torch.tensor([-inf, inf])),
    torch.nn.functional.logsigmoid(torch.tensor([-100.0, 20.0])),
)
print(
    "atan2",
    torch.atan2(torch.tensor([0.0, -0.0, 1.0, 0.0]), torch.tensor([-1.0, -1.0, 0.0, 0.0])),
    torch.hypot(torch.tensor([3.0]), torch.tensor([4.0])),
)
print(
    "sqrt neg",
    torch.sqrt(torch.tensor([-1.0, 4.0])),
    torch.log(torch.tensor([0.0, -1.0])),
    torch.rsqrt(torch.tensor([0.0, 4.0])),
)
print(
    "pow edge",
    torch.pow(torch.tensor([0.0, -8.0, inf]), torch.tensor([0.0, 1 / 3, -1.0])),
    torch.float_power(torch.tensor([2]), -2),
)

loc = torch.tensor([0.0, 1.0])
scale = torch.tensor([1.0, 2.0])
n = D.Normal(loc, scale)
v = torch.tensor([0.5, -1.0])
print("normal", n.log_prob(v), n.cdf(v), n.icdf(torch.tensor([0.1, 0.975])), n.entropy(), n.mean, n.stddev, n.variance)
print("normal batch", n.batch_shape, n.event_shape, n.sample((3,)).shape)
ln = D.LogNormal(torch.tensor(0.0), torch.tensor(0.5))
print("lognormal", ln.log_prob(torch.tensor(2.0)), ln.mean, ln.variance, ln.entropy(), ln.cdf(torch.tensor(1.0)))
ex = D.Exponential(torch.tensor([2.0]))
print(
    "exponential",
    ex.log_prob(torch.tensor([0.5])),
    ex.cdf(torch.tensor([0.5])),
    ex.icdf(torch.tensor([0.5])),
    ex.entropy(),
    ex.mean,
    ex.variance,
)
g = D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 1.0]))
print("gamma", g.log_prob(torch.tensor([1.0, 2.0])), g.mean, g.variance, g.entropy(), g.cdf(torch.tensor([1.0, 2.0])))
b = D.Beta(torch.tensor([2.0]), torch.tensor([5.0]))
print("beta", b.log_prob(torch.tensor([0.3])), b.mean, b.variance, b.entropy())
u = D.Uniform(torch.tensor([0.0]), torch.tensor([4.0]))
print(
    "uniform",
    u.log_prob(torch.tensor([1.0])),
    u.cdf(torch.tensor([1.0, 3.0])),
    u.icdf(torch.tensor([0.25])),
    u.entropy(),
    u.mean,
    u.variance,
)
lp = D.Laplace(torch.tensor(0.0), torch.tensor(2.0))
print(
    "laplace",
    lp.log_prob(torch.tensor(1.0)),
    lp.cdf(torch.tensor(-1.0)),
    lp.icdf(torch.tensor(0.9)),
    lp.entropy(),
    lp.variance,
)
c = D.Cauchy(torch.tensor(0.0), torch.tensor(1.0))
print(
    "cauchy",
    c.log_prob(torch.tensor(1.0)),
    c.cdf(torch.tensor(1.0)),
    c.icdf(torch.tensor(0.75)),
    c.entropy(),
    c.mean,
    c.variance,
)
st = D.StudentT(torch.tensor(3.0))
print(
    "studentt",
    st.log_prob(torch.tensor(0.5)),
    st.mean,
    st.variance,
    st.entropy(),
    D.StudentT(torch.tensor(1.5)).variance,
)
cat = D.Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print("categorical", cat.log_prob(torch.tensor([0, 2])), cat.entropy(), cat.probs, cat.logits)
print("categorical logits", D.Categorical(logits=torch.tensor([0.0, -inf, 1.0])).entropy(), cat.mode)
be = D.Bernoulli(logits=torch.tensor([0.0, 2.0]))
print("bernoulli", be.log_prob(torch.tensor([1.0, 0.0])), be.entropy(), be.mean, be.variance, be.probs)
po = D.Poisson(torch.tensor([3.0]))
print("poisson", po.log_prob(torch.tensor([0.0, 2.0, 5.0])), po.mean, po.variance)
bi = D.Binomial(10, torch.tensor([0.3]))
print("binomial", bi.log_prob(torch.tensor([3.0])), bi.mean, bi.variance, bi.entropy())
geo = D.Geometric(probs=torch.tensor([0.25]))
print("geometric", geo.log_prob(torch.tensor([2.0])), geo.mean, geo.variance, geo.entropy())
mn = D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print("mvn", mn.log_prob(torch.tensor([1.0, -1.0])), mn.entropy(), mn.scale_tril, mn.precision_matrix)
di = D.Dirichlet(torch.tensor([1.0, 2.0, 3.0]))
print("dirichlet", di.log_prob(torch.tensor([0.2, 0.3, 0.5])), di.mean, di.variance, di.entropy())
ind = D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1)
print("independent", ind.log_prob(torch.tensor([0.1, 0.2, 0.3])), ind.entropy(), ind.batch_shape, ind.event_shape)
mix = D.MixtureSameFamily(
    D.Categorical(torch.tensor([0.3, 0.7])), D.Normal(torch.tensor([-1.0, 1.0]), torch.tensor([0.5, 0.5]))
)
print("mixture", mix.log_prob(torch.tensor([0.0, 1.0])), mix.mean, mix.variance)
print("kl normal", D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)))
print("kl cat", D.kl_divergence(cat, D.Categorical(logits=torch.zeros(3))))
print("kl gamma", D.kl_divergence(g, D.Gamma(torch.tensor([1.0, 1.0]), torch.tensor([1.0, 1.0]))))
print("kl beta", D.kl_divergence(b, D.Beta(torch.tensor([1.0]), torch.tensor([1.0]))))
print("kl bern", D.kl_divergence(be, D.Bernoulli(probs=torch.tensor([0.5, 0.5]))))
print("kl mvn", D.kl_divergence(mn, D.MultivariateNormal(torch.ones(2), torch.eye(2))))
print(
    "kl exp",
    D.kl_divergence(ex, D.Exponential(torch.tensor([1.0]))),
    D.kl_divergence(u, D.Uniform(torch.tensor([-1.0]), torch.tensor([5.0]))),
)
print(
    "kl dirichlet", D.kl_divergence(di, D.Dirichlet(torch.ones(3))), D.kl_divergence(po, D.Poisson(torch.tensor([1.0])))
)
print("kl indep", D.kl_divergence(ind, D.Independent(D.Normal(torch.ones(3), torch.ones(3)), 1)))
print("kl lap", D.kl_divergence(lp, D.Laplace(torch.tensor(1.0), torch.tensor(1.0))))
try:
    D.Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("validate", str(e)[:90])
try:
    D.kl_divergence(c, n)
except NotImplementedError as e:
    print("no kl", type(e).__name__)
print("support", n.support, cat.support, b.support, g.support, po.support)
print("has_rsample", n.has_rsample, cat.has_rsample, g.has_rsample, di.has_rsample)
