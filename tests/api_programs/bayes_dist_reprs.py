"""Printing distributions while debugging a model: reprs, shapes, constraints and properties."""

import torch

D = torch.distributions

dists = [
    D.Normal(0.0, 1.0),
    D.Normal(torch.zeros(3), torch.ones(3)),
    D.Normal(torch.zeros(2, 5), 1.0),
    D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1),
    D.Bernoulli(logits=torch.tensor([0.0, 1.0])),
    D.Bernoulli(probs=0.3),
    D.Categorical(probs=torch.tensor([0.2, 0.8])),
    D.Categorical(logits=torch.zeros(4, 3)),
    D.OneHotCategorical(probs=torch.tensor([0.5, 0.5])),
    D.Gamma(torch.tensor(2.0), torch.tensor(3.0)),
    D.Beta(torch.ones(2), torch.ones(2)),
    D.Dirichlet(torch.ones(4)),
    D.MultivariateNormal(torch.zeros(2), scale_tril=torch.eye(2)),
    D.MultivariateNormal(torch.zeros(3, 2), precision_matrix=torch.eye(2)),
    D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.ones(3)),
    D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=torch.zeros(3)),
    D.RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.3])),
    D.LogNormal(0.0, 1.0),
    D.Uniform(torch.tensor([0.0]), torch.tensor([2.0])),
    D.StudentT(3.0),
    D.Binomial(10, probs=torch.tensor([0.2, 0.5])),
    D.Poisson(torch.tensor([1.0])),
    D.Laplace(0.0, 2.0),
    D.Exponential(torch.tensor([1.0, 2.0])),
    D.HalfCauchy(1.0),
    D.VonMises(torch.tensor(0.0), torch.tensor(2.0)),
    D.Geometric(probs=torch.tensor(0.3)),
    D.NegativeBinomial(total_count=5.0, logits=torch.tensor(0.0)),
    D.Multinomial(10, probs=torch.tensor([0.2, 0.3, 0.5])),
    D.Wishart(df=torch.tensor(4.0), covariance_matrix=torch.eye(2)),
    D.LKJCholesky(3, concentration=2.0),
    D.ContinuousBernoulli(logits=torch.tensor([0.5])),
    D.Kumaraswamy(torch.tensor(2.0), torch.tensor(3.0)),
    D.Chi2(torch.tensor(3.0)),
    D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.SigmoidTransform()]),
    D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), torch.ones(2))),
]
for d in dists:
    print(repr(d))
    print("  ", d.batch_shape, d.event_shape, d.support, d.has_rsample, d.has_enumerate_support)

n = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n.arg_constraints)
print(D.Bernoulli.arg_constraints, D.Categorical.arg_constraints)
print(D.Dirichlet.arg_constraints, D.Gamma.support, D.Beta.support)
print(D.Categorical(logits=torch.zeros(3)).support)
print(D.Binomial(torch.tensor([3.0, 5.0]), 0.5).support)
print(D.Uniform(0.0, 2.0).support)
print(D.Multinomial(4, torch.ones(3)).support)
print(D.Independent(D.Normal(torch.zeros(3), 1.0), 1).support)
print(D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()]).support)
print(D.constraints.real, D.constraints.real_vector, D.constraints.positive_definite, D.constraints.corr_cholesky)
print(D.constraints.boolean, D.constraints.nonnegative_integer, D.constraints.positive_integer)
print(
    D.constraints.half_open_interval(0.0, 1.0),
    D.constraints.cat([D.constraints.real, D.constraints.positive], lengths=[1, 2]),
)
print(D.constraints.independent(D.constraints.real, 2), D.constraints.stack([D.constraints.real]))
print(
    D.constraints.positive.is_discrete,
    D.constraints.integer_interval(0, 3).is_discrete,
    D.constraints.simplex.event_dim,
)
print(D.constraints.simplex.check(torch.tensor([[0.2, 0.8], [0.5, 0.6]])))
print(D.constraints.lower_cholesky.check(torch.tensor([[1.0, 0.0], [2.0, 1.0]])))
print(D.constraints.positive_definite.check(torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
print(D.constraints.interval(0.0, 1.0).check(torch.tensor([0.0, 1.0, 1.5])))
print(D.constraints.half_open_interval(0.0, 1.0).check(torch.tensor([0.0, 1.0])))
print(D.constraints.corr_cholesky.check(torch.eye(3)))
