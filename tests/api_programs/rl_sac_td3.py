"""SAC and TD3 updates as spinning-up/cleanrl write them: a tanh-squashed Gaussian actor (rsample, log_prob with
the tanh correction, next to TransformedDistribution with TanhTransform/AffineTransform), twin Q critics with
torch.min, a learned temperature log_alpha against a target entropy, TD3 target-policy smoothing with clamped
noise, delayed actor updates and Polyak updates through torch._foreach_mul_/_foreach_add_."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import AffineTransform, Normal, TanhTransform, TransformedDistribution

rng = np.random.default_rng(11)
LOG_STD_MIN, LOG_STD_MAX = -5, 2


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def N(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def det_(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(N(*p.shape, scale=scale))
    return m


def mlp(sizes, act=nn.ReLU, out_act=nn.Identity):
    layers = []
    for j in range(len(sizes) - 1):
        layers += [nn.Linear(sizes[j], sizes[j + 1]), act() if j < len(sizes) - 2 else out_act()]
    return nn.Sequential(*layers)


class SoftQ(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.q = mlp([obs_dim + act_dim, 32, 32, 1])

    def forward(self, o, a):
        return torch.squeeze(self.q(torch.cat([o, a], dim=-1)), -1)


class SquashedGaussianActor(nn.Module):
    def __init__(self, obs_dim, act_dim, act_limit):
        super().__init__()
        self.net = mlp([obs_dim, 32, 32], nn.ReLU, nn.ReLU)
        self.mu_layer = nn.Linear(32, act_dim)
        self.log_std_layer = nn.Linear(32, act_dim)
        self.register_buffer("action_scale", torch.tensor(act_limit, dtype=torch.float32))
        self.register_buffer("action_bias", torch.zeros(act_dim))

    def forward(self, obs, eps=None, deterministic=False, with_logprob=True):
        h = self.net(obs)
        mu = self.mu_layer(h)
        log_std = torch.tanh(self.log_std_layer(h))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        std = torch.exp(log_std)
        pi_distribution = Normal(mu, std)
        # reparameterised with numpy noise instead of pi_distribution.rsample() so the values are reproducible
        pi_action = mu if deterministic else mu + std * eps
        logp_pi = None
        if with_logprob:
            logp_pi = pi_distribution.log_prob(pi_action).sum(axis=-1)
            logp_pi -= (2 * (np.log(2) - pi_action - F.softplus(-2 * pi_action))).sum(axis=1)
        pi_action = torch.tanh(pi_action) * self.action_scale + self.action_bias
        return pi_action, logp_pi, mu, std


obs_dim, act_dim, B = 5, 2, 6
actor = det_(SquashedGaussianActor(obs_dim, act_dim, [1.0, 2.0]))
q1, q2 = det_(SoftQ(obs_dim, act_dim), 0.12), det_(SoftQ(obs_dim, act_dim), 0.12)
q1_targ, q2_targ = det_(SoftQ(obs_dim, act_dim)), det_(SoftQ(obs_dim, act_dim))
q1_targ.load_state_dict(q1.state_dict())
q2_targ.load_state_dict(q2.state_dict())
for p in list(q1_targ.parameters()) + list(q2_targ.parameters()):
    p.requires_grad = False
print("buffers", [(n, b.tolist()) for n, b in actor.named_buffers()])
target_entropy = -float(np.prod((act_dim,)))
log_alpha = torch.zeros(1, requires_grad=True)
q_opt = torch.optim.Adam(list(q1.parameters()) + list(q2.parameters()), lr=1e-3)
pi_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
a_opt = torch.optim.Adam([log_alpha], lr=1e-2)
gamma, polyak = 0.99, 0.995

for it in range(4):
    o, o2 = N(B, obs_dim), N(B, obs_dim)
    a = torch.from_numpy(rng.uniform(-1, 1, (B, act_dim)).astype(np.float32))
    rew = N(B)
    d = torch.from_numpy((rng.random(B) < 0.2).astype(np.float32))
    alpha = log_alpha.exp().detach()
    with torch.no_grad():
        a2, logp_a2, _, _ = actor(o2, eps=N(B, act_dim))
        q_pi_targ = torch.min(q1_targ(o2, a2), q2_targ(o2, a2))
        backup = rew + gamma * (1 - d) * (q_pi_targ - alpha * logp_a2)
    loss_q = ((q1(o, a) - backup) ** 2).mean() + ((q2(o, a) - backup) ** 2).mean()
    q_opt.zero_grad()
    loss_q.backward()
    q_opt.step()
    for p in q1.parameters():
        p.requires_grad_(False)
    pi, logp_pi, mu, std = actor(o, eps=N(B, act_dim))
    q_pi = torch.min(q1(o, pi), q2(o, pi))
    loss_pi = (alpha * logp_pi - q_pi).mean()
    pi_opt.zero_grad()
    loss_pi.backward()
    pi_opt.step()
    for p in q1.parameters():
        p.requires_grad_(True)
    alpha_loss = (-log_alpha.exp() * (logp_pi.detach() + target_entropy)).mean()
    a_opt.zero_grad()
    alpha_loss.backward()
    a_opt.step()
    with torch.no_grad():
        tp = list(q1_targ.parameters()) + list(q2_targ.parameters())
        sp = list(q1.parameters()) + list(q2.parameters())
        torch._foreach_mul_(tp, polyak)
        torch._foreach_add_(tp, sp, alpha=1 - polyak)
    print(f"it {it} lq {loss_q.item():.4f} lpi {loss_pi.item():.4f} la {alpha_loss.item():.4f} "
          f"alpha {log_alpha.exp().item():.4f} logp {r(logp_pi, 3)}")
print("pi range", bool((pi.abs() <= torch.tensor([1.0, 2.0])).all()), pi.shape, r(std.min()), r(std.max()))
print("q1 grad none", all(p.grad is not None for p in q1.parameters()), q1_targ.q[0].weight.grad)
print("targ moved", r((q1_targ.q[0].weight - q1.q[0].weight).abs().max()))

# the tanh correction equals TransformedDistribution(Normal, TanhTransform) and the 1 - tanh^2 formula
mu, std = N(4, act_dim, scale=0.5), N(4, act_dim, scale=0.3).exp()
u = mu + std * N(4, act_dim)
base = Normal(mu, std)
manual = base.log_prob(u).sum(-1) - (2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)
naive = (base.log_prob(u) - torch.log(1 - torch.tanh(u).pow(2) + 1e-6)).sum(-1)
td = TransformedDistribution(base, [TanhTransform(cache_size=1)])
y = td.transforms[0](u)
print("tanh logp", r(manual), r(td.log_prob(y).sum(-1)), r(naive))
scaled = TransformedDistribution(base, [TanhTransform(), AffineTransform(loc=0.0, scale=2.0)])
print("scaled", r(scaled.log_prob(2 * torch.tanh(u)).sum(-1)), r(manual - act_dim * math.log(2)))
print("td shapes", td.batch_shape, td.event_shape, td.rsample().shape, td.has_rsample, Normal.has_rsample)
print("tanh inv", r(TanhTransform().inv(torch.tensor([0.0, 0.5, -0.9]))), r(torch.atanh(torch.tensor([0.5]))))
print("ladj", r(TanhTransform().log_abs_det_jacobian(u, torch.tanh(u)), 4))

# TD3: target-policy smoothing, clipped noise, delayed actor
actor_td3 = det_(mlp([obs_dim, 32, act_dim], out_act=nn.Tanh))
actor_targ = det_(mlp([obs_dim, 32, act_dim], out_act=nn.Tanh))
actor_targ.load_state_dict(actor_td3.state_dict())
o2 = N(B, obs_dim)
noise = (N(B, act_dim) * 0.2).clamp(-0.5, 0.5)
a2 = (actor_targ(o2) + noise).clamp(-1.0, 1.0)
print("td3 a2", r(a2), r(noise.abs().max()))
a2b = torch.clip(actor_targ(o2) + noise, min=torch.tensor([-1.0, -0.5]), max=torch.tensor([1.0, 0.5]))
print("clip tensor bounds", r(a2b[:, 1].abs().max()))
opt_td3 = torch.optim.Adam(actor_td3.parameters(), lr=1e-3)
for it in range(4):
    o = N(B, obs_dim)
    if it % 2 == 0:
        loss = -q1(o, actor_td3(o)).mean()
        opt_td3.zero_grad()
        loss.backward()
        opt_td3.step()
        print(f"td3 actor step {it} {loss.item():.4f}", len(opt_td3.state))

try:
    Normal(torch.zeros(2), torch.tensor([1.0, 0.0]))
except ValueError as e:
    print("ValueError", str(e)[:60])
try:
    q1(N(B, obs_dim), N(B, act_dim + 1))
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    log_alpha.exp().backward()
    log_alpha.exp().backward()
    print("two backwards fine", r(log_alpha.grad))
except RuntimeError as e:
    print("RuntimeError", str(e)[:60])
