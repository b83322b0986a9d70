"""KL terms between mismatched posterior and prior families, infinite divergences, and batched broadcasting."""

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


cases = {
    "exp||normal": (D.Exponential(2.0), D.Normal(0.0, 1.0)),
    "gamma||normal": (D.Gamma(2.0, 1.0), D.Normal(1.0, 2.0)),
    "gamma||exp": (D.Gamma(2.0, 3.0), D.Exponential(1.0)),
    "gamma||gumbel": (D.Gamma(2.0, 3.0), D.Gumbel(0.0, 1.0)),
    "exp||gumbel": (D.Exponential(2.0), D.Gumbel(0.0, 1.0)),
    "beta||normal": (D.Beta(2.0, 3.0), D.Normal(0.0, 1.0)),
    "beta||exp": (D.Beta(2.0, 3.0), D.Exponential(2.0)),
    "beta||gamma": (D.Beta(2.0, 3.0), D.Gamma(2.0, 3.0)),
    "beta||cont_bern": (D.Beta(2.0, 3.0), D.ContinuousBernoulli(0.3)),
    "beta||uniform(0.5,1)": (D.Beta(2.0, 3.0), D.Uniform(0.5, 1.0)),
    "uniform||beta": (D.Uniform(0.2, 0.5), D.Beta(2.0, 3.0)),
    "uniform||exp": (D.Uniform(0.2, 0.5), D.Exponential(2.0)),
    "uniform||gamma": (D.Uniform(0.2, 0.5), D.Gamma(2.0, 3.0)),
    "uniform||gumbel": (D.Uniform(0.0, 1.0), D.Gumbel(0.0, 1.0)),
    "uniform||pareto": (D.Uniform(1.2, 1.5), D.Pareto(1.0, 3.0)),
    "uniform||cont_bern": (D.Uniform(0.2, 0.5), D.ContinuousBernoulli(0.3)),
    "cont_bern||uniform": (D.ContinuousBernoulli(0.3), D.Uniform(0.0, 1.0)),
    "cont_bern||normal": (D.ContinuousBernoulli(0.3), D.Normal(0.0, 1.0)),
    "cont_bern||exp": (D.ContinuousBernoulli(0.3), D.Exponential(2.0)),
    "normal||gumbel": (D.Normal(0.0, 1.0), D.Gumbel(0.0, 1.0)),
    "normal||laplace": (D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0)),
    "laplace||normal": (D.Laplace(0.0, 1.0), D.Normal(0.0, 1.0)),
    "gumbel||normal": (D.Gumbel(2.0, 3.0), D.Normal(0.0, 1.0)),
    "pareto||normal": (D.Pareto(1.0, 3.0), D.Normal(0.0, 1.0)),
    "pareto||exp": (D.Pareto(1.0, 3.0), D.Exponential(1.0)),
    "pareto||pareto": (D.Pareto(1.0, 3.0), D.Pareto(0.5, 2.0)),
    "halfnormal||exp": (D.HalfNormal(1.0), D.Exponential(1.0)),
    "poisson||binomial": (D.Poisson(2.0), D.Binomial(5, 0.4)),
    "binomial||poisson": (D.Binomial(5, 0.4), D.Poisson(2.0)),
    "lognormal||lognormal": (D.LogNormal(0.0, 1.0), D.LogNormal(1.0, 1.0)),
    "onehot||onehot": (D.OneHotCategorical(torch.tensor([0.2, 0.8])), D.OneHotCategorical(torch.tensor([0.5, 0.5]))),
}
for name, (p, q) in cases.items():
    try:
        print(name, r(D.kl_divergence(p, q)))
    except NotImplementedError:
        print(name, "NotImplementedError")

# supports that do not nest give +inf, as a lazy prior choice would
print("uniform wider", D.kl_divergence(D.Uniform(0.0, 2.0), D.Uniform(0.0, 1.0)).item())
print(
    "categorical zero mass",
    D.kl_divergence(D.Categorical(torch.tensor([0.5, 0.5])), D.Categorical(torch.tensor([1.0, 0.0]))).item(),
)
print(
    "categorical 0 log 0",
    D.kl_divergence(D.Categorical(torch.tensor([1.0, 0.0])), D.Categorical(torch.tensor([0.5, 0.5]))).item(),
)
print(
    "bernoulli edges",
    D.kl_divergence(D.Bernoulli(torch.tensor([0.0, 1.0, 0.5])), D.Bernoulli(torch.tensor([0.5, 0.5, 1.0]))).tolist(),
)
print("binomial counts differ", D.kl_divergence(D.Binomial(6, 0.4), D.Binomial(5, 0.4)).item())
print("pareto support", D.kl_divergence(D.Pareto(0.5, 3.0), D.Pareto(1.0, 2.0)).item())

# batched posteriors against a single prior broadcast like arithmetic
print("broadcast", D.kl_divergence(D.Normal(torch.zeros(3, 1), 1.0), D.Normal(torch.zeros(4), 2.0)).shape)
print(
    "mvn batch",
    r(
        D.kl_divergence(
            D.MultivariateNormal(torch.zeros(4, 2), torch.eye(2)), D.MultivariateNormal(torch.ones(2), 2 * torch.eye(2))
        )
    ),
)
print("expanded", r(D.kl_divergence(D.Normal(0.0, 1.0).expand((3,)), D.Normal(1.0, 1.0))))
print("dirichlet batch", r(D.kl_divergence(D.Dirichlet(torch.ones(2, 3)), D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])))))
print("float64", D.kl_divergence(D.Normal(torch.tensor(2.0, dtype=torch.float64), 3.0), D.Normal(0.0, 1.0)).dtype)

# gradient of a cross-family KL: a Beta posterior against a Uniform prior is minus its entropy
a = torch.tensor(2.0, requires_grad=True)
kl = D.kl_divergence(D.Beta(a, 3.0), D.Uniform(0.0, 1.0))
kl.backward()
print(
    "beta||uniform", round(kl.item(), 4), round(-D.Beta(2.0, 3.0).entropy().item(), 4), "grad", round(a.grad.item(), 4)
)

for p, q in [
    (D.Independent(D.Normal(torch.zeros(3, 2), 1.0), 1), D.Independent(D.Normal(torch.zeros(2), 1.0), 1)),
    (D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), 1.0)), D.Normal(0.0, 1.0)),
    (
        D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()]),
        D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.SigmoidTransform()]),
    ),
    (D.VonMises(0.0, 1.0), D.VonMises(1.0, 2.0)),
    (D.RelaxedBernoulli(torch.tensor(0.5), 0.3), D.RelaxedBernoulli(torch.tensor(0.5), 0.4)),
]:
    try:
        print(r(D.kl_divergence(p, q)))
    except Exception as e:
        print(type(p).__name__, type(e).__name__, e)
