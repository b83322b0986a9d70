"""Writing your own distribution (arg_constraints, support, expand, validation, an ExponentialFamily entropy),
the reprs people print while debugging, and matrix-variate families: batched MultivariateNormal,
LowRankMultivariateNormal, Wishart and LKJCholesky at fixed parameters."""

import math
import warnings
import numpy as np
import torch
import torch.distributions as D
from torch.distributions import constraints
from torch.distributions.exp_family import ExponentialFamily

torch.set_printoptions(precision=4)
t = torch.tensor


def r(x, k=8):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


class Kumaraswamyish(D.Distribution):
    """A two-parameter density on (0, 1): p(x) = a b x^(a-1) (1 - x^a)^(b-1)."""

    arg_constraints = {"a": constraints.positive, "b": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, a, b, validate_args=None):
        self.a, self.b = D.utils.broadcast_all(a, b)
        super().__init__(self.a.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamyish, _instance)
        new.a, new.b = self.a.expand(batch_shape), self.b.expand(batch_shape)
        super(Kumaraswamyish, new).__init__(torch.Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        return (
            torch.log(self.a)
            + torch.log(self.b)
            + (self.a - 1) * torch.log(x)
            + (self.b - 1) * torch.log1p(-(x**self.a))
        )

    def cdf(self, x):
        return 1 - (1 - x**self.a) ** self.b

    def icdf(self, u):
        return (1 - (1 - u) ** (1 / self.b)) ** (1 / self.a)

    def rsample(self, sample_shape=torch.Size()):
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.a.dtype)
        return self.icdf(u)


k = Kumaraswamyish(t([2.0, 0.5]), t([3.0, 0.5]))
x = t([0.3, 0.8])
ref = D.Kumaraswamy(t([2.0, 0.5]), t([3.0, 0.5]))
print("custom", k, k.batch_shape, k.event_shape, r(k.log_prob(x)), r(ref.log_prob(x)), r(k.cdf(x)), r(k.icdf(x)))
ke = k.expand((3, 2))
print("custom expand", type(ke).__name__, ke.batch_shape, ke.a.shape, r(ke.log_prob(x)), ke.rsample((4,)).shape)
print("custom extended", k._extended_shape((5,)), k.sample().shape, k.sample().requires_grad)
try:
    Kumaraswamyish(t([1.0]), t([-1.0]))
except ValueError as e:
    print("custom invalid", str(e).replace("\n", " "))
try:
    k.log_prob(t([1.5, 0.5]))
except ValueError as e:
    print("custom support", str(e).replace("\n", " "))
for name in ("mean", "variance"):
    try:
        getattr(k, name)
    except NotImplementedError as e:
        print("custom", name, type(e).__name__, str(e))
try:
    k.entropy()
except NotImplementedError as e:
    print("custom entropy", type(e).__name__)


class NoConstraints(D.Distribution):
    def __init__(self):
        super().__init__(torch.Size([2]), validate_args=True)


with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nc = NoConstraints()
print("no arg_constraints", [str(m.message)[:110] for m in w], nc.batch_shape)


class Expo(ExponentialFamily):
    """Exponential written in natural-parameter form; entropy comes from the Bregman divergence."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, eta):
        return -torch.log(-eta)

    @property
    def _mean_carrier_measure(self):
        return 0

    def log_prob(self, value):
        return torch.log(self.rate) - self.rate * value


rates = t([0.5, 2.0])
print("expfamily entropy", r(Expo(rates).entropy()), r(D.Exponential(rates).entropy()))

# reprs of the distributions and transforms seen in logs
shown = [
    D.Normal(0.0, 1.0),
    D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
    D.Binomial(10, t(0.3)),
    D.Categorical(probs=t([0.2, 0.8])),
    D.Categorical(logits=torch.zeros(4, 3)),
    D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1),
    D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), torch.ones(2))),
    D.RelaxedBernoulli(t(0.5), probs=t([0.3])),
    D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()]),
    D.Gamma(t(2.0), t(1.0)),
    D.Dirichlet(t([1.0, 1.0])),
    D.Uniform(t([0.0, 1.0]), t(2.0)),
    D.VonMises(t(0.0), t(1.0)),
    D.LKJCholesky(3, t(2.0)),
]
for d in shown:
    print("repr", d)
for tf in [
    D.transforms.AffineTransform(0.0, 2.0),
    D.transforms.ComposeTransform([D.transforms.ExpTransform()]),
    D.transforms.PowerTransform(t(2.0)),
    D.transforms.SigmoidTransform().inv,
    D.transforms.identity_transform,
    D.transforms.StickBreakingTransform(),
    D.transforms.CorrCholeskyTransform(),
]:
    print("repr tf", tf, tf.domain.event_dim, tf.codomain.event_dim)

# batched MVN: a GP prior over 4 points with two length-scales
xs = t([0.0, 0.5, 1.0, 2.0])
ls = t([0.5, 1.5]).view(2, 1, 1)
K = torch.exp(-0.5 * (xs[:, None] - xs[None, :]) ** 2 / ls**2) + 1e-3 * torch.eye(4)
gp = D.MultivariateNormal(torch.zeros(2, 4), covariance_matrix=K)
f = t([0.1, 0.3, 0.2, -0.4])
print("gp", gp.batch_shape, gp.event_shape, r(gp.log_prob(f)), r(gp.entropy()), r(gp.variance), gp.sample((3,)).shape)
print("gp tril", r(gp.scale_tril[1], 16))
lr = D.LowRankMultivariateNormal(torch.zeros(2, 3), t([[[1.0], [0.0], [1.0]], [[0.5], [0.5], [0.5]]]), torch.ones(2, 3))
print(
    "lowrank batch", lr.batch_shape, r(lr.log_prob(t([0.2, -0.1, 0.4]))), r(lr.entropy()), r(lr.precision_matrix[0], 9)
)
print(
    "lowrank vs full",
    r(
        lr.log_prob(t([0.2, -0.1, 0.4]))
        - D.MultivariateNormal(lr.loc, lr.covariance_matrix).log_prob(t([0.2, -0.1, 0.4]))
    ),
)
try:
    print("mvn shape", D.MultivariateNormal(torch.zeros(3), covariance_matrix=torch.eye(2)).event_shape)
except (ValueError, RuntimeError) as e:
    print("mvn shape", type(e).__name__, str(e)[:100])
try:
    D.MultivariateNormal(torch.zeros(2))
except ValueError as e:
    print("mvn none", str(e))

# Wishart and LKJ at fixed parameters
W = D.Wishart(df=t(4.0), covariance_matrix=t([[1.0, 0.3], [0.3, 2.0]]))
M = t([[2.0, 0.5], [0.5, 3.0]])
print("wishart", r(W.log_prob(M)), r(W.mean), r(W.variance), r(W.entropy()), r(W.mode), W.event_shape, W.support)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Wishart's sampler warns when a draw is near-singular
    print("wishart sample", W.sample((2,)).shape, W.rsample().shape)
lkj = D.LKJCholesky(3, concentration=t([1.0, 3.0]))
Lc = torch.linalg.cholesky(t([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]]))
print("lkj", lkj.batch_shape, lkj.event_shape, r(lkj.log_prob(Lc)), lkj.support, lkj.sample().shape)
print("lkj const", round(math.exp(lkj.log_prob(torch.eye(3))[0].item()), 4))
