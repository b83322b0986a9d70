"""kl_divergence as VAE, variational-inference and RL code calls it: the registered closed forms between common
families (batched, Independent, multivariate, low-rank), Monte Carlo checks against them, register_kl for a
custom pair and for a subclass, the dispatch order, and NotImplementedError for pairs without a formula."""
import torch
import torch.distributions as D
from torch.distributions import kl_divergence, register_kl

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


t = torch.tensor
pairs = [
    ("Normal||Normal", D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), D.Normal(t([0.5, 0.0]), t([1.5, 1.0]))),
    ("Bernoulli||Bernoulli", D.Bernoulli(t([0.2, 0.9])), D.Bernoulli(logits=t([0.0, 1.0]))),
    ("Categorical||Categorical", D.Categorical(t([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]])),
     D.Categorical(logits=t([0.0, 0.0, 0.0]))),
    ("OneHot||OneHot", D.OneHotCategorical(t([0.2, 0.3, 0.5])), D.OneHotCategorical(t([0.4, 0.4, 0.2]))),
    ("Beta||Beta", D.Beta(t([2.0, 0.5]), t([3.0, 0.5])), D.Beta(t([1.0, 1.0]), t([1.0, 2.0]))),
    ("Gamma||Gamma", D.Gamma(t([2.0, 5.0]), t([1.0, 2.0])), D.Gamma(t([1.5, 5.0]), t([0.5, 3.0]))),
    ("Dirichlet||Dirichlet", D.Dirichlet(t([1.0, 2.0, 3.0])), D.Dirichlet(t([2.0, 2.0, 2.0]))),
    ("Poisson||Poisson", D.Poisson(t([1.0, 4.0])), D.Poisson(t([2.0, 3.0]))),
    ("Exponential||Exponential", D.Exponential(t([1.0, 0.5])), D.Exponential(t([2.0, 0.5]))),
    ("Exponential||Gamma", D.Exponential(t([1.0])), D.Gamma(t([2.0]), t([1.0]))),
    ("Laplace||Laplace", D.Laplace(t([0.0]), t([1.0])), D.Laplace(t([1.0]), t([2.0]))),
    ("Uniform||Uniform", D.Uniform(t([0.0]), t([1.0])), D.Uniform(t([-1.0]), t([2.0]))),
    ("Uniform||Normal", D.Uniform(t([0.0]), t([1.0])), D.Normal(t([0.0]), t([1.0]))),
    ("Uniform||Beta", D.Uniform(t([0.2]), t([0.8])), D.Beta(t([2.0]), t([2.0]))),
    ("Normal||Laplace", D.Normal(t([0.0]), t([1.0])), D.Laplace(t([0.0]), t([1.0]))),
    ("Binomial||Binomial", D.Binomial(10, t([0.3])), D.Binomial(10, t([0.5]))),
    ("Geometric||Geometric", D.Geometric(t([0.3])), D.Geometric(t([0.6]))),
    ("Gumbel||Gumbel", D.Gumbel(t([0.0]), t([1.0])), D.Gumbel(t([1.0]), t([2.0]))),
    ("LogNormal||LogNormal", D.LogNormal(t([0.0]), t([1.0])), D.LogNormal(t([0.5]), t([0.5]))),
    ("HalfNormal||HalfNormal", D.HalfNormal(t([1.0])), D.HalfNormal(t([2.0]))),
    ("Cauchy||Cauchy", D.Cauchy(t([0.0]), t([1.0])), D.Cauchy(t([1.0]), t([3.0]))),
]
for name, p, q in pairs:
    k = kl_divergence(p, q)
    print(f"{name:26s} shape={tuple(k.shape)} kl={r(k)}")

# the self-KL is zero
print("self KL", r(kl_divergence(D.Gamma(t([2.0]), t([3.0])), D.Gamma(t([2.0]), t([3.0])))))
# infinite KL where the support of p is not inside q's
print("uniform wider", r(kl_divergence(D.Uniform(t([-1.0]), t([2.0])), D.Uniform(t([0.0]), t([1.0])))))
print("bernoulli 0 vs 1", r(kl_divergence(D.Bernoulli(t([0.5])), D.Bernoulli(t([1.0])))))

