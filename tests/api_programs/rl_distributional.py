"""Distributional value learning: the C51 categorical projection (floor/ceil, index_add_ on a flattened offset,
scatter_add_), QR-DQN's quantile Huber loss with broadcast tau, IQN's cosine embedding, and DreamerV3/MuZero value
transforms (symlog, the invertible h(x), two-hot encoding over bucketised supports)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def N(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


# ---- C51 ----
n_atoms, v_min, v_max, B, n_act = 11, -5.0, 5.0, 4, 3
support = torch.linspace(v_min, v_max, n_atoms)
delta_z = (v_max - v_min) / (n_atoms - 1)
print("support", support.tolist()[:4], delta_z, support.dtype)


class C51(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, n_act * n_atoms))
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(N(*p.shape, scale=0.3))

    def forward(self, x):
        logits = self.net(x).view(-1, n_act, n_atoms)
        return F.softmax(logits, dim=-1), F.log_softmax(logits, dim=-1)


net = C51()
obs, obs2 = N(B, 4), N(B, 4)
acts = torch.tensor([0, 2, 1, 2])
rew = torch.tensor([1.0, -0.5, 0.0, 6.0])
done = torch.tensor([0.0, 0.0, 1.0, 0.0])
gamma = 0.9
with torch.no_grad():
    next_pmfs, _ = net(obs2)
    next_q = (next_pmfs * support).sum(2)
    next_a = next_q.argmax(1)
    next_pmf = next_pmfs[torch.arange(B), next_a]
    tz = (rew.unsqueeze(-1) + gamma * support.unsqueeze(0) * (1 - done.unsqueeze(-1))).clamp(v_min, v_max)
    b = (tz - v_min) / delta_z
    lo, up = b.floor().long(), b.ceil().long()
    # the dopamine fix: when b is an integer, lo == up and the mass would vanish
    lo[(up > 0) & (lo == up)] -= 1
    up[(lo < (n_atoms - 1)) & (lo == up)] += 1
    offset = torch.linspace(0, (B - 1) * n_atoms, B).long().unsqueeze(1).expand(B, n_atoms)
    proj = torch.zeros(B * n_atoms)
    proj.index_add_(0, (lo + offset).view(-1), (next_pmf * (up.float() - b)).view(-1))
    proj.index_add_(0, (up + offset).view(-1), (next_pmf * (b - lo.float())).view(-1))
    proj = proj.view(B, n_atoms)
    proj2 = torch.zeros(B, n_atoms)
    proj2.scatter_add_(1, lo, next_pmf * (up.float() - b)).scatter_add_(1, up, next_pmf * (b - lo.float()))
print("next_a", next_a.tolist(), "proj sums", r(proj.sum(1)), torch.allclose(proj, proj2))
print("proj row0", r(proj[0], 11))
print("proj row3 (clamped)", r(proj[3], 11), "b", r(b[3], 4), lo[3].tolist()[-3:], up[3].tolist()[-3:])
_, log_p = net(obs)
loss = -(proj * log_p[torch.arange(B), acts]).sum(-1).mean()
loss.backward()
print("c51 loss", round(loss.item(), 4), r(net.net[2].bias.grad, 4))

# ---- QR-DQN quantile Huber ----
n_q = 8
tau_hat = (2 * torch.arange(n_q, dtype=torch.float32) + 1) / (2.0 * n_q)
theta = N(B, n_q).requires_grad_()
target = N(B, n_q).sort(dim=1).values
u = target.unsqueeze(1) - theta.unsqueeze(2)  # (B, n_q, n_q): pairwise TD errors
kappa = 1.0
huber = torch.where(u.abs() <= kappa, 0.5 * u.pow(2), kappa * (u.abs() - 0.5 * kappa))
huber2 = F.huber_loss(theta.unsqueeze(2).expand_as(u), target.unsqueeze(1).expand_as(u), reduction="none", delta=kappa)
rho = (tau_hat.view(1, -1, 1) - (u.detach() < 0).float()).abs() * huber / kappa
qloss = rho.sum(1).mean(1).mean()
qloss.backward()
print("tau_hat", r(tau_hat, 8))
print("quantile huber", round(qloss.item(), 4), torch.allclose(huber, huber2), r(theta.grad[0], 8))

# ---- IQN cosine embedding ----
n_cos, emb = 16, 8
taus = torch.from_numpy(rng.random((B, 5)).astype(np.float32))
i_pi = np.pi * torch.arange(1, n_cos + 1, dtype=torch.float32)
cos = torch.cos(taus.unsqueeze(-1) * i_pi)
phi = nn.Linear(n_cos, emb)
with torch.no_grad():
    phi.weight.copy_(N(emb, n_cos, scale=0.2))
    phi.bias.zero_()
tau_emb = F.relu(phi(cos))
state_emb = N(B, 1, emb)
print("iqn", cos.shape, tau_emb.shape, (state_emb * tau_emb).shape, r((state_emb * tau_emb).mean((1, 2))))


# ---- value transforms ----
def symlog(x):
    return torch.sign(x) * torch.log1p(torch.abs(x))


def symexp(x):
    return torch.sign(x) * torch.expm1(torch.abs(x))


def h(x, eps=1e-3):
    return torch.sign(x) * (torch.sqrt(torch.abs(x) + 1) - 1) + eps * x


def h_inv(x, eps=1e-3):
    return torch.sign(x) * (((torch.sqrt(1 + 4 * eps * (torch.abs(x) + 1 + eps)) - 1) / (2 * eps)) ** 2 - 1)


vals = torch.tensor([-100.0, -3.5, -0.2, 0.0, 0.7, 12.0, 250.0])
print("symlog", r(symlog(vals), 7), r(symexp(symlog(vals)), 7))
print("h", r(h(vals), 7), "roundtrip", torch.allclose(h_inv(h(vals)), vals, rtol=1e-4, atol=1e-3))

bins = torch.linspace(-20.0, 20.0, 41)


def two_hot(x, bins):
    x = x.clamp(bins[0], bins[-1])
    below = (torch.bucketize(x, bins, right=True) - 1).clamp(0, len(bins) - 2)
    above = below + 1
    w_above = (x - bins[below]) / (bins[above] - bins[below])
    out = torch.zeros(x.shape + (len(bins),))
    out.scatter_(-1, below.unsqueeze(-1), (1 - w_above).unsqueeze(-1))
    out.scatter_add_(-1, above.unsqueeze(-1), w_above.unsqueeze(-1))
    return out


th = two_hot(symlog(vals), torch.linspace(-6.0, 6.0, 13))
print("two_hot nonzero", th.nonzero().tolist()[:6])
print("two_hot decode", r(symexp((th * torch.linspace(-6.0, 6.0, 13)).sum(-1)), 7))
sb = torch.searchsorted(bins, torch.tensor([-20.0, -0.5, 0.0, 3.0, 25.0]))
print("searchsorted", sb.tolist(), torch.bucketize(torch.tensor([0.0, 0.5]), bins).tolist(), sb.dtype)
logits = N(3, 13).requires_grad_()
ce = -(th[:3] * F.log_softmax(logits, -1)).sum(-1).mean()
ce2 = F.cross_entropy(logits, th[:3])
ce.backward()
print("two-hot CE", round(ce.item(), 4), round(ce2.item(), 4), r(logits.grad[0], 4))
try:
    torch.bucketize(torch.tensor([1.0]), torch.tensor([[0.0, 1.0]]))
except RuntimeError as e:
    print("bucketize err", str(e)[:70])
try:
    torch.zeros(4).index_add_(0, torch.tensor([0, 5]), torch.ones(2))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, str(e)[:70])
