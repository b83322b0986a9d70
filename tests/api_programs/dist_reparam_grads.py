"""Gradients through distributions: log_prob/entropy/cdf gradients w.r.t. parameters for many families, pathwise
(rsample) gradients checked against the fixed-epsilon formulas they must satisfy, implicit reparameterization of
Gamma/Beta/Dirichlet, relaxed (Gumbel-softmax) distributions, MixtureSameFamily, and a score-function estimator."""

import numpy as np
import torch
import torch.distributions as D

torch.set_printoptions(precision=4)
t = torch.tensor


def r(x, k=6):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


def p(*vals, grad=True):
    return [t(v, requires_grad=grad) for v in vals]


# analytic gradients of log_prob w.r.t. every parameter
cases = [
    ("normal", D.Normal, [[0.5, -1.0], [1.0, 2.0]], t([0.0, 1.0])),
    ("lognormal", D.LogNormal, [[0.2], [0.7]], t([1.5])),
    ("gamma", D.Gamma, [[2.0, 0.7], [1.5, 3.0]], t([1.0, 0.2])),
    ("beta", D.Beta, [[2.0], [3.5]], t([0.4])),
    ("studentt", D.StudentT, [[3.0], [0.5], [2.0]], t([1.0])),
    ("laplace", D.Laplace, [[0.0], [1.5]], t([-2.0])),
    ("cauchy", D.Cauchy, [[0.3], [0.8]], t([1.0])),
    ("gumbel", D.Gumbel, [[0.0], [2.0]], t([1.0])),
    ("weibull", D.Weibull, [[1.5], [2.5]], t([1.0])),
    ("vonmises", D.VonMises, [[0.3], [1.7]], t([1.0])),
    ("kumaraswamy", D.Kumaraswamy, [[2.0], [3.0]], t([0.3])),
    ("invgamma", D.InverseGamma, [[3.0], [2.0]], t([0.8])),
    ("fisher", D.FisherSnedecor, [[4.0], [6.0]], t([1.2])),
    ("poisson", D.Poisson, [[2.5]], t([4.0])),
    ("binomial_p", lambda pr: D.Binomial(6, probs=pr), [[0.35]], t([2.0])),
    ("negbin_l", lambda c, lg: D.NegativeBinomial(c, logits=lg), [[2.0], [0.3]], t([3.0])),
    ("contbern", lambda pr: D.ContinuousBernoulli(probs=pr), [[0.3]], t([0.6])),
    ("logistic_normal", D.LogisticNormal, [[0.1, -0.2], [1.0, 0.5]], t([0.3, 0.5, 0.2])),
]
for name, ctor, params, value in cases:
    ps = p(*params)
    d = ctor(*ps)
    lp = d.log_prob(value).sum()
    grads = torch.autograd.grad(lp, ps)
    print("dlogp", name, r(lp), [r(g) for g in grads])
for name, ctor, params in [
    ("normal", D.Normal, [[0.5], [2.0]]),
    ("gamma", D.Gamma, [[2.0], [0.5]]),
    ("beta", D.Beta, [[2.0], [3.0]]),
    ("dirichlet", D.Dirichlet, [[1.0, 2.0, 0.5]]),
    ("studentt", D.StudentT, [[3.0], [0.0], [2.0]]),
    ("weibull", D.Weibull, [[1.5], [2.5]]),
]:
    ps = p(*params)
    grads = torch.autograd.grad(ctor(*ps).entropy().sum(), ps, allow_unused=True)
    print("dentropy", name, [None if g is None else r(g) for g in grads])
ps = p([0.5], [2.0])
print("dcdf normal", [r(g) for g in torch.autograd.grad(D.Normal(*ps).cdf(t([1.0])).sum(), ps)])
ps = p([0.0, 1.0], [2.0, 0.5])
print("dicdf laplace", [r(g) for g in torch.autograd.grad(D.Laplace(*ps).icdf(t([0.2, 0.9])).sum(), ps)])
cov_p = t([[2.0, 0.3], [0.3, 1.0]], requires_grad=True)
mu = t([0.0, 1.0], requires_grad=True)
lp = D.MultivariateNormal(mu, covariance_matrix=cov_p).log_prob(t([0.5, 0.0]))
g_mu, g_cov = torch.autograd.grad(lp, [mu, cov_p])
print("dmvn", r(lp), r(g_mu), r(g_cov))

