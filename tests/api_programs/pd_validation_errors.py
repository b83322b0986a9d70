"""torch.distributions argument validation as users meet it: ValueError texts for bad parameters and
out-of-support values, validate_args=False, Distribution.set_default_validate_args, constraint objects and
their checks, and the errors of shape mismatches and missing parametrizations."""
import torch
import torch.distributions as D
from torch.distributions import constraints

torch.set_printoptions(precision=4, sci_mode=False)


def attempt(label, fn):
    try:
        out = fn()
        if isinstance(out, torch.Tensor):
            out = [round(v, 4) for v in out.flatten().tolist()]
        print(label, "->", out)
    except Exception as e:  # noqa: BLE001
        print(label, "->", type(e).__name__ + ":", str(e))


t = torch.tensor
attempt("Normal neg scale", lambda: D.Normal(t([0.0]), t([-1.0])))
attempt("Normal nan loc", lambda: D.Normal(t([float("nan")]), t([1.0])))
attempt("Bernoulli probs>1", lambda: D.Bernoulli(probs=t([1.5])))
attempt("Bernoulli both", lambda: D.Bernoulli(probs=t([0.5]), logits=t([0.0])))
attempt("Bernoulli none", lambda: D.Bernoulli())
attempt("Categorical neither", lambda: D.Categorical())
attempt("Categorical neg probs", lambda: D.Categorical(probs=t([0.5, -0.1])))
attempt("Categorical scalar", lambda: D.Categorical(probs=t(0.5)))
attempt("Beta zero", lambda: D.Beta(t([0.0]), t([1.0])))
attempt("Gamma neg rate", lambda: D.Gamma(t([1.0]), t([-2.0])))
attempt("Dirichlet 0-dim", lambda: D.Dirichlet(t(1.0)))
attempt("Uniform low>=high", lambda: D.Uniform(t([1.0]), t([0.0])))
attempt("Poisson neg", lambda: D.Poisson(t([-1.0])))
attempt("Binomial bad count", lambda: D.Binomial(t([-1.0]), probs=t([0.5])))
attempt("StudentT df 0", lambda: D.StudentT(t([0.0])))
attempt("MVN not psd", lambda: D.MultivariateNormal(torch.zeros(2), t([[1.0, 2.0], [2.0, 1.0]])))
attempt("MVN two params", lambda: D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2),
                                                     scale_tril=torch.eye(2)))
attempt("MVN no param", lambda: D.MultivariateNormal(torch.zeros(2)))
attempt("MVN 1-d cov", lambda: D.MultivariateNormal(torch.zeros(2), torch.ones(2)))
attempt("MVN 0-d loc", lambda: D.MultivariateNormal(torch.tensor(0.0), torch.eye(2)))
attempt("LowRank bad factor", lambda: D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(2, 1), torch.ones(3)))
attempt("Independent too many", lambda: D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 2))
attempt("Mixture mismatch", lambda: D.MixtureSameFamily(D.Categorical(torch.ones(3)),
                                                          D.Normal(torch.zeros(2), torch.ones(2))))
attempt("Mixture not categorical", lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0),
                                                                  D.Normal(torch.zeros(2), torch.ones(2))))

# out-of-support values at log_prob
attempt("Exponential log_prob(-1)", lambda: D.Exponential(t([1.0])).log_prob(t([-1.0])))
attempt("Beta log_prob(1.5)", lambda: D.Beta(t([2.0]), t([2.0])).log_prob(t([1.5])))
attempt("Bernoulli log_prob(0.5)", lambda: D.Bernoulli(t([0.3])).log_prob(t([0.5])))
attempt("Categorical log_prob(3)", lambda: D.Categorical(torch.ones(3)).log_prob(t(3)))
attempt("Poisson log_prob(1.5)", lambda: D.Poisson(t([2.0])).log_prob(t([1.5])))
attempt("Dirichlet log_prob off simplex", lambda: D.Dirichlet(torch.ones(3)).log_prob(t([0.5, 0.5, 0.5])))
attempt("Uniform log_prob(2)", lambda: D.Uniform(0.0, 1.0).log_prob(t(2.0)))
attempt("Normal log_prob wrong shape", lambda: D.Normal(torch.zeros(3), torch.ones(3)).log_prob(torch.zeros(2)))

# validate_args=False lets bad values through
attempt("no-validate Exponential", lambda: D.Exponential(t([1.0]), validate_args=False).log_prob(t([-1.0])))
attempt("no-validate Uniform", lambda: D.Uniform(0.0, 1.0, validate_args=False).log_prob(t([2.0, 0.5])))
attempt("no-validate Normal", lambda: D.Normal(t([0.0]), t([-1.0]), validate_args=False).scale)

D.Distribution.set_default_validate_args(False)
attempt("default off Normal", lambda: D.Normal(t([0.0]), t([-1.0])).scale)
attempt("default off Poisson", lambda: D.Poisson(t([2.0])).log_prob(t([1.5])))
attempt("explicit on", lambda: D.Normal(t([0.0]), t([-1.0]), validate_args=True))
D.Distribution.set_default_validate_args(True)
attempt("default back on", lambda: D.Normal(t([0.0]), t([-1.0])))
attempt("set_default bad", lambda: D.Distribution.set_default_validate_args("yes"))

# constraints
for c in (constraints.real, constraints.positive, constraints.unit_interval, constraints.simplex,
          constraints.nonnegative_integer, constraints.boolean, constraints.interval(0.0, 2.0),
          constraints.greater_than(1.0), constraints.integer_interval(0, 3), constraints.lower_cholesky,
          constraints.positive_definite):
    print(c, c.is_discrete, c.event_dim)
x = t([-1.0, 0.0, 0.5, 1.0, 2.5])
print("positive", constraints.positive.check(x).tolist())
print("unit_interval", constraints.unit_interval.check(x).tolist())
print("half_open", constraints.half_open_interval(0.0, 1.0).check(x).tolist())
print("int interval", constraints.integer_interval(0, 2).check(x).tolist())
print("simplex", constraints.simplex.check(t([[0.2, 0.8], [0.5, 0.6]])).tolist())
print("lower_cholesky", constraints.lower_cholesky.check(t([[1.0, 0.0], [0.3, 2.0]])).item(),
      constraints.lower_cholesky.check(t([[1.0, 0.1], [0.3, 2.0]])).item())
print("pd", constraints.positive_definite.check(t([[2.0, 0.5], [0.5, 1.0]])).item())
print("Normal arg_constraints", D.Normal.arg_constraints)
print("Normal support", D.Normal(0.0, 1.0).support, D.Gamma(1.0, 1.0).support, D.Categorical(torch.ones(4)).support)
print("Beta support", D.Beta(1.0, 1.0).support, D.Dirichlet(torch.ones(2)).support)
print("Binomial support", D.Binomial(5, t(0.5)).support)
