"""VAE with reparameterization + torch.distributions."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.distributions import (
    Normal,
    Categorical,
    Bernoulli,
    Independent,
    kl_divergence,
    MultivariateNormal,
    Uniform,
    Beta,
    Gamma,
    Dirichlet,
    OneHotCategorical,
    RelaxedOneHotCategorical,
    TransformedDistribution,
    Laplace,
    Poisson,
    Exponential,
)
from torch.distributions.transforms import TanhTransform, AffineTransform
import torch.distributions as D

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class VAE(nn.Module):
    def __init__(self, d=10, z=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 16), nn.SiLU())
        self.mu, self.logvar = nn.Linear(16, z), nn.Linear(16, z)
        self.dec = nn.Sequential(nn.Linear(z, 16), nn.Tanh(), nn.Linear(16, d))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        q = Normal(mu, torch.exp(0.5 * logvar))
        z = q.rsample()
        p = Normal(torch.zeros_like(mu), torch.ones_like(mu))
        kl = kl_divergence(q, p).sum(-1)
        return self.dec(z), kl, mu, logvar


torch.manual_seed(0)
m = VAE()
x = T(32, 10)
opt = torch.optim.Adam(m.parameters(), lr=1e-2)
for i in range(30):
    rec, kl, mu, logvar = m(x)
    kl_cf = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)
    torch.testing.assert_close(kl, kl_cf, rtol=1e-4, atol=1e-5)
    loss = F.mse_loss(rec, x, reduction="sum") / 32 + kl.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if i == 0:
        l0 = loss.item()
print("vae", loss.item() < l0)
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
v = torch.tensor([0.5, -1.0])
print(
    "normal",
    r(n.log_prob(v)),
    r(n.entropy()),
    r(n.cdf(v)),
    r(n.icdf(torch.tensor([0.3, 0.9]))),
    n.mean.tolist(),
    r(n.stddev),
    r(n.variance),
)
print("shapes", n.batch_shape, n.event_shape, n.sample((3,)).shape, n.rsample().requires_grad)
c = Categorical(logits=torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0]]))
print(
    "cat",
    r(c.probs),
    r(c.log_prob(torch.tensor([1, 2]))),
    r(c.entropy()),
    c.sample((4,)).shape,
    c.sample().dtype,
    c.param_shape if hasattr(c, "param_shape") else None,
)
c2 = Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
print(
    "klcat",
    r(kl_divergence(c2, Categorical(logits=torch.zeros(3)))),
    c2.logits.tolist() is not None,
    c2.enumerate_support().tolist(),
)
b = Bernoulli(logits=torch.tensor([0.3, -1.2]))
print("bern", r(b.log_prob(torch.tensor([1.0, 0.0]))), r(b.entropy()), r(b.probs))
mvn = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[2.0, 0.3], [0.3, 1.0]]))
print("mvn", r(mvn.log_prob(torch.tensor([0.5, -0.5]))), r(mvn.entropy()), mvn.event_shape, r(mvn.scale_tril))
ind = Independent(Normal(torch.zeros(3, 2), torch.ones(3, 2)), 1)
print("ind", ind.batch_shape, ind.event_shape, r(ind.log_prob(torch.zeros(3, 2))))
print("kl_ind", r(kl_divergence(ind, Independent(Normal(torch.ones(3, 2), 2 * torch.ones(3, 2)), 1))))
print(
    "unif",
    r(Uniform(0.0, 2.0).log_prob(torch.tensor(0.5))),
    r(Beta(2.0, 3.0).log_prob(torch.tensor(0.3))),
    r(Gamma(2.0, 1.5).log_prob(torch.tensor(1.0))),
)
print(
    "dir",
    r(Dirichlet(torch.tensor([1.0, 2.0, 3.0])).log_prob(torch.tensor([0.2, 0.3, 0.5]))),
    r(Laplace(0.0, 1.0).log_prob(torch.tensor(1.0))),
    r(Poisson(3.0).log_prob(torch.tensor(2.0))),
    r(Exponential(2.0).log_prob(torch.tensor(1.0))),
)
oh = OneHotCategorical(probs=torch.tensor([0.2, 0.8]))
print("onehot", oh.sample().shape, r(oh.log_prob(torch.tensor([0.0, 1.0]))))
ro = RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.2, 0.8]))
print("relaxed", ro.rsample().shape)
td = TransformedDistribution(Normal(0.0, 1.0), [TanhTransform(cache_size=1), AffineTransform(1.0, 2.0)])
print("td", r(td.log_prob(torch.tensor(1.5))))
print("tanhnormal_sample", td.rsample((5,)).shape)
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("validate", type(e).__name__)
print("D.Normal", D.Normal is Normal, isinstance(n, D.Distribution))
print("OK")
