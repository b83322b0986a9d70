"""Probabilistic-model mistakes and torch.distributions' exact words for them, printed as type(e).__name__ and
the whole message: parameters outside their constraints (negative scales, probabilities above one, non-simplex
and non-PD covariance), log_prob of values outside the support, mismatched batch shapes, both probs and logits,
rsample of non-reparameterizable families, and the values the valid calls compute."""

import torch
import torch.distributions as D

torch.manual_seed(12)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {torch.round(out.detach(), decimals=4)}")
    else:
        print(f"{name}: ok {out}")
    return out


# --- parameters outside their constraints ------------------------------------------------------------------------
show("normal_negative_scale", lambda: D.Normal(torch.zeros(2), torch.tensor([1.0, -1.0])))
show("normal_zero_scale", lambda: D.Normal(0.0, 0.0))
show("normal_nan_loc", lambda: D.Normal(torch.tensor([0.0, float("nan")]), 1.0))
show("normal_unvalidated_ok", lambda: D.Normal(0.0, -1.0, validate_args=False).scale)
show("bernoulli_probs", lambda: D.Bernoulli(probs=torch.tensor([0.2, 1.3])))
show("bernoulli_both", lambda: D.Bernoulli(probs=0.5, logits=0.0))
show("bernoulli_neither", lambda: D.Bernoulli())
show("categorical_negative", lambda: D.Categorical(probs=torch.tensor([0.5, -0.1, 0.6])))
show("categorical_unnormalized_ok", lambda: D.Categorical(probs=torch.tensor([1.0, 3.0])).probs)
show("categorical_scalar", lambda: D.Categorical(probs=torch.tensor(1.0)))
show("beta_concentration", lambda: D.Beta(torch.tensor(0.0), torch.tensor(1.0)))
show("gamma_rate", lambda: D.Gamma(1.0, -2.0))
show("uniform_bounds", lambda: D.Uniform(1.0, 0.0))
show("dirichlet_negative", lambda: D.Dirichlet(torch.tensor([1.0, -1.0])))
show("dirichlet_scalar", lambda: D.Dirichlet(torch.tensor(1.0)))
show("poisson_negative", lambda: D.Poisson(torch.tensor([-1.0])))
show("binomial_count", lambda: D.Binomial(total_count=torch.tensor(-1.0), probs=0.5))
show("mvn_not_pd", lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
show("mvn_two_matrices", lambda: D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2),
                                                     precision_matrix=torch.eye(2)))
show("mvn_loc_scalar", lambda: D.MultivariateNormal(torch.tensor(0.0), torch.eye(2)))
show("mvn_cov_1d", lambda: D.MultivariateNormal(torch.zeros(2), torch.ones(2)))
show("mvn_shapes", lambda: D.MultivariateNormal(torch.zeros(3), torch.eye(2)))
show("mvn_ok", lambda: D.MultivariateNormal(torch.zeros(2), torch.eye(2) * 2).log_prob(torch.ones(2)))
show("lowrank_ok", lambda: D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)).variance)
show("normal_shapes", lambda: D.Normal(torch.zeros(2), torch.ones(3)))

# --- values outside the support ---------------------------------------------------------------------------------
show("bernoulli_value", lambda: D.Bernoulli(probs=0.3).log_prob(torch.tensor(2.0)))
show("categorical_value", lambda: D.Categorical(logits=torch.zeros(3)).log_prob(torch.tensor(3)))
show("categorical_float_value", lambda: D.Categorical(logits=torch.zeros(3)).log_prob(torch.tensor(1.5)))
show("beta_value", lambda: D.Beta(2.0, 2.0).log_prob(torch.tensor(1.5)))
show("exponential_value", lambda: D.Exponential(1.0).log_prob(torch.tensor(-1.0)))
show("uniform_value", lambda: D.Uniform(0.0, 1.0).log_prob(torch.tensor(2.0)))
show("uniform_value_unvalidated", lambda: D.Uniform(0.0, 1.0, validate_args=False).log_prob(torch.tensor(2.0)))
show("poisson_fraction", lambda: D.Poisson(2.0).log_prob(torch.tensor(1.5)))
show("dirichlet_value", lambda: D.Dirichlet(torch.ones(3)).log_prob(torch.tensor([0.5, 0.5, 0.5])))
show("onehot_value", lambda: D.OneHotCategorical(probs=torch.ones(3) / 3).log_prob(torch.tensor([1.0, 1.0, 0.0])))
show("normal_value_shape", lambda: D.Normal(torch.zeros(2), 1.0).log_prob(torch.zeros(3)))
show("normal_value_bcast_ok", lambda: D.Normal(torch.zeros(2), 1.0).log_prob(torch.zeros(4, 1)))
show("normal_value_int", lambda: D.Normal(0.0, 1.0).log_prob(0))

# --- sampling and the API ------------------------------------------------------------------------------------------
show("rsample_bernoulli", lambda: D.Bernoulli(probs=0.5).rsample())
show("rsample_categorical", lambda: D.Categorical(logits=torch.zeros(3)).rsample())
show("sample_shape_int", lambda: D.Normal(0.0, 1.0).sample(3))
show("sample_shape_ok", lambda: D.Normal(torch.zeros(2), 1.0).sample((3,)))
show("rsample_ok", lambda: D.Normal(torch.zeros(2), torch.ones(2)).rsample((2,)))
show("entropy_ok", lambda: D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5])).entropy())
show("cdf_not_implemented", lambda: D.Dirichlet(torch.ones(2)).cdf(torch.tensor([0.5, 0.5])))
show("icdf_value", lambda: D.Normal(0.0, 1.0).icdf(torch.tensor(1.5)))
show("kl_not_implemented", lambda: D.kl_divergence(D.Beta(1.0, 1.0), D.Normal(0.0, 1.0)))
show("kl_ok", lambda: D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)))
show("independent_dims", lambda: D.Independent(D.Normal(torch.zeros(2), 1.0), 2))
show("independent_ok", lambda: D.Independent(D.Normal(torch.zeros(3, 2), 1.0), 1).log_prob(torch.zeros(3, 2)))
show("expand_bad", lambda: D.Normal(torch.zeros(2), 1.0).expand((3,)))
show("expand_ok", lambda: D.Normal(torch.zeros(2), 1.0).expand((3, 2)).batch_shape)
show("mixture_shapes", lambda: D.MixtureSameFamily(D.Categorical(logits=torch.zeros(3)), D.Normal(torch.zeros(2), 1.0)))
show("mixture_ok", lambda: D.MixtureSameFamily(D.Categorical(logits=torch.zeros(2)),
                                               D.Normal(torch.tensor([-1.0, 1.0]), 1.0)).log_prob(torch.tensor(0.5)))
show("transformed_ok", lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])
     .log_prob(torch.tensor(2.0)))
show("transformed_value", lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])
     .log_prob(torch.tensor(-2.0)))
show("default_validate", lambda: D.Distribution._validate_args)
D.Distribution.set_default_validate_args(False)
show("no_validation_scale_ok", lambda: D.Normal(0.0, -1.0).scale)
D.Distribution.set_default_validate_args(True)
