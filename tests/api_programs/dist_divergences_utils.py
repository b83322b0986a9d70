"""Divergences and helpers around them: a KL table across family pairs (including the infinite ones PyTorch
reports on support mismatches), Monte-Carlo-free checks of KL against numeric integration, the
torch.distributions.utils helpers, transforms at the edge of their range, and the deprecation/validation
messages a model-fitting script runs into."""

import warnings
import numpy as np
import torch
import torch.distributions as D
from torch.distributions import transforms as T, utils as U

torch.set_printoptions(precision=4)
t = torch.tensor


def r(x, k=8):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


def attempt(label, fn):
    try:
        out = fn()
        print(label, r(out) if isinstance(out, torch.Tensor) else out)
    except Exception as e:  # the type and message are part of the behaviour under test
        print(label, type(e).__name__, str(e).replace("\n", " ")[:160])


# KL across families with different supports: PyTorch reports inf where q cannot cover p
unit = D.Uniform(t([0.0, 0.1, -0.5]), t([1.0, 0.9, 1.5]))
cb = D.ContinuousBernoulli(probs=t([0.3, 0.6, 0.8]))
table = [
    ("uniform||contbern", unit, cb),
    ("contbern||uniform", cb, unit),
    ("beta||uniform", D.Beta(t([2.0, 2.0, 2.0]), t([3.0, 3.0, 3.0])), unit),
    ("uniform||beta", unit, D.Beta(t([2.0, 2.0, 2.0]), t([3.0, 3.0, 3.0]))),
    ("uniform||normal", unit, D.Normal(t(0.0), t(1.0))),
    ("uniform||gamma", D.Uniform(t([0.5, -1.0]), t([2.0, 1.0])), D.Gamma(t(2.0), t(1.0))),
    ("uniform||exponential", D.Uniform(t([0.5, -1.0]), t([2.0, 1.0])), D.Exponential(t(1.0))),
    ("uniform||pareto", D.Uniform(t([1.5, 0.5]), t([3.0, 2.0])), D.Pareto(t(1.0), t(2.0))),
    ("uniform||gumbel", unit, D.Gumbel(t(0.0), t(1.0))),
    ("exponential||normal", D.Exponential(t([1.0, 3.0])), D.Normal(t(0.0), t(1.0))),
    ("gamma||normal", D.Gamma(t([2.0, 0.5]), t([1.0, 2.0])), D.Normal(t(1.0), t(2.0))),
    ("beta||normal", D.Beta(t(2.0), t(5.0)), D.Normal(t(0.3), t(0.2))),
    ("beta||exponential", D.Beta(t(2.0), t(5.0)), D.Exponential(t(3.0))),
    ("beta||gamma", D.Beta(t(2.0), t(5.0)), D.Gamma(t(2.0), t(4.0))),
    ("beta||contbern", D.Beta(t(2.0), t(5.0)), D.ContinuousBernoulli(t(0.3))),
    ("contbern||normal", cb, D.Normal(t(0.5), t(1.0))),
    ("contbern||exponential", cb, D.Exponential(t(2.0))),
    ("laplace||normal", D.Laplace(t(0.0), t(1.0)), D.Normal(t(0.5), t(2.0))),
    ("normal||laplace", D.Normal(t(0.0), t(1.0)), D.Laplace(t(0.5), t(2.0))),
    ("pareto||exponential", D.Pareto(t([1.0, 2.0]), t([3.0, 0.5])), D.Exponential(t(1.0))),
    ("pareto||gamma", D.Pareto(t(1.0), t(3.0)), D.Gamma(t(2.0), t(1.0))),
    ("exponential||gumbel", D.Exponential(t(1.0)), D.Gumbel(t(0.0), t(1.0))),
    ("gamma||gumbel", D.Gamma(t(2.0), t(1.0)), D.Gumbel(t(1.0), t(2.0))),
    ("poisson||bernoulli", D.Poisson(t(2.0)), D.Bernoulli(t(0.5))),
    ("bernoulli||poisson", D.Bernoulli(t([0.3, 0.0])), D.Poisson(t([2.0, 1.0]))),
    ("binomial n mismatch", D.Binomial(3, t(0.3)), D.Binomial(4, t(0.3))),
    ("categorical zeros", D.Categorical(t([0.5, 0.5, 0.0])), D.Categorical(t([0.0, 0.5, 0.5]))),
    ("onehot", D.OneHotCategorical(t([0.5, 0.5, 0.0])), D.OneHotCategorical(t([0.2, 0.3, 0.5]))),
    (
        "lowrank||lowrank",
        D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)),
        D.LowRankMultivariateNormal(torch.ones(2), torch.ones(2, 1) * 2, torch.ones(2)),
    ),
    (
        "lowrank||mvn",
        D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)),
        D.MultivariateNormal(torch.zeros(2), torch.eye(2)),
    ),
    (
        "transformed",
        D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), [T.ExpTransform()]),
        D.TransformedDistribution(D.Normal(t(1.0), t(2.0)), [T.ExpTransform()]),
    ),
    (
        "transformed mismatch",
        D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), [T.ExpTransform()]),
        D.TransformedDistribution(D.Normal(t(1.0), t(2.0)), [T.SigmoidTransform()]),
    ),
    (
        "independent dims",
        D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1),
        D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 2),
    ),
]
for label, p, q in table:
    attempt("kl " + label, lambda: D.kl_divergence(p, q))

