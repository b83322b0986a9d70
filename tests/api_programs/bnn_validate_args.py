"""Constraint checking as a probabilistic-programming library sees it: supports, arg constraints, validate_args."""

import torch

D = torch.distributions
C = torch.distributions.constraints


def show(fn):
    try:
        out = fn()
        print("ok", out if not isinstance(out, torch.Tensor) else out.round(decimals=4).tolist())
    except Exception as e:
        print(type(e).__name__, str(e).replace("\n", " ")[:200])


families = {
    "Normal": D.Normal(0.0, 1.0),
    "Beta": D.Beta(2.0, 3.0),
    "Gamma": D.Gamma(2.0, 1.5),
    "Dirichlet": D.Dirichlet(torch.ones(3)),
    "StudentT": D.StudentT(3.0),
    "LogNormal": D.LogNormal(0.0, 1.0),
    "Categorical": D.Categorical(probs=torch.tensor([0.2, 0.8])),
    "Bernoulli": D.Bernoulli(0.3),
    "Poisson": D.Poisson(2.0),
    "Uniform": D.Uniform(-1.0, 2.0),
    "Binomial": D.Binomial(5, probs=torch.tensor(0.4)),
}
for name, d in families.items():
    print(name, d.support, "discrete" if d.support.is_discrete else "continuous", d.support.event_dim)
for name in ["Normal", "Beta", "Gamma", "StudentT", "Dirichlet"]:
    cons = families[name].arg_constraints
    print(name, {k: str(v) for k, v in cons.items()})

print(C.positive.check(torch.tensor([-1.0, 0.0, 1.0])).tolist())
print(C.nonnegative.check(torch.tensor([-1.0, 0.0, 1.0])).tolist())
print(C.unit_interval.check(torch.tensor([-0.1, 0.0, 1.0, 1.1])).tolist())
print(C.interval(0, 2).check(torch.tensor([0.0, 2.0, 2.1])).tolist())
print(C.half_open_interval(0, 2).check(torch.tensor([0.0, 2.0])).tolist())
print(C.integer_interval(0, 3).check(torch.tensor([0.0, 1.5, 3.0])).tolist())
print(
    C.greater_than(1.0).check(torch.tensor([1.0, 1.5])).tolist(),
    C.greater_than_eq(1.0).check(torch.tensor([1.0])).tolist(),
)
print(C.less_than(0.0).check(torch.tensor([-1.0, 0.0])).tolist())
print(C.nonnegative_integer.check(torch.tensor([0.0, 2.0, 2.5, -1.0])).tolist())
print(C.boolean.check(torch.tensor([0.0, 1.0, 0.5])).tolist())
print(C.simplex.check(torch.tensor([[0.5, 0.5], [0.6, 0.6]])).tolist())
print(C.positive_definite.check(torch.tensor([[[2.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])).tolist())
print(
    C.lower_cholesky.check(torch.tensor([[1.0, 0.0], [3.0, 2.0]])).item(),
    C.lower_triangular.check(torch.tensor([[1.0, 1.0], [0.0, 1.0]])).item(),
)
print(C.independent(C.real, 1).check(torch.tensor([[0.0, float("nan")], [1.0, 2.0]])).tolist())
print(C.real_vector.check(torch.tensor([[0.0, float("inf")]])).tolist())
print(repr(C.interval(0.0, 1.0)), repr(C.independent(C.positive, 1)), repr(C.greater_than(2.0)))
print(C.positive.is_discrete, C.nonnegative_integer.is_discrete, C.simplex.event_dim, C.positive_definite.event_dim)
print(C.is_dependent(C.dependent), C.is_dependent(C.real))

# out-of-support values with validate_args=True (the default while debugging)
show(lambda: D.Beta(2.0, 3.0, validate_args=True).log_prob(torch.tensor(1.5)))
show(lambda: D.Gamma(2.0, 1.5, validate_args=True).log_prob(torch.tensor(-1.0)))
show(lambda: D.Categorical(probs=torch.tensor([0.2, 0.8]), validate_args=True).log_prob(torch.tensor(2)))
show(lambda: D.Dirichlet(torch.ones(3), validate_args=True).log_prob(torch.tensor([0.5, 0.5, 0.5])))
show(lambda: D.Normal(0.0, -1.0, validate_args=True))
show(lambda: D.Beta(torch.tensor([1.0, -2.0]), 1.0, validate_args=True))
show(lambda: D.Bernoulli(probs=torch.tensor(1.5), validate_args=True))
show(lambda: D.Normal(0.0, 1.0, validate_args=True).log_prob(torch.tensor([1, 2])))
show(lambda: D.Poisson(torch.tensor(2.0), validate_args=True).log_prob(torch.tensor(1.5)))
show(lambda: D.Uniform(0.0, 1.0, validate_args=True).log_prob(torch.tensor(2.0)))
show(lambda: D.StudentT(-1.0, validate_args=True))
# with validation switched off, values outside the support give nan/-inf silently
show(lambda: D.Beta(2.0, 3.0, validate_args=False).log_prob(torch.tensor(1.5)))
show(lambda: D.Uniform(0.0, 1.0, validate_args=False).log_prob(torch.tensor([0.5, 2.0])))
show(lambda: D.Gamma(2.0, 1.5, validate_args=False).log_prob(torch.tensor(0.0)))
D.Distribution.set_default_validate_args(False)
show(lambda: D.Normal(0.0, -1.0).scale)
D.Distribution.set_default_validate_args(True)
show(lambda: D.Normal(0.0, -1.0))
show(lambda: D.Normal(0.0, 1.0).log_prob(torch.ones(2, 3)).shape)
show(lambda: D.Normal(torch.zeros(3), 1.0).log_prob(torch.ones(2)))
show(lambda: D.Independent(D.Normal(torch.zeros(3), 1.0), 2))
show(lambda: D.Categorical(torch.tensor([[0.2, 0.8]])).expand((3, 2)).batch_shape)
show(lambda: D.Categorical(torch.tensor([0.2, 0.8])).expand((3,)).probs.shape)
show(lambda: D.Normal(torch.zeros(3), 1.0).expand((2, 4)))
show(lambda: D.Normal(0.0, 1.0).cdf(torch.tensor([0.0, 1.96])))
show(lambda: D.Normal(0.0, 1.0).icdf(torch.tensor([0.5, 0.975])))
show(lambda: D.Normal(0.0, 1.0).icdf(torch.tensor([1.5])))
show(lambda: D.Exponential(2.0).icdf(torch.tensor([0.5])))
show(lambda: D.Gamma(2.0, 1.0).icdf(torch.tensor([0.5])))
show(lambda: D.Gamma(2.0, 1.0).rsample().shape)
show(lambda: D.Poisson(2.0).rsample())
show(lambda: D.Beta(2.0, 3.0).enumerate_support())
show(lambda: D.Bernoulli(torch.tensor([0.3, 0.6])).enumerate_support(expand=False).shape)
show(lambda: D.Bernoulli(torch.tensor([0.3, 0.6])).enumerate_support().shape)
show(lambda: D.Categorical(torch.tensor([0.2, 0.8]), logits=torch.tensor([0.0, 0.0])))
