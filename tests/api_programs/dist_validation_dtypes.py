"""Parameter validation and dtype rules across torch.distributions, as met when porting a model: mixed float32/float64
parameters and values, integer and half-precision parameters, grad_fn of derived quantities, and the ValueError each
family raises for an invalid parameter (messages printed in full)."""

import torch
import torch.distributions as D

t = torch.tensor


def tr(f):
    """Print the result (dtype, shape, rounded values for a tensor) or the exception's type and message."""
    try:
        r = f()
        if isinstance(r, torch.Tensor):
            r = (r.dtype, tuple(r.shape), r.detach().double().round(decimals=4).tolist())
        print(r)
    except Exception as e:  # the type and message are what is compared
        print(type(e).__name__, str(e)[:300])


tr(lambda: D.Normal(0.0, 1.0).log_prob(t([0.5], dtype=torch.float64)))
tr(lambda: D.Normal(t(0.0, dtype=torch.float64), 1.0).log_prob(t([0.5])))
tr(lambda: D.Categorical(t([0.2, 0.8], dtype=torch.float64)).log_prob(t([1])))
tr(lambda: D.Categorical(t([0.2, 0.8])).log_prob(t([1], dtype=torch.int32)))
tr(lambda: D.Bernoulli(t([0.2, 0.8], dtype=torch.float64)).sample().dtype)
tr(lambda: D.Categorical(t([0.2, 0.8], dtype=torch.float64)).sample().dtype)
tr(lambda: D.Poisson(t([2.0], dtype=torch.float64)).log_prob(t([1.0])))
tr(lambda: D.Beta(t(2.0, dtype=torch.float64), t(3.0, dtype=torch.float64)).rsample().dtype)
tr(lambda: D.Dirichlet(t([2.0, 3.0], dtype=torch.float64)).rsample().dtype)
tr(
    lambda: D.MultivariateNormal(torch.zeros(2, dtype=torch.float64), torch.eye(2, dtype=torch.float64)).log_prob(
        torch.zeros(2)
    )
)
tr(lambda: D.kl_divergence(D.Normal(t([0.0, 1.0]), 1.0), D.Normal(t([[0.0], [2.0]]), 1.0)))
tr(lambda: D.kl_divergence(D.Normal(t(0.0, dtype=torch.float64), 1.0), D.Normal(t(1.0), 1.0)))
tr(lambda: D.Distribution.set_default_validate_args(1))
tr(lambda: D.Normal(t(0.0), t(1.0)).log_prob(t(0.5, dtype=torch.float16)))
tr(lambda: D.Normal(t(0.0, dtype=torch.float16), t(1.0, dtype=torch.float16)).log_prob(t(0.5, dtype=torch.float16)))
tr(lambda: D.Normal(t(0.0, dtype=torch.bfloat16), t(1.0, dtype=torch.bfloat16)).entropy())
tr(lambda: D.Normal(t(0, dtype=torch.int64), t(1, dtype=torch.int64)))
tr(lambda: D.Normal(t(0, dtype=torch.int64), t(1, dtype=torch.int64)).log_prob(t(0.5)))
tr(lambda: D.Categorical(logits=t([1, 2])))
tr(lambda: D.Uniform(t(0), t(1)).log_prob(t(0.5)))
tr(lambda: D.Normal(t([0.0], requires_grad=True), 1.0).mean.requires_grad)
tr(lambda: D.Normal(t([0.0], requires_grad=True), 1.0).stddev.requires_grad)
tr(lambda: D.Normal(t([0.0], requires_grad=True), 1.0).sample().requires_grad)
tr(lambda: D.Categorical(logits=t([0.0, 1.0], requires_grad=True)).probs.grad_fn is not None)
tr(lambda: type(D.Categorical(logits=t([0.0, 1.0], requires_grad=True)).probs.grad_fn).__name__)
tr(lambda: type(D.Normal(t([0.0], requires_grad=True), 1.0).log_prob(t([1.0])).grad_fn).__name__)
tr(lambda: type(D.Normal(t([0.0], requires_grad=True), 1.0).entropy().grad_fn).__name__)
tr(lambda: D.Normal(t([0.0, 1.0]), 1.0).log_prob(t([1.0, 2.0, 3.0])))
tr(lambda: D.Categorical(logits=torch.zeros(2, 3)).log_prob(t([0, 1, 2])))
tr(lambda: D.Gamma(t([1.0]), t([1.0])).log_prob(t([-1.0])))
tr(lambda: D.Normal(t(0.0), t(1.0), validate_args=True).log_prob(t(float("inf"))))
tr(lambda: D.Normal(t(0.0), t(0.0)))
tr(lambda: D.Normal(t(0.0), t(0.0), validate_args=False).log_prob(t(0.0)))
tr(lambda: D.Uniform(t(1.0), t(0.0)))
tr(lambda: D.Uniform(t(1.0), t(1.0)))
tr(lambda: D.Binomial(t(2.5), t(0.3)))
tr(lambda: D.Binomial(t(-1.0), t(0.3)))
tr(lambda: D.Multinomial(3.5, t([0.5, 0.5])))
tr(lambda: D.Categorical(t([[0.0, 0.0]])))
tr(lambda: D.Dirichlet(t([0.0, 1.0])))
tr(lambda: D.Beta(t(1.0), t(1.0)).log_prob(t(1.5)))
tr(lambda: D.OneHotCategorical(t([0.5, 0.5])).log_prob(t([1.0, 1.0])))
tr(lambda: D.LKJCholesky(1, t(1.0)))
tr(lambda: D.LKJCholesky(2, t(-1.0)))
tr(lambda: D.Wishart(t(0.5), torch.eye(2)))
tr(lambda: D.StudentT(t(-1.0)))
tr(lambda: D.VonMises(t(0.0), t(-1.0)))
tr(lambda: D.RelaxedBernoulli(t(-0.5), t(0.3)))
tr(lambda: D.Geometric(t(0.0)))
tr(lambda: D.Geometric(t(1.5)))
tr(lambda: D.Poisson(t(-1.0)))
tr(lambda: D.Independent(D.Normal(t(0.0), t(1.0)), 1))
tr(lambda: D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 0).event_shape)
tr(lambda: D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), -1))