# pathwise gradients must match the reparameterization identities for whatever noise was drawn
torch.manual_seed(0)
loc, scale = p([0.5, -1.0, 2.0], [1.0, 0.5, 3.0])
z = D.Normal(loc, scale).rsample((4,))
gl, gs = torch.autograd.grad(z.sum(), [loc, scale])
eps = (z.detach() - loc.detach()) / scale.detach()
print(
    "normal rsample", z.shape, torch.allclose(gl, torch.full_like(gl, 4.0)), torch.allclose(gs, eps.sum(0), atol=1e-5)
)
lo, hi = p([0.0], [2.0])
u = D.Uniform(lo, hi).rsample((5,))
g_lo, g_hi = torch.autograd.grad(u.sum(), [lo, hi])
frac = (u.detach() - lo.detach()) / (hi - lo).detach()
print(
    "uniform rsample", torch.allclose(g_hi, frac.sum(0), atol=1e-5), torch.allclose(g_lo, (1 - frac).sum(0), atol=1e-5)
)
rate = t([2.0], requires_grad=True)
e = D.Exponential(rate).rsample((6,))
(g_rate,) = torch.autograd.grad(e.sum(), [rate])
print("exponential rsample", torch.allclose(g_rate, -(e.detach() / rate.detach()).sum(0), atol=1e-5))
lg, sc = p([0.0, 1.0], [1.0, 2.0])
y = D.LogNormal(lg, sc).rsample()
print("lognormal rsample", torch.allclose(torch.autograd.grad(y.sum(), [lg])[0], y.detach(), atol=1e-5))
mvl = t([1.0, -1.0], requires_grad=True)
tril = t([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
w = D.MultivariateNormal(mvl, scale_tril=tril).rsample((3,))
g_l, g_t = torch.autograd.grad(w.sum(), [mvl, tril])
eps2 = torch.linalg.solve_triangular(tril.detach(), (w.detach() - mvl.detach()).T, upper=False)
print("mvn rsample", w.shape, r(g_l), torch.allclose(g_t, eps2.sum(1).expand(2, 2), atol=1e-4))

# implicit reparameterization: dz/dalpha = -(dF/dalpha) / f(z) for Gamma with rate 1
alpha = t([0.7, 2.0, 5.0], requires_grad=True)
g = D.Gamma(alpha, torch.ones(3)).rsample()
(g_alpha,) = torch.autograd.grad(g.sum(), [alpha])
h = 1e-3
a64, z64 = alpha.detach().double(), g.detach().double()
dF = (torch.special.gammainc(a64 + h, z64) - torch.special.gammainc(a64 - h, z64)) / (2 * h)
dens = D.Gamma(a64, torch.ones(3, dtype=torch.float64)).log_prob(z64).exp()
print("gamma implicit", g.shape, torch.allclose(g_alpha.double(), -dF / dens, rtol=2e-2, atol=1e-3))
conc = t([1.5, 2.0, 0.8], requires_grad=True)
s = D.Dirichlet(conc).rsample((2,))
print("dirichlet rsample", s.shape, r(s.sum(-1)), torch.autograd.grad(s[:, 0].sum(), [conc])[0].shape)
a, b = p([2.0], [3.0])
bs = D.Beta(a, b).rsample((4,))
ga, gb = torch.autograd.grad(bs.sum(), [a, b])
print("beta rsample", bs.shape, bool((ga > 0).all()), bool((gb < 0).all()))

# relaxed distributions at fixed values (no sampling needed for log_prob)
temp = t(0.5)
rb = D.RelaxedBernoulli(temp, logits=t([0.3, -1.0]))
print("relaxed bern", r(rb.log_prob(t([0.2, 0.7]))), rb.temperature, rb.support, rb.rsample().shape)
rc = D.RelaxedOneHotCategorical(temp, probs=t([0.2, 0.3, 0.5]))
print("relaxed cat", r(rc.log_prob(t([0.1, 0.2, 0.7]))), rc.support, rc.rsample((2,)).shape, rc.has_rsample)
lb = D.relaxed_bernoulli.LogitRelaxedBernoulli(temp, probs=t([0.4]))
print("logit relaxed", r(lb.log_prob(t([0.5]))), lb.support)
logits = t([0.2, -0.3, 1.0], requires_grad=True)
lp = D.RelaxedOneHotCategorical(t(0.7), logits=logits).log_prob(t([0.3, 0.3, 0.4]))
print("relaxed dlogits", r(torch.autograd.grad(lp, [logits])[0]))

# a Gaussian mixture: density, moments, gradients, and its cdf
mix_logits = t([0.0, 1.0, -0.5], requires_grad=True)
locs = t([-2.0, 0.0, 3.0], requires_grad=True)
scales = t([0.5, 1.0, 2.0], requires_grad=True)
gmm = D.MixtureSameFamily(D.Categorical(logits=mix_logits), D.Normal(locs, scales))
xs = t([-1.0, 0.5, 2.0])
nll = -gmm.log_prob(xs).sum()
grads = torch.autograd.grad(nll, [mix_logits, locs, scales])
print("gmm", r(nll), [r(g_) for g_ in grads], r(gmm.mean), r(gmm.variance), r(gmm.cdf(xs)))
print("gmm repr", gmm.batch_shape, gmm.event_shape, gmm.mixture_distribution.probs.shape, gmm.sample((5,)).shape)
mv_mix = D.MixtureSameFamily(
    D.Categorical(torch.ones(2)), D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
)
print("mv mixture", mv_mix.event_shape, r(mv_mix.log_prob(torch.zeros(3))), r(mv_mix.variance))
try:
    D.MixtureSameFamily(D.Categorical(torch.ones(3)), D.Normal(torch.zeros(2), torch.ones(2)))
except ValueError as e:
    print("mixture error", str(e))

# score-function (REINFORCE) estimator: grad of E[f(x)] for a Bernoulli, computed exactly over the support
probs = t([0.3, 0.8], requires_grad=True)
bern = D.Bernoulli(probs=probs)
support = bern.enumerate_support()
f = support * 2.0 - 1.0
surrogate = (bern.log_prob(support).exp().detach() * bern.log_prob(support) * f).sum()
exact = (bern.log_prob(support).exp() * f).sum()
g_sur = torch.autograd.grad(surrogate, [probs])[0]
try:  # the cached logits are shared by both graphs, and the first grad freed them
    torch.autograd.grad(exact, [probs])
except RuntimeError as e:
    print("shared lazy logits", str(e)[:60])
bern = D.Bernoulli(probs=probs)
exact = (bern.log_prob(support).exp() * f).sum()
print("score fn", r(g_sur), r(torch.autograd.grad(exact, [probs])[0]))
