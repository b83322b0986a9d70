"""A seeded VAE study as generative-modelling papers' code runs it: dynamically binarised data drawn with
torch.bernoulli, the reparameterisation trick with randn_like, KL annealing, IWAE bounds with k samples,
prior samples and latent interpolation, a Gumbel-softmax discrete VAE, and posterior-collapse statistics."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(99)

D, Z, N = 16, 3, 96
centers = torch.rand(4, D)
assign = torch.randint(0, 4, (N,))
probs = (centers[assign] * 0.8 + 0.1).clamp(0, 1)
print("data probs", round(probs.mean().item(), 4), "assign", torch.bincount(assign).tolist())


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(D, 32), nn.Tanh())
        self.mu = nn.Linear(32, Z)
        self.logvar = nn.Linear(32, Z)
        self.dec = nn.Sequential(nn.Linear(Z, 32), nn.Tanh(), nn.Linear(32, D))

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def loss_fn(logits, x, mu, logvar, beta):
    rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
    return rec + beta * kl, rec, kl


vae = VAE()
opt = torch.optim.Adam(vae.parameters(), lr=5e-3)
for epoch in range(10):
    x = torch.bernoulli(probs)
    perm = torch.randperm(N)
    beta = min(1.0, epoch / 5)
    tot = rec_t = kl_t = 0.0
    for i in range(0, N, 32):
        xb = x[perm[i:i + 32]]
        logits, mu, logvar = vae(xb)
        loss, rec, kl = loss_fn(logits, xb, mu, logvar, beta)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot, rec_t, kl_t = tot + loss.item(), rec_t + rec.item(), kl_t + kl.item()
    if epoch % 3 == 0 or epoch == 9:
        print(f"epoch {epoch} beta {beta:.2f} loss {tot / 3:.4f} rec {rec_t / 3:.4f} kl {kl_t / 3:.4f}")


@torch.no_grad()
def iwae_bound(x, k):
    mu, logvar = vae.encode(x)
    std = torch.exp(0.5 * logvar)
    eps = torch.randn(k, *mu.shape)
    z = mu + eps * std
    logits = vae.dec(z)
    log_px_z = -F.binary_cross_entropy_with_logits(logits, x.expand(k, -1, -1), reduction="none").sum(-1)
    prior = torch.distributions.Normal(0.0, 1.0)
    post = torch.distributions.Normal(mu, std)
    log_w = log_px_z + prior.log_prob(z).sum(-1) - post.log_prob(z).sum(-1)
    return (torch.logsumexp(log_w, 0) - torch.log(torch.tensor(float(k)))).mean().item()


xt = torch.bernoulli(probs[:32])
for k in (1, 5, 50):
    print(f"iwae k={k} bound {iwae_bound(xt, k):.4f}")
with torch.no_grad():
    mu, logvar = vae.encode(xt)
    active = (mu.var(0) > 0.01).sum().item()
    print("active units", active, "mean posterior var", [round(v, 4) for v in logvar.exp().mean(0).tolist()])
    z = torch.randn(5, Z)
    samples = torch.bernoulli(torch.sigmoid(vae.dec(z)))
    print("prior samples row sums", samples.sum(1).tolist())
    za, zb = mu[0], mu[1]
    alphas = torch.linspace(0, 1, 5)
    path = torch.stack([(1 - a) * za + a * zb for a in alphas])
    print("interp decoded means", [round(v, 4) for v in torch.sigmoid(vae.dec(path)).mean(1).tolist()])

torch.manual_seed(5)
K, L = 4, 2


class GumbelVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(D, L * K)
        self.dec = nn.Linear(L * K, D)

    def forward(self, x, tau, hard):
        logits = self.enc(x).view(-1, L, K)
        y = F.gumbel_softmax(logits, tau=tau, hard=hard, dim=-1)
        return self.dec(y.view(-1, L * K)), logits


gv = GumbelVAE()
opt2 = torch.optim.Adam(gv.parameters(), lr=1e-2)
for step in range(15):
    tau = max(0.5, 1.0 * 0.9 ** step)
    x = torch.bernoulli(probs[:48])
    out, logits = gv(x, tau, hard=step >= 10)
    q = logits.softmax(-1)
    kl = (q * (q.clamp_min(1e-10).log() - torch.log(torch.tensor(1.0 / K)))).sum((1, 2)).mean()
    loss = F.binary_cross_entropy_with_logits(out, x, reduction="sum") / 48 + kl
    opt2.zero_grad()
    loss.backward()
    opt2.step()
    if step % 5 == 4:
        print(f"gumbel step {step} tau {tau:.4f} loss {loss.item():.4f} kl {kl.item():.4f}")
torch.manual_seed(0)
hard = F.gumbel_softmax(torch.tensor([[1.0, 2.0, 0.5]]), tau=0.5, hard=True)
soft = F.gumbel_softmax(torch.tensor([[1.0, 2.0, 0.5]]), tau=0.5)
print("gumbel hard", hard, "soft", soft)
counts = torch.zeros(3)
for _ in range(400):
    counts += F.gumbel_softmax(torch.tensor([1.0, 2.0, 0.5]).log(), hard=True)
print("gumbel freq", [round(v, 4) for v in (counts / 400).tolist()])
