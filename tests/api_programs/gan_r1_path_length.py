"""StyleGAN2's regularisers: R1 on reals with lazy regularisation (every k steps, gamma scaled by k), R2 on fakes,
path-length regularisation with a running mean buffer and pl_noise / sqrt(H*W), autograd.grad with several outputs
and is_grads_batched, no_sync-style accumulation, and the errors of double backward without create_graph."""

import math

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)

D = nn.Sequential(
    nn.Conv2d(2, 4, 3, 1, 1), nn.Softplus(), nn.Conv2d(4, 4, 3, 2, 1), nn.Softplus(), nn.Flatten(), nn.Linear(64, 1)
)
mapping = nn.Sequential(nn.Linear(4, 4), nn.LeakyReLU(0.2), nn.Linear(4, 4))
synth = nn.Sequential(nn.Linear(4, 2 * 8 * 8), nn.Unflatten(1, (2, 8, 8)), nn.Tanh())


def r1_penalty(real_img, logits):
    (grad,) = torch.autograd.grad(outputs=[logits.sum()], inputs=[real_img], create_graph=True, only_inputs=True)
    return grad.square().sum(dim=[1, 2, 3])


real = torch.randn(4, 2, 8, 8).requires_grad_(True)
logits = D(real)
pen = r1_penalty(real, logits)
print("r1 per sample", pen.round(decimals=4).tolist(), pen.grad_fn.name())
gamma, reg_interval = 10.0, 4
loss_r1 = (pen * (gamma / 2)).mean() * reg_interval
loss_r1.backward()
print("r1 grads", round(D[0].weight.grad.norm().item(), 4), D[5].bias.grad is None, real.grad is not None)
D.zero_grad(set_to_none=True)
real.grad = None

# Lazy regularisation adjusts Adam's betas and lr, as StyleGAN2 does.
mb_ratio = reg_interval / (reg_interval + 1)
opt = torch.optim.Adam(D.parameters(), lr=0.002 * mb_ratio, betas=(0**mb_ratio, 0.99**mb_ratio), eps=1e-8)
print("lazy", round(opt.param_groups[0]["lr"], 6), [round(b, 6) for b in opt.param_groups[0]["betas"]])
for step in range(6):
    opt.zero_grad(set_to_none=True)
    x = real.detach().requires_grad_(step % reg_interval == 0)
    out = D(x)
    fake = synth(mapping(torch.randn(4, 4))).detach()
    loss = F.softplus(D(fake)).mean() + F.softplus(-out).mean()
    if step % reg_interval == 0:
        loss = loss + r1_penalty(x, out).mean() * gamma / 2 * reg_interval
    loss.backward()
    opt.step()
    print("D step", step, round(loss.item(), 4), x.requires_grad)

# Path-length regularisation.
pl_mean = torch.zeros([])
pl_decay, pl_weight = 0.01, 2.0
for step in range(3):
    z = torch.randn(4, 4)
    ws = mapping(z)
    img = synth(ws)
    pl_noise = torch.randn_like(img) / math.sqrt(img.shape[2] * img.shape[3])
    (pl_grads,) = torch.autograd.grad(
        outputs=[(img * pl_noise).sum()], inputs=[ws], create_graph=True, only_inputs=True
    )
    pl_lengths = pl_grads.square().sum(1).sqrt()
    pl_mean = pl_mean.lerp(pl_lengths.mean(), pl_decay)
    pl_penalty = (pl_lengths - pl_mean).square()
    loss_pl = pl_penalty.mean() * pl_weight
    mapping.zero_grad()
    loss_pl.backward()
    pl_mean = pl_mean.detach()
    print("pl", step, pl_lengths.shape, round(pl_mean.item(), 6), round(mapping[0].weight.grad.abs().sum().item(), 6))

# Several outputs with grad_outputs, and batched vector-Jacobian products.
w = torch.randn(3, 4, requires_grad=True)
o1, o2 = w.sin(), (w * 2).sum(1)
g = torch.autograd.grad([o1, o2], w, grad_outputs=[torch.ones_like(o1), torch.full_like(o2, 0.5)])
print("multi out", g[0].round(decimals=4)[0].tolist())
y = mapping(w)
eye = torch.eye(4).unsqueeze(1).expand(4, 3, 4)
(jac,) = torch.autograd.grad(y, w, grad_outputs=eye, is_grads_batched=True)
print("batched jac", tuple(jac.shape), round(jac.sum().item(), 4))
J = torch.autograd.functional.jacobian(lambda v: mapping(v), w[:1])
print("functional jacobian", tuple(J.shape), torch.allclose(J[0, :, 0, :], jac[:, 0, :], atol=1e-6))

# Errors: double backward without create_graph, backward twice, grad of non-requires-grad input.
x = torch.randn(2, 2, 8, 8, requires_grad=True)
(g1,) = torch.autograd.grad(D(x).sum(), x)
print("no create_graph", g1.requires_grad, g1.grad_fn)
out = D(x).sum()
out.backward()
try:
    out.backward()
except Exception as e:
    print(type(e).__name__, str(e)[:120])
try:
    torch.autograd.grad(D(x).sum(), torch.randn(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(D(x).sum(), x, grad_outputs=torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(y, w, grad_outputs=torch.ones(4, 3, 5), is_grads_batched=True)
except Exception as e:
    print(type(e).__name__, e)
