"""Extending torch.distributions as libraries (Pyro-style code, research repos) do: a Distribution subclass with
arg_constraints/support/rsample/expand, an ExponentialFamily whose entropy comes from the Bregman divergence, a
custom Constraint with biject_to.register, a custom Transform (with inverse and log|det J|) in a
TransformedDistribution, _validate_sample on a custom support, and Distribution.__repr__/batch/event plumbing."""
import math

import torch
import torch.distributions as D
from torch.distributions import constraints
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.utils import broadcast_all

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


class Triangular(D.Distribution):
    """Symmetric triangular density on [loc - width, loc + width]."""

    arg_constraints = {"loc": constraints.real, "width": constraints.positive}
    has_rsample = True

    def __init__(self, loc, width, validate_args=None):
        self.loc, self.width = broadcast_all(loc, width)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.loc - self.width, self.loc + self.width)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.width.pow(2) / 6

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        u1 = torch.rand(shape, dtype=self.loc.dtype)
        u2 = torch.rand(shape, dtype=self.loc.dtype)
        return self.loc + self.width * (u1 + u2 - 1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc).abs() / self.width
        return torch.log1p(-z) - self.width.log()

    def cdf(self, value):
        z = ((value - self.loc) / self.width).clamp(-1, 1)
        return torch.where(z < 0, 0.5 * (1 + z).pow(2), 1 - 0.5 * (1 - z).pow(2))

    def entropy(self):
        return 0.5 + self.width.log()

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Triangular, _instance)
        batch_shape = torch.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.width = self.width.expand(batch_shape)
        super(Triangular, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


tri = Triangular(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5]))
print(tri)
print("batch", tri.batch_shape, "event", tri.event_shape, "support", tri.support)
torch.manual_seed(0)
s = tri.rsample((5000,))
print("mc mean", r(s.mean(0)), "mean", r(tri.mean), "mc var", [round(v, 3) for v in s.var(0).tolist()], "var",
      r(tri.variance))
print("log_prob", r(tri.log_prob(torch.tensor([0.5, 2.0]))), "cdf", r(tri.cdf(torch.tensor([0.5, 2.0]))))
print("entropy", r(tri.entropy()), "mc entropy", [round(v, 2) for v in (-tri.log_prob(s)).mean(0).tolist()])
try:
    tri.log_prob(torch.tensor([1.5, 2.0]))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0][:100])
try:
    Triangular(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0][:100])
ex = tri.expand((3, 2))
print("expand", ex.batch_shape, r(ex.mean), type(ex).__name__)
print("stddev from variance", r(tri.stddev))
try:
    tri.icdf(torch.tensor(0.5))
except NotImplementedError:
    print("icdf NotImplementedError")
wide = Triangular(torch.tensor([0.0, 2.0]), torch.tensor([3.0, 1.0]))
mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])), wide)
print("mixture of custom", round(mix.log_prob(torch.tensor(1.8)).item(), 4), round(mix.mean.item(), 4))


class Rayleigh(ExponentialFamily):
    """p(x) = x / s^2 exp(-x^2 / 2s^2); natural parameter -1/(2 s^2), sufficient statistic x^2."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def _natural_params(self):
        return (-0.5 / self.scale.pow(2),)

    def _log_normalizer(self, eta):
        return -torch.log(-2 * eta)

    @property
    def _mean_carrier_measure(self):
        # E[log x] for a Rayleigh(s): log s + (log 2 - euler_gamma) / 2
        return self.scale.log() + (math.log(2) - 0.5772156649015329) / 2

    def log_prob(self, x):
        return x.log() - 2 * self.scale.log() - x.pow(2) / (2 * self.scale.pow(2))

    @property
    def mean(self):
        return self.scale * math.sqrt(math.pi / 2)


ray = Rayleigh(torch.tensor([1.0, 2.0]))
closed = 1 + torch.log(ray.scale / math.sqrt(2)) + 0.5772156649015329 / 2
print("bregman entropy", r(ray.entropy()), "closed form", r(closed))
print("mean", r(ray.mean), "log_prob", r(ray.log_prob(torch.tensor([1.0, 1.0]))))
print("kl via bregman", r(D.kl_divergence(ray, Rayleigh(torch.tensor([2.0, 2.0])))))


class Cube(D.transforms.Transform):
    """y = x^3: a bijection of the reals, dy/dx = 3x^2."""

    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, Cube)

    def _call(self, x):
        return x.pow(3)

    def _inverse(self, y):
        return y.sign() * y.abs().pow(1 / 3)

    def log_abs_det_jacobian(self, x, y):
        return math.log(3) + 2 * x.abs().log()


cube = D.TransformedDistribution(D.Normal(0.0, 1.0), [Cube()])
yv = torch.tensor([-8.0, 0.125, 1.0, 27.0])
print("cube log_prob", r(cube.log_prob(yv)), "cdf", r(cube.cdf(yv)))
print("cube icdf", r(cube.icdf(torch.tensor([0.1, 0.5, 0.9]))))
torch.manual_seed(1)
print("cube sample", r(cube.sample((4,))), "inverse round trip", r(Cube().inv(Cube()(torch.tensor([-2.0, 0.5])))))
print("transform repr", Cube(), Cube().inv, "event_dim", Cube().event_dim)


class _Octant(constraints.Constraint):
    """Vectors with every coordinate positive and at most 1 (an event constraint)."""

    event_dim = 1

    def check(self, value):
        return ((value > 0) & (value <= 1)).all(-1)


octant = _Octant()


@D.biject_to.register(_Octant)
def _octant_bijector(constraint):
    return D.transforms.IndependentTransform(D.transforms.SigmoidTransform(), 1)


b = D.biject_to(octant)
u = torch.tensor([[-2.0, 0.0, 3.0]])
print("octant", octant, "check", octant.check(b(u)).tolist(), "bijector", type(b).__name__,
      "ladj", r(b.log_abs_det_jacobian(u, b(u))))
try:
    D.transform_to(octant)
except NotImplementedError as e:
    print("transform_to unregistered:", str(e))
print("is_dependent", constraints.is_dependent(Triangular.support), constraints.is_dependent(constraints.real))
