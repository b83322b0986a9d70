"""Latent diffusion plumbing on the CPU: a VAE posterior as DiagonalGaussianDistribution (logvar clamped to
[-30, 20], sample with a generator, mode, kl and nll over dims), the latent scaling factor estimated from a batch,
and the UNet/VAE calls under torch.autocast("cpu", dtype=torch.bfloat16) with the dtypes each op returns, fp32
upcasts for the loss, and bfloat16 weights cast back for the EMA."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=4):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


class DiagonalGaussianDistribution:
    def __init__(self, parameters, deterministic=False):
        self.parameters = parameters
        self.mean, self.logvar = torch.chunk(parameters, 2, dim=1)
        self.logvar = torch.clamp(self.logvar, -30.0, 20.0)
        self.deterministic = deterministic
        self.std = torch.exp(0.5 * self.logvar)
        self.var = torch.exp(self.logvar)
        if self.deterministic:
            self.var = self.std = torch.zeros_like(
                self.mean, device=self.parameters.device, dtype=self.parameters.dtype
            )

    def sample(self, generator=None):
        eps = torch.randn(
            self.mean.shape, generator=generator, device=self.parameters.device, dtype=self.parameters.dtype
        )
        return self.mean + self.std * eps

    def kl(self, other=None):
        if self.deterministic:
            return torch.Tensor([0.0])
        if other is None:
            return 0.5 * torch.sum(torch.pow(self.mean, 2) + self.var - 1.0 - self.logvar, dim=[1, 2, 3])
        return 0.5 * torch.sum(
            torch.pow(self.mean - other.mean, 2) / other.var + self.var / other.var - 1.0 - self.logvar + other.logvar,
            dim=[1, 2, 3],
        )

    def nll(self, sample, dims=(1, 2, 3)):
        if self.deterministic:
            return torch.Tensor([0.0])
        logtwopi = np.log(2.0 * np.pi)
        return 0.5 * torch.sum(logtwopi + self.logvar + torch.pow(sample - self.mean, 2) / self.var, dim=dims)

    def mode(self):
        return self.mean


enc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.SiLU(), nn.Conv2d(8, 8, 3, padding=1))
dec = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1), nn.SiLU(), nn.Conv2d(8, 3, 3, padding=1))
for m in (enc, dec):
    with torch.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(0.2 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.39 + k).view_as(p))

img = torch.rand(2, 3, 8, 8) * 2 - 1
post = DiagonalGaussianDistribution(enc(img))
print("posterior:", tuple(post.mean.shape), r(post.std), r(post.kl()), r(post.nll(post.mode())))
z = post.sample(generator=torch.Generator().manual_seed(0))
print("sample:", tuple(z.shape), r(z), "kl to self:", r(post.kl(post)))
extreme = DiagonalGaussianDistribution(torch.cat([torch.zeros(1, 4, 1, 1), torch.full((1, 4, 1, 1), 50.0)], 1))
print("clamped logvar:", extreme.logvar.flatten().tolist(), round(extreme.std.flatten()[0].item(), 2))
det = DiagonalGaussianDistribution(enc(img), deterministic=True)
print("deterministic:", det.kl(), det.std.abs().sum().item(), torch.equal(det.sample(), det.mean))
scaling_factor = 1.0 / z.flatten().std()
print("scaling factor:", round(scaling_factor.item(), 4), round((z * scaling_factor).std().item(), 4))

unet = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(), nn.Conv2d(8, 4, 3, padding=1))
with torch.no_grad():
    for k, p in enumerate(unet.parameters()):
        p.copy_(0.2 * torch.cos(torch.arange(p.numel(), dtype=p.dtype) * 0.31 + k).view_as(p))
lat = (z * scaling_factor).detach()
noise = torch.randn_like(lat)
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = unet[0](lat)
    hn = unet[1](h)
    out = unet(lat)
    q = torch.randn(2, 2, 4, 8)
    att = F.scaled_dot_product_attention(q, q, q)
    mm = lat.flatten(1) @ lat.flatten(1).T
    sm = torch.softmax(mm, dim=-1)
    loss_in = F.mse_loss(out, noise)
    lse = torch.logsumexp(mm, dim=-1)
    print("autocast on:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    print("dtypes:", h.dtype, hn.dtype, out.dtype, att.dtype, mm.dtype, sm.dtype, loss_in.dtype, lse.dtype)
    with torch.autocast("cpu", enabled=False):
        print("nested disabled:", unet[0](lat).dtype, torch.is_autocast_enabled("cpu"))
print(
    "loss fp32:",
    round(F.mse_loss(out.float(), noise).item(), 2),
    "bf16 error small:",
    bool((out.float() - unet(lat)).abs().max() < 0.05),
)
recon = dec(lat / scaling_factor)
print("decode:", tuple(recon.shape), recon.dtype, round(recon.abs().mean().item(), 4))
with torch.autocast("cpu", dtype=torch.bfloat16):
    recon_bf = dec(lat / scaling_factor)
print("decode bf16:", recon_bf.dtype, bool((recon_bf.float() - recon).abs().max() < 0.05))

bf_unet = nn.Conv2d(4, 4, 1).to(torch.bfloat16)
ema = nn.Conv2d(4, 4, 1)
with torch.no_grad():
    ema.weight.lerp_(bf_unet.weight.float(), 0.5)
print("bf16 weights:", bf_unet.weight.dtype, ema.weight.dtype, bf_unet(lat.bfloat16()).dtype)
try:
    ema.weight.data.lerp_(bf_unet.weight, 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    bf_unet(lat)
except Exception as e:
    print(type(e).__name__, e)
try:
    with torch.autocast("cpu", dtype=torch.float64):
        pass
except Exception as e:
    print(type(e).__name__, e)
print("finfo:", torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).tiny)
print("bf16 rounding:", torch.tensor([1.0 + 2**-8, 1.0 + 3 * 2**-8, 257.0], dtype=torch.bfloat16).tolist())
