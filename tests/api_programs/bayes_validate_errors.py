"""Argument validation as a VI codebase meets it: bad parameters, out-of-support values, shape mistakes."""

import torch

D = torch.distributions


def attempt(label, fn):
    try:
        out = fn()
        print(label, "ok", out.shape if hasattr(out, "shape") else out)
    except Exception as e:
        print(label, type(e).__name__, e)


attempt("normal neg scale", lambda: D.Normal(0.0, -1.0))
attempt("normal nan loc", lambda: D.Normal(torch.tensor([0.0, float("nan")]), 1.0))
attempt("normal no validate", lambda: D.Normal(0.0, -1.0, validate_args=False).scale)
attempt("gamma zero rate", lambda: D.Gamma(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])))
attempt("beta", lambda: D.Beta(-1.0, 2.0))
attempt("dirichlet 0-d", lambda: D.Dirichlet(torch.tensor(1.0)))
attempt("dirichlet neg", lambda: D.Dirichlet(torch.tensor([1.0, -0.5])))
attempt("bernoulli both", lambda: D.Bernoulli(probs=0.5, logits=0.0))
attempt("bernoulli none", lambda: D.Bernoulli())
attempt("bernoulli probs>1", lambda: D.Bernoulli(probs=torch.tensor([0.2, 1.5])))
attempt("categorical 0-d", lambda: D.Categorical(probs=torch.tensor(0.3)))
attempt("categorical neg", lambda: D.Categorical(probs=torch.tensor([0.5, -0.1])))
attempt("categorical both", lambda: D.Categorical(probs=torch.ones(2), logits=torch.ones(2)))
attempt("mvn no cov", lambda: D.MultivariateNormal(torch.zeros(2)))
attempt(
    "mvn two", lambda: D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2), scale_tril=torch.eye(2))
)
attempt("mvn 1-d cov", lambda: D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.ones(2)))
attempt("mvn 0-d loc", lambda: D.MultivariateNormal(torch.tensor(0.0), torch.eye(2)))
attempt("mvn not pd", lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
attempt("mvn shape", lambda: D.MultivariateNormal(torch.zeros(3), torch.eye(2)))
attempt("mvn bad tril", lambda: D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 1.0], [0.0, 1.0]])))
attempt("lowrank factor", lambda: D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3), torch.ones(3)))
attempt("lowrank diag", lambda: D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.ones(2)))
attempt("lowrank loc", lambda: D.LowRankMultivariateNormal(torch.tensor(0.0), torch.ones(3, 1), torch.ones(3)))
attempt("uniform", lambda: D.Uniform(1.0, 0.0))
attempt("relaxed temp", lambda: D.RelaxedOneHotCategorical(torch.tensor(-1.0), logits=torch.zeros(3)))
attempt("independent too many", lambda: D.Independent(D.Normal(torch.zeros(3), 1.0), 2))
attempt("binomial count", lambda: D.Binomial(torch.tensor([-1.0]), 0.5))
attempt("studentT df", lambda: D.StudentT(0.0))
attempt("poisson", lambda: D.Poisson(-2.0))

n = D.Normal(torch.zeros(3), torch.ones(3))
attempt("log_prob broadcast", lambda: n.log_prob(torch.zeros(2, 3)))
attempt("log_prob bad shape", lambda: n.log_prob(torch.zeros(4)))
attempt("gamma log_prob neg", lambda: D.Gamma(1.0, 1.0).log_prob(torch.tensor(-1.0)))
attempt("beta log_prob 1.5", lambda: D.Beta(2.0, 2.0).log_prob(torch.tensor([0.5, 1.5])))
attempt("bernoulli log_prob 0.5", lambda: D.Bernoulli(0.3).log_prob(torch.tensor(0.5)))
attempt("categorical log_prob 3", lambda: D.Categorical(torch.ones(3)).log_prob(torch.tensor(3)))
attempt("categorical float", lambda: D.Categorical(torch.ones(3)).log_prob(torch.tensor(1.0)).item())
attempt("dirichlet log_prob", lambda: D.Dirichlet(torch.ones(3)).log_prob(torch.tensor([0.5, 0.5, 0.5])))
attempt("onehot log_prob", lambda: D.OneHotCategorical(torch.ones(3)).log_prob(torch.tensor([1.0, 1.0, 0.0])))
attempt("mvn log_prob", lambda: D.MultivariateNormal(torch.zeros(2), torch.eye(2)).log_prob(torch.zeros(3)))
attempt("indep log_prob", lambda: D.Independent(D.Normal(torch.zeros(2, 3), 1.0), 1).log_prob(torch.zeros(3, 3)))
attempt("poisson frac", lambda: D.Poisson(2.0).log_prob(torch.tensor(1.5)))
attempt("no validation", lambda: round(D.Gamma(1.0, 1.0, validate_args=False).log_prob(torch.tensor(-1.0)).item(), 4))
attempt("expand bad", lambda: D.Normal(torch.zeros(3), 1.0).expand((2, 4)))
attempt("expand ok", lambda: D.Normal(torch.zeros(3), 1.0).expand((2, 3)).batch_shape)
attempt("sample shape arg", lambda: n.sample(5))
attempt("enumerate normal", lambda: n.enumerate_support())
attempt("icdf dirichlet", lambda: D.Dirichlet(torch.ones(2)).cdf(torch.tensor([0.5, 0.5])))
attempt("entropy student", lambda: round(D.StudentT(3.0).entropy().item(), 4))
attempt("mode vonmises", lambda: D.VonMises(1.0, 2.0).mode)

D.Distribution.set_default_validate_args(False)
attempt("default off", lambda: D.Normal(0.0, -1.0).scale)
D.Distribution.set_default_validate_args(True)
attempt("default on", lambda: D.Normal(0.0, -1.0).scale)
attempt("set default bad", lambda: D.Distribution.set_default_validate_args(1))
