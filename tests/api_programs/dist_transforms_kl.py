"""Normalizing-flow building blocks and divergences: Transform algebra (inverse, composition, log-det-Jacobian,
domain/codomain, sign, caching), TransformedDistribution, biject_to/transform_to, kl_divergence pairs,
a user register_kl, and the validate_args errors people hit."""

import warnings
import numpy as np
import torch
import torch.distributions as D
from torch.distributions import constraints, transforms as T

torch.set_printoptions(precision=4)
t = torch.tensor


def r(x, k=6):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


x = t([-1.5, -0.2, 0.0, 0.7, 2.0])
tfs = {
    "exp": T.ExpTransform(),
    "affine": T.AffineTransform(loc=1.0, scale=-2.0),
    "sigmoid": T.SigmoidTransform(),
    "tanh": T.TanhTransform(),
    "softplus": T.SoftplusTransform(),
    "power": T.PowerTransform(exponent=t(3.0)),
    "abs": T.AbsTransform(),
}
for name, tf in tfs.items():
    y = tf(x if name != "power" else x.abs() + 0.1)
    xin = x if name != "power" else x.abs() + 0.1
    print(name, tf, r(y), "bij", tf.bijective, "sign", tf.sign if name not in ("abs", "power") else None)
    print("  dom", tf.domain, "cod", tf.codomain, "inv", tf.inv)
    if tf.bijective:
        print("  ldj", r(tf.log_abs_det_jacobian(xin, y)), "roundtrip", r(tf.inv(y) - xin))

comp = T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.SigmoidTransform(), T.AffineTransform(-1.0, 4.0)])
yc = comp(x)
print("compose", r(yc), r(comp.log_abs_det_jacobian(x, yc)), r(comp.inv(yc)), comp.codomain)
print("compose parts", len(comp.parts), comp.inv.parts[0], comp.event_dim, comp.sign)
stack = T.StackTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)], dim=1)
xs = t([[0.1, 0.2], [0.3, -0.4]])
ys = stack(xs)
print("stack", r(ys), r(stack.log_abs_det_jacobian(xs, ys)), r(stack.inv(ys)))
cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 0.5)], dim=0, lengths=[1, 1])
print("cat", r(cat(xs)), r(cat.log_abs_det_jacobian(xs, cat(xs))))
sm = T.StickBreakingTransform()
z = t([0.3, -0.2, 1.0])
p = sm(z)
print("stickbreaking", r(p), r(p.sum()), r(sm.log_abs_det_jacobian(z, p)), r(sm.inv(p)), sm.codomain)
print("softmax tf", r(T.SoftmaxTransform()(z)), T.SoftmaxTransform().codomain)
ct = T.CorrCholeskyTransform()
L = ct(t([0.2, -0.4, 0.5]))
print("corrchol", r(L, 9), r((L @ L.T).diagonal()), ct.codomain)
lt = T.LowerCholeskyTransform()
print("lowerchol", r(lt(t([[0.0, 5.0], [1.0, -1.0]]))), lt.codomain)
rs = T.ReshapeTransform((2, 3), (3, 2))
print("reshape", rs(torch.arange(6.0).reshape(2, 3)).shape, rs.forward_shape((4, 2, 3)), rs.inverse_shape((3, 2)))
ind = T.IndependentTransform(T.ExpTransform(), 1)
print("indep tf", r(ind.log_abs_det_jacobian(xs, ind(xs))), ind.domain.event_dim, ind)
print("eq", T.ExpTransform() == T.ExpTransform(), T.ExpTransform().inv.inv == T.ExpTransform())

# transformed distributions: a logit-normal, a shifted log-normal and tanh-squashed Gaussian policy
base = D.Normal(t([0.0, 0.5]), t([1.0, 0.3]))
logitn = D.TransformedDistribution(base, [T.SigmoidTransform()])
v = t([0.3, 0.6])
print("logitnormal", r(logitn.log_prob(v)), logitn.batch_shape, logitn.support, r(logitn.cdf(v)), r(logitn.icdf(v)))
shifted = D.TransformedDistribution(base, [T.ExpTransform(), T.AffineTransform(2.0, 3.0)])
print("shifted lognormal", r(shifted.log_prob(t([3.5, 6.0]))), shifted.support, shifted)
ln = D.LogNormal(t([0.0, 0.5]), t([1.0, 0.3]))
ref = D.TransformedDistribution(base, T.ExpTransform())
print("lognormal match", r(ln.log_prob(v) - ref.log_prob(v)), isinstance(ln, D.TransformedDistribution))
squashed = D.TransformedDistribution(base, [T.TanhTransform(cache_size=1)])
a = t([0.1, -0.9])
print("tanh policy", r(squashed.log_prob(a)), r(squashed.rsample((3,)).shape))
mvbase = D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1)
flow = D.TransformedDistribution(mvbase, [T.StickBreakingTransform()])
print("simplex flow", flow.event_shape, r(flow.log_prob(t([0.2, 0.3, 0.1, 0.4]))), flow.support)

