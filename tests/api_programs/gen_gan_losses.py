"""GAN losses as StyleGAN/BigGAN repos write them: hinge, non-saturating (softplus), least-squares and
Wasserstein, R1/R2 penalties through autograd.grad(create_graph=True) with lazy regularization, a path-length
penalty, spectral-norm discriminators via parametrizations, requires_grad toggling between G and D steps,
and the double-backward graph these penalties build."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.3):
    with torch.no_grad():
        for k, (name, p) in enumerate(module.named_parameters()):
            p.copy_(scale * torch.cos(torch.arange(p.numel(), dtype=p.dtype) * (0.61 + 0.04 * k) - k).view_as(p))


class G(nn.Module):
    def __init__(self, z=4, out=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z, 16), nn.LeakyReLU(0.2), nn.Linear(16, out))

    def forward(self, z):
        return self.net(z)


class D(nn.Module):
    def __init__(self, inp=6, sn=False):
        super().__init__()
        wrap = parametrizations.spectral_norm if sn else (lambda m: m)
        self.net = nn.Sequential(wrap(nn.Linear(inp, 16)), nn.LeakyReLU(0.2), wrap(nn.Linear(16, 1)))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def d_hinge(real, fake):
    return F.relu(1.0 - real).mean() + F.relu(1.0 + fake).mean()


def g_hinge(fake):
    return -fake.mean()


def d_nonsat(real, fake):
    return F.softplus(-real).mean() + F.softplus(fake).mean()


def g_nonsat(fake):
    return F.softplus(-fake).mean()


def d_lsgan(real, fake):
    return 0.5 * (F.mse_loss(real, torch.ones_like(real)) + F.mse_loss(fake, torch.zeros_like(fake)))


def d_bce(real, fake):
    return (F.binary_cross_entropy_with_logits(real, torch.ones_like(real))
            + F.binary_cross_entropy_with_logits(fake, torch.zeros_like(fake)))


real_logits = torch.tensor([2.0, 0.5, -0.3, 1.2])
fake_logits = torch.tensor([-1.5, 0.2, 0.9, -0.1])
print("hinge D", round(d_hinge(real_logits, fake_logits).item(), 4), "G", round(g_hinge(fake_logits).item(), 4))
print("nonsat D", round(d_nonsat(real_logits, fake_logits).item(), 4), "G", round(g_nonsat(fake_logits).item(), 4),
      "== bce", torch.allclose(d_nonsat(real_logits, fake_logits), d_bce(real_logits, fake_logits)))
print("lsgan D", round(d_lsgan(real_logits, fake_logits).item(), 4), "wgan D",
      round((fake_logits.mean() - real_logits.mean()).item(), 4))


def r1_penalty(d, real):
    real = real.detach().requires_grad_(True)
    out = d(real)
    (grad,) = torch.autograd.grad(outputs=out.sum(), inputs=real, create_graph=True)
    return grad.pow(2).reshape(grad.shape[0], -1).sum(1).mean(), grad


gen, disc = G(), D()
det_init_(gen)
det_init_(disc, 0.25)
x_real = torch.sin(torch.arange(8 * 6, dtype=torch.float32).view(8, 6) * 0.3) * 1.5
z = torch.cos(torch.arange(8 * 4, dtype=torch.float32).view(8, 4) * 0.8)

pen, grad = r1_penalty(disc, x_real)
print("R1", round(pen.item(), 4), "grad", grad.shape, grad.requires_grad, type(grad.grad_fn).__name__)
pen.backward()
print("R1 d/dW", r(disc.net[0].weight.grad, 6), "\nR1 d/db2 is None", disc.net[2].bias.grad is None)
disc.zero_grad(set_to_none=True)

opt_g = torch.optim.Adam(gen.parameters(), lr=2e-3, betas=(0.0, 0.99))
opt_d = torch.optim.Adam(disc.parameters(), lr=2e-3, betas=(0.0, 0.99))
r1_gamma, r1_every = 10.0, 4
log = []
for it in range(12):
    # D step; G frozen
    gen.requires_grad_(False)
    disc.requires_grad_(True)
    fake = gen(z)
    loss_d = d_nonsat(disc(x_real), disc(fake))
    if it % r1_every == 0:  # lazy regularization: scale by the interval
        p, _ = r1_penalty(disc, x_real)
        loss_d = loss_d + r1_gamma / 2 * p * r1_every
    opt_d.zero_grad(set_to_none=True)
    loss_d.backward()
    opt_d.step()
    # G step; D frozen
    gen.requires_grad_(True)
    disc.requires_grad_(False)
    loss_g = g_nonsat(disc(gen(z)))
    opt_g.zero_grad(set_to_none=True)
    loss_g.backward()
    d_has_grad = any(p.grad is not None for p in disc.parameters())
    opt_g.step()
    log.append((it, round(loss_d.item(), 4), round(loss_g.item(), 4), d_has_grad))
for row in log[::3] + log[-1:]:
    print("it", row)

# path length regularization (StyleGAN2): |J^T y| with y a fixed direction
gen.requires_grad_(True)
w = z.clone().requires_grad_(True)
img = gen(w)
pl_noise = torch.cos(torch.arange(img.numel(), dtype=torch.float32).view_as(img)) / img.shape[1] ** 0.5
(pl_grads,) = torch.autograd.grad((img * pl_noise).sum(), w, create_graph=True)
pl_lengths = pl_grads.square().sum(1).sqrt()
pl_mean = torch.zeros([])
pl_mean = pl_mean.lerp(pl_lengths.mean().detach(), 0.01)
pl_pen = (pl_lengths - pl_mean).square().mean()
pl_pen.backward()
print("path lengths", r(pl_lengths, 4), "pl_mean", round(pl_mean.item(), 6), "penalty", round(pl_pen.item(), 4))
print("gen grad from pl", r(gen.net[0].weight.grad, 4))

# gradient penalty (WGAN-GP) on interpolates, mixed with fixed alphas
alpha = torch.linspace(0, 1, 8).view(8, 1)
fake = gen(z).detach()
inter = (alpha * x_real + (1 - alpha) * fake).requires_grad_(True)
disc.requires_grad_(True)
d_inter = disc(inter)
g = torch.autograd.grad(d_inter, inter, grad_outputs=torch.ones_like(d_inter), create_graph=True, retain_graph=True)[0]
gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
print("gp", round(gp.item(), 4), "norms", r(g.norm(2, dim=1), 4))

# spectral norm through parametrizations
sn_disc = D(sn=True)
det_init_(sn_disc, 0.5)
lin = sn_disc.net[0]
print(type(lin).__name__, list(lin.parametrizations.keys()), parametrizations.__name__.split(".")[-1])
print("original shape", tuple(lin.parametrizations.weight.original.shape),
      "u", tuple(lin.parametrizations.weight[0]._u.shape))
sn_disc.train()
for _ in range(30):
    sn_disc(x_real)
sigma = torch.linalg.matrix_norm(lin.weight.detach(), ord=2)
print("sigma(W_sn)", round(sigma.item(), 3), "sigma(orig)", round(torch.linalg.matrix_norm(
    lin.parametrizations.weight.original.detach(), ord=2).item(), 4))
print("sd keys", sorted(sn_disc.state_dict().keys())[:4])
try:
    torch.autograd.grad(disc(x_real).sum(), x_real)
except RuntimeError as e:
    print("RuntimeError:", e)
