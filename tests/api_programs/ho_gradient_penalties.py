"""Gradient penalties as GAN research code writes them: WGAN-GP on random interpolates, R1 on reals, R2 on
fakes, a DRAGAN-style penalty, StyleGAN's path-length regularizer, and a few discriminator steps that
backpropagate through autograd.grad(create_graph=True)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

D = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.Softplus(), nn.Linear(16, 1))
G = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 4))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))


def wgan_gp(real, fake, lam=10.0):
    alpha = torch.rand(real.size(0), 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = D(interp)
    grads = torch.autograd.grad(outputs=out, inputs=interp, grad_outputs=torch.ones_like(out),
                                create_graph=True, retain_graph=True, only_inputs=True)[0]
    norms = grads.view(grads.size(0), -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean(), norms


def r1_penalty(real, gamma=10.0):
    real = real.detach().requires_grad_(True)
    logits = D(real)
    (g,) = torch.autograd.grad(logits.sum(), real, create_graph=True)
    return gamma / 2 * g.pow(2).sum(dim=1).mean(), logits


real_data = torch.randn(64, 4) * 0.5 + torch.tensor([1.0, -1.0, 0.5, 0.0])
for step in range(4):
    real = real_data[step * 16:(step + 1) * 16]
    z = torch.randn(16, 3)
    fake = G(z).detach()
    gp, norms = wgan_gp(real, fake)
    d_loss = D(fake).mean() - D(real).mean() + gp
    opt_d.zero_grad()
    d_loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(D.parameters(), 100.0)
    opt_d.step()
    g_loss = -D(G(torch.randn(16, 3))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"step {step}: d_loss {d_loss.item():.4f} gp {gp.item():.4f} mean|grad| {norms.mean().item():.4f} "
          f"D grad norm {gnorm.item():.4f} g_loss {g_loss.item():.4f}")

# R1 with the non-saturating loss (StyleGAN2's lazy regularization: every 2nd step, scaled by the interval)
for step in range(4):
    real = real_data[step * 16:(step + 1) * 16]
    fake = G(torch.randn(16, 3)).detach()
    loss = F.softplus(D(fake)).mean() + F.softplus(-D(real)).mean()
    if step % 2 == 0:
        r1, logits = r1_penalty(real)
        loss = loss + 2 * r1
        print(f"r1 step {step}: r1 {r1.item():.4f} real logits mean {logits.mean().item():.4f}")
    opt_d.zero_grad()
    loss.backward()
    opt_d.step()
    print(f"   loss {loss.item():.4f} first-layer grad {D[0].weight.grad.abs().sum().item():.4f}")

# R2 penalty on fakes flows into G too when fakes are not detached
fake = G(torch.randn(8, 3))
fake_in = fake.detach().requires_grad_()
(g_fake,) = torch.autograd.grad(D(fake_in).sum(), fake_in, create_graph=True)
r2 = g_fake.pow(2).sum(1).mean()
print("r2:", round(r2.item(), 4), "grad_fn:", r2.grad_fn.name())
r2.backward()
print("fake_in.grad:", fake_in.grad.shape, "fake.grad_fn kept:", fake.grad_fn.name())

# DRAGAN: perturbed reals
torch.manual_seed(1)
real = real_data[:16]
x_hat = (real + 0.5 * real.std() * torch.rand_like(real)).requires_grad_()
(gd,) = torch.autograd.grad(D(x_hat).sum(), x_hat, create_graph=True)
dragan = ((gd.norm(2, dim=1) - 1) ** 2).mean()
print("dragan:", round(dragan.item(), 4))

# StyleGAN path-length regularization: J^T y for random y, its norm against a running mean
w = torch.randn(8, 3, requires_grad=True)
img = G(w)
noise = torch.randn_like(img) / 2.0
(jty,) = torch.autograd.grad((img * noise).sum(), w, create_graph=True)
path_lengths = jty.pow(2).sum(1).sqrt()
pl_mean = 0.0 + 0.01 * (path_lengths.mean().item() - 0.0)
pl_penalty = (path_lengths - pl_mean).pow(2).mean()
print("path lengths:", path_lengths.detach())
print("pl_mean:", round(pl_mean, 6), "penalty:", round(pl_penalty.item(), 4))
opt_g.zero_grad()
pl_penalty.backward()
print("G[0].weight grad norm:", round(G[0].weight.grad.norm().item(), 4), "w.grad:", w.grad.shape)

# the penalty's gradient with respect to D's parameters, computed two ways
x = real_data[:8].clone().requires_grad_()
out = D(x)
(gx,) = torch.autograd.grad(out.sum(), x, create_graph=True)
pen = gx.pow(2).sum()
try:
    torch.autograd.grad(pen, list(D.parameters()), retain_graph=True)
except RuntimeError as e:
    print("RuntimeError:", e)
pg = torch.autograd.grad(pen, list(D.parameters()), retain_graph=True, allow_unused=True)
print("last bias unused:", pg[-1])
pg = torch.autograd.grad(pen, list(D.parameters()), retain_graph=True, materialize_grads=True)
D.zero_grad()
pen.backward()
print("last bias .grad after backward:", D[-1].bias.grad)
print("autograd.grad == .backward:", all(torch.allclose(a, p.grad) for a, p in zip(pg[:-1], D.parameters())))
print("per-parameter penalty grads:", [round(t.norm().item(), 4) for t in pg])
print("x.grad set by backward:", x.grad is not None, tuple(x.grad.shape))
