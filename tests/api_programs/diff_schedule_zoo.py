"""Noise schedules as diffusion repos build them: linear, scaled-linear, cosine with max_beta clipping, sigmoid
(GeoDiff), Laplace and EDM log-normal alternatives, zero-terminal-SNR rescaling (Lin et al. 2024), float64
cumprod with dtype=, log-SNR tables, shifted schedules for high resolution, and per-timestep gathers."""

import math

import torch

torch.manual_seed(0)


def r(t, n=5):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def linear_betas(T, b0=1e-4, b1=0.02):
    return torch.linspace(b0, b1, T, dtype=torch.float64)


def scaled_linear_betas(T, b0=0.00085, b1=0.012):
    return torch.linspace(b0 ** 0.5, b1 ** 0.5, T, dtype=torch.float32) ** 2


def cosine_betas(T, s=0.008, max_beta=0.999):
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    abar = f / f[0]
    return torch.clip(1 - abar[1:] / abar[:-1], 0, max_beta)


def sigmoid_betas(T, start=-3.0, end=3.0, tau=1.0):
    t = torch.linspace(0, 1, T + 1, dtype=torch.float64)
    v_start, v_end = torch.tensor(start / tau).sigmoid(), torch.tensor(end / tau).sigmoid()
    abar = (-((t * (end - start) + start) / tau).sigmoid() + v_end) / (v_end - v_start)
    abar = abar.clamp(min=1e-9)
    return (1 - abar[1:] / abar[:-1]).clamp(0, 0.999)


def rescale_zero_terminal_snr(betas):
    alphas_bar_sqrt = (1 - betas).cumprod(0).sqrt()
    a0, aT = alphas_bar_sqrt[0].clone(), alphas_bar_sqrt[-1].clone()
    alphas_bar_sqrt = (alphas_bar_sqrt - aT) * a0 / (a0 - aT)
    alphas_bar = alphas_bar_sqrt ** 2
    alphas = torch.cat([alphas_bar[0:1], alphas_bar[1:] / alphas_bar[:-1]])
    return 1 - alphas


T = 1000
scheds = {"linear": linear_betas(T), "scaled_linear": scaled_linear_betas(T), "cosine": cosine_betas(T),
          "sigmoid": sigmoid_betas(T)}
for name, b in scheds.items():
    ac = torch.cumprod(1 - b, dim=0)
    logsnr = torch.log(ac) - torch.log1p(-ac)
    print(name, b.dtype, tuple(b.shape), r(b[:3]), r(b[-2:]), round(ac[-1].item(), 6),
          round(logsnr[0].item(), 3), round(logsnr[-1].item(), 3))
    print("  monotone:", bool((b[1:] >= b[:-1] - 1e-12).all()), "argmax", int(b.argmax()),
          "half-life t", int(torch.searchsorted(-ac.contiguous(), torch.tensor([-0.5], dtype=ac.dtype))))

b32 = scheds["scaled_linear"]
print("cumprod dtype=float64:", torch.cumprod(1 - b32, 0, dtype=torch.float64).dtype,
      round(torch.cumprod(1 - b32, 0, dtype=torch.float64)[-1].item(), 6))
zt = rescale_zero_terminal_snr(b32)
ac_zt = (1 - zt).cumprod(0)
print("zero-snr:", r(zt[-3:]), "last abar", ac_zt[-1].item(), "first", round(ac_zt[0].item(), 6))
ac_zt[-1] = 2 ** -24
print("patched last:", ac_zt[-1].item(), ac_zt.dtype)

# schedule shift for higher resolution (simple diffusion): logsnr + 2 log(64/256)
ac = torch.cumprod(1 - scheds["cosine"], 0)
shifted = torch.sigmoid(torch.logit(ac) + 2 * math.log(64 / 256))
print("shifted:", r(shifted[::250]), r(torch.logit(ac[:2], eps=1e-6)))

# continuous-time cosine logsnr and its inverse
t = torch.linspace(0, 1, 6)
lam = -2 * torch.log(torch.tan(math.pi * t / 2).clamp(min=1e-5))
lam_clip = lam.clamp(-20, 20)
t_back = torch.atan(torch.exp(-lam_clip / 2)) * 2 / math.pi
print("logsnr:", r(lam_clip, 6), "roundtrip:", r(t_back, 6))

# EDM: log-normal sigma density and the equivalent discrete alphas
P_mean, P_std = -1.2, 1.2
quantiles = torch.tensor([0.1, 0.5, 0.9])
sig = torch.exp(P_mean + P_std * torch.special.ndtri(quantiles))
print("edm sigma quantiles:", r(sig), "alpha_bar:", r(1 / (1 + sig ** 2)))

# gather per-timestep coefficients and broadcast over images
x = torch.randn(4, 3, 8, 8)
ts = torch.tensor([0, 10, 500, 999])
sa = ac.sqrt().float().gather(0, ts).view(-1, 1, 1, 1)
s1 = (1 - ac).sqrt().float()[ts].reshape(-1, *([1] * (x.dim() - 1)))
noise = torch.randn_like(x)
xt = sa * x + s1 * noise
print("xt:", tuple(xt.shape), xt.dtype, r(xt.std(dim=(1, 2, 3))))
print("coef shapes:", tuple(sa.shape), tuple(s1.expand_as(x).shape), s1.expand_as(x).stride())
try:
    ac.gather(0, torch.tensor([1000]))
except Exception as e:
    print(type(e).__name__, e)
try:
    ac.float()[ts].view(-1, 1, 1, 1) * x.view(2, 2, 3, 64)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linspace(0, 1, -1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cumprod(1 - b32, dim=1)
except Exception as e:
    print(type(e).__name__, e)
