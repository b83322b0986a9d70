"""Energy-based model with Langevin sampling (requires_grad_ on inputs, clamp_, replay buffer) and contrastive
divergence, and a mixture density network (Categorical/MixtureSameFamily/Independent log_prob, sampling shapes)."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributions as D

rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class EnergyNet(nn.Module):
    def __init__(self, dim=2, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def langevin(model, x, steps=5, step_size=0.1, noise=0.01):
    is_training = model.training
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    x = x.detach().clone()
    x.requires_grad_(True)
    had_grad = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    for _ in range(steps):
        x.data.add_(noise * T(*x.shape))
        x.data.clamp_(min=-2.0, max=2.0)
        energy = -model(x)
        energy.sum().backward()
        x.grad.data.clamp_(-0.1, 0.1)
        x.data.add_(-step_size * x.grad.data)
        x.grad.detach_()
        x.grad.zero_()
        x.data.clamp_(min=-2.0, max=2.0)
    for p in model.parameters():
        p.requires_grad_(True)
    model.train(is_training)
    torch.set_grad_enabled(had_grad)
    return x.detach()


ebm = EnergyNet()
with torch.no_grad():
    for p in ebm.parameters():
        p.copy_(T(*p.shape) * 0.5)
opt = torch.optim.Adam(ebm.parameters(), lr=1e-3, betas=(0.0, 0.999))
buffer = [torch.from_numpy(rng.uniform(-2, 2, (2,)).astype(np.float32)) for _ in range(16)]
data = torch.cat([T(8, 2) * 0.3 + 1.0, T(8, 2) * 0.3 - 1.0])
for it in range(3):
    n_new = 2
    rand = torch.from_numpy(rng.uniform(-2, 2, (n_new, 2)).astype(np.float32))
    idx = rng.integers(0, len(buffer), 6)
    init = torch.cat([rand, torch.stack([buffer[i] for i in idx])], dim=0)
    fake = langevin(ebm, init)
    buffer = list(fake.unbind(0)) + buffer
    buffer = buffer[:16]
    real_out, fake_out = ebm(data), ebm(fake)
    reg = 0.1 * (real_out ** 2 + 0.0).mean() + 0.1 * (fake_out ** 2).mean()
    cdiv = fake_out.mean() - real_out.mean()
    loss = reg + cdiv
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("ebm", it, round(loss.item(), 4), round(cdiv.item(), 4), r(fake, 4), fake.requires_grad)
print("params trainable again", all(p.requires_grad for p in ebm.parameters()), ebm.training, torch.is_grad_enabled())
print("buffer", len(buffer), r(torch.stack(buffer).mean(0)))
leaf = torch.zeros(3, requires_grad=True)
try:
    leaf.clamp_(0, 1)
except RuntimeError as e:
    print("RuntimeError", e)
with torch.no_grad():
    leaf.clamp_(-1, 1)
print("leaf ok", leaf.requires_grad, leaf.grad)


class MDN(nn.Module):
    def __init__(self, in_dim, out_dim, k):
        super().__init__()
        self.k, self.out_dim = k, out_dim
        self.trunk = nn.Sequential(nn.Linear(in_dim, 16), nn.Tanh())
        self.pi = nn.Linear(16, k)
        self.mu = nn.Linear(16, k * out_dim)
        self.log_sigma = nn.Linear(16, k * out_dim)

    def forward(self, x):
        h = self.trunk(x)
        mix = D.Categorical(logits=self.pi(h))
        mu = self.mu(h).view(-1, self.k, self.out_dim)
        sigma = F.softplus(self.log_sigma(h)).view(-1, self.k, self.out_dim) + 1e-3
        comp = D.Independent(D.Normal(mu, sigma), 1)
        return D.MixtureSameFamily(mix, comp)


mdn = MDN(1, 2, 3)
with torch.no_grad():
    for p in mdn.parameters():
        p.copy_(T(*p.shape) * 0.5)
x = torch.linspace(-1, 1, 6).unsqueeze(1)
y = torch.cat([torch.sin(3 * x), torch.cos(2 * x)], dim=1) + 0.05 * T(6, 2)
dist = mdn(x)
print(dist.batch_shape, dist.event_shape, dist.mixture_distribution.probs.shape)
print("component", dist.component_distribution.batch_shape, dist.component_distribution.event_shape)
lp = dist.log_prob(y)
print("log_prob", r(lp), lp.shape)
# manual log-sum-exp mixture likelihood
h = mdn.trunk(x)
logpi = F.log_softmax(mdn.pi(h), dim=-1)
mu = mdn.mu(h).view(-1, 3, 2)
sig = F.softplus(mdn.log_sigma(h)).view(-1, 3, 2) + 1e-3
comp_lp = (-0.5 * ((y[:, None] - mu) / sig) ** 2 - sig.log() - 0.5 * math.log(2 * math.pi)).sum(-1)
manual = torch.logsumexp(logpi + comp_lp, dim=-1)
print("manual agrees", torch.allclose(manual, lp, atol=1e-5))
print("mean", r(dist.mean), "variance", r(dist.variance))
s = dist.sample((4,))
print("sample shape", s.shape, dist.sample().shape)
opt = torch.optim.SGD(mdn.parameters(), lr=0.05, momentum=0.9)
for it in range(3):
    nll = -mdn(x).log_prob(y).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    print("mdn", it, round(nll.item(), 4), r(mdn.pi.weight.grad, 3))
ind = D.Independent(D.Normal(torch.zeros(3, 2), torch.ones(3, 2)), 1)
print(ind)
print("ind lp", r(ind.log_prob(torch.ones(3, 2))), r(ind.entropy()))
cat = D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
print(cat, cat.param_shape, r(cat.logits))
print("support", cat.support, D.Normal(0.0, 1.0).support)
try:
    D.MixtureSameFamily(D.Categorical(logits=torch.zeros(6, 4)), D.Independent(D.Normal(mu, sig), 1))
except ValueError as e:
    print("ValueError", e)
try:
    D.Normal(torch.zeros(2), -torch.ones(2))
except ValueError as e:
    print("ValueError", str(e).split("\n")[0])
try:
    D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 2)
except ValueError as e:
    print("ValueError", e)
try:
    D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5])).log_prob(torch.tensor(3))
except ValueError as e:
    print("ValueError", str(e).split("\n")[0])
