"""Score matching as research code writes it: denoising score matching with multiple noise levels (NCSN, sigma^2
weighting), exact score matching via the Jacobian trace (autograd.grad per dimension and torch.func.jacrev), sliced
score matching with fixed projections and create_graph, Hutchinson trace estimates, annealed Langevin dynamics,
and an energy-based model's score from -grad E."""

import math

import torch
import torch.nn as nn
from torch.func import jacrev, vmap

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.3):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.57 + 0.09 * k) + 0.3 * k).view_as(p))


def fixed_normal(*shape, phase=0.0):
    n = math.prod(shape)
    u = torch.remainder(torch.arange(n, dtype=torch.float64) * 0.7548776662 + 0.5698402910 + phase, 1.0)
    return torch.special.ndtri(u.clamp(1e-4, 1 - 1e-4)).float().view(shape)


class ScoreNet(nn.Module):
    """s(x, sigma) with a sigma embedding; output divided by sigma as in NCSNv2."""

    def __init__(self, d=2, h=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, h), nn.Softplus(), nn.Linear(h, h), nn.Softplus(), nn.Linear(h, d))
        det_init_(self)

    def forward(self, x, sigma):
        s = self.net(torch.cat([x, sigma.log().view(-1, 1).expand(x.shape[0], 1)], 1))
        return s / sigma.view(-1, 1)


sigmas = torch.tensor(torch.exp(torch.linspace(math.log(1.0), math.log(0.01), 6)).tolist())
print("sigmas", sigmas)
data = torch.stack([torch.cos(torch.linspace(0, 2 * math.pi, 32)), torch.sin(torch.linspace(0, 2 * math.pi, 32))], 1)
model = ScoreNet()


def dsm_loss(model, x, sigmas, labels, noise, anneal_power=2.0):
    used = sigmas[labels].view(x.shape[0], 1)
    perturbed = x + noise * used
    target = -1 / (used ** 2) * (perturbed - x)
    scores = model(perturbed, used.squeeze(1))
    loss = 0.5 * ((scores - target) ** 2).sum(dim=-1) * used.squeeze() ** anneal_power
    return loss.mean(), loss


labels = torch.arange(32) % len(sigmas)
noise = fixed_normal(32, 2)
loss, per = dsm_loss(model, data, sigmas, labels, noise)
by_level = torch.zeros(len(sigmas)).index_add_(0, labels, per.detach()) / torch.bincount(labels, minlength=len(sigmas))
print("dsm", round(loss.item(), 4), "per level", r(by_level, 6))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(40):
    noise = fixed_normal(32, 2, phase=0.05 * step)
    loss, _ = dsm_loss(model, data, sigmas, labels, noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print("step", step, round(loss.item(), 4))


# exact (implicit) score matching: E[ tr(ds/dx) + 0.5 |s|^2 ], trace by per-dimension autograd.grad
class Energy(nn.Module):
    def __init__(self, d=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 16), nn.Tanh(), nn.Linear(16, 1))
        det_init_(self, 0.5)

    def forward(self, x):
        return self.net(x).squeeze(-1)


energy = Energy()
x = torch.sin(torch.arange(5 * 3, dtype=torch.float32).view(5, 3) * 0.4).requires_grad_(True)


def score_fn(x):
    e = energy(x)
    return -torch.autograd.grad(e.sum(), x, create_graph=True)[0]


s = score_fn(x)
trace = torch.zeros(x.shape[0])
for i in range(x.shape[1]):
    trace = trace + torch.autograd.grad(s[:, i].sum(), x, create_graph=True)[0][:, i]
esm = (trace + 0.5 * (s ** 2).sum(1)).mean()
print("score", r(s[0], 3), "trace", r(trace, 5), "esm", round(esm.item(), 4))


# the same trace with torch.func: jacrev of the score per sample, vmapped
def score_single(xi):
    return -torch.func.grad(lambda v: energy(v.unsqueeze(0)).squeeze(0))(xi)


J = vmap(jacrev(score_single))(x.detach())
print("jacrev", J.shape, "trace match", torch.allclose(torch.diagonal(J, dim1=1, dim2=2).sum(-1), trace.detach(),
                                                       atol=1e-5), "symmetric", torch.allclose(J, J.transpose(1, 2),
                                                                                                atol=1e-6))
hess = torch.autograd.functional.hessian(lambda v: energy(v.unsqueeze(0)).sum(), x[0].detach())
print("hessian == -J[0]", torch.allclose(hess, -J[0], atol=1e-6), hess.shape)

# sliced score matching with fixed projection vectors v
v = fixed_normal(5, 3, phase=0.3)
v = v / v.norm(dim=-1, keepdim=True)
s = score_fn(x)
gradv = torch.autograd.grad((s * v).sum(), x, create_graph=True)[0]
loss1 = 0.5 * (s * v).sum(-1) ** 2  # SSM-VR would use 0.5 * |s|^2
loss2 = (v * gradv).sum(-1)
ssm = (loss1 + loss2).mean()
ssm.backward()
print("ssm", round(ssm.item(), 4), "energy grad", r(energy.net[0].weight.grad, 4))
print("hutchinson vs trace", r((v * gradv).sum(-1) * 3, 5), "(single probe, scaled by d)")

# annealed Langevin dynamics with the trained score net and fixed noise
model.eval()
with torch.no_grad():
    xk = fixed_normal(64, 2, phase=0.11) * 1.0
    step_lr = 2e-5
    for i, sigma in enumerate(sigmas):
        alpha = step_lr * (sigma / sigmas[-1]) ** 2
        for k in range(5):
            grad = model(xk, sigma.expand(1))
            z = fixed_normal(64, 2, phase=0.017 * (5 * i + k))
            xk = xk + alpha / 2 * grad + alpha.sqrt() * z
        if i in (0, 3, 5):
            print(f"sigma {sigma.item():.4f} alpha {alpha.item():.6f} radius mean {xk.norm(dim=1).mean().item():.4f}")
print("final radius quantiles", torch.quantile(xk.norm(dim=1), torch.tensor([0.1, 0.5, 0.9])))
