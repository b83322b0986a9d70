"""WGAN-GP as the repos write it: interpolates by torch.rand + lerp, autograd.grad with create_graph, the per-sample
norm(2, dim=1), one-sided and zero-centred penalties, DRAGAN perturbations, weight clipping with clamp_ (WGAN), and
the autograd errors such code hits."""

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)

D = nn.Sequential(nn.Conv2d(1, 4, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(4 * 4 * 4, 1))
real = torch.randn(6, 1, 8, 8)
fake = torch.randn(6, 1, 8, 8, requires_grad=True)


def gradient_penalty(D, real, fake, center=1.0, one_sided=False):
    alpha = torch.rand(real.size(0), 1, 1, 1)
    alpha = alpha.expand_as(real)
    interp = torch.lerp(real, fake.detach(), alpha).requires_grad_(True)
    out = D(interp)
    grads = torch.autograd.grad(
        outputs=out,
        inputs=interp,
        grad_outputs=torch.ones_like(out),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    grads = grads.view(grads.size(0), -1)
    norms = grads.norm(2, dim=1)
    if one_sided:
        return F.relu(norms - center).pow(2).mean(), norms
    return ((norms - center) ** 2).mean(), norms


gp, norms = gradient_penalty(D, real, fake)
print("gp", round(gp.item(), 4), gp.grad_fn.name(), norms.shape, [round(v, 4) for v in norms.tolist()])
gp.backward()
print("D grad after gp", round(D[0].weight.grad.abs().sum().item(), 4), fake.grad is None)
D.zero_grad()
gp1, _ = gradient_penalty(D, real, fake, one_sided=True)
gp0, n0 = gradient_penalty(D, real, fake, center=0.0)
print("one-sided", round(gp1.item(), 4), "zero-centred", round(gp0.item(), 4))

# The method form of lerp with a tensor weight, and the scalar form.
a = torch.rand(6, 1, 1, 1)
print("lerp tensor", round(real.lerp(fake, a).sum().item(), 4), real.lerp(fake, a).grad_fn.name())
print("lerp scalar", round(torch.lerp(real, fake, 0.25).sum().item(), 4))
print("manual", round((a * real + (1 - a) * fake).sum().item(), 4))

# DRAGAN: perturb real data by its own std.
x_p = real + 0.5 * real.std() * torch.rand_like(real)
dif = x_p - real
alpha = torch.rand(6, 1, 1, 1)
x_hat = (real + alpha * dif).requires_grad_()
g = torch.autograd.grad(D(x_hat).sum(), x_hat, create_graph=True)[0]
dragan = ((g.flatten(1).norm(p=2, dim=1) - 1) ** 2).mean()
print("dragan", round(dragan.item(), 4), g.requires_grad)

# Full critic loss with gp, its backward reaching every parameter.
opt = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
for it in range(3):
    opt.zero_grad()
    gp, _ = gradient_penalty(D, real, fake)
    loss = D(fake.detach()).mean() - D(real).mean() + 10.0 * gp
    loss.backward()
    opt.step()
    print("critic", it, round(loss.item(), 4), [p.grad is not None for p in D.parameters()])

# Original WGAN weight clipping with RMSprop.
opt2 = torch.optim.RMSprop(D.parameters(), lr=5e-5)
for p in D.parameters():
    p.data.clamp_(-0.01, 0.01)
print("clipped", [round(p.abs().max().item(), 4) for p in D.parameters()])
print(
    "clip via clamp tensor bounds",
    torch.clamp(torch.tensor([-1.0, 0.0, 1.0]), min=torch.tensor(-0.5), max=torch.tensor(0.5)).tolist(),
)

# Penalty from a norm over every dim except the batch.
g2 = torch.autograd.grad(D(real.requires_grad_()).sum(), real, create_graph=True)[0]
print("vector_norm", torch.linalg.vector_norm(g2, ord=2, dim=(1, 2, 3)).round(decimals=4).tolist())
print("norm keepdim", tuple(g2.norm(2, dim=(1, 2, 3), keepdim=True).shape))
real.requires_grad_(False)

# Misuse: grad of a non-scalar without grad_outputs, grad w.r.t. an unused input, second grad without create_graph.
x = torch.randn(3, 1, 8, 8, requires_grad=True)
try:
    torch.autograd.grad(D(x), x)
except Exception as e:
    print(type(e).__name__, e)
unused = torch.randn(3, requires_grad=True)
try:
    torch.autograd.grad(D(x).sum(), [x, unused])
except Exception as e:
    print(type(e).__name__, e)
gx = torch.autograd.grad(D(x).sum(), [x, unused], allow_unused=True)
print("allow_unused", gx[1] is None, tuple(gx[0].shape))
gx = torch.autograd.grad(D(x).sum(), [x, unused], allow_unused=True, materialize_grads=True)
print("materialize", gx[1].tolist())
g = torch.autograd.grad(D(x).sum(), x)[0]
try:
    g.norm().backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    real.clone().lerp_(fake.detach(), torch.rand(6, 2, 1, 1))
except Exception as e:
    print(type(e).__name__, e)

# cuDNN switched off around the double backward (an RNN critic's habit), every switch restored after.
with torch.backends.cudnn.flags(enabled=False):
    inside = (torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
    gp_off, _ = gradient_penalty(D, real, fake)
    gp_off.backward()
print(
    "cudnn off", inside, round(gp_off.item(), 4), "after", torch.backends.cudnn.enabled, torch.backends.cudnn.allow_tf32
)