# multivariate: MVN with each parametrization, low rank, Independent
torch.manual_seed(0)
A = torch.randn(3, 3)
cov = A @ A.T + 0.5 * torch.eye(3)
mu = t([0.5, -0.5, 1.0])
p_mvn = D.MultivariateNormal(mu, covariance_matrix=cov)
q_mvn = D.MultivariateNormal(torch.zeros(3), precision_matrix=torch.eye(3) * 2.0)
print("MVN||MVN", r(kl_divergence(p_mvn, q_mvn)), r(kl_divergence(q_mvn, p_mvn)))
lr = D.LowRankMultivariateNormal(mu, torch.randn(3, 2) * 0.5, t([0.5, 0.6, 0.7]))
print("LowRank||MVN", r(kl_divergence(lr, q_mvn)), "MVN||LowRank", r(kl_divergence(q_mvn, lr)))
print("LowRank||LowRank", r(kl_divergence(lr, D.LowRankMultivariateNormal(torch.zeros(3), torch.zeros(3, 1),
                                                                          torch.ones(3)))))
diag_p = D.Independent(D.Normal(mu, t([1.0, 2.0, 0.5])), 1)
diag_q = D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1)
as_mvn = D.MultivariateNormal(mu, torch.diag(t([1.0, 4.0, 0.25])))
print("Independent KL", r(kl_divergence(diag_p, diag_q)), "as MVN", r(kl_divergence(as_mvn,
                                                                                      D.MultivariateNormal(
                                                                                          torch.zeros(3),
                                                                                          torch.eye(3)))))
batched = D.Independent(D.Normal(torch.zeros(4, 2, 3), torch.ones(4, 2, 3) * 2), 2)
print("Independent(2) KL shape", kl_divergence(batched, D.Independent(D.Normal(torch.zeros(4, 2, 3),
                                                                                torch.ones(4, 2, 3)), 2)).shape)
try:
    kl_divergence(diag_p, D.Independent(D.Normal(torch.zeros(1, 3), torch.ones(1, 3)), 2))
except NotImplementedError as e:
    print("Independent ndims mismatch:", type(e).__name__, e)

# Monte Carlo check of the analytic KL (VAE-style, with rsample)
torch.manual_seed(1)
q = D.Normal(t([0.3, -0.2]), t([0.8, 1.3]))
prior = D.Normal(torch.zeros(2), torch.ones(2))
z = q.rsample((20000,))
mc = (q.log_prob(z) - prior.log_prob(z)).mean(0)
print("mc KL", [round(v, 2) for v in mc.tolist()], "analytic", r(kl_divergence(q, prior)))


# a custom distribution with a registered KL
class Delta(D.Distribution):
    arg_constraints = {}
    support = D.constraints.real

    def __init__(self, v):
        self.v = v
        super().__init__(batch_shape=v.shape, validate_args=False)

    def log_prob(self, x):
        return torch.where(x == self.v, 0.0, float("-inf"))


@register_kl(Delta, D.Normal)
def _kl_delta_normal(p, q):
    return -q.log_prob(p.v)


print("Delta||Normal", r(kl_divergence(Delta(t([0.0, 1.0])), D.Normal(0.0, 1.0))))
try:
    kl_divergence(D.Normal(0.0, 1.0), Delta(t([0.0])))
except NotImplementedError as e:
    print("Normal||Delta:", type(e).__name__, repr(str(e)))


class MyNormal(D.Normal):
    pass


print("subclass falls back", r(kl_divergence(MyNormal(t([0.0]), t([1.0])), D.Normal(t([1.0]), t([1.0])))))


@register_kl(MyNormal, D.Normal)
def _kl_mynormal(p, q):
    return torch.full_like(p.loc, 42.0)


print("subclass registered", r(kl_divergence(MyNormal(t([0.0]), t([1.0])), D.Normal(t([1.0]), t([1.0])))))
print("registry has pair", (MyNormal, D.Normal) in D.kl._KL_REGISTRY)
for a, b in [(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0)), (D.Poisson(t(1.0)), D.Normal(0.0, 1.0)),
             (D.StudentT(3.0), D.Normal(0.0, 1.0))]:
    try:
        print(r(kl_divergence(a, b)))
    except NotImplementedError:
        print(type(a).__name__, "||", type(b).__name__, "NotImplementedError")

# KL gradients flow to both arguments
mu_q = torch.zeros(2, requires_grad=True)
logs_q = torch.zeros(2, requires_grad=True)
kl = kl_divergence(D.Normal(mu_q, logs_q.exp()), D.Normal(t([1.0, -1.0]), t([2.0, 0.5]))).sum()
kl.backward()
print("kl", round(kl.item(), 4), "grad mu", r(mu_q.grad), "grad log_std", r(logs_q.grad))
cat_logits = torch.zeros(4, requires_grad=True)
klc = kl_divergence(D.Categorical(logits=cat_logits), D.Categorical(probs=t([0.1, 0.2, 0.3, 0.4])))
klc.backward()
print("cat kl", round(klc.item(), 4), "grad", r(cat_logits.grad))
