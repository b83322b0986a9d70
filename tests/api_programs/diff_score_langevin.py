"""Score-based models (NCSN, Song & Ermon): geometric sigma ladders from torch.logspace, denoising score matching
with sigma-conditioned scores, sliced score matching with Rademacher projections through autograd.grad
(create_graph, grad_outputs, is_grads_batched), exact divergence by a Jacobian trace, annealed Langevin dynamics on
a seeded generator, and the autograd errors score code meets."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


sigmas = torch.logspace(math.log10(1.0), math.log10(0.01), 5)
sigmas2 = torch.exp(torch.linspace(math.log(1.0), math.log(0.01), 5))
print("sigmas:", r(sigmas), torch.allclose(sigmas, sigmas2), sigmas.dtype)
print("logspace base 2:", torch.logspace(0, 3, 4, base=2).tolist(), torch.logspace(0, 1, 3, dtype=torch.float64).dtype)


class ScoreNet(nn.Module):
    def __init__(self, d=2, h=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, h), nn.Softplus(), nn.Linear(h, h), nn.Softplus(), nn.Linear(h, d))

    def forward(self, x, sigma):
        return self.net(torch.cat([x, sigma.log().expand(x.shape[0], 1)], dim=1)) / sigma


net = ScoreNet()
with torch.no_grad():
    for k, p in enumerate(net.parameters()):
        p.copy_(0.4 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.7 + k).view_as(p))

data = torch.tensor([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]).repeat(2, 1) * 0.8
# denoising score matching: target -(x_tilde - x) / sigma^2, weighted by sigma^2
idx = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2])
sig = sigmas[idx].view(-1, 1)
noise = torch.randn_like(data)
x_t = data + sig * noise
target = -noise / sig
score = torch.cat([net(x_t[i : i + 1], sig[i]) for i in range(8)])
dsm = 0.5 * ((score - target) ** 2).sum(dim=-1) * sig.squeeze(-1) ** 2
print("dsm:", r(dsm, 8), round(dsm.mean().item(), 4))

# sliced score matching with Rademacher projections
x = data.clone().requires_grad_(True)
s = net(x, sigmas[2])
vproj = torch.randint(0, 2, x.shape, generator=torch.Generator().manual_seed(1)).float() * 2 - 1
sv = (s * vproj).sum()
grad_sv = torch.autograd.grad(sv, x, create_graph=True)[0]
ssm = ((grad_sv * vproj).sum(-1) + 0.5 * (s**2).sum(-1)).mean()
print("ssm:", round(ssm.item(), 4), grad_sv.requires_grad, grad_sv.grad_fn is not None)
ssm.backward()
print("ssm param grad:", round(net.net[0].weight.grad.norm().item(), 4))

# exact divergence: trace of the Jacobian, row by row and with is_grads_batched
x = data[:3].clone().requires_grad_(True)
s = net(x, sigmas[1])
div = sum(torch.autograd.grad(s[:, i].sum(), x, retain_graph=True)[0][:, i] for i in range(2))
eye = torch.eye(2).unsqueeze(1).expand(2, 3, 2)
rows = torch.autograd.grad(s, x, grad_outputs=eye, is_grads_batched=True, retain_graph=True)[0]
print("divergence:", r(div), "batched:", r(rows[0, :, 0] + rows[1, :, 1]), tuple(rows.shape))
jac = torch.autograd.functional.jacobian(lambda z: net(z, sigmas[1]).sum(0), x.detach())
print(
    "jacobian:", tuple(jac.shape), r(torch.einsum("iaj->a", torch.diagonal(jac, dim1=0, dim2=2).unsqueeze(0)).flatten())
)
unused = torch.zeros(2, requires_grad=True)
g_none = torch.autograd.grad(s.sum(), [x, net.net[0].bias, unused], allow_unused=True, retain_graph=True)
print("allow_unused:", [None if g is None else tuple(g.shape) for g in g_none])
g_zero = torch.autograd.grad(s.sum(), [unused], allow_unused=True, materialize_grads=True, retain_graph=True)
print("materialize_grads:", r(g_zero[0]))

# annealed Langevin dynamics
gen = torch.Generator().manual_seed(123)
xs = torch.rand(64, 2, generator=gen) * 4 - 2
eps0 = 2e-5
with torch.no_grad():
    for sgm in sigmas:
        alpha = eps0 * (sgm / sigmas[-1]) ** 2
        for _ in range(5):
            z = torch.randn(xs.shape, generator=gen)
            xs = xs + alpha / 2 * net(xs, sgm) + alpha.sqrt() * z
print("langevin:", tuple(xs.shape), bool(torch.isfinite(xs).all()), round(xs.abs().mean().item(), 2))

try:
    torch.autograd.grad(s.sum(), x, grad_outputs=torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(s.sum(), sigmas)
except Exception as e:
    print(type(e).__name__, e)
y = net(data.clone().requires_grad_(True), sigmas[0]).sum()
y.backward(retain_graph=False)
try:
    y.backward()
except Exception as e:
    print(type(e).__name__, str(e).split(".")[0])
try:
    torch.autograd.grad(torch.ones(2, requires_grad=True) * 2, torch.ones(2, requires_grad=True))
except Exception as e:
    print(type(e).__name__, e)
