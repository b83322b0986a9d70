"""Diffusion noise schedules as research repos write them: linear/scaled-linear/cosine/sigmoid betas, log-SNR,
zero-terminal-SNR rescaling, epsilon/x0/v-prediction conversions, min-SNR loss weights and continuous-time
alpha/sigma from log-SNR, all in float64 with the float32 buffers that samplers register."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def linear_beta_schedule(timesteps, beta_start=1e-4, beta_end=0.02):
    scale = 1000 / timesteps
    return torch.linspace(beta_start * scale, beta_end * scale, timesteps, dtype=torch.float64)


def scaled_linear_schedule(timesteps, beta_start=0.00085, beta_end=0.012):
    return torch.linspace(beta_start ** 0.5, beta_end ** 0.5, timesteps, dtype=torch.float64) ** 2


def cosine_beta_schedule(timesteps, s=0.008):
    t = torch.linspace(0, timesteps, timesteps + 1, dtype=torch.float64) / timesteps
    ac = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
    ac = ac / ac[0]
    return torch.clip(1 - ac[1:] / ac[:-1], 0, 0.999)


def sigmoid_beta_schedule(timesteps, start=-3, end=3, tau=1, clamp_min=1e-5):
    t = torch.linspace(0, timesteps, timesteps + 1, dtype=torch.float64) / timesteps
    v_start = torch.tensor(start / tau).sigmoid()
    v_end = torch.tensor(end / tau).sigmoid()
    ac = (-((t * (end - start) + start) / tau).sigmoid() + v_end) / (v_end - v_start)
    ac = ac / ac[0]
    return torch.clip(1 - ac[1:] / ac[:-1], 0, 0.999)


def rescale_zero_terminal_snr(betas):
    alphas_bar_sqrt = (1 - betas).cumprod(0).sqrt()
    a0, aT = alphas_bar_sqrt[0].clone(), alphas_bar_sqrt[-1].clone()
    alphas_bar_sqrt -= aT
    alphas_bar_sqrt *= a0 / (a0 - aT)
    alphas_bar = alphas_bar_sqrt ** 2
    alphas = alphas_bar[1:] / alphas_bar[:-1]
    alphas = torch.cat([alphas_bar[0:1], alphas])
    return 1 - alphas


T = 50
schedules = {
    "linear": linear_beta_schedule(T),
    "scaled_linear": scaled_linear_schedule(T),
    "cosine": cosine_beta_schedule(T),
    "sigmoid": sigmoid_beta_schedule(T),
}
for name, betas in schedules.items():
    ac = torch.cumprod(1.0 - betas, dim=0)
    log_snr = torch.log(ac) - torch.log1p(-ac)
    print(f"{name:14s} betas {r(betas[[0, 1, T // 2, -1]], 4)} ac_T={ac[-1].item():.6f} "
          f"logsnr[0,-1]=({log_snr[0]:.4f}, {log_snr[-1]:.4f}) mono={bool((log_snr[1:] < log_snr[:-1]).all())}")

betas = schedules["scaled_linear"]
zt = rescale_zero_terminal_snr(betas)
ac_zt = (1 - zt).cumprod(0)
print("zero-terminal", r(zt[-3:], 3), "ac_T", ac_zt[-1].item(), "ac_0 kept", torch.allclose(ac_zt[0], (1 - betas[0])))

# buffers as samplers register them
betas = schedules["cosine"]
alphas = 1.0 - betas
ac = torch.cumprod(alphas, 0)
ac_prev = F.pad(ac[:-1], (1, 0), value=1.0)
buffers = {
    "sqrt_alphas_cumprod": ac.sqrt(),
    "sqrt_one_minus_alphas_cumprod": (1 - ac).sqrt(),
    "log_one_minus_alphas_cumprod": torch.log(1 - ac),
    "sqrt_recip_alphas_cumprod": torch.rsqrt(ac),
    "sqrt_recipm1_alphas_cumprod": torch.sqrt(1.0 / ac - 1),
    "posterior_variance": betas * (1.0 - ac_prev) / (1.0 - ac),
    "posterior_mean_coef1": betas * ac_prev.sqrt() / (1.0 - ac),
    "posterior_mean_coef2": (1.0 - ac_prev) * alphas.sqrt() / (1.0 - ac),
}
buffers["posterior_log_variance_clipped"] = torch.log(buffers["posterior_variance"].clamp(min=1e-20))
buffers = {k: v.to(torch.float32) for k, v in buffers.items()}
for k, v in buffers.items():
    print(f"{k:32s} {v.dtype} {tuple(v.shape)} {r(v[[0, 1, 25, 49]], 4)}")


def extract(a, t, x_shape):
    b = t.shape[0]
    return a.gather(-1, t).reshape(b, *((1,) * (len(x_shape) - 1)))


x0 = torch.sin(torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4) * 0.37)
noise = torch.cos(torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4) * 0.91)
t = torch.tensor([3, 40])
sa = extract(buffers["sqrt_alphas_cumprod"], t, x0.shape)
sb = extract(buffers["sqrt_one_minus_alphas_cumprod"], t, x0.shape)
print("extract", sa.shape, r(sa), r(sb))
xt = sa * x0 + sb * noise

# conversions between parameterizations
v = sa * noise - sb * x0
x0_from_eps = extract(buffers["sqrt_recip_alphas_cumprod"], t, x0.shape) * xt - \
    extract(buffers["sqrt_recipm1_alphas_cumprod"], t, x0.shape) * noise
x0_from_v = sa * xt - sb * v
eps_from_v = sb * xt + sa * v
eps_from_x0 = (xt - sa * x0) / sb
print("x0<-eps", (x0_from_eps - x0).abs().max().item() < 1e-4, "x0<-v", (x0_from_v - x0).abs().max().item() < 1e-5,
      "eps<-v", torch.allclose(eps_from_v, noise, atol=1e-5), "eps<-x0", torch.allclose(eps_from_x0, noise, atol=1e-4))
print("v stats", round(v.mean().item(), 4), round(v.std().item(), 4), round(v.norm(p=2, dim=(1, 2, 3))[1].item(), 4))

# posterior q(x_{t-1} | x_t, x_0)
mean = extract(buffers["posterior_mean_coef1"], t, x0.shape) * x0 + extract(buffers["posterior_mean_coef2"], t,
                                                                            x0.shape) * xt
logvar = extract(buffers["posterior_log_variance_clipped"], t, x0.shape)
print("posterior", r(mean), r(logvar.flatten()), mean.dtype)

# min-SNR-gamma weights for each parameterization
snr = ac / (1 - ac)
gamma = 5.0
w_eps = torch.stack([snr, gamma * torch.ones_like(snr)], dim=1).min(dim=1)[0] / snr
w_v = torch.clamp(snr, max=gamma) / (snr + 1)
w_x0 = torch.minimum(snr, torch.full_like(snr, gamma))
print("min-snr eps", r(w_eps[[0, 10, 30, 49]], 4), "v", r(w_v[[0, 10, 30, 49]], 4), "x0", r(w_x0[[0, 10, 30, 49]], 4))

# continuous time: VDM log-SNR, alpha^2 = sigmoid(logsnr)
t_cont = torch.linspace(0.0, 1.0, 6)
logsnr_cos = -2 * torch.log(torch.tan(math.pi * t_cont.clamp(1e-3, 1 - 1e-3) / 2))
alpha, sigma = torch.sigmoid(logsnr_cos).sqrt(), torch.sigmoid(-logsnr_cos).sqrt()
print("vdm logsnr", logsnr_cos)
print("alpha^2+sigma^2", (alpha ** 2 + sigma ** 2), "alpha", alpha)
shifted = logsnr_cos + 2 * math.log(64 / 256)
print("shifted", shifted.round(decimals=3), torch.special.expit(shifted).sqrt()[2:4])
d = torch.func.grad(lambda s: (-2 * torch.log(torch.tan(math.pi * s / 2)))) (torch.tensor(0.25))
print("dlogsnr/dt", round(d.item(), 4), round(-2 * math.pi / math.sin(math.pi * 0.25), 4))

# timestep spacing used by DDIM/“leading”/“trailing” schedulers
n_inf = 10
leading = (torch.arange(0, n_inf) * (1000 // n_inf)).flip(0)
trailing = torch.round(torch.arange(1000, 0, -1000 / n_inf)).long() - 1
linspace = torch.linspace(0, 999, n_inf).round().flip(0).to(torch.int64)
print("leading", leading.tolist(), "\ntrailing", trailing.tolist(), "\nlinspace", linspace.tolist(), linspace.dtype)
