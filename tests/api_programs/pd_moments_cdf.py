"""The summary statistics of torch.distributions families as a stats notebook tabulates them: mean, mode,
variance, stddev, entropy, cdf and icdf (with round trips), perplexity, support bounds, the NotImplementedError
of families without a closed form, expand() and batch broadcasting of parameters, and float64 parameters."""
import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


t = torch.tensor
fams = {
    "Normal": D.Normal(t([0.0, 2.0]), t([1.0, 0.5])),
    "Laplace": D.Laplace(t([0.0, 2.0]), t([1.0, 0.5])),
    "Cauchy": D.Cauchy(t([0.0, 2.0]), t([1.0, 0.5])),
    "Uniform": D.Uniform(t([0.0, -1.0]), t([1.0, 3.0])),
    "Exponential": D.Exponential(t([1.0, 4.0])),
    "Gamma": D.Gamma(t([0.5, 3.0]), t([1.0, 2.0])),
    "Beta": D.Beta(t([0.5, 3.0]), t([0.5, 2.0])),
    "StudentT": D.StudentT(t([1.5, 5.0]), t([0.0, 1.0]), t([1.0, 2.0])),
    "LogNormal": D.LogNormal(t([0.0, 1.0]), t([0.5, 0.25])),
    "Gumbel": D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])),
    "HalfNormal": D.HalfNormal(t([1.0, 2.0])),
    "HalfCauchy": D.HalfCauchy(t([1.0, 2.0])),
    "Pareto": D.Pareto(t([1.0, 2.0]), t([1.5, 3.0])),
    "Weibull": D.Weibull(t([1.0, 2.0]), t([0.5, 3.0])),
    "Chi2": D.Chi2(t([1.0, 4.0])),
    "Bernoulli": D.Bernoulli(t([0.3, 0.5])),
    "Poisson": D.Poisson(t([0.5, 4.0])),
    "Binomial": D.Binomial(t([10.0, 4.0]), t([0.3, 0.5])),
    "Geometric": D.Geometric(t([0.3, 0.9])),
    "NegativeBinomial": D.NegativeBinomial(t([3.0, 1.5]), t([0.4, 0.2])),
    "Categorical": D.Categorical(t([[0.1, 0.2, 0.7], [0.4, 0.4, 0.2]])),
}
for name, dist in fams.items():
    row = [f"{name:16s}"]
    for stat in ("mean", "mode", "variance", "stddev", "entropy"):
        try:
            val = getattr(dist, stat)
            val = val() if callable(val) else val
            row.append(f"{stat}={r(val)}")
        except NotImplementedError:
            row.append(f"{stat}=NotImplemented")
    print(" ".join(row))

# Kumaraswamy's mode is left out: PyTorch 2.13's formula reads nan for a, b > 1 (ember's is the textbook one)
kum = D.Kumaraswamy(t([2.0, 0.5]), t([3.0, 0.5]))
print("Kumaraswamy", r(kum.mean), r(kum.variance), r(kum.entropy()))

# cdf / icdf round trips
q = t([0.1, 0.5])
for name in ("Normal", "Laplace", "Cauchy", "Uniform", "Exponential", "HalfNormal", "HalfCauchy", "LogNormal",
             "Gumbel", "Pareto", "Weibull"):
    dist = fams[name]
    try:
        x = dist.icdf(q)
        print(f"{name:12s} icdf={r(x)} cdf(icdf)={r(dist.cdf(x))}")
    except NotImplementedError:
        print(f"{name:12s} icdf NotImplemented cdf(1.0)={r(dist.cdf(t([1.0, 1.0])))}")
for name in ("Gamma", "Beta", "StudentT", "Chi2", "Poisson", "Binomial", "Bernoulli"):
    try:
        print(name, "cdf", r(fams[name].cdf(t([1.0, 1.0]))))
    except NotImplementedError:
        print(name, "cdf NotImplementedError")
print("Gamma cdf values", r(D.Gamma(t([0.5, 3.0, 8.0]), t([1.0, 2.0, 1.0])).cdf(t([0.3, 1.5, 8.0]))))
print("Normal cdf tails", r(D.Normal(0.0, 1.0).cdf(t([-6.0, -3.0, 0.0, 3.0, 6.0]))))
print("Normal icdf edges", r(D.Normal(0.0, 1.0).icdf(t([0.0, 1e-6, 0.5, 1.0]))))

# perplexity, support bounds, enumerate_support
cat = fams["Categorical"]
print("perplexity", r(cat.perplexity()), "exp entropy", r(cat.entropy().exp()))
print("Uniform support", fams["Uniform"].support, "Pareto support", fams["Pareto"].support)
print("Binomial enumerate", D.Binomial(3, t([0.5])).enumerate_support().flatten().tolist())
print("Bernoulli enumerate", fams["Bernoulli"].enumerate_support().tolist())
print("OneHot enumerate", D.OneHotCategorical(t([0.2, 0.8])).enumerate_support().tolist())

# expand and broadcasting of mixed scalar/tensor parameters
n = D.Normal(0.0, t([1.0, 2.0, 3.0]))
print("broadcast params", n.loc, n.batch_shape)
e = n.expand((4, 3))
print("expand", e.batch_shape, e.loc.shape, e.loc.stride(), r(e.entropy()[:, 0]))
torch.manual_seed(0)
print("expanded sample", e.sample().shape, e.log_prob(torch.zeros(4, 3)).shape)
try:
    n.expand((2,))
except RuntimeError as err:
    print("bad expand:", type(err).__name__, str(err)[:70])
g = D.Gamma(t(2.0), t([1.0, 3.0])).expand((2, 2))
print("gamma expand", g.concentration.tolist(), r(g.mean))
print("Independent expand", D.Independent(D.Normal(torch.zeros(3), 1.0), 1).expand((5,)).batch_shape)

# float64 parameters keep float64 everywhere
d64 = D.Gamma(t([2.0], dtype=torch.float64), t([0.5], dtype=torch.float64))
torch.manual_seed(1)
s64 = d64.sample((2,))
print("float64", s64.dtype, d64.log_prob(s64).dtype, d64.entropy().dtype, d64.mean.dtype, r(s64))
print("float64 normal cdf", D.Normal(t(0.0, dtype=torch.float64), 1.0).cdf(t(1.0, dtype=torch.float64)).item())
print("int value to float dist", D.Normal(0.0, 1.0).log_prob(t(1)).dtype)
