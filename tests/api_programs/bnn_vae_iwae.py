"""VAE on binarised blobs: ELBO with analytic and Monte-Carlo KL, IWAE bound, KL annealing and free bits."""
import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


class VAE(nn.Module):
    def __init__(self, d=16, z=2, h=32):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ELU(), nn.Linear(h, 2 * z))
        self.dec = nn.Sequential(nn.Linear(z, h), nn.ELU(), nn.Linear(h, d))
        self.z = z

    def q(self, x):
        mu, log_var = self.enc(x).chunk(2, -1)
        return D.Independent(D.Normal(mu, torch.exp(0.5 * log_var)), 1)

    def p_x(self, z):
        return D.Independent(D.Bernoulli(logits=self.dec(z)), 1)

    def prior(self):
        return D.Independent(D.Normal(torch.zeros(self.z), torch.ones(self.z)), 1)


def elbo(model, x, beta=1.0, analytic=True, free_bits=0.0):
    q = model.q(x)
    z = q.rsample()
    rec = model.p_x(z).log_prob(x)
    if analytic:
        kl = D.kl_divergence(q, model.prior())
    else:
        kl = q.log_prob(z) - model.prior().log_prob(z)
    if free_bits > 0:
        kl = torch.clamp(kl, min=free_bits)
    return rec - beta * kl, rec, kl


def iwae(model, x, k=32):
    q = model.q(x)
    z = q.rsample((k,))
    log_w = model.p_x(z).log_prob(x) + model.prior().log_prob(z) - q.log_prob(z)
    return torch.logsumexp(log_w, 0) - math.log(k)


torch.manual_seed(0)
protos = (torch.rand(4, 16) > 0.5).float()
x = protos[torch.randint(0, 4, (256,))]
flip = torch.rand_like(x) < 0.05
x = torch.where(flip, 1 - x, x)
model = VAE()
q = model.q(x[:8])
print("q", q.batch_shape, q.event_shape, type(q.base_dist).__name__, q.reinterpreted_batch_ndims)
print("p", model.p_x(q.mean).batch_shape, model.p_x(q.mean).event_shape)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(40):
    beta = min(1.0, epoch / 20)
    for i in range(0, 256, 64):
        opt.zero_grad()
        e, rec, kl = elbo(model, x[i:i + 64], beta=beta, free_bits=0.05)
        (-e.mean()).backward()
        opt.step()
    if epoch % 10 == 0:
        print("epoch", epoch, "beta", round(beta, 2), "finite", bool(torch.isfinite(e).all()))

model.eval()
torch.manual_seed(1)
with torch.no_grad():
    e_a, rec, kl_a = elbo(model, x)
    e_mc = torch.stack([elbo(model, x, analytic=False)[0] for _ in range(50)]).mean(0)
    bound = iwae(model, x, k=64)
print("elbo analytic ~ mc", abs(e_a.mean().item() - e_mc.mean().item()) < 0.5)
print("iwae >= elbo", bool(bound.mean() >= e_a.mean() - 0.05))
print("rec improves", bool(rec.mean() > -6.0), "kl positive", bool((kl_a > 0).all()))
with torch.no_grad():
    z_mu = model.q(protos).mean
    recon = model.p_x(z_mu).mean
print("prototype recon acc", round(((recon > 0.5).float() == protos).float().mean().item(), 2))
print("bernoulli stats", model.p_x(z_mu).base_dist.probs.shape, model.p_x(z_mu).mode.shape)

# KL between diagonal Gaussians, written out by hand
mu = torch.tensor([[0.5, -1.0]])
lv = torch.tensor([[0.2, -0.4]])
qd = D.Independent(D.Normal(mu, (0.5 * lv).exp()), 1)
manual = -0.5 * torch.sum(1 + lv - mu.pow(2) - lv.exp(), -1)
print("kl", round(D.kl_divergence(qd, model.prior()).item(), 4), round(manual.item(), 4))
print("entropy", round(qd.entropy().item(), 4), "mode", qd.mode.tolist())
be = D.Bernoulli(logits=torch.tensor([-2.0, 0.0, 3.0]))
obs = torch.tensor([0.0, 1.0, 1.0])
print("bce", round(-be.log_prob(obs).sum().item(), 4),
      round(F.binary_cross_entropy_with_logits(be.logits, obs, reduction="sum").item(), 4))
print("bern", [round(v, 4) for v in be.entropy().tolist()], [round(v, 4) for v in be.variance.tolist()])
cb = D.ContinuousBernoulli(logits=torch.tensor([-2.0, 0.0, 3.0]))
print("cont bern", [round(v, 4) for v in cb.log_prob(torch.tensor([0.2, 0.5, 0.9])).tolist()],
      [round(v, 4) for v in cb.mean.tolist()])
try:
    D.kl_divergence(qd, D.Independent(D.Normal(torch.zeros(2, 2), 1.0), 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.Bernoulli(logits=torch.zeros(2), validate_args=True).log_prob(torch.tensor([0.5, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
