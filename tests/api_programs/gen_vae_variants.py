"""VAE variants as research code writes them: a beta-VAE with KL annealing and free bits, the reparameterization
trick with fixed noise, IWAE bounds via logsumexp over importance samples, torch.distributions (Normal, Independent,
Bernoulli, ContinuousBernoulli, kl_divergence), and a conv decoder with its parameter errors."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Bernoulli, ContinuousBernoulli, Independent, Normal, kl_divergence

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.2):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.41 + 0.03 * k) + 0.5 * k).view_as(p))


class VAE(nn.Module):
    def __init__(self, x_dim=16, z_dim=3, h=20):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, h), nn.ELU())
        self.mu = nn.Linear(h, z_dim)
        self.logvar = nn.Linear(h, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, h), nn.ELU(), nn.Linear(h, x_dim))
        det_init_(self)

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h).clamp(-6, 6)

    def reparameterize(self, mu, logvar, eps):
        std = torch.exp(0.5 * logvar)
        return mu + eps * std

    def forward(self, x, eps):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar, eps)
        return self.dec(z), mu, logvar, z


def fixed_eps(*shape, phase=0.0):
    n = math.prod(shape)
    u = torch.remainder(torch.arange(n, dtype=torch.float32) * 0.6180340 + 0.31 + phase, 1.0).clamp(1e-3, 1 - 1e-3)
    return torch.special.ndtri(u).view(shape)


B, XD, ZD = 6, 16, 3
x = (torch.sin(torch.arange(B * XD, dtype=torch.float32).view(B, XD) * 0.9) > 0.2).float()
model = VAE()
eps = fixed_eps(B, ZD)
logits, mu, logvar, z = model(x, eps)
rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / B
kl_per_dim = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())
kl = kl_per_dim.sum(1).mean()
print("rec", round(rec.item(), 4), "kl", round(kl.item(), 4), "kl/dim", r(kl_per_dim.mean(0), 4))

# the same KL through torch.distributions
q = Independent(Normal(mu, torch.exp(0.5 * logvar)), 1)
p = Independent(Normal(torch.zeros_like(mu), torch.ones_like(mu)), 1)
kl_d = kl_divergence(q, p)
print("kl_divergence", kl_d.shape, torch.allclose(kl_d, kl_per_dim.sum(1), atol=1e-5), q.batch_shape, q.event_shape)
px = Independent(Bernoulli(logits=logits), 1)
print("bernoulli log_prob", r(px.log_prob(x), 4), torch.allclose(-px.log_prob(x).mean(), rec, atol=1e-4))
print("mean", r(px.mean[0], 4), "entropy", r(px.entropy(), 4))
cb = ContinuousBernoulli(logits=logits[0, :4])
print("continuous bernoulli", r(cb.log_prob(torch.tensor([0.1, 0.5, 0.9, 0.3])), 4), r(cb.mean, 4))

# beta-VAE with a linear KL warm-up and free bits (per-dimension KL floor)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
beta_max, warmup, free_bits = 4.0, 10, 0.1
hist = []
for step in range(30):
    eps = fixed_eps(B, ZD, phase=0.013 * step)
    logits, mu, logvar, z = model(x, eps)
    rec = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1).mean()
    kld = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())
    kld_fb = torch.clamp(kld.mean(0), min=free_bits).sum()
    beta = beta_max * min(1.0, step / warmup)
    loss = rec + beta * kld_fb
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 6 == 0 or step == 29:
        hist.append((step, round(beta, 2), round(rec.item(), 3), round(kld.sum(1).mean().item(), 3)))
for h in hist:
    print("step", h)


# IWAE: log p(x) >= E[log 1/K sum_k p(x,z_k)/q(z_k|x)]
@torch.no_grad()
def iwae_bound(model, x, K):
    mu, logvar = model.encode(x)
    std = torch.exp(0.5 * logvar)
    eps = fixed_eps(K, *mu.shape)
    zk = mu.unsqueeze(0) + eps * std.unsqueeze(0)  # [K, B, Z]
    logits = model.dec(zk)
    log_px_z = -F.binary_cross_entropy_with_logits(logits, x.expand(K, -1, -1), reduction="none").sum(-1)
    log_pz = Normal(0.0, 1.0).log_prob(zk).sum(-1)
    log_qz = Normal(mu, std).log_prob(zk).sum(-1)
    log_w = log_px_z + log_pz - log_qz
    bound = torch.logsumexp(log_w, dim=0) - math.log(K)
    w_norm = F.softmax(log_w, dim=0)
    ess = 1.0 / (w_norm ** 2).sum(0)
    return bound, log_w, ess


for K in [1, 5, 50]:
    bound, log_w, ess = iwae_bound(model, x, K)
    print(f"K={K:3d} bound {bound.mean().item():.4f} elbo(K-avg) {log_w.mean().item():.4f} ess {r(ess, 3)}")

# logsumexp stability against the naive form
big = torch.tensor([[1000.0, 1000.5, 999.0], [-1000.0, -1001.0, -999.5]])
print("logsumexp", torch.logsumexp(big, dim=1), "naive", torch.log(torch.exp(big).sum(1)))
print("logsumexp -inf row", torch.logsumexp(torch.full((2, 3), float("-inf")), dim=1),
      "keepdim", torch.logsumexp(big, 1, keepdim=True).shape)

# the errors users hit
try:
    Normal(torch.zeros(2), torch.tensor([1.0, -1.0]), validate_args=True)
except ValueError as e:
    print("ValueError:", str(e).split("\n")[0][:120])
try:
    Bernoulli(probs=torch.tensor([0.2]), logits=torch.tensor([0.1]))
except ValueError as e:
    print("ValueError:", e)
try:
    F.binary_cross_entropy(torch.tensor([0.5, 1.5]), torch.tensor([1.0, 0.0]))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    kl_divergence(Bernoulli(probs=torch.tensor(0.3)), ContinuousBernoulli(probs=torch.tensor(0.3)))
except NotImplementedError as e:
    print("NotImplementedError:", type(e).__name__)
