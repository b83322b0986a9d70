"""Behaviour cloning with a tanh-squashed Gaussian policy, as SAC-style robot-learning code writes it: the
TransformedDistribution with TanhTransform(cache_size=1) and an affine rescale to the action box, the hand-written
log-det correction 2*(log 2 - a - softplus(-2a)) checked against it, log-std clamped with a soft bound, atanh of
clipped expert actions, Independent over action dims, an NLL training loop with grad clipping, and the errors."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import AffineTransform, ComposeTransform, Independent, Normal, TanhTransform
from torch.distributions import TransformedDistribution

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
LOW = torch.tensor([-1.0, -0.5, 0.0])
HIGH = torch.tensor([1.0, 0.5, 2.0])
LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0


class TanhGaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, act_dim)
        self.log_std = nn.Linear(hidden, act_dim)

    def forward(self, obs):
        h = self.trunk(obs)
        log_std = torch.tanh(self.log_std(h))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        base = Normal(self.mu(h), log_std.exp())
        scale, loc = (HIGH - LOW) / 2, (HIGH + LOW) / 2
        dist = TransformedDistribution(base, [TanhTransform(cache_size=1), AffineTransform(loc, scale)])
        return Independent(dist, 1), base


def squashed_log_prob(base, pre_tanh):
    lp = base.log_prob(pre_tanh)
    lp = lp - 2 * (math.log(2) - pre_tanh - F.softplus(-2 * pre_tanh))
    return (lp - torch.log((HIGH - LOW) / 2)).sum(-1)


# expert data: a linear controller on 6-D observations, squashed into the box
obs = torch.randn(512, 6)
W = torch.randn(6, 3) * 0.5
expert = LOW + (HIGH - LOW) * torch.sigmoid(obs @ W)
print("expert range", expert.amin(0).round(decimals=3).tolist(), expert.amax(0).round(decimals=3).tolist())

policy = TanhGaussianPolicy(6, 3)
dist, base = policy(obs[:4])
print("dist", type(dist).__name__, dist.batch_shape, dist.event_shape, type(dist.base_dist).__name__)
a = dist.rsample()
print("rsample in box", bool(((a >= LOW) & (a <= HIGH)).all()), a.grad_fn is not None)
pre = base.loc.detach()
a_det = torch.tanh(pre) * (HIGH - LOW) / 2 + (HIGH + LOW) / 2
print("manual log-det matches", torch.allclose(dist.log_prob(a_det), squashed_log_prob(base, pre), atol=1e-4))
print("deterministic action", a_det.round(decimals=4)[0].tolist())
t = ComposeTransform([TanhTransform(), AffineTransform((HIGH + LOW) / 2, (HIGH - LOW) / 2)])
print("inverse roundtrip", torch.allclose(t.inv(t(pre)), pre, atol=1e-4), t.domain, t.codomain)
print("ladj", t.log_abs_det_jacobian(pre, t(pre)).round(decimals=4)[0].tolist())
edge = torch.tensor([-1.0, -0.999999, 0.0, 0.999999, 1.0])
print("atanh edges", torch.atanh(edge).round(decimals=3).tolist())
eps = 1e-6
clipped = ((expert - (HIGH + LOW) / 2) / ((HIGH - LOW) / 2)).clamp(-1 + eps, 1 - eps)
print("atanh of clipped expert finite", torch.isfinite(torch.atanh(clipped)).all().item())

opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
for epoch in range(6):
    perm = torch.randperm(512)
    total = 0.0
    for i in range(0, 512, 128):
        idx = perm[i:i + 128]
        d, b = policy(obs[idx])
        target = expert[idx].clamp(LOW + 1e-4, HIGH - 1e-4)
        nll = -d.log_prob(target).mean()
        opt.zero_grad()
        nll.backward()
        gn = torch.nn.utils.clip_grad_norm_(policy.parameters(), 10.0)
        opt.step()
        total += nll.item()
    print(f"epoch {epoch} nll {total / 4:.3f} gradnorm finite {torch.isfinite(gn).item()}")
with torch.no_grad():
    d, b = policy(obs)
    mode = torch.tanh(b.loc) * (HIGH - LOW) / 2 + (HIGH + LOW) / 2
    print("bc mse", round(F.mse_loss(mode, expert).item(), 3), "mean std", round(b.scale.mean().item(), 3))
    print("entropy est", round(-d.log_prob(d.sample()).mean().item(), 1) < 10)

try:
    d.log_prob(torch.zeros(512, 4))
except Exception as e:
    print(type(e).__name__, str(e)[:90])
try:
    TanhTransform(cache_size=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    Normal(torch.zeros(3), -torch.ones(3))
except Exception as e:
    print(type(e).__name__, str(e)[:120])
try:
    Independent(Normal(torch.zeros(3), torch.ones(3)), 2)
except Exception as e:
    print(type(e).__name__, e)
