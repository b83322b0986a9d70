"""A small VAE on synthetic binary patterns, written as research code writes it: an encoder producing Normal
posteriors (Independent over latent dims), rsample for the reparameterized ELBO, a Bernoulli(logits) decoder,
the analytic KL against the prior vs the Monte Carlo one, an importance-weighted bound (IWAE), and the
posterior's shapes and entropy."""
import math

import torch
import torch.distributions as D
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

# data: 4 prototype 12-pixel patterns with 10% bit flips
protos = (torch.rand(4, 12) > 0.5).float()
idx = torch.randint(0, 4, (128,))
flips = (torch.rand(128, 12) < 0.1).float()
data = (protos[idx] + flips) % 2
print("data", data.shape, "mean", round(data.mean().item(), 4))


class VAE(nn.Module):
    def __init__(self, x_dim=12, h=32, z_dim=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, h), nn.Tanh(), nn.Linear(h, 2 * z_dim))
        self.dec = nn.Sequential(nn.Linear(z_dim, h), nn.Tanh(), nn.Linear(h, x_dim))
        self.z_dim = z_dim

    def posterior(self, x):
        mu, log_sigma = self.enc(x).chunk(2, dim=-1)
        return D.Independent(D.Normal(mu, log_sigma.exp()), 1)

    def prior(self):
        return D.Independent(D.Normal(torch.zeros(self.z_dim), torch.ones(self.z_dim)), 1)

    def likelihood(self, z):
        return D.Independent(D.Bernoulli(logits=self.dec(z)), 1)

    def elbo(self, x, analytic_kl=True):
        q = self.posterior(x)
        z = q.rsample()
        rec = self.likelihood(z).log_prob(x)
        if analytic_kl:
            kl = D.kl_divergence(q, self.prior())
        else:
            kl = q.log_prob(z) - self.prior().log_prob(z)
        return rec - kl, rec, kl

    def iwae(self, x, k=16):
        q = self.posterior(x)
        z = q.rsample((k,))  # k x B x z
        log_w = self.likelihood(z).log_prob(x) + self.prior().log_prob(z) - q.log_prob(z)
        return torch.logsumexp(log_w, 0) - math.log(k)


model = VAE()
print("params", sum(p.numel() for p in model.parameters()))
q0 = model.posterior(data[:5])
print("posterior", q0.batch_shape, q0.event_shape, "base", q0.base_dist.batch_shape)
print("entropy", [round(v, 4) for v in q0.entropy().tolist()])
print("rsample grad_fn", type(q0.rsample().grad_fn).__name__, "sample requires_grad", q0.sample().requires_grad)

opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(60):
    perm = torch.randperm(128)
    tot = 0.0
    for b in range(0, 128, 32):
        x = data[perm[b:b + 32]]
        elbo, rec, kl = model.elbo(x)
        loss = -elbo.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * x.shape[0]
    if epoch % 15 == 0 or epoch == 59:
        print(f"epoch {epoch:2d} -elbo {tot / 128:.4f} rec {rec.mean().item():.4f} kl {kl.mean().item():.4f}")

model.eval()
with torch.no_grad():
    torch.manual_seed(1)
    e_an = model.elbo(data, analytic_kl=True)[0].mean()
    torch.manual_seed(1)
    e_mc = model.elbo(data, analytic_kl=False)[0].mean()
    torch.manual_seed(2)
    iw = model.iwae(data, k=32).mean()
    print("elbo analytic", round(e_an.item(), 3), "mc", round(e_mc.item(), 3), "iwae", round(iw.item(), 3),
          "iwae >= elbo", iw.item() >= e_an.item() - 0.05)
    mu = model.posterior(protos).mean
    print("prototype codes", mu.shape, "distinct", torch.cdist(mu, mu).add(torch.eye(4) * 99).min().item() > 0.1)
    recon = model.likelihood(mu).mean.round()
    print("prototype reconstruction accuracy", round((recon == protos).float().mean().item(), 4))
    torch.manual_seed(3)
    z = model.prior().sample((5,))
    samples = model.likelihood(z).sample()
    print("prior samples", samples.shape, samples.dtype, "bits on", int(samples.sum().item()))
    print("bernoulli mode == mean round", torch.equal(model.likelihood(z).base_dist.mode,
                                                      (model.likelihood(z).mean > 0.5).float()))

# beta-VAE style weighting and free bits on a fresh batch, gradients of each term
x = data[:16]
q = model.posterior(x)
kl_dims = D.kl_divergence(q.base_dist, D.Normal(0.0, 1.0))
print("kl per dim", kl_dims.shape, "free bits clamp", round(kl_dims.clamp(min=0.1).sum(-1).mean().item(), 3) >=
      round(kl_dims.sum(-1).mean().item(), 3))
torch.manual_seed(4)
z = q.rsample()
loss = -(model.likelihood(z).log_prob(x) - 4.0 * kl_dims.sum(-1)).mean()
model.zero_grad()
loss.backward()
g = model.enc[0].weight.grad
print("encoder grad finite", bool(torch.isfinite(g).all()), "nonzero", bool(g.abs().sum() > 0))
