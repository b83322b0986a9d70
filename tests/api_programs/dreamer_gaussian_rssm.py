"""PlaNet/DreamerV1's Gaussian RSSM: softplus std heads with min_std, Normal rsample, KL of Independent Normals
against free nats via torch.max, overshooting-style latent rollouts, and a REINFORCE actor with OneHotCategorical."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, OneHotCategorical, kl_divergence

torch.manual_seed(0)
torch.set_printoptions(precision=4)
B, Z, D, A = 3, 4, 6, 3


class StochHead(nn.Module):
    def __init__(self, inp, z, min_std=0.1):
        super().__init__()
        self.fc = nn.Linear(inp, 2 * z)
        self.min_std = min_std

    def forward(self, x):
        mean, std = torch.chunk(self.fc(x), 2, dim=-1)
        std = F.softplus(std) + self.min_std
        return Independent(Normal(mean, std), 1)


prior_head, post_head = StochHead(D, Z), StochHead(D + 5, Z)
cell = nn.GRUCell(Z + A, D)
h = torch.zeros(B, D)
z = torch.zeros(B, Z)
a = F.one_hot(torch.tensor([0, 2, 1]), A).float()
h = cell(torch.cat([z, a], -1), h)
prior = prior_head(h)
post = post_head(torch.cat([h, torch.randn(B, 5)], -1))
print(prior, prior.base_dist.scale.min() >= 0.1)
z = post.rsample()
print(z.shape, z.grad_fn.name(), post.log_prob(z).shape, post.entropy().shape)
kl = kl_divergence(post, prior)
print(kl.shape, bool((kl >= 0).all()))
free_nats = torch.full((1,), 3.0)
kl_loss = torch.max(kl, free_nats).mean()
print(kl_loss.grad_fn.name(), round(kl_loss.item(), 4) >= 3.0)
kl_loss2 = torch.max(kl.mean(), torch.tensor(3.0))
print(kl_loss2.shape, kl_loss2.grad_fn.name())
kl_loss.backward()
print(post_head.fc.weight.grad is not None, prior_head.fc.weight.grad.abs().sum().item() >= 0)
print(kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0)), kl_divergence(Normal(1.0, 2.0), Normal(0.0, 1.0)))
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(n.mean, n.stddev, n.variance, n.entropy(), n.cdf(torch.tensor([0.0, 1.0])), n.icdf(torch.tensor([0.5, 0.975])))
print(n.sample((2,)).shape, n.rsample().requires_grad, n.batch_shape, n.event_shape)
print(Independent(n, 1).log_prob(torch.zeros(2)), n.log_prob(torch.zeros(2)).sum())
print(Normal(torch.zeros(2), torch.ones(2)).expand((3, 2)).batch_shape, Normal(0.0, 1.0).batch_shape)

# overshooting: roll the prior forward with no observations
with torch.no_grad():
    hs, zs = [], []
    hh, zz = h.detach(), z.detach()
    for t in range(3):
        hh = cell(torch.cat([zz, a], -1), hh)
        zz = prior_head(hh).mean
        hs.append(hh)
        zs.append(zz)
print(torch.stack(zs).shape, torch.stack(hs).requires_grad)

# REINFORCE actor over discrete actions
logits = torch.randn(B, A, requires_grad=True)
pi = OneHotCategorical(logits=logits)
torch.manual_seed(3)
act = pi.sample()
adv = torch.tensor([1.0, -0.5, 2.0])
pg = -(pi.log_prob(act) * adv).mean() - 1e-3 * pi.entropy().mean()
pg.backward()
print(act, pi.log_prob(act), logits.grad)
print(pi.entropy(), pi.mean, pi.variance)
for bad in [
    lambda: Normal(torch.zeros(2), torch.ones(2)).log_prob(torch.zeros(3)),
    lambda: torch.max(kl, torch.zeros(2)),
    lambda: Independent(Normal(torch.zeros(2), torch.ones(2)), 2),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
