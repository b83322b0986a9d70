"""`torch.distributions`: parameterizable probability distributions with sampling, log densities and KL.

Families draw from ember's default generators (so `manual_seed` reproduces them); reparametrised samples
(`rsample`) carry gradients to the parameters, including gamma-based families (NOTE [ Implicit
reparametrisation of gamma samples ] in `_special`).

Example:
    >>> import ember.autograd as torch
    >>> from ember.torch.distributions import Normal, kl_divergence
    >>> float(kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)))
    0.5
"""

from ember.torch.distributions import constraints, transforms
from ember.torch.distributions.bernoulli import Bernoulli
from ember.torch.distributions.beta import Beta
from ember.torch.distributions.binomial import Binomial
from ember.torch.distributions.categorical import Categorical
from ember.torch.distributions.cauchy import Cauchy
from ember.torch.distributions.constraint_registry import biject_to, transform_to
from ember.torch.distributions.chi2 import Chi2
from ember.torch.distributions.continuous_bernoulli import ContinuousBernoulli
from ember.torch.distributions.dirichlet import Dirichlet
from ember.torch.distributions.distribution import Distribution
from ember.torch.distributions.exp_family import ExponentialFamily
from ember.torch.distributions.exponential import Exponential
from ember.torch.distributions.fishersnedecor import FisherSnedecor
from ember.torch.distributions.gamma import Gamma
from ember.torch.distributions.generalized_pareto import GeneralizedPareto
from ember.torch.distributions.geometric import Geometric
from ember.torch.distributions.gumbel import Gumbel
from ember.torch.distributions.half_normal import HalfNormal
from ember.torch.distributions.half_cauchy import HalfCauchy
from ember.torch.distributions.independent import Independent
from ember.torch.distributions.inverse_gamma import InverseGamma
from ember.torch.distributions.kl import kl_divergence, register_kl
from ember.torch.distributions.kumaraswamy import Kumaraswamy
from ember.torch.distributions.laplace import Laplace
from ember.torch.distributions.lkj_cholesky import LKJCholesky
from ember.torch.distributions.log_normal import LogNormal
from ember.torch.distributions.logistic_normal import LogisticNormal
from ember.torch.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from ember.torch.distributions.mixture_same_family import MixtureSameFamily
from ember.torch.distributions.multinomial import Multinomial
from ember.torch.distributions.multivariate_normal import MultivariateNormal
from ember.torch.distributions.negative_binomial import NegativeBinomial
from ember.torch.distributions.normal import Normal
from ember.torch.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from ember.torch.distributions.pareto import Pareto
from ember.torch.distributions.poisson import Poisson
from ember.torch.distributions.relaxed_bernoulli import RelaxedBernoulli
from ember.torch.distributions.relaxed_categorical import RelaxedOneHotCategorical
from ember.torch.distributions.studentT import StudentT
from ember.torch.distributions.transformed_distribution import TransformedDistribution
from ember.torch.distributions.transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                                                  CorrCholeskyTransform, CumulativeDistributionTransform,
                                                  ExpTransform, IndependentTransform, LowerCholeskyTransform,
                                                  PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
                                                  SigmoidTransform, SoftmaxTransform, SoftplusTransform,
                                                  StackTransform, StickBreakingTransform, TanhTransform, Transform,
                                                  identity_transform)
from ember.torch.distributions.uniform import Uniform
from ember.torch.distributions.von_mises import VonMises
from ember.torch.distributions.weibull import Weibull
from ember.torch.distributions.wishart import Wishart

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "CatTransform", "Categorical", "Cauchy",
           "Chi2", "ComposeTransform", "ContinuousBernoulli", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "Dirichlet", "Distribution", "ExpTransform",
           "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel",
           "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
           "LowRankMultivariateNormal", "LowerCholeskyTransform", "MixtureSameFamily", "Multinomial",
           "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Pareto", "Poisson", "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
           "StackTransform", "StickBreakingTransform", "StudentT", "TanhTransform", "Transform",
           "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to", "identity_transform",
           "kl_divergence", "register_kl", "transform_to"]
