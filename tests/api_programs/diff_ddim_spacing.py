"""DDIM/DDPM sampling loops with diffusers' timestep spacings ("linspace", "leading", "trailing"), steps_offset,
set_alpha_to_one, eta-controlled variance, clip_sample and Imagen's dynamic thresholding by per-sample quantiles,
img2img strength truncation, and deterministic inversion that round-trips a latent."""

import torch

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


T = 1000
betas = torch.linspace(0.00085 ** 0.5, 0.012 ** 0.5, T) ** 2
ac = torch.cumprod(1.0 - betas, dim=0)
final_ac = torch.tensor(1.0)


def spacing(n, kind, offset=1):
    if kind == "linspace":
        return torch.linspace(0, T - 1, n).round().flip(0).to(torch.int64)
    if kind == "leading":
        ratio = T // n
        return (torch.arange(0, n) * ratio).round().flip(0).long() + offset
    if kind == "trailing":
        ratio = T / n
        return (torch.arange(T, 0, -ratio).round() - 1).long()
    raise ValueError(f"{kind} is not supported. Please make sure to choose one of 'linspace', 'leading' or 'trailing'.")


for kind in ["linspace", "leading", "trailing"]:
    ts = spacing(10, kind)
    print(kind, ts.tolist(), ts.dtype)
print("trailing 7:", spacing(7, "trailing").tolist())
try:
    spacing(10, "karras")
except ValueError as e:
    print("ValueError", e)


def dynamic_threshold(x0, ratio=0.995, max_val=1.5):
    b = x0.shape[0]
    s = torch.quantile(x0.abs().reshape(b, -1), ratio, dim=1)
    s = torch.clamp(s, min=1, max=max_val)[:, None, None, None]
    return torch.clamp(x0, -s, s) / s, s.flatten()


def eps_model(x, t):
    return 0.3 * x + 0.05 * torch.sin(t.float() / 100) * torch.ones_like(x)


def ddim_step(x, t, t_prev, eta=0.0, thresh=None, generator=None):
    a_t = ac[t]
    a_prev = ac[t_prev] if t_prev >= 0 else final_ac
    eps = eps_model(x, torch.tensor(t))
    x0 = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
    if thresh == "clip":
        x0 = x0.clamp(-1, 1)
    elif thresh == "dynamic":
        x0, _ = dynamic_threshold(x0)
    if thresh is not None:
        eps = (x - a_t.sqrt() * x0) / (1 - a_t).sqrt()
    var = (1 - a_prev) / (1 - a_t) * (1 - a_t / a_prev)
    sigma = eta * var.sqrt()
    dir_xt = (1 - a_prev - sigma ** 2).sqrt() * eps
    x_prev = a_prev.sqrt() * x0 + dir_xt
    if eta > 0:
        x_prev = x_prev + sigma * torch.randn(x.shape, generator=generator)
    return x_prev, x0


x_T = torch.randn(2, 3, 4, 4)
for thresh in [None, "clip", "dynamic"]:
    for eta in [0.0, 1.0]:
        g = torch.Generator().manual_seed(42)
        x = x_T.clone()
        ts = spacing(10, "leading")
        for i, t in enumerate(ts.tolist()):
            t_prev = ts[i + 1].item() if i + 1 < len(ts) else -1
            x, x0 = ddim_step(x, t, t_prev, eta, thresh, g)
        print(thresh, eta, r(x.flatten(1).mean(1)), round(x.abs().max().item(), 4), tuple(x.shape))

x0_big = torch.linspace(-3, 3, 2 * 3 * 4 * 4).view(2, 3, 4, 4)
x0_big[1] *= 0.3
th, s = dynamic_threshold(x0_big)
print("thresholds:", r(s), r(th.abs().amax(dim=(1, 2, 3))))
print("quantile interpolations:", [round(torch.quantile(x0_big.flatten(), 0.9, interpolation=m).item(), 4)
                                   for m in ["linear", "lower", "higher", "midpoint", "nearest"]])
print("nanquantile:", round(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5).item(), 4))
try:
    torch.quantile(x0_big.flatten(), 1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.quantile(x0_big.flatten().long(), 0.5)
except Exception as e:
    print(type(e).__name__, e)

# img2img: strength keeps the last int(n * strength) steps
n, strength = 10, 0.35
ts = spacing(n, "leading")
init_timestep = min(int(n * strength), n)
t_start = max(n - init_timestep, 0)
print("img2img timesteps:", ts[t_start:].tolist(), "first noise level", round(ac[ts[t_start]].item(), 4))

# deterministic DDIM inversion: encode x0 to x_T and decode it back
ts = spacing(50, "leading").flip(0)
x = torch.randn(1, 3, 4, 4) * 0.5
x_orig = x.clone()
for i in range(len(ts) - 1):
    t_cur, t_next = ts[i].item(), ts[i + 1].item()
    eps = eps_model(x, torch.tensor(t_cur))
    x0 = (x - (1 - ac[t_cur]).sqrt() * eps) / ac[t_cur].sqrt()
    x = ac[t_next].sqrt() * x0 + (1 - ac[t_next]).sqrt() * eps
print("inverted:", r(x.flatten(), 4), round(x.std().item(), 4))
ts_b = ts.flip(0)
for i in range(len(ts_b) - 1):
    x, _ = ddim_step(x, ts_b[i].item(), ts_b[i + 1].item())
print("reconstruction error:", round((x - x_orig).abs().max().item(), 3))
