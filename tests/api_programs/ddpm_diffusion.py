"""DDPM diffusion: beta schedules (linspace/cumprod/cosine), gather-based extract, sinusoidal timestep embeddings,
a small UNet (GroupNorm, SiLU, skip cat, ConvTranspose2d), mse noise loss, EMA of weights, ancestral sampling."""

import copy
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def linear_beta_schedule(timesteps):
    scale = 1000 / timesteps
    return torch.linspace(scale * 0.0001, scale * 0.02, timesteps, dtype=torch.float64)


def cosine_beta_schedule(timesteps, s=0.008):
    steps = timesteps + 1
    t = torch.linspace(0, timesteps, steps, dtype=torch.float64) / timesteps
    alphas_cumprod = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)


def extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


TS = 20
betas = cosine_beta_schedule(TS)
lin = linear_beta_schedule(TS)
print("betas", r(betas), r(lin[-3:]), betas.dtype)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)
posterior_log_variance_clipped = torch.log(posterior_variance.clamp(min=1e-20))
print("cumprod", r(alphas_cumprod[::4]), r(alphas_cumprod_prev[:3]), r(posterior_log_variance_clipped[:3]))


class Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        register = lambda name, val: self.register_buffer(name, val.to(torch.float32))
        register("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
        register("sqrt_one_minus_alphas_cumprod", torch.sqrt(1.0 - alphas_cumprod))
        register("sqrt_recip_alphas", torch.sqrt(1.0 / alphas))
        register("betas", betas)
        register("posterior_variance", posterior_variance)


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim, theta=10000):
        super().__init__()
        self.dim, self.theta = dim, theta

    def forward(self, x):
        half_dim = self.dim // 2
        emb = math.log(self.theta) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, device=x.device) * -emb)
        emb = x[:, None] * emb[None, :]
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim, groups=2):
        super().__init__()
        self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(tdim, cout * 2))
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm1 = nn.GroupNorm(groups, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, cout)
        self.res_conv = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        scale, shift = self.mlp(temb)[:, :, None, None].chunk(2, dim=1)
        h = F.silu(self.norm1(self.conv1(x)) * (scale + 1) + shift)
        h = F.silu(self.norm2(self.conv2(h)))
        return h + self.res_conv(x)


class TinyUNet(nn.Module):
    def __init__(self, ch=4, tdim=8):
        super().__init__()
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(tdim), nn.Linear(tdim, tdim * 2), nn.GELU(),
                                      nn.Linear(tdim * 2, tdim))
        self.init_conv = nn.Conv2d(1, ch, 7, padding=3)
        self.down = ResBlock(ch, ch, tdim)
        self.downsample = nn.Conv2d(ch, ch * 2, 4, 2, 1)
        self.mid = ResBlock(ch * 2, ch * 2, tdim)
        self.upsample = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(ch * 2, ch, 3, padding=1))
        self.up = ResBlock(ch * 2, ch, tdim)
        self.final = nn.Conv2d(ch, 1, 1)

    def forward(self, x, t):
        temb = self.time_mlp(t.float())
        x = self.init_conv(x)
        h = self.down(x, temb)
        m = self.mid(self.downsample(h), temb)
        u = self.upsample(m)
        u = self.up(torch.cat((u, h), dim=1), temb)
        return self.final(u)


model = TinyUNet()
with torch.no_grad():
    for n, p in model.named_parameters():
        p.copy_(T(*p.shape) * 0.2)
buf = Buffers()
print("nparams", sum(p.numel() for p in model.parameters()), sorted(dict(buf.named_buffers()))[:2])
print("posemb", r(SinusoidalPosEmb(8)(torch.tensor([0.0, 3.0, 19.0]))[1]))

ema = copy.deepcopy(model)
ema.requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x0 = T(4, 1, 8, 8).tanh()


def q_sample(x_start, t, noise):
    return extract(buf.sqrt_alphas_cumprod, t, x_start.shape) * x_start + extract(
        buf.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise


for step in range(3):
    t = torch.from_numpy(rng.integers(0, TS, 4)).long()
    noise = T(*x0.shape)
    x_noisy = q_sample(x0, t, noise)
    pred = model(x_noisy, t)
    loss = F.mse_loss(pred, noise, reduction="none")
    loss = loss.mean(dim=[1, 2, 3]).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    with torch.no_grad():
        for pe, pm in zip(ema.parameters(), model.parameters()):
            pe.lerp_(pm, 1 - 0.9)
        for be, bm in zip(ema.buffers(), model.buffers()):
            be.copy_(bm)
    print("step", step, t.tolist(), round(loss.item(), 4), round(gn.item(), 4))

ema2 = copy.deepcopy(model)
with torch.no_grad():
    for pe, pm in zip(ema2.parameters(), model.parameters()):
        pe.mul_(0.99).add_(pm, alpha=0.01)
print("ema", r(ema.init_conv.weight), r(ema.final.bias), ema.final.bias.requires_grad)


@torch.no_grad()
def p_sample(m, x, t_index):
    t = torch.full((x.shape[0],), t_index, dtype=torch.long)
    betas_t = extract(buf.betas, t, x.shape)
    sqrt_one_minus = extract(buf.sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip = extract(buf.sqrt_recip_alphas, t, x.shape)
    model_mean = sqrt_recip * (x - betas_t * m(x, t) / sqrt_one_minus)
    if t_index == 0:
        return model_mean
    var = extract(buf.posterior_variance, t, x.shape)
    noise = torch.randn_like(x)
    noise = T(*x.shape)  # deterministic noise across frameworks; randn_like checked for shape above
    return model_mean + torch.sqrt(var) * noise


model.eval()
img = T(2, 1, 8, 8)
for i in reversed(range(0, 3)):
    img = p_sample(ema, img, i)
print("sample", tuple(img.shape), r(img), round(img.std().item(), 4))
print("randn_like", torch.randn_like(img).shape, torch.randn_like(img, dtype=torch.float64).dtype)
img01 = (img.clamp(-1, 1) + 1) * 0.5
print("to_uint8", (img01 * 255).round().to(torch.uint8).flatten()[:6].tolist())
