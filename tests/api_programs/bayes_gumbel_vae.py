"""A VAE with a Gaussian and a Gumbel-softmax categorical latent: ELBO terms, analytic and MC KLs, annealing."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


class VAE(nn.Module):
    def __init__(self, d=16, zc=4, k=3, h=32):
        super().__init__()
        self.k = k
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ELU())
        self.mu, self.logvar = nn.Linear(h, zc), nn.Linear(h, zc)
        self.cat_logits = nn.Linear(h, k)
        self.dec = nn.Sequential(nn.Linear(zc + k, h), nn.ELU(), nn.Linear(h, d))

    def forward(self, x, tau):
        h = self.enc(x)
        qz = D.Independent(D.Normal(self.mu(h), torch.exp(0.5 * self.logvar(h))), 1)
        qc = D.RelaxedOneHotCategorical(tau, logits=self.cat_logits(h))
        z, c = qz.rsample(), qc.rsample()
        px = D.Independent(D.Bernoulli(logits=self.dec(torch.cat([z, c], -1))), 1)
        return px, qz, qc, z, c


torch.manual_seed(0)
proto = (torch.rand(3, 16) > 0.5).float()
idx = torch.randint(0, 3, (64,))
x = (proto[idx] + (torch.rand(64, 16) < 0.1).float()) % 2
vae = VAE()
opt = torch.optim.Adam(vae.parameters(), lr=3e-3)
prior_z = D.Independent(D.Normal(torch.zeros(4), torch.ones(4)), 1)
prior_c = D.Categorical(logits=torch.zeros(3))
for step in range(120):
    tau = torch.tensor(max(0.5, math.exp(-0.01 * step)))
    px, qz, qc, z, c = vae(x, tau)
    rec = px.log_prob(x)
    kl_z = D.kl_divergence(qz, prior_z)
    q_cat = D.Categorical(logits=qc.logits)
    kl_c = D.kl_divergence(q_cat, prior_c)
    beta = min(1.0, step / 60)
    elbo = rec - beta * (kl_z + kl_c)
    loss = -elbo.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 40 == 0:
        print(
            step,
            "tau",
            round(tau.item(), 4),
            "rec",
            round(rec.mean().item(), 3),
            "kl_z",
            round(kl_z.mean().item(), 3),
            "kl_c",
            round(kl_c.mean().item(), 3),
        )

print("shapes", px.batch_shape, px.event_shape, qz.batch_shape, qz.event_shape, qc.batch_shape, qc.event_shape)
print("c on simplex", torch.allclose(c.sum(-1), torch.ones(64)), c.grad_fn is not None)
print("qc temperature", round(qc.temperature.item(), 4), type(qc.base_dist).__name__)
print("qc support", qc.support, "qz support", qz.support)

# MC KL versus analytic for the Gaussian part
with torch.no_grad():
    zs = qz.sample((2000,))
    mc = (qz.log_prob(zs) - prior_z.log_prob(zs)).mean(0)
print("mc vs analytic close", torch.allclose(mc, kl_z.detach(), atol=0.15))

# IWAE bound with K samples is at least the ELBO on average
with torch.no_grad():
    h = vae.enc(x)
    qz_ = D.Independent(D.Normal(vae.mu(h), torch.exp(0.5 * vae.logvar(h))), 1)
    c_hard = F.one_hot(vae.cat_logits(h).argmax(-1), 3).float()
    K = 64
    zk = qz_.sample((K,))
    logits = vae.dec(torch.cat([zk, c_hard.expand(K, -1, -1)], -1))
    lw = D.Independent(D.Bernoulli(logits=logits), 1).log_prob(x) + prior_z.log_prob(zk) - qz_.log_prob(zk)
    iwae = (torch.logsumexp(lw, 0) - math.log(K)).mean()
    elbo1 = lw.mean()
print("iwae >= elbo", bool(iwae >= elbo1))

# straight-through hard samples and the relaxed log density
torch.manual_seed(0)
logits = torch.tensor([[1.0, 0.0, -1.0]], requires_grad=True)
soft = F.gumbel_softmax(logits, tau=0.5, hard=False)
hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
print("hard one-hot", hard.sum().item(), hard.max().item(), hard.grad_fn is not None)
(hard * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("st grad", logits.grad.abs().sum().item() > 0)
rc = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=torch.tensor([1.0, 0.0, -1.0]))
print("relaxed lp", round(rc.log_prob(torch.tensor([0.7, 0.2, 0.1])).item(), 4))
rb = D.RelaxedBernoulli(torch.tensor(0.5), logits=torch.tensor([0.3, -0.3]))
print("relaxed bern lp", r(rb.log_prob(torch.tensor([0.8, 0.1]))), rb.rsample((5,)).shape)
try:
    F.gumbel_softmax(logits, tau=0.5, dim=3)
except Exception as e:
    print(type(e).__name__, e)