# biject_to / transform_to map unconstrained parameters into constraint sets
for c in [
    constraints.positive,
    constraints.unit_interval,
    constraints.simplex,
    constraints.interval(-1.0, 3.0),
    constraints.greater_than(2.0),
    constraints.lower_cholesky,
    constraints.real,
]:
    tt = D.transform_to(c)
    try:
        bname = type(D.biject_to(c)).__name__
    except NotImplementedError as e:
        bname = str(e)
    u = t([0.5, -1.0, 2.0]) if c.event_dim == 0 or c is constraints.simplex else t([[0.5, 0.0], [-1.0, 2.0]])
    print("biject", c, bname, type(tt).__name__, r(tt(u)), c.check(tt(u)).all().item())
try:
    D.biject_to(constraints.integer_interval(0, 3))
except NotImplementedError as e:
    print("no bijector", type(e).__name__, str(e)[:60])

# KL divergence pairs and a user-registered pair
pairs = [
    (D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)),
    (D.Beta(t(2.0), t(3.0)), D.Beta(t(1.0), t(1.0))),
    (D.Gamma(t(2.0), t(1.0)), D.Exponential(t(0.5))),
    (D.Exponential(t(1.0)), D.Gamma(t(2.0), t(2.0))),
    (D.Uniform(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0))),
    (D.Laplace(t(0.0), t(1.0)), D.Laplace(t(1.0), t(2.0))),
    (D.Bernoulli(t(0.3)), D.Bernoulli(t(0.6))),
    (D.Binomial(5, t(0.3)), D.Binomial(5, t(0.6))),
    (D.Geometric(t(0.3)), D.Geometric(t(0.5))),
    (D.Poisson(t(2.0)), D.Poisson(t(3.0))),
    (D.OneHotCategorical(t([0.2, 0.8])), D.OneHotCategorical(t([0.5, 0.5]))),
    (D.Dirichlet(t([1.0, 2.0])), D.Dirichlet(t([2.0, 2.0]))),
    (D.Gumbel(t(0.0), t(1.0)), D.Gumbel(t(1.0), t(2.0))),
    (D.HalfNormal(t(1.0)), D.HalfNormal(t(2.0))),
    (D.LogNormal(t(0.0), t(1.0)), D.LogNormal(t(0.5), t(1.5))),
    (D.Pareto(t(1.0), t(3.0)), D.Pareto(t(1.0), t(2.0))),
    (D.ContinuousBernoulli(t(0.3)), D.ContinuousBernoulli(t(0.7))),
    (
        D.MultivariateNormal(torch.zeros(2), torch.eye(2)),
        D.LowRankMultivariateNormal(torch.ones(2), t([[1.0], [0.5]]), t([1.0, 2.0])),
    ),
    (D.Normal(t(0.0), t(1.0)), D.Gumbel(t(0.0), t(1.0))),
]
for p, q in pairs:
    print("kl", type(p).__name__, type(q).__name__, r(D.kl_divergence(p, q)))
print("kl inf", r(D.kl_divergence(D.Uniform(t(0.0), t(2.0)), D.Uniform(t(0.5), t(1.0)))))


class Shifted(D.Normal):
    pass


@D.register_kl(Shifted, Shifted)
def _kl_shifted(p, q):
    return (p.loc - q.loc).abs()


print(
    "register_kl",
    r(D.kl_divergence(Shifted(t(1.0), t(1.0)), Shifted(t(3.5), t(1.0)))),
    r(D.kl_divergence(Shifted(t(1.0), t(1.0)), D.Normal(t(3.5), t(1.0)))),
)
try:
    D.kl_divergence(D.Cauchy(0.0, 1.0), D.StudentT(2.0))
except NotImplementedError as e:
    print("kl missing", type(e).__name__)

# validate_args: the errors people see
bad = [
    lambda: D.Normal(t([0.0, 1.0]), t([1.0, -2.0])),
    lambda: D.Beta(t(0.0), t(1.0)),
    lambda: D.Categorical(probs=t([0.5, -0.1])),
    lambda: D.Bernoulli(probs=t(1.5)),
    lambda: D.Dirichlet(t(1.0)),
    lambda: D.MultivariateNormal(torch.zeros(2), t([[1.0, 2.0], [2.0, 1.0]])),
    lambda: D.Normal(t(0.0), t(1.0)).log_prob(t([float("nan")])),
    lambda: D.Poisson(t(2.0)).log_prob(t(1.5)),
    lambda: D.Exponential(t(1.0)).log_prob(t(-1.0)),
    lambda: D.Bernoulli(probs=t(0.3), logits=t(0.1)),
    lambda: D.Categorical(),
]
for i, f in enumerate(bad):
    try:
        f()
        print("bad", i, "accepted")
    except (ValueError, TypeError) as e:
        print("bad", i, type(e).__name__, str(e).replace("\n", " ")[:400])
print(
    "off",
    r(D.Normal(t(0.0), t(-1.0), validate_args=False).scale),
    r(D.Exponential(t(1.0), validate_args=False).log_prob(t(-1.0))),
)
D.Distribution.set_default_validate_args(False)
print("default off", r(D.Beta(t(0.0), t(1.0)).concentration1))
D.Distribution.set_default_validate_args(True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print("sample_shape", D.Normal(t([0.0]), t([1.0])).sample(torch.Size([2, 3])).shape)
