"""Seeded draws from every common torch.distributions sampler, as a probabilistic-modelling notebook prints them:
sample vs rsample for the location-scale families, the discrete samplers, the Gamma family, relaxed (Gumbel)
samplers, low-rank and precision-parametrized Gaussians, mixtures, and the shapes that sample_shape produces."""
import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.flatten().tolist()]


def show(name, dist, shape=(3,), seed=0, rsample=False):
    torch.manual_seed(seed)
    s = dist.rsample(shape) if rsample else dist.sample(shape)
    print(f"{name:22s} {tuple(s.shape)} {s.dtype} {r(s)}")
    return s


loc = torch.tensor([0.5, -1.0])
scale = torch.tensor([1.0, 0.25])
show("Normal.sample", D.Normal(loc, scale))
show("Normal.rsample", D.Normal(loc, scale), rsample=True)
show("Laplace", D.Laplace(loc, scale))
show("Laplace.rsample", D.Laplace(loc, scale), rsample=True)
show("Cauchy", D.Cauchy(loc, scale))
show("Cauchy.rsample", D.Cauchy(loc, scale), rsample=True)
show("Uniform", D.Uniform(torch.tensor([0.0, -2.0]), torch.tensor([1.0, 3.0])))
show("Uniform.rsample", D.Uniform(torch.tensor([0.0, -2.0]), torch.tensor([1.0, 3.0])), rsample=True)
show("Exponential", D.Exponential(torch.tensor([1.0, 4.0])))
show("Exponential.rsample", D.Exponential(torch.tensor([1.0, 4.0])), rsample=True)
show("LogNormal", D.LogNormal(loc, scale))
show("Gumbel", D.Gumbel(loc, scale))
show("HalfNormal", D.HalfNormal(scale))
show("Logistic-ish", D.TransformedDistribution(
    D.Uniform(torch.zeros(2), torch.ones(2)),
    [D.transforms.SigmoidTransform().inv, D.transforms.AffineTransform(loc, scale)]))

# Gamma family (rejection samplers)
show("Gamma", D.Gamma(torch.tensor([0.3, 2.5]), torch.tensor([1.0, 0.5])), seed=1)
show("Gamma.rsample", D.Gamma(torch.tensor([0.3, 2.5]), torch.tensor([1.0, 0.5])), seed=1, rsample=True)
show("Beta", D.Beta(torch.tensor([0.5, 3.0]), torch.tensor([0.5, 1.5])), seed=2)
show("Dirichlet", D.Dirichlet(torch.tensor([0.5, 1.0, 4.0])), shape=(2,), seed=3)
show("StudentT", D.StudentT(torch.tensor([2.0, 30.0]), loc, scale), seed=4)
show("Chi2", D.Chi2(torch.tensor([1.0, 5.0])), seed=5)

# discrete samplers
show("Bernoulli probs", D.Bernoulli(probs=torch.tensor([0.2, 0.7, 0.5])), shape=(4,), seed=6)
show("Bernoulli logits", D.Bernoulli(logits=torch.tensor([-1.0, 2.0, 0.0])), shape=(4,), seed=6)
show("Categorical", D.Categorical(logits=torch.tensor([0.1, 1.2, -0.5, 0.3])), shape=(10,), seed=7)
show("OneHotCategorical", D.OneHotCategorical(probs=torch.tensor([0.2, 0.5, 0.3])), shape=(3,), seed=7)
show("Poisson", D.Poisson(torch.tensor([0.7, 4.0, 25.0])), shape=(3,), seed=8)
show("Binomial", D.Binomial(10, probs=torch.tensor([0.1, 0.5, 0.9])), shape=(3,), seed=9)
show("Binomial tensor n", D.Binomial(torch.tensor([5.0, 50.0]), logits=torch.tensor([0.3, -0.2])), seed=9)
show("Geometric", D.Geometric(probs=torch.tensor([0.3, 0.8])), shape=(4,), seed=10)
show("Multinomial", D.Multinomial(12, probs=torch.tensor([0.1, 0.6, 0.3])), shape=(2,), seed=11)
show("NegativeBinomial", D.NegativeBinomial(torch.tensor([3.0]), probs=torch.tensor([0.4])), shape=(4,), seed=12)

# relaxed samplers
show("RelaxedBernoulli", D.RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.2, 0.8])), seed=13)
show("RelaxedOneHot", D.RelaxedOneHotCategorical(torch.tensor(0.7), logits=torch.tensor([1.0, 0.0, -1.0])),
     shape=(2,), seed=13)

# Gaussians with structure
torch.manual_seed(14)
prec = torch.tensor([[2.0, 0.3], [0.3, 1.0]])
mvn_p = D.MultivariateNormal(torch.zeros(2), precision_matrix=prec)
mvn_c = D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.linalg.inv(prec))
show("MVN precision", mvn_p, seed=14)
show("MVN covariance", mvn_c, seed=14)
print("same scale_tril", torch.allclose(mvn_p.scale_tril, mvn_c.scale_tril, atol=1e-5))
lr = D.LowRankMultivariateNormal(torch.tensor([1.0, 0.0, -1.0]), torch.tensor([[0.5], [1.0], [-0.3]]),
                                 torch.tensor([0.2, 0.3, 0.4]))
show("LowRankMVN", lr, shape=(2,), seed=15)
mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])),
                          D.Normal(torch.tensor([-2.0, 2.0]), torch.tensor([0.5, 1.0])))
show("MixtureSameFamily", mix, shape=(6,), seed=16)

# sample shapes and batch/event shapes
ind = D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
torch.manual_seed(17)
s = ind.sample((4, 5))
print("Independent", ind.batch_shape, ind.event_shape, tuple(s.shape), tuple(ind.log_prob(s).shape))
print("expand", D.Normal(0.0, 1.0).expand((2, 2)).sample().shape)
torch.manual_seed(18)
a = D.Normal(loc, scale).sample((2,))
torch.manual_seed(18)
b = D.Normal(loc, scale).sample((2,))
print("reproducible", torch.equal(a, b))
print("has_rsample", [d.has_rsample for d in (D.Normal(0., 1.), D.Gamma(1., 1.), D.Poisson(1.),
                                             D.Categorical(logits=torch.zeros(2)), mix)])

# the graph an rsample leaves behind
p = torch.tensor([0.7, 2.5], requires_grad=True)
for name, dist in (("Normal", D.Normal(p, 1.0)), ("Gamma", D.Gamma(p, 2.0)), ("Chi2", D.Chi2(p)),
                   ("Exponential", D.Exponential(p)), ("Laplace", D.Laplace(p, 1.0)), ("StudentT", D.StudentT(p)),
                   ("Uniform", D.Uniform(-p, p)), ("LogNormal", D.LogNormal(p, 1.0)),
                   ("MVN", D.MultivariateNormal(p, torch.eye(2)))):
    torch.manual_seed(19)
    s = dist.rsample()
    (g,) = torch.autograd.grad(s.sum(), p)
    print(f"{name:12s} grad_fn={s.grad_fn.name():16s} grad={r(g)}")
