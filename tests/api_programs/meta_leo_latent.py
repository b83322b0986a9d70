"""Latent embedding optimization (LEO, Rusu et al.): a relation-network encoder maps each class's support examples to
a Gaussian over a low-dimensional code (rsample through torch.distributions.Normal), a decoder generates the
classifier weights from the code, the inner loop adapts the codes (not the weights) with create_graph, then the
weights are fine-tuned; the KL and encoder-decoder-orthogonality regularizers, and the distributions' checks."""

import torch
from torch.distributions import Normal, kl_divergence

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
WAY, SHOT, D, Z = 3, 2, 10, 4


class LEO(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(D, Z)
        self.relation = nn.Sequential(nn.Linear(2 * Z, 2 * Z), nn.ReLU(), nn.Linear(2 * Z, 2 * Z))
        self.decoder = nn.Linear(Z, 2 * D)
        self.inner_lr = nn.Parameter(torch.tensor(1.0))
        self.finetune_lr = nn.Parameter(torch.tensor(0.01))

    def encode(self, xs):  # xs: (WAY, SHOT, D) -> codes (WAY, Z), distribution
        e = self.encoder(xs)
        pairs = torch.cat([e.unsqueeze(2).expand(-1, -1, WAY * SHOT, -1),
                           e.reshape(1, 1, WAY * SHOT, Z).expand(WAY, SHOT, -1, -1)], dim=-1)
        stats = self.relation(pairs).mean(dim=(1, 2))
        mu, raw = stats.chunk(2, dim=-1)
        dist = Normal(mu, F.softplus(raw) + 1e-4)
        return dist.rsample(), dist

    def decode(self, z):  # (WAY, Z) -> weights (WAY, D)
        mu, raw = self.decoder(z).chunk(2, dim=-1)
        dist = Normal(mu, F.softplus(raw) + 1e-4)
        return dist.rsample(), dist

    def forward(self, xs, ys, xq, yq, inner_steps=3, ft_steps=2):
        z, enc_dist = self.encode(xs)
        z0 = z
        flat_x, flat_y = xs.reshape(-1, D), ys.reshape(-1)
        for _ in range(inner_steps):
            w, _ = self.decode(z)
            loss = F.cross_entropy(flat_x @ w.T, flat_y)
            (gz,) = torch.autograd.grad(loss, z, create_graph=True)
            z = z - self.inner_lr * gz
        w, dec_dist = self.decode(z)
        for _ in range(ft_steps):
            loss = F.cross_entropy(flat_x @ w.T, flat_y)
            (gw,) = torch.autograd.grad(loss, w, create_graph=True)
            w = w - self.finetune_lr * gw
        q_loss = F.cross_entropy(xq.reshape(-1, D) @ w.T, yq.reshape(-1))
        kl = kl_divergence(enc_dist, Normal(torch.zeros_like(enc_dist.loc), torch.ones_like(enc_dist.scale))).mean()
        enc_pen = (z0.detach() - z).pow(2).mean()
        W = self.decoder.weight
        corr = torch.corrcoef(W)
        ortho = (corr - torch.eye(corr.shape[0])).pow(2).mean()
        return q_loss, kl, enc_pen, ortho, w


protos = torch.randn(6, D)


def task():
    cls = torch.randperm(6)[:WAY]
    xs = protos[cls].unsqueeze(1) + 0.3 * torch.randn(WAY, SHOT, D)
    xq = protos[cls].unsqueeze(1) + 0.3 * torch.randn(WAY, SHOT, D)
    y = torch.arange(WAY).unsqueeze(1).expand(WAY, SHOT)
    return xs, y, xq, y


leo = LEO()
opt = torch.optim.Adam(leo.parameters(), lr=1e-3, weight_decay=1e-4)
for it in range(5):
    q_loss, kl, enc_pen, ortho, w = leo(*task())
    total = q_loss + 0.01 * kl + 0.1 * enc_pen + 0.1 * ortho
    opt.zero_grad()
    total.backward()
    nn.utils.clip_grad_norm_(leo.parameters(), 0.5)
    opt.step()
    print(f"it {it} query {q_loss.item():.4f} kl {kl.item():.4f} enc {enc_pen.item():.4f} ortho {ortho.item():.4f} "
          f"inner_lr {leo.inner_lr.item():.4f}")
print("generated weights", tuple(w.shape), w.grad_fn.name(), "finetune_lr grad", leo.finetune_lr.grad is not None)

# distributions used by LEO: rsample keeps the graph, sample does not; KL closed form
loc = torch.zeros(3, requires_grad=True)
d = Normal(loc, torch.ones(3))
print("rsample grad_fn", d.rsample().grad_fn is not None, "sample grad_fn", d.sample().grad_fn)
p, q = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), Normal(torch.tensor([0.5, 0.0]), torch.tensor(1.5))
kl = kl_divergence(p, q)
manual = torch.log(q.scale / p.scale) + (p.scale ** 2 + (p.loc - q.loc) ** 2) / (2 * q.scale ** 2) - 0.5
print("kl", kl.round(decimals=4).tolist(), "closed form", torch.allclose(kl, manual))
print("log_prob", p.log_prob(torch.tensor([0.0, 0.0])).round(decimals=4).tolist(), "entropy",
      p.entropy().round(decimals=4).tolist())
print("corrcoef", torch.corrcoef(torch.tensor([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]])).round(decimals=4).tolist())

for bad in [lambda: Normal(torch.zeros(2), torch.tensor([1.0, -1.0])),
            lambda: Normal(torch.zeros(2), torch.ones(2)).log_prob(torch.zeros(3)),
            lambda: torch.corrcoef(torch.ones(2, 2, 2))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
