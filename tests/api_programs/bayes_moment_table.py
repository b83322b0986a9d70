"""A posterior-summary table: mean, mode, variance, entropy, cdf/icdf and log_prob for many families."""

import torch

D = torch.distributions


def r(t):
    if not torch.is_tensor(t):
        return t
    return t.detach().round(decimals=4).tolist() if t.is_floating_point() else t.tolist()


fams = {
    "normal": (D.Normal(torch.tensor([0.5, -1.0]), torch.tensor([1.0, 2.0])), torch.tensor([0.3, 0.1])),
    "lognormal": (D.LogNormal(torch.tensor([0.0, 0.5]), torch.tensor([0.5, 1.0])), torch.tensor([1.2, 0.4])),
    "halfnormal": (D.HalfNormal(torch.tensor([1.0, 2.0])), torch.tensor([0.3, 2.5])),
    "halfcauchy": (D.HalfCauchy(torch.tensor([1.0, 0.5])), torch.tensor([0.3, 2.5])),
    "cauchy": (D.Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])), torch.tensor([0.3, 2.5])),
    "laplace": (D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])), torch.tensor([-0.3, 2.5])),
    "gumbel": (D.Gumbel(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])), torch.tensor([-0.3, 2.5])),
    "exponential": (D.Exponential(torch.tensor([0.5, 3.0])), torch.tensor([0.3, 2.5])),
    "gamma": (D.Gamma(torch.tensor([0.5, 4.0]), torch.tensor([1.0, 2.0])), torch.tensor([0.3, 2.5])),
    "inv_gamma": (D.InverseGamma(torch.tensor([3.0, 4.0]), torch.tensor([1.0, 2.0])), torch.tensor([0.3, 2.5])),
    "chi2": (D.Chi2(torch.tensor([1.0, 5.0])), torch.tensor([0.3, 2.5])),
    "beta": (D.Beta(torch.tensor([0.5, 3.0]), torch.tensor([0.5, 2.0])), torch.tensor([0.3, 0.8])),
    "kumaraswamy": (D.Kumaraswamy(torch.tensor([2.0, 0.7]), torch.tensor([3.0, 1.5])), torch.tensor([0.3, 0.8])),
    "uniform": (D.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([2.0, 1.0])), torch.tensor([0.3, 0.8])),
    "studentT": (D.StudentT(torch.tensor([1.5, 5.0]), 0.5, 2.0), torch.tensor([0.3, 0.8])),
    "weibull": (D.Weibull(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0])), torch.tensor([0.3, 0.8])),
    "pareto": (D.Pareto(torch.tensor([1.0, 0.5]), torch.tensor([1.5, 3.0])), torch.tensor([1.3, 2.8])),
    "fisher": (D.FisherSnedecor(torch.tensor([3.0, 6.0]), torch.tensor([5.0, 10.0])), torch.tensor([0.3, 2.8])),
    "gen_pareto": (
        D.GeneralizedPareto(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.2, -0.2])),
        torch.tensor([0.3, 2.8]),
    ),
    "cont_bern": (D.ContinuousBernoulli(probs=torch.tensor([0.2, 0.5])), torch.tensor([0.3, 0.8])),
    "vonmises": (D.VonMises(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 4.0])), torch.tensor([0.3, 2.8])),
    "logistic_normal": (D.LogisticNormal(torch.zeros(2), torch.ones(2)), torch.tensor([0.2, 0.3, 0.5])),
    "bernoulli": (D.Bernoulli(logits=torch.tensor([-1.0, 2.0])), torch.tensor([1.0, 0.0])),
    "binomial": (D.Binomial(torch.tensor([5.0, 12.0]), torch.tensor([0.3, 0.6])), torch.tensor([2.0, 7.0])),
    "neg_binomial": (D.NegativeBinomial(torch.tensor([3.0, 2.5]), torch.tensor([0.4, 0.7])), torch.tensor([2.0, 7.0])),
    "geometric": (D.Geometric(torch.tensor([0.3, 0.8])), torch.tensor([2.0, 0.0])),
    "poisson": (D.Poisson(torch.tensor([0.5, 6.0])), torch.tensor([2.0, 7.0])),
    "categorical": (D.Categorical(logits=torch.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, -1.0]])), torch.tensor([2, 0])),
    "multinomial": (D.Multinomial(6, probs=torch.tensor([0.2, 0.3, 0.5])), torch.tensor([1.0, 2.0, 3.0])),
    "wishart": (
        D.Wishart(df=torch.tensor(5.0), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]])),
        torch.tensor([[6.0, 1.0], [1.0, 4.0]]),
    ),
    "lkj": (
        D.LKJCholesky(3, torch.tensor(1.5)),
        torch.linalg.cholesky(torch.tensor([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]])),
    ),
}
for name, (d, x) in fams.items():
    row = [name]
    for attr in ["mean", "mode", "variance", "entropy", "log_prob", "cdf", "icdf"]:
        if name == "kumaraswamy" and attr == "mode":  # PyTorch's formula reads nan here (see docs/pytorch_compat.md)
            continue
        try:
            if attr in ("mean", "mode", "variance"):
                v = getattr(d, attr)
            elif attr == "entropy":
                v = d.entropy()
            elif attr == "log_prob":
                v = d.log_prob(x)
            elif attr == "cdf":
                v = d.cdf(x)
            else:
                v = d.icdf(torch.tensor([0.25, 0.9]))
            row.append(f"{attr}={r(v)}")
        except NotImplementedError as e:
            row.append(f"{attr}=NotImplementedError({e})")
        except Exception as e:
            row.append(f"{attr}={type(e).__name__}")
    print(" | ".join(row))

print("perplexity", r(D.Categorical(torch.tensor([0.2, 0.3, 0.5])).perplexity()))
print(
    "enum cat",
    r(D.Categorical(torch.ones(2, 3)).enumerate_support()),
    D.Categorical(torch.ones(2, 3)).enumerate_support(expand=False).shape,
)
print("enum binom", r(D.Binomial(3, torch.tensor([0.2, 0.5])).enumerate_support()))
print("enum bern", r(D.Bernoulli(torch.tensor([0.2, 0.5])).enumerate_support(expand=False)))
print("enum onehot", r(D.OneHotCategorical(torch.ones(3)).enumerate_support()))
print("stddev", r(D.Gamma(torch.tensor([2.0]), 3.0).stddev), r(D.Poisson(torch.tensor([4.0])).stddev))
print(
    "dtype f64",
    D.Normal(torch.zeros(2, dtype=torch.float64), 1.0).log_prob(torch.zeros(2)).dtype,
    D.Normal(0, 1).mean.dtype,
    D.Gamma(torch.tensor([1.0], dtype=torch.float64), 2).entropy().dtype,
)
