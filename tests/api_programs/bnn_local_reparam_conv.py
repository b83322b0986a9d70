"""Variational convolutions: local reparameterisation, flipout-style sign flips and the KL of a Gaussian scale mixture
prior."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


class BayesConv2d(nn.Module):
    def __init__(self, cin, cout, k, stride=1, padding=0):
        super().__init__()
        self.stride, self.padding = stride, padding
        self.mu = nn.Parameter(torch.empty(cout, cin, k, k))
        nn.init.kaiming_normal_(self.mu, mode="fan_out", nonlinearity="relu")
        self.rho = nn.Parameter(torch.full((cout, cin, k, k), -5.0))
        self.bias = nn.Parameter(torch.zeros(cout))

    @property
    def sigma(self):
        return F.softplus(self.rho)

    def forward(self, x, mode="local"):
        if mode == "mean":
            return F.conv2d(x, self.mu, self.bias, self.stride, self.padding)
        if mode == "local":
            m = F.conv2d(x, self.mu, self.bias, self.stride, self.padding)
            v = F.conv2d(x.pow(2), self.sigma.pow(2), None, self.stride, self.padding)
            return m + v.clamp_min(1e-16).sqrt() * torch.randn_like(m)
        # flipout: one shared weight perturbation, decorrelated by per-example sign flips
        m = F.conv2d(x, self.mu, self.bias, self.stride, self.padding)
        dw = self.sigma * torch.randn_like(self.sigma)
        sin = torch.randint(0, 2, x.shape[:2]).float().mul(2).sub(1)[..., None, None]
        sout = torch.randint(0, 2, m.shape[:2]).float().mul(2).sub(1)[..., None, None]
        return m + F.conv2d(x * sin, dw, None, self.stride, self.padding) * sout

    def kl_mixture_prior(self, n_samples=1, pi=0.5, s1=1.0, s2=math.exp(-6)):
        q = D.Normal(self.mu, self.sigma)
        mix = D.MixtureSameFamily(
            D.Categorical(torch.tensor([pi, 1 - pi])), D.Normal(torch.zeros(2), torch.tensor([s1, s2]))
        )
        w = q.rsample((n_samples,))
        return (q.log_prob(w) - mix.log_prob(w)).sum() / n_samples


torch.manual_seed(0)
layer = BayesConv2d(3, 8, 3, stride=2, padding=1)
x = torch.randn(4, 3, 16, 16)
for mode in ["mean", "local", "flipout"]:
    out = layer(x, mode)
    print(mode, tuple(out.shape), type(out.grad_fn).__name__)
print("sigma", round(layer.sigma.mean().item(), 5), "numel", layer.mu.numel())

# the local-reparameterisation output distribution matches sampling weights directly
with torch.no_grad():
    layer.rho.fill_(-1.0)
    xi = x[:1]
    torch.manual_seed(1)
    direct = torch.stack(
        [F.conv2d(xi, layer.mu + layer.sigma * torch.randn_like(layer.mu), layer.bias, 2, 1) for _ in range(400)]
    )
    local = torch.stack([layer(xi, "local") for _ in range(400)])
    print("mean match", torch.allclose(direct.mean(0), local.mean(0), atol=0.35))
    ratio = (direct.std(0).mean() / local.std(0).mean()).item()
    print("std ratio ~1", abs(ratio - 1) < 0.1)

torch.manual_seed(2)
kl1 = layer.kl_mixture_prior(n_samples=64)
closed = D.kl_divergence(D.Normal(layer.mu, layer.sigma), D.Normal(0.0, 1.0)).sum()
print("kl finite", bool(torch.isfinite(kl1)), "closed form vs N(0,1)", round(closed.item(), 1))
kl1.backward()
print("grads", layer.mu.grad.shape, layer.rho.grad.abs().sum().item() > 0)

# a small Bayesian CNN, minibatch ELBO with kl weighting per batch
net = nn.ModuleList([BayesConv2d(1, 4, 3, padding=1), BayesConv2d(4, 8, 3, stride=2, padding=1)])
head = nn.Linear(8, 2)
torch.manual_seed(3)
imgs = torch.randn(32, 1, 8, 8)
labels = (imgs[:, :, :4].mean((1, 2, 3)) > imgs[:, :, 4:].mean((1, 2, 3))).long()
params = list(net.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params, lr=1e-2)
M = 4
for epoch in range(15):
    for i in range(M):
        xb, yb = imgs[i * 8 : (i + 1) * 8], labels[i * 8 : (i + 1) * 8]
        h = F.relu(net[0](xb))
        h = F.relu(net[1](h))
        logits = head(F.adaptive_avg_pool2d(h, 1).flatten(1))
        nll = F.cross_entropy(logits, yb, reduction="sum")
        kl = sum(D.kl_divergence(D.Normal(l.mu, l.sigma), D.Normal(0.0, 0.1)).sum() for l in net)
        loss = nll + kl / (M * 32)
        opt.zero_grad()
        loss.backward()
        opt.step()
print("elbo finite", bool(torch.isfinite(loss)), "pool shape", F.adaptive_avg_pool2d(h, 1).shape)
try:
    F.conv2d(x, layer.mu[:, :2], None, 2, 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv2d(x, layer.sigma.pow(2), torch.zeros(3))
except Exception as e:
    print(type(e).__name__, e)
