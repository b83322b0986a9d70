"""User-defined distributions, transforms and constraints, as research code subclasses them."""

import math

import torch
from torch.distributions.utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

D = torch.distributions
constraints = torch.distributions.constraints


def r(t):
    return t.detach().round(decimals=4).tolist()


class SkewNormal(D.Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "alpha": constraints.real}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, scale, alpha, validate_args=None):
        self.loc, self.scale, self.alpha = broadcast_all(loc, scale, alpha)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @lazy_property
    def delta(self):
        return self.alpha / torch.sqrt(1 + self.alpha**2)

    @property
    def mean(self):
        return self.loc + self.scale * self.delta * math.sqrt(2 / math.pi)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return (
            math.log(2)
            - torch.log(self.scale)
            + D.Normal(0.0, 1.0).log_prob(z)
            + torch.log(D.Normal(0.0, 1.0).cdf(self.alpha * z))
        )

    def sample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            u0, v = torch.randn(shape), torch.randn(shape)
            u1 = self.delta * u0 + torch.sqrt(1 - self.delta**2) * v
            return self.loc + self.scale * torch.where(u0 >= 0, u1, -u1)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(SkewNormal, _instance)
        batch_shape = torch.Size(batch_shape)
        new.loc, new.scale, new.alpha = (t.expand(batch_shape) for t in (self.loc, self.scale, self.alpha))
        super(SkewNormal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


sn = SkewNormal(torch.tensor([0.0, 1.0]), 2.0, torch.tensor([3.0, -1.0]))
print(sn, sn.batch_shape, sn.event_shape)
print("log_prob", r(sn.log_prob(torch.tensor([0.5, 0.5]))), "mean", r(sn.mean), "delta", r(sn.delta))
torch.manual_seed(0)
print("sample", sn.sample((4,)).shape, sn.expand((3, 2)).batch_shape, sn.expand((3, 2)).sample().shape)
print("ext shape", sn._extended_shape((5,)))
for bad in [
    lambda: SkewNormal(0.0, -1.0, 0.0),
    lambda: sn.log_prob(torch.zeros(3)),
    lambda: sn.rsample(),
    lambda: sn.entropy(),
    lambda: sn.cdf(torch.zeros(2)),
    lambda: sn.variance,
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)


class CubeTransform(D.transforms.Transform):
    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, CubeTransform)

    def _call(self, x):
        return x.pow(3) + x

    def _inverse(self, y):
        x = y.clone()
        for _ in range(30):
            x = x - (x.pow(3) + x - y) / (3 * x.pow(2) + 1)
        return x

    def log_abs_det_jacobian(self, x, y):
        return torch.log(3 * x.pow(2) + 1)


t = CubeTransform()
x = torch.tensor([-1.0, 0.5, 2.0])
y = t(x)
print(t, "y", r(y), "inv", r(t.inv(y)), "ladj", r(t.log_abs_det_jacobian(x, y)))
tc = CubeTransform(cache_size=1)
y2 = tc(x)
print("cached inverse is x", tc.inv(y2) is x, "uncached", t.inv(y) is x)
print("with_cache", type(t.with_cache(1)).__name__, t.with_cache(1)._cache_size)
td = D.TransformedDistribution(D.Normal(0.0, 1.0), [t, D.transforms.AffineTransform(1.0, 0.5)])
print(td, td.support)
print("td log_prob", r(td.log_prob(torch.tensor([0.0, 1.0, 3.0]))))
torch.manual_seed(0)
print("td rsample", td.rsample((3,)).shape, td.has_rsample)
try:
    CubeTransform(cache_size=2)
except Exception as e:
    print(type(e).__name__, e)


class Odd(constraints.Constraint):
    is_discrete = True

    def check(self, value):
        return (value % 2) == 1

    def __repr__(self):
        return "Odd()"


print(Odd(), Odd().check(torch.tensor([1, 2, 3])), Odd().event_dim)


@D.biject_to.register(type(constraints.unit_interval))
def _to_unit(constraint):
    return D.transforms.ComposeTransform([D.transforms.TanhTransform(), D.transforms.AffineTransform(0.5, 0.5)])


print("registered", D.biject_to(constraints.unit_interval))

print(
    "probs_to_logits",
    r(probs_to_logits(torch.tensor([0.2, 0.8]))),
    r(probs_to_logits(torch.tensor([0.2, 0.9]), is_binary=True)),
)
print(
    "logits_to_probs",
    r(logits_to_probs(torch.tensor([0.0, 1.0]))),
    r(logits_to_probs(torch.tensor([0.0, 1.0]), is_binary=True)),
)
print("clamp_probs", clamp_probs(torch.tensor([0.0, 1.0])).tolist())
print("broadcast_all", [a.shape for a in broadcast_all(torch.zeros(3, 1), 1.0, torch.ones(4))])
try:
    broadcast_all(torch.zeros(3), "a")
except Exception as e:
    print(type(e).__name__, e)


class Plain(D.ExponentialFamily):
    """Exponential(rate) written as an exponential family: the Bregman entropy path."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -torch.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0

    def log_prob(self, value):
        return self.rate.log() - self.rate * value


p = Plain(torch.tensor([0.5, 2.0]))
print("bregman entropy", r(p.entropy()), r(D.Exponential(torch.tensor([0.5, 2.0])).entropy()))
