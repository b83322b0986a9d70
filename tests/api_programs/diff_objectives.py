"""Diffusion training objectives side by side: epsilon-, x0- and v-prediction targets with their conversions,
min-SNR-gamma weighting for each parameterisation, P2 and EDM loss weights, mean_flat over non-batch dims,
Huber/pseudo-Huber (consistency training) and L1 variants, importance-sampled timesteps with a loss-aware sampler,
and the grad_fn chain of the final loss."""

import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def mean_flat(t):
    return t.mean(dim=list(range(1, t.ndim)))


T = 1000
betas = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
ac = torch.cumprod(1 - betas, 0).float()
snr_all = ac / (1 - ac)

x0 = torch.randn(4, 2, 4, 4)
eps = torch.randn_like(x0)
t = torch.tensor([3, 100, 600, 980])
a = ac[t].sqrt().view(-1, 1, 1, 1)
sg = (1 - ac[t]).sqrt().view(-1, 1, 1, 1)
xt = a * x0 + sg * eps
v = a * eps - sg * x0
print("v target:", r(mean_flat(v**2)), "alpha^2+sigma^2:", r((a**2 + sg**2).flatten()))
print(
    "x0 from v:",
    torch.allclose(a * xt - sg * v, x0, atol=1e-5),
    "eps from v:",
    torch.allclose(sg * xt + a * v, eps, atol=1e-5),
)
print("x0 from eps:", torch.allclose((xt - sg * eps) / a, x0, atol=1e-3))

snr = snr_all[t]
gamma = 5.0
w_eps = torch.stack([snr, gamma * torch.ones_like(snr)], dim=1).min(dim=1)[0] / snr
w_v = torch.clamp(snr, max=gamma) / (snr + 1)
w_x0 = torch.minimum(snr, torch.tensor(gamma))
print("min-snr eps:", r(w_eps), "v:", r(w_v), "x0:", r(w_x0))
print("snr:", r(snr.log()), "p2 (k=1, g=1):", r(1 / (1 + snr) ** 1.0))

net = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 2, 3, padding=1))
with torch.no_grad():
    for k, p in enumerate(net.parameters()):
        p.copy_(0.2 * torch.cos(torch.arange(p.numel(), dtype=p.dtype) * 0.29 + k).view_as(p))
pred = net(xt)
losses = {
    "eps": mean_flat((pred - eps) ** 2) * w_eps,
    "v": mean_flat(F.mse_loss(pred, v, reduction="none")) * w_v,
    "x0": mean_flat((pred - x0).square()) * w_x0,
    "l1": mean_flat(F.l1_loss(pred, eps, reduction="none")),
    "huber": mean_flat(F.huber_loss(pred, eps, reduction="none", delta=0.5)),
    "smooth_l1": mean_flat(F.smooth_l1_loss(pred, eps, reduction="none", beta=0.5)),
}
c = 0.00054 * math.sqrt(x0[0].numel())
losses["pseudo_huber"] = mean_flat(torch.sqrt((pred - eps) ** 2 + c**2) - c)
for k_, l in losses.items():
    print(f"{k_:>12}", r(l), round(l.mean().item(), 4))
print("huber == 0.5 * smooth_l1 scaled:", torch.allclose(losses["huber"], 0.5 * losses["smooth_l1"], atol=1e-6))
print(
    "sum reduction:", round(F.mse_loss(pred, eps, reduction="sum").item(), 4), round(F.huber_loss(pred, eps).item(), 4)
)

# EDM weighting: lambda(sigma) = (sigma^2 + sigma_data^2) / (sigma sigma_data)^2
sigma_data = 0.5
sig = torch.tensor([0.002, 0.1, 1.0, 80.0])
c_skip = sigma_data**2 / (sig**2 + sigma_data**2)
c_out = sig * sigma_data / (sig**2 + sigma_data**2).sqrt()
c_in = 1 / (sigma_data**2 + sig**2).sqrt()
lam = (sig**2 + sigma_data**2) / (sig * sigma_data) ** 2
print("edm:", r(c_skip), r(c_out), r(c_in), r(lam * c_out**2))

# loss-aware timestep sampling (improved DDPM): history of squared losses per t
history = torch.zeros(T, 3)
hist_t = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2])
vals = torch.tensor([1.0, 2.0, 3.0, 0.5, 0.5, 0.5, 4.0, 1.0, 1.0])
counts = torch.bincount(hist_t, minlength=3)
history[:3] = vals.view(3, 3)
weights = history[:3].pow(2).mean(-1).sqrt()
weights = weights / weights.sum() * (1 - 0.001) + 0.001 / 3
print("loss-aware:", counts.tolist(), r(weights), "importance:", r(1 / (3 * weights)))
idx = torch.multinomial(weights, 6, replacement=True, generator=torch.Generator().manual_seed(3))
print("sampled t shape:", tuple(idx.shape), idx.dtype, bool(((idx >= 0) & (idx < 3)).all()))

total = (losses["v"] * torch.tensor([1.0, 1.0, 0.5, 0.5])).mean()
total.backward()
fn, chain = total.grad_fn, []
while fn is not None and len(chain) < 5:
    chain.append(fn.name())
    fn = fn.next_functions[0][0] if fn.next_functions else None
print("grad_fn chain:", chain)
print("grad norm:", round(sum(p.grad.norm() ** 2 for p in net.parameters()).sqrt().item(), 4))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        F.mse_loss(pred, v[:2])
    except Exception as e:
        print(type(e).__name__, e)
print([(w.category.__name__, str(w.message)) for w in caught])
try:
    F.huber_loss(pred, eps, delta=-1.0)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.smooth_l1_loss(pred, eps, beta=-0.5)
except Exception as e:
    print(type(e).__name__, e)