# KL against a numeric integral on a fine grid (float64)
grid = torch.linspace(1e-4, 1 - 1e-4, 20001, dtype=torch.float64)
p64 = D.Beta(t(2.0, dtype=torch.float64), t(5.0, dtype=torch.float64))
q64 = D.ContinuousBernoulli(t(0.3, dtype=torch.float64))
integrand = p64.log_prob(grid).exp() * (p64.log_prob(grid) - q64.log_prob(grid))
print("kl numeric", round(torch.trapezoid(integrand, grid).item(), 4), r(D.kl_divergence(p64, q64)))

# torch.distributions.utils helpers
attempt("logits_to_probs", lambda: U.logits_to_probs(t([0.0, 1.0, 2.0])))
attempt("logits_to_probs binary", lambda: U.logits_to_probs(t([-2.0, 0.0, 3.0]), is_binary=True))
attempt("probs_to_logits", lambda: U.probs_to_logits(t([0.2, 0.3, 0.5])))
attempt("probs_to_logits binary", lambda: U.probs_to_logits(t([0.0, 0.5, 1.0]), is_binary=True))
attempt("clamp_probs", lambda: U.clamp_probs(t([0.0, 0.5, 1.0])) - t([0.0, 0.5, 1.0]))
attempt("broadcast_all", lambda: [tuple(v.shape) for v in U.broadcast_all(t([[1.0], [2.0]]), t([1.0, 2.0, 3.0]), 4.0)])
attempt("broadcast_all dtype", lambda: [v.dtype for v in U.broadcast_all(t([1.0], dtype=torch.float64), 2)])
attempt("broadcast_all bad", lambda: U.broadcast_all(t([1.0]), "scale"))
attempt("broadcast_all list", lambda: U.broadcast_all(t([1.0]), [2.0]))
attempt("vec_to_tril", lambda: U.vec_to_tril_matrix(t([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])))
attempt("vec_to_tril diag", lambda: U.vec_to_tril_matrix(t([1.0, 2.0, 3.0]), diag=-1))
attempt("tril_to_vec", lambda: U.tril_matrix_to_vec(torch.arange(9.0).reshape(3, 3)))
attempt("vec_to_tril bad 4", lambda: U.vec_to_tril_matrix(t([1.0, 2.0, 3.0, 4.0])))
attempt("vec_to_tril bad 5", lambda: U.vec_to_tril_matrix(torch.ones(5)))
print("euler", round(U.euler_constant, 6))

# sigmoid/logit flows at the edge of float32: the clamps are part of the numbers
sig = T.SigmoidTransform()
attempt("sigmoid fwd", lambda: sig(t([-200.0, -90.0, -20.0, 0.0, 20.0, 90.0])).log())
attempt("sigmoid inv", lambda: sig.inv(t([0.0, 1e-39, 1e-8, 0.5, 1.0 - 1e-8, 1.0])))
attempt("sigmoid inv f64", lambda: sig.inv(t([0.0, 1.0], dtype=torch.float64)))
attempt("sigmoid ldj", lambda: sig.log_abs_det_jacobian(t([-100.0, 0.0, 100.0]), sig(t([-100.0, 0.0, 100.0]))))
logitnormal = D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), [T.SigmoidTransform()])
attempt("logitnormal edges", lambda: logitnormal.log_prob(t([1e-30, 1e-6, 0.5, 1.0 - 1e-6])))
attempt(
    "tanh ldj", lambda: T.TanhTransform().log_abs_det_jacobian(t([0.0, 5.0, 20.0]), torch.tanh(t([0.0, 5.0, 20.0])))
)
attempt("tanh inv", lambda: T.TanhTransform().inv(t([-1.0, 0.0, 0.999999, 1.0])))
attempt("relaxed bern edges", lambda: D.RelaxedBernoulli(t(0.5), probs=t(0.3)).log_prob(t([1e-30, 0.5, 1.0])))
exp_cached = T.ExpTransform(cache_size=1)
xs = t([0.5])
ys = exp_cached(xs)
print("cache", exp_cached.inv(ys) is xs, T.ExpTransform()(xs) is ys, exp_cached.with_cache(0)._cache_size)
attempt("cache size 2", lambda: T.ExpTransform(cache_size=2))

# deprecations and validation messages around sampling
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    shape = D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).sample_n(3).shape
print("sample_n", shape, [(w.category.__name__, str(w.message)) for w in caught])
attempt("sample bad shape", lambda: D.Normal(0.0, 1.0).sample(3))
attempt("log_prob int", lambda: D.Normal(0.0, 1.0).log_prob(t([1, 2])))
attempt("log_prob float", lambda: D.Normal(0.0, 1.0).log_prob(1.0))
attempt("cat float index", lambda: D.Categorical(t([0.2, 0.8])).log_prob(t([0.0, 1.0])))
attempt("cat out of range", lambda: D.Categorical(t([0.2, 0.8])).log_prob(t([2])))
attempt("bern half", lambda: D.Bernoulli(t([0.2, 0.8])).log_prob(t([0.5, 1.0])))
attempt("bern int probs", lambda: D.Bernoulli(t(1)).probs)
attempt("binomial enum", lambda: D.Binomial(t([2.0, 3.0]), t([0.5, 0.5])).enumerate_support())
attempt("independent too deep", lambda: D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 3))
attempt("mixture bad mix", lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(torch.zeros(2), torch.ones(2))))
attempt("mixture bad comp", lambda: D.MixtureSameFamily(D.Categorical(torch.ones(2)), torch.zeros(2)))
