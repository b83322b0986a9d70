"""DreamerV3's hand-written output distributions: SymlogDist/MSEDist/TwoHot subclasses of
torch.distributions.Distribution (shapes, arg_constraints warnings, validation, reprs), Bernoulli continue heads
and the KL registry for custom pairs."""

import warnings

import torch
import torch.nn.functional as F
from torch.distributions import Bernoulli, Distribution, Independent, Normal, constraints, kl_divergence, register_kl

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class SymlogDist(Distribution):
    def __init__(self, mode, dims=1, agg="sum", tol=1e-8):
        self._mode, self._dims, self._agg, self._tol = mode, tuple(-x for x in range(1, dims + 1)), agg, tol
        super().__init__(
            batch_shape=mode.shape[: len(mode.shape) - dims], event_shape=mode.shape[len(mode.shape) - dims :]
        )

    @property
    def mode(self):
        return torch.sign(self._mode) * torch.expm1(torch.abs(self._mode))

    @property
    def mean(self):
        return self.mode

    def log_prob(self, value):
        target = torch.sign(value) * torch.log1p(torch.abs(value))
        distance = (self._mode - target) ** 2
        distance = torch.where(distance < self._tol, 0, distance)
        return -distance.sum(self._dims) if self._agg == "sum" else -distance.mean(self._dims)


with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    d = SymlogDist(torch.randn(3, 4))
    print([(x.category.__name__, str(x.message)) for x in w])
try:
    repr(d)
except NotImplementedError as e:
    print("repr NotImplementedError", repr(str(e)))
print(d.batch_shape, d.event_shape, d._extended_shape((2,)))
print(d.mode.shape, d.log_prob(torch.tensor([0.0, 1.0, -10.0, 100.0])))
for attr in ["variance", "stddev", "entropy", "sample", "rsample", "enumerate_support", "perplexity"]:
    try:
        r = getattr(d, attr)
        print(attr, r() if callable(r) else r)
    except NotImplementedError as e:
        print(attr, "NotImplementedError", repr(str(e)))
try:
    d.support
except NotImplementedError as e:
    print("support NotImplementedError", e)
try:
    Distribution(batch_shape=(2,), event_shape=(3,)).log_prob(torch.zeros(2, 3))
except NotImplementedError as e:
    print("log_prob NotImplementedError", repr(str(e)))


class MSEDist(Distribution):
    arg_constraints = {"loc": constraints.real}
    support = constraints.real

    def __init__(self, loc, validate_args=None):
        self.loc = loc
        super().__init__(loc.shape[:-1], loc.shape[-1:], validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -((self.loc - value) ** 2).sum(-1)


m = MSEDist(torch.zeros(2, 3))
print(m, m.log_prob(torch.ones(3)))
for bad in [
    lambda: m.log_prob(torch.ones(4)),
    lambda: m.log_prob(torch.tensor([float("nan"), 0.0, 0.0])),
    lambda: MSEDist(torch.tensor([[float("inf"), 0.0]])),
    lambda: m.log_prob([1.0, 2.0, 3.0]),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:150])
print(MSEDist(torch.tensor([[float("nan")]]), validate_args=False).log_prob(torch.zeros(1)))
print(Distribution._validate_args, Distribution.set_default_validate_args.__name__)
Distribution.set_default_validate_args(False)
print(MSEDist(torch.tensor([[float("nan")]])).loc, Normal(0.0, -1.0).scale)
Distribution.set_default_validate_args(True)
try:
    Distribution.set_default_validate_args(1)
except Exception as e:
    print(type(e).__name__, e)

# continue head: Bernoulli on logits
logits = torch.tensor([[-2.0, 0.0, 3.0]], requires_grad=True)
cont = Independent(Bernoulli(logits=logits), 1)
print(cont, cont.mean, cont.mode, cont.base_dist.probs)
target = torch.tensor([[0.0, 1.0, 1.0]])
lp = cont.log_prob(target)
print(lp, -F.binary_cross_entropy_with_logits(logits, target, reduction="none").sum(-1))
lp.sum().backward()
print(logits.grad, cont.entropy(), cont.base_dist.variance)
for bad in [lambda: cont.log_prob(torch.tensor([[0.5, 1.0, 0.0]])), lambda: Bernoulli(probs=torch.tensor([1.2]))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", str(e).split("\n")[0][:140])
print(Bernoulli(probs=torch.tensor([0.0, 1.0])).log_prob(torch.tensor([0.0, 0.0])))
print(Bernoulli(logits=torch.tensor([float("inf")])).probs, Bernoulli(0.3).sample((4,)).dtype)


# KL registry for a custom pair
@register_kl(MSEDist, MSEDist)
def _kl_mse(p, q):
    return ((p.loc - q.loc) ** 2).sum(-1)


print(kl_divergence(m, MSEDist(torch.ones(2, 3))))
try:
    kl_divergence(m, Normal(0.0, 1.0))
except NotImplementedError as e:
    print("NotImplementedError", repr(str(e)))
try:
    kl_divergence(Independent(Normal(torch.zeros(2, 3), 1.0), 1), Independent(Normal(torch.zeros(2, 3), 1.0), 2))
except NotImplementedError as e:
    print("NotImplementedError", e)
print(kl_divergence(Independent(Normal(torch.zeros(2, 3), 1.0), 1), Independent(Normal(torch.ones(2, 3), 2.0), 1)))
print(kl_divergence(Bernoulli(logits=torch.tensor([0.0, 5.0])), Bernoulli(probs=torch.tensor([0.5, 0.0]))))
