"""A Dreamer/SAC-style continuous actor: Normal with softplus std, TanhTransform through TransformedDistribution,
Independent log-probs with the tanh Jacobian, cached inverses, entropy estimates, transform reprs and errors."""

import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, TransformedDistribution, constraints
from torch.distributions.transforms import AffineTransform, ComposeTransform, SigmoidTransform, TanhTransform

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Actor(nn.Module):
    def __init__(self, inp=6, act=2, min_std=0.1, max_std=1.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inp, 16), nn.ELU(), nn.Linear(16, 2 * act))
        self.min_std, self.max_std = min_std, max_std

    def forward(self, x):
        mean, std = self.net(x).chunk(2, -1)
        std = (self.max_std - self.min_std) * torch.sigmoid(std + 2.0) + self.min_std
        base = Normal(torch.tanh(mean), std)
        return Independent(TransformedDistribution(base, [TanhTransform(cache_size=1)]), 1)


actor = Actor()
x = torch.randn(4, 6)
dist = actor(x)
print(dist)
print(dist.batch_shape, dist.event_shape, dist.has_rsample)
a = dist.rsample()
print(a.detach(), a.abs().max() < 1)
lp = dist.log_prob(a)
print(lp.detach(), lp.grad_fn.name())
# the same log-prob by hand: base log-prob minus log|d tanh/du|
base = dist.base_dist.base_dist
u = torch.atanh(a.detach().clamp(-0.999999, 0.999999))
hand = (base.log_prob(u) - 2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)
print((hand - lp.detach()).abs().max() < 1e-3)
t = TanhTransform(cache_size=1)
print(t, t.domain, t.codomain, t.bijective, t.sign, t.event_dim, t == TanhTransform(), t.inv, t.inv.inv is t)
y = t(torch.tensor([0.0, 1.0, 30.0]))
print(y, t.inv(y), t.log_abs_det_jacobian(torch.tensor([0.0, 1.0, 30.0]), y))
print(TanhTransform()(torch.tensor([-20.0, 20.0])), TanhTransform().inv(torch.tensor([1.0, -1.0, 0.5])))
try:
    TanhTransform(cache_size=2)
except Exception as e:
    print(type(e).__name__, e)

# entropy has no closed form: Monte-Carlo estimate
try:
    dist.entropy()
except NotImplementedError as e:
    print("NotImplementedError", repr(str(e)))
torch.manual_seed(1)
samples = dist.rsample((256,))
ent = -dist.log_prob(samples).mean(0)
print(samples.shape, ent.shape, ent.requires_grad)
loss = -(ent.mean() * 1e-3) - dist.log_prob(samples.detach()).mean()
loss.backward()
print(sum(p.grad.abs().sum() for p in actor.parameters()) > 0)

# a scaled action space: tanh then affine to [low, high]
low, high = torch.tensor([-2.0, 0.0]), torch.tensor([2.0, 1.0])
aff = AffineTransform(loc=(high + low) / 2, scale=(high - low) / 2, event_dim=1)
ct = ComposeTransform([TanhTransform(), aff])
print(ct, ct.event_dim, ct.domain, ct.codomain)
sd = TransformedDistribution(Normal(torch.zeros(2), torch.ones(2)), [TanhTransform(), aff])
print(sd.batch_shape, sd.event_shape, sd.support)
v = torch.tensor([[1.0, 0.5], [-1.9, 0.01]])
print(sd.log_prob(v))
print(TransformedDistribution(Normal(0.0, 1.0), SigmoidTransform()).log_prob(torch.tensor([0.25, 0.5])))
print(TransformedDistribution(Normal(0.0, 1.0), TanhTransform()).cdf(torch.tensor([-0.5, 0.0, 0.5])))
print(TransformedDistribution(Normal(0.0, 1.0), TanhTransform()).icdf(torch.tensor([0.1, 0.5])))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        sd.log_prob(torch.tensor([3.0, 0.5]))
    except ValueError as e:
        print("ValueError", str(e).split("\n")[0][:120])
    print(len(w))
print(isinstance(sd.support, constraints.independent), constraints.interval(-1.0, 1.0))

# Normal validation: zero std, negative std, broadcasting
for bad in [
    lambda: Normal(0.0, 0.0),
    lambda: Normal(torch.zeros(2), -torch.ones(2)),
    lambda: Normal(torch.zeros(2), torch.ones(3)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e)[:150])
n = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
print(n.log_prob(torch.tensor([float("nan"), 1.0])), n.entropy(), n.stddev, n.scale.dtype)
print(Normal(torch.tensor([0.0], dtype=torch.float64), 1.0).sample().dtype, Normal(0, 1).mean.dtype)
