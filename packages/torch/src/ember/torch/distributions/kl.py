"""`kl_divergence(p, q)` and its registry of closed forms, keyed by the pair of distribution types.

Lookup takes the registered pair most specific to (type(p), type(q)) along their MROs, preferring the more
specific p; when preferring the more specific q would pick another function, it warns (the pair is
ambiguous) as PyTorch does. A pair with no registered function raises NotImplementedError.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import total_ordering

import ember.autograd as torch
from ember.autograd import Tensor

from ember.torch.distributions._special import digamma, lgamma
from ember.torch.distributions.bernoulli import Bernoulli
from ember.torch.distributions.beta import Beta
from ember.torch.distributions.binomial import Binomial
from ember.torch.distributions.categorical import Categorical
from ember.torch.distributions.cauchy import Cauchy
from ember.torch.distributions.continuous_bernoulli import ContinuousBernoulli
from ember.torch.distributions.dirichlet import Dirichlet
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.exp_family import ExponentialFamily
from ember.torch.distributions.exponential import Exponential
from ember.torch.distributions.gamma import Gamma
from ember.torch.distributions.geometric import Geometric
from ember.torch.distributions.gumbel import Gumbel
from ember.torch.distributions.half_normal import HalfNormal
from ember.torch.distributions.independent import Independent
from ember.torch.distributions.laplace import Laplace
from ember.torch.distributions.lowrank_multivariate_normal import (  # noqa: F401 (PyTorch's kl names them)
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
from ember.torch.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis, _solve_lower
from ember.torch.distributions.normal import Normal
from ember.torch.distributions.one_hot_categorical import OneHotCategorical
from ember.torch.distributions.pareto import Pareto
from ember.torch.distributions.poisson import Poisson
from ember.torch.distributions.transformed_distribution import TransformedDistribution
from ember.torch.distributions.uniform import Uniform
from ember.torch.distributions.utils import _infer_size, _sum_rightmost, euler_constant

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict[tuple[type, type], Callable] = {}
_KL_MEMOIZE: dict[tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Register a function `fn(p, q)` computing KL(p || q) for p of `type_p` and q of `type_q` (or subclasses).

    Example:
        >>> class UnitNormal(Normal): ...
        >>> @register_kl(UnitNormal, UnitNormal)
        ... def _kl_unit(p, q):
        ...     return 0.5 * (p.loc - q.loc).pow(2)
        >>> float(kl_divergence(UnitNormal(0.0, 1.0), UnitNormal(2.0, 1.0)))
        2.0
    """
    # PyTorch's check, as it is written: a class passes whatever it is (`register_kl(int, Normal)` registers), and
    # a non-class fails in `issubclass` ("issubclass() arg 1 must be a class") before its own message
    for t in (type_p, type_q):
        if not isinstance(t, type) and issubclass(t, Distribution):
            raise TypeError(f"Expected type_p and type_q to be Distribution subclasses but got {t}")

    def decorator(fn: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()  # a new entry can change which function is the most specific
        return fn

    return decorator


@total_ordering
class _Match:
    """A registered pair of types ordered lexicographically by subclassing: the first type that differs decides
    (a subclass sorts first); `min` over the matches picks the most specific pair, as PyTorch's dispatch."""

    __slots__ = ["types"]

    def __init__(self, *types) -> None:
        self.types = types

    def __eq__(self, other) -> bool:
        return self.types == other.types

    def __le__(self, other) -> bool:
        for mine, theirs in zip(self.types, other.types):
            if not issubclass(mine, theirs):
                return False
            if mine is not theirs:
                return True
        return True


def _dispatch_kl(type_p: type, type_q: type):
    matches = [(a, b) for a, b in _KL_REGISTRY if issubclass(type_p, a) and issubclass(type_q, b)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types  # the more specific p first, then q
    right_q, right_p = min(_Match(*m[::-1]) for m in matches).types  # the more specific q first
    left, right = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return left


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) = E_p[log p(x) - log q(x)], of shape `batch_shape`.

    Raises:
        NotImplementedError: when no closed form is registered for the pair of types.
    """
    key = (type(p), type(q))
    fn = _KL_MEMOIZE.get(key)
    if fn is None:
        fn = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fn is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fn(p, q)


def _infinite_like(tensor: Tensor) -> Tensor:
    """A tensor of +inf like `tensor` (a KL that diverges)."""
    return torch.full_like(tensor, math.inf)


def _batch_trace_XXT(bmat: Tensor) -> Tensor:
    """trace(X X^T) of each matrix in a batch: the sum of its squared entries."""
    return bmat.pow(2).sum((-2, -1))


def _log_normal_norm(scale: Tensor) -> Tensor:
    """log(scale * sqrt(2 pi)): the normalizer of a Normal's log-density."""
    return torch.log(scale) + 0.5 * math.log(2 * math.pi)


# --- pairs of the same family --------------------------------------------------------------------
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (torch.softplus(-q.logits) - torch.softplus(-p.logits))
    t1 = torch.where(p.probs == 0, torch.zeros_like(t1), torch.where(q.probs == 0, _infinite_like(t1), t1))
    t2 = (1 - p.probs) * (torch.softplus(q.logits) - torch.softplus(p.logits))
    t2 = torch.where(p.probs == 1, torch.zeros_like(t2), torch.where(q.probs == 1, _infinite_like(t2), t2))
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(sum_p)
    t2 = lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_q - sum_p) * digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return torch.where(p.total_count > q.total_count, _infinite_like(kl), kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    q0, p0 = torch.broadcast_tensors(q.probs == 0, p.probs == 0)
    t = torch.where(p0, torch.zeros_like(t), torch.where(q0, _infinite_like(t), t))
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + torch.log1p(-p.probs)
            - q._cont_bern_log_norm() - torch.log1p(-q.probs))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = lgamma(sum_p) - lgamma(sum_q)
    t2 = (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = digamma(p.concentration) - digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_nparams = [n.detach().requires_grad_() for n in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = torch.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = lgamma(q.concentration) - lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log())


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # E_p[exp(-(x - mu_q) / beta_q)] = exp((mu_q - mu_p) / beta_q) Gamma(1 + beta_p / beta_q)
    ratio = p.scale / q.scale
    return (-ratio.log() - euler_constant - 1 + (p.loc + p.scale * euler_constant - q.loc) / q.scale
            + torch.exp((q.loc - p.loc) / q.scale + lgamma(1 + ratio)))


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * torch.exp(-loc_abs_diff / p.scale) - 1


@register_kl(MultivariateNormal, MultivariateNormal)
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    """Between Gaussians of any parameterization, through their Cholesky factors (dense for the low-rank
    ones: O(n^3), where PyTorch's low-rank pairs use the Woodbury identity)."""
    if p.event_shape != q.event_shape:
        low_rank = isinstance(p, LowRankMultivariateNormal) + isinstance(q, LowRankMultivariateNormal)
        kind = ("", "(Low Rank) ", "Low Rank ")[low_rank]
        # PyTorch's messages keep the indentation of a backslash-continued literal: 26 spaces
        raise ValueError(f"KL-divergence between two {kind}Multivariate Normals with{' ' * 26}"
                         "different event shapes cannot be computed")
    half_term1 = q._half_log_det() - p._half_log_det()
    batch = tuple(_infer_size(q._unbroadcasted_scale_tril.shape[:-2], p._unbroadcasted_scale_tril.shape[:-2]))
    n = p.event_shape[0]
    q_tril = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    p_tril = p._unbroadcasted_scale_tril.expand(batch + (n, n))
    term2 = _solve_lower(q_tril, p_tril).pow(2).sum((-2, -1))  # trace of Sigma_q^-1 Sigma_p
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return torch.where(p.scale < q.scale, _infinite_like(result), result)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return torch.where((q.low > p.low) | (q.high < p.high), _infinite_like(result), result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


# --- pairs of different families: -H(p) - E_p[log q(x)] in closed form ---------------------------
def _expected_log_normal(mean, var, q):
    """E[log q(x)] for q Normal, given the mean and variance of x."""
    return -_log_normal_norm(q.scale) - (var + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


def _expected_log_gamma(mean, mean_log, q):
    """E[log q(x)] for q Gamma, given E[x] and E[log x]."""
    return (q.concentration * q.rate.log() + (q.concentration - 1) * mean_log - q.rate * mean
            - lgamma(q.concentration))


def _beta_mean_log(p):
    return digamma(p.concentration1) - digamma(p.concentration1 + p.concentration0)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    return -p.entropy() - _expected_log_gamma(p.mean, _beta_mean_log(p), q)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return torch.where((q.low > 0) | (q.high < 1), _infinite_like(result), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    return -p.entropy() - _expected_log_gamma(p.mean, -euler_constant - p.rate.log(), q)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.mean, p.variance, q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.mean, p.variance, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.loc, p.variance, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    d = p.loc - q.loc
    # E|x - m| for x ~ N(mu, s^2), d = mu - m: s sqrt(2/pi) exp(-d^2 / 2 s^2) + d erf(d / (s sqrt 2))
    mean_abs = (p.scale * math.sqrt(2 / math.pi) * torch.exp(-d.pow(2) / (2 * p.scale.pow(2)))
                + d * torch.erf(d / (p.scale * math.sqrt(2))))
    return -p.entropy() + torch.log(2 * q.scale) + mean_abs / q.scale


def _uniform_mean_log(low, high):
    """E[log x] for x ~ Uniform(low, high) with 0 <= low."""
    return (torch.xlogy(high, high) - torch.xlogy(low, low)) / (high - low) - 1


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = p.low, p.high
    mean_log = _uniform_mean_log(a, b)
    mean_log1m = (torch.xlogy(1 - a, 1 - a) - torch.xlogy(1 - b, 1 - b)) / (b - a) - 1
    log_beta_fn = lgamma(q.concentration1) + lgamma(q.concentration0) - lgamma(q.concentration1 + q.concentration0)
    result = (-p.entropy() - (q.concentration1 - 1) * mean_log - (q.concentration0 - 1) * mean_log1m
              + log_beta_fn)
    return torch.where((a < 0) | (b > 1), _infinite_like(result), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = -p.entropy() - q.rate.log() + q.rate * p.mean
    return torch.where(p.low < 0, _infinite_like(result), result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    result = -p.entropy() - _expected_log_gamma(p.mean, _uniform_mean_log(p.low, p.high), q)
    return torch.where(p.low < 0, _infinite_like(result), result)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.mean, p.variance, q)


def _expected_log_gumbel(mean, mean_exp_neg, q):
    """E[log q(x)] for q Gumbel, given E[x] and E[exp(-x / beta_q)]."""
    return -q.scale.log() - (mean - q.loc) / q.scale - torch.exp(q.loc / q.scale) * mean_exp_neg


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    return -p.entropy() - _expected_log_gumbel(p.mean, p.rate / (p.rate + 1 / q.scale), q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    mean_exp_neg = torch.exp(-p.concentration * torch.log1p(1 / (q.scale * p.rate)))
    return -p.entropy() - _expected_log_gumbel(p.mean, mean_exp_neg, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # the exponential's argument is assembled before exponentiating, so large loc / scale do not overflow
    log_term = (q.loc - p.loc) / q.scale + p.scale.pow(2) / (2 * q.scale.pow(2))
    return -p.entropy() + q.scale.log() + (p.loc - q.loc) / q.scale + torch.exp(log_term)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    a, b = p.low, p.high
    mean_exp_neg = q.scale * (torch.exp(-a / q.scale) - torch.exp(-b / q.scale)) / (b - a)
    return -p.entropy() - _expected_log_gumbel(p.mean, mean_exp_neg, q)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.mean, p.variance, q)


def _expected_log_cb(mean, q):
    """E[log q(x)] for q ContinuousBernoulli, given E[x]: the log density is linear in x."""
    return mean * q.logits + torch.log1p(-q.probs) + q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - _expected_log_cb(p.mean, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - _expected_log_cb(p.mean, q)
    # PyTorch's test (inf unless [low, high] lies strictly inside (0, 1)), so the unit interval itself gives inf
    return torch.where((p.high >= 1) | (p.low <= 0), _infinite_like(result), result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    return -p.entropy() - _expected_log_normal(p.mean, p.variance, q)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # PyTorch's test (inf when low >= 0 or high <= 1), so every Uniform within the unit interval gives inf
    return torch.where((q.low >= 0) | (q.high <= 1), _infinite_like(result), result)


def _pareto_moments(p):
    """E[x] (inf unless alpha > 1), E[x^2] (inf unless alpha > 2) and E[log x] of a Pareto."""
    a = p.alpha
    mean = torch.where(a > 1, a * p.scale / (a - 1), _infinite_like(a))
    second = torch.where(a > 2, a * p.scale.pow(2) / (a - 2), _infinite_like(a))
    return mean, second, p.scale.log() + a.reciprocal()


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    mean, _, _ = _pareto_moments(p)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean, _, mean_log = _pareto_moments(p)
    return -p.entropy() - _expected_log_gamma(mean, mean_log, q)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    mean, second, _ = _pareto_moments(p)
    var = second - mean.pow(2)
    result = -p.entropy() - _expected_log_normal(mean, var, q)
    return torch.where(p.alpha > 2, result, _infinite_like(result))


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    expected_log_q = (q.alpha.log() + q.alpha * q.scale.log()
                      - (q.alpha + 1) * _uniform_mean_log(p.low, p.high))
    result = -p.entropy() - expected_log_q
    return torch.where(p.low < q.scale, _infinite_like(result), result)


def _infinite(param: str) -> Callable:
    """KL(p || q) = inf: q's support does not cover p's."""
    return lambda p, q: _infinite_like(getattr(p, param))


for _p, _q, _param in [(Exponential, Beta, "rate"), (Exponential, Uniform, "rate"), (Gamma, Beta, "concentration"),
                       (Gamma, Uniform, "concentration"), (Laplace, Beta, "loc"), (Laplace, Exponential, "loc"),
                       (Laplace, Gamma, "loc"), (Laplace, Uniform, "loc"), (Normal, Beta, "loc"),
                       (Normal, Exponential, "loc"), (Normal, Gamma, "loc"), (Normal, Uniform, "loc"),
                       (Poisson, Bernoulli, "rate"), (Poisson, Binomial, "rate"), (Gumbel, Beta, "loc"),
                       (Gumbel, Exponential, "loc"), (Gumbel, Gamma, "loc"), (Gumbel, Uniform, "loc"),
                       (Pareto, Beta, "scale"), (Pareto, Uniform, "scale"), (Beta, Pareto, "concentration1"),
                       (Exponential, Pareto, "rate"), (Gamma, Pareto, "concentration"), (Gumbel, Pareto, "loc"),
                       (Laplace, Pareto, "loc"), (Normal, Pareto, "loc"), (ContinuousBernoulli, Pareto, "probs"),
                       (Exponential, ContinuousBernoulli, "rate"), (Gamma, ContinuousBernoulli, "concentration"),
                       (Gumbel, ContinuousBernoulli, "loc"), (Laplace, ContinuousBernoulli, "loc"),
                       (Normal, ContinuousBernoulli, "loc"), (Pareto, ContinuousBernoulli, "scale")]:
    register_kl(_p, _q)(_infinite(_param))
