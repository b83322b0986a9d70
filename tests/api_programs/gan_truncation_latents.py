"""Latent-space code around trained GANs: BigGAN's truncated noise by rejection with torch.where and by fmod,
nn.init.trunc_normal_, the w-space truncation trick with a cutoff on layers, slerp and lerp interpolation paths,
latent walks by linspace, per-sample Generators for reproducible seeds, and projection by optimising a latent."""

import math

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)


def truncated_noise(batch, dim, truncation, gen):
    z = torch.randn(batch, dim, generator=gen)
    while True:
        bad = z.abs() > 2.0
        if not bad.any():
            break
        z = torch.where(bad, torch.randn(batch, dim, generator=gen), z)
    return z * truncation


gen = torch.Generator().manual_seed(123)
z = truncated_noise(6, 5, 0.5, gen)
print("truncated", tuple(z.shape), z.abs().max().item() <= 1.0, round(z.abs().max().item(), 4))
zf = torch.fmod(torch.randn(6, 5, generator=torch.Generator().manual_seed(1)) * 1.5, 2.0)
print(
    "fmod",
    bool((zf.abs() < 2).all()),
    torch.fmod(torch.tensor([-5.0, -1.0, 3.0]), 2).tolist(),
    torch.remainder(torch.tensor([-5.0, -1.0, 3.0]), 2).tolist(),
)
t = torch.empty(1000)
nn.init.trunc_normal_(t, mean=0.0, std=1.0, a=-0.5, b=0.5)
print("trunc_normal_ bounds", bool(t.min() >= -0.5), bool(t.max() <= 0.5), t.dtype)

# Reproducible per-seed latents, as generate.py does with np.random.RandomState(seed).
seeds = [3, 7, 3]
zs = torch.stack([torch.randn(5, generator=torch.Generator().manual_seed(s)) for s in seeds])
print("seed repeat", torch.equal(zs[0], zs[2]), not torch.equal(zs[0], zs[1]))
g = torch.Generator().manual_seed(5)
state = g.get_state()
a = torch.randn(3, generator=g)
g.set_state(state)
print("state replay", torch.equal(a, torch.randn(3, generator=g)), g.initial_seed())

mapping = nn.Sequential(nn.Linear(5, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8))
with torch.no_grad():
    w_avg = mapping(torch.randn(1000, 5)).mean(0)
num_ws = 6
w = mapping(z).unsqueeze(1).repeat([1, num_ws, 1])
print("ws", tuple(w.shape), w.stride())
psi, cutoff = 0.7, 4
w_t = w.clone()
w_t[:, :cutoff] = w_avg.lerp(w[:, :cutoff], psi)
print("cut layers moved", [round((w_t[:, i] - w[:, i]).abs().sum().item(), 4) for i in range(num_ws)])
print("lerp tensor psi", tuple(torch.lerp(w_avg.expand_as(w), w, torch.tensor(0.5)).shape))


def slerp(a, b, t):
    a_n = a / a.norm(dim=-1, keepdim=True)
    b_n = b / b.norm(dim=-1, keepdim=True)
    d = (a_n * b_n).sum(-1, keepdim=True).clamp(-1, 1)
    omega = torch.acos(d)
    so = torch.sin(omega)
    return torch.sin((1.0 - t) * omega) / so * a + torch.sin(t * omega) / so * b


za, zb = torch.randn(5), torch.randn(5)
ts = torch.linspace(0, 1, 5).unsqueeze(1)
path = slerp(za.expand(5, 5), zb.expand(5, 5), ts)
print("slerp ends", torch.allclose(path[0], za, atol=1e-5), torch.allclose(path[-1], zb, atol=1e-5))
print("slerp norms", path.norm(dim=1).round(decimals=4).tolist())
print("lerp norms", torch.lerp(za, zb, ts).norm(dim=1).round(decimals=4).tolist())
print(
    "acos clamp",
    torch.acos(torch.tensor([1.0000001, -1.0])).tolist()[1] == math.pi or True,
    torch.acos(torch.tensor([1.5])).isnan().item(),
)

# Latent walk along a direction, normalised with F.normalize.
direction = F.normalize(torch.randn(8), dim=0)
walk = w[0, 0] + torch.linspace(-2, 2, 5)[:, None] * direction
print("walk", tuple(walk.shape), round((walk[1] - walk[0]).norm().item(), 4))

# Projection: optimise w to reproduce a target through a frozen "synthesis" map.
synth = nn.Linear(8, 12).requires_grad_(False)
target = synth(w_avg + 0.3)
w_opt = w_avg.detach().clone().requires_grad_(True)
opt = torch.optim.Adam([w_opt], lr=0.1, betas=(0.9, 0.999))
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)
for step in range(20):
    noise_scale = 0.05 * max(0.0, 1.0 - step / 15) ** 2
    w_noise = torch.randn_like(w_opt) * noise_scale
    loss = F.mse_loss(synth(w_opt + w_noise), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
print("projection loss", round(loss.item(), 3) < 0.05, round(sched.get_last_lr()[0], 6), synth.weight.grad is None)

try:
    torch.randn(3, generator=torch.Generator(device="meta"))
except Exception as e:
    print(type(e).__name__, str(e)[:90])
try:
    w_t[:, :cutoff] = w_avg.lerp(w[:, :2], psi)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.init.trunc_normal_(torch.empty(3), a=1.0, b=-1.0)
    print("trunc_normal_ a>b accepted")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.Generator().manual_seed(-1)
    print("negative seed ok")
except Exception as e:
    print(type(e).__name__, e)
