"""Wasserstein GANs on a 2-D toy mixture: the original WGAN (Arjovsky et al. 2017) with RMSprop and weight clipping,
then WGAN-GP (Gulrajani et al. 2017) with the gradient penalty through autograd.grad(create_graph=True), the
DRAGAN/R1 variants, Adam(betas=(0.5, 0.9)), n_critic steps, and the double-backward errors people hit."""

import numpy as np
import torch
from torch import autograd, nn

rng = np.random.default_rng(2017)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def init_(module, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(g.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


def real_batch(n):
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0], [0.0, -2.0]])
    idx = rng.integers(0, 4, n)
    return torch.from_numpy((centers[idx] + 0.1 * rng.standard_normal((n, 2))).astype(np.float32))


def critic_net(seed):
    return init_(
        nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)), seed
    )


def generator_net(seed):
    return init_(nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2)), seed)


# --- WGAN with weight clipping ---
D, G = critic_net(1), generator_net(2)
opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-3)
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-3)
print(opt_d.defaults["alpha"], opt_d.defaults["centered"], sorted(opt_d.state_dict()["param_groups"][0]))
for it in range(3):
    for _ in range(3):
        real, z = real_batch(16), arr(16, 3)
        fake = G(z).detach()
        loss_d = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        for p in D.parameters():
            p.data.clamp_(-0.1, 0.1)
    loss_g = -D(G(arr(16, 3))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    wmax = max(p.abs().max().item() for p in D.parameters())
    print("wgan", it, round(loss_d.item(), 4), round(loss_g.item(), 4), round(wmax, 4))
print("rmsprop_state", sorted(opt_d.state[D[0].weight].keys()), opt_d.state[D[0].weight]["step"])


# --- WGAN-GP ---
def gradient_penalty(critic, real, fake):
    alpha = torch.from_numpy(rng.uniform(0, 1, (real.size(0), 1)).astype(np.float32)).expand_as(real)
    inter = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = critic(inter)
    (grads,) = autograd.grad(
        outputs=out, inputs=inter, grad_outputs=torch.ones_like(out), create_graph=True, retain_graph=True
    )
    return ((grads.norm(2, dim=1) - 1) ** 2).mean(), grads


D, G = critic_net(3), generator_net(4)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
for it in range(3):
    for _ in range(2):
        real = real_batch(16)
        fake = G(arr(16, 3)).detach()
        gp, grads = gradient_penalty(D, real, fake)
        loss_d = D(fake).mean() - D(real).mean() + 10.0 * gp
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
    fake = G(arr(16, 3))
    loss_g = -D(fake).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    print(
        "wgan_gp",
        it,
        round(loss_d.item(), 4),
        round(gp.item(), 4),
        round(loss_g.item(), 4),
        grads.requires_grad,
        grads.grad_fn is not None,
    )
print("gp_grad_norm", round(D[0].weight.grad.norm().item(), 4), round(G[2].bias.grad.abs().sum().item(), 4))

# penalty gradient by hand-checking: d/dtheta of the penalty equals finite differences
lin = init_(nn.Linear(2, 1), 7).double()
pts = real_batch(5).double().requires_grad_(True)
(g1,) = autograd.grad(torch.tanh(lin(pts)).sum(), pts, create_graph=True)
pen = g1.pow(2).sum()
(dw,) = autograd.grad(pen, lin.weight)
eps = 1e-6
fd = []
for j in range(2):
    with torch.no_grad():
        lin.weight[0, j] += eps
    (gp_,) = autograd.grad(torch.tanh(lin(pts)).sum(), pts)
    up = gp_.pow(2).sum().item()
    with torch.no_grad():
        lin.weight[0, j] -= 2 * eps
    (gm_,) = autograd.grad(torch.tanh(lin(pts)).sum(), pts)
    down = gm_.pow(2).sum().item()
    with torch.no_grad():
        lin.weight[0, j] += eps
    fd.append((up - down) / (2 * eps))
print("double_backward", np.round(dw.numpy().ravel(), 4).tolist(), np.round(fd, 4).tolist())

# R1 on real data only (Mescheder et al. 2018), via torch.autograd.grad with sum()
real = real_batch(8).requires_grad_(True)
scores = D(real)
(r1_grads,) = torch.autograd.grad(scores.sum(), real, create_graph=True)
r1 = r1_grads.pow(2).sum(1).mean()
r1.backward()
print("r1", round(r1.item(), 4), real.grad.shape, round(real.grad.abs().sum().item(), 4))

# mistakes
x = torch.ones(3, 2, requires_grad=True)
y = D(x)
for bad in (
    lambda: autograd.grad(y, x),
    lambda: autograd.grad(y.sum(), [x, torch.ones(2)]),
    lambda: autograd.grad(D(torch.ones(3, 2)).sum(), x),
):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
(gx,) = autograd.grad(y.sum(), x, retain_graph=False)
try:
    autograd.grad(y.sum(), x)
except RuntimeError as e:
    print("RuntimeError", str(e).split(".")[0])
print(
    "allow_unused",
    autograd.grad(D(x).sum() * 0 + x.sum(), [x, nn.Linear(2, 2).bias], allow_unused=True, retain_graph=True)[1],
)
print(
    "materialize",
    autograd.grad(x.sum(), [x, torch.zeros(1, requires_grad=True)], allow_unused=True, materialize_grads=True)[1],
)
