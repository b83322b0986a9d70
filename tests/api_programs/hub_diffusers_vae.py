"""diffusers-style AutoencoderKL written inline: Encoder/Decoder with ResnetBlock2D (GroupNorm + SiLU), a
mid-block attention, asymmetric-padded strided downsampling, DiagonalGaussianDistribution (chunk into mean/logvar,
clamp to [-30, 20], sample with a seeded torch.Generator, kl, nll, mode), quant/post-quant 1x1 convs, the 0.18215
scaling factor, tiled encoding with blended overlaps, an LPIPS-free VAE loss with a KL weight, and a few Adam steps."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class DiagonalGaussianDistribution:
    def __init__(self, parameters, deterministic=False):
        self.parameters = parameters
        self.mean, self.logvar = torch.chunk(parameters, 2, dim=1)
        self.logvar = torch.clamp(self.logvar, -30.0, 20.0)
        self.deterministic = deterministic
        self.std = torch.exp(0.5 * self.logvar)
        self.var = torch.exp(self.logvar)
        if self.deterministic:
            self.var = self.std = torch.zeros_like(self.mean, device=self.parameters.device,
                                                   dtype=self.parameters.dtype)

    def sample(self, generator=None):
        sample = torch.randn(self.mean.shape, generator=generator, device=self.parameters.device,
                             dtype=self.parameters.dtype)
        return self.mean + self.std * sample

    def kl(self, other=None):
        if self.deterministic:
            return torch.Tensor([0.0])
        if other is None:
            return 0.5 * torch.sum(torch.pow(self.mean, 2) + self.var - 1.0 - self.logvar, dim=[1, 2, 3])
        return 0.5 * torch.sum(torch.pow(self.mean - other.mean, 2) / other.var + self.var / other.var - 1.0
                               - self.logvar + other.logvar, dim=[1, 2, 3])

    def nll(self, sample, dims=(1, 2, 3)):
        if self.deterministic:
            return torch.Tensor([0.0])
        logtwopi = np.log(2.0 * np.pi)
        return 0.5 * torch.sum(logtwopi + self.logvar + torch.pow(sample - self.mean, 2) / self.var, dim=dims)

    def mode(self):
        return self.mean


class ResnetBlock2D(nn.Module):
    def __init__(self, cin, cout, groups=4):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, cin, eps=1e-6)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, cout, eps=1e-6)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.conv_shortcut = nn.Conv2d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return (x if self.conv_shortcut is None else self.conv_shortcut(x)) + h


class AttnBlock(nn.Module):
    def __init__(self, c, groups=4):
        super().__init__()
        self.group_norm = nn.GroupNorm(groups, c, eps=1e-6)
        self.to_q, self.to_k, self.to_v, self.to_out = (nn.Linear(c, c) for _ in range(4))

    def forward(self, x):
        b, c, h, w = x.shape
        t = self.group_norm(x).view(b, c, h * w).transpose(1, 2)
        out = F.scaled_dot_product_attention(self.to_q(t)[:, None], self.to_k(t)[:, None], self.to_v(t)[:, None])
        return x + self.to_out(out[:, 0]).transpose(1, 2).reshape(b, c, h, w)


class Downsample(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, stride=2, padding=0)

    def forward(self, x):
        return self.conv(F.pad(x, (0, 1, 0, 1), mode="constant", value=0))


class Encoder(nn.Module):
    def __init__(self, cin=3, ch=(8, 16), latent=2):
        super().__init__()
        self.conv_in = nn.Conv2d(cin, ch[0], 3, padding=1)
        self.down = nn.ModuleList([ResnetBlock2D(ch[0], ch[0]), Downsample(ch[0]), ResnetBlock2D(ch[0], ch[1])])
        self.mid = nn.Sequential(ResnetBlock2D(ch[1], ch[1]), AttnBlock(ch[1]), ResnetBlock2D(ch[1], ch[1]))
        self.conv_norm_out = nn.GroupNorm(4, ch[1], eps=1e-6)
        self.conv_out = nn.Conv2d(ch[1], 2 * latent, 3, padding=1)

    def forward(self, x):
        x = self.conv_in(x)
        for m in self.down:
            x = m(x)
        return self.conv_out(F.silu(self.conv_norm_out(self.mid(x))))


class Decoder(nn.Module):
    def __init__(self, cout=3, ch=(16, 8), latent=2):
        super().__init__()
        self.conv_in = nn.Conv2d(latent, ch[0], 3, padding=1)
        self.mid = nn.Sequential(ResnetBlock2D(ch[0], ch[0]), AttnBlock(ch[0]), ResnetBlock2D(ch[0], ch[0]))
        self.up = ResnetBlock2D(ch[0], ch[1])
        self.up_conv = nn.Conv2d(ch[1], ch[1], 3, padding=1)
        self.conv_norm_out = nn.GroupNorm(4, ch[1], eps=1e-6)
        self.conv_out = nn.Conv2d(ch[1], cout, 3, padding=1)

    def forward(self, z):
        x = self.up(self.mid(self.conv_in(z)))
        x = self.up_conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))
        return self.conv_out(F.silu(self.conv_norm_out(x)))


class AutoencoderKL(nn.Module):
    def __init__(self, latent=2, scaling_factor=0.18215):
        super().__init__()
        self.encoder, self.decoder = Encoder(latent=latent), Decoder(latent=latent)
        self.quant_conv = nn.Conv2d(2 * latent, 2 * latent, 1)
        self.post_quant_conv = nn.Conv2d(latent, latent, 1)
        self.config = {"latent_channels": latent, "scaling_factor": scaling_factor}

    def encode(self, x):
        return DiagonalGaussianDistribution(self.quant_conv(self.encoder(x)))

    def decode(self, z):
        return self.decoder(self.post_quant_conv(z))

    def blend_h(self, a, b, blend_extent):
        blend_extent = min(a.shape[3], b.shape[3], blend_extent)
        for x in range(blend_extent):
            b[:, :, :, x] = a[:, :, :, -blend_extent + x] * (1 - x / blend_extent) + b[:, :, :, x] * (x / blend_extent)
        return b

    def tiled_encode_h(self, x, tile=8, overlap=0.25):
        stride = int(tile * (1 - overlap))
        blend = int(tile // 2 * overlap)
        tiles = [self.quant_conv(self.encoder(x[:, :, :, j:j + tile])) for j in range(0, x.shape[3], stride)]
        row = []
        for j, t in enumerate(tiles):
            if j > 0:
                t = self.blend_h(tiles[j - 1], t, blend)
            row.append(t[:, :, :, :stride // 2])
        return DiagonalGaussianDistribution(torch.cat(row, dim=3))

    def forward(self, sample, sample_posterior=True, generator=None):
        posterior = self.encode(sample)
        z = posterior.sample(generator=generator) if sample_posterior else posterior.mode()
        return self.decode(z), posterior


g = torch.Generator().manual_seed(0)
params = torch.randn(2, 4, 3, 3, generator=g)
params[0, 2, 0, 0] = 50.0
dist = DiagonalGaussianDistribution(params)
print("logvar clamped", dist.logvar.max().item(), "std", dist.std[0, :, 0, 0])
print("kl", dist.kl(), "nll", dist.nll(dist.mode()))
other = DiagonalGaussianDistribution(torch.zeros(2, 4, 3, 3))
print("kl to standard", torch.allclose(dist.kl(other), dist.kl(), atol=1e-3))
print("sample", dist.sample(torch.Generator().manual_seed(3))[0, 0, 0])
det = DiagonalGaussianDistribution(params, deterministic=True)
print("deterministic", det.kl(), det.std.abs().sum().item(), torch.equal(det.sample(g), det.mean))

vae = AutoencoderKL()
print(vae.encoder.down[1], vae.decoder.mid[1])
print("params", sum(p.numel() for p in vae.parameters()), "encoder", sum(p.numel() for p in vae.encoder.parameters()))
x = torch.rand(2, 3, 16, 16) * 2 - 1
post = vae.encode(x)
print("latent", post.mean.shape, "scaled std", round((post.mode() * vae.config["scaling_factor"]).std().item(), 4))
rec, post = vae(x, generator=torch.Generator().manual_seed(1))
print("recon", rec.shape, rec[0, 0, 0, :4])
tiled = vae.tiled_encode_h(torch.rand(1, 3, 16, 32))
print("tiled latent", tiled.mean.shape)

opt = torch.optim.Adam(vae.parameters(), lr=2e-3, betas=(0.5, 0.9))
kl_weight = 1e-4
for step in range(4):
    rec, post = vae(x, generator=torch.Generator().manual_seed(step))
    rec_loss = torch.abs(x.contiguous() - rec.contiguous())
    logvar = nn.Parameter(torch.zeros(()), requires_grad=False)
    nll_loss = (rec_loss / torch.exp(logvar) + logvar).sum() / rec_loss.shape[0]
    kl_loss = post.kl().sum() / post.kl().shape[0]
    loss = nll_loss + kl_weight * kl_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} nll {nll_loss.item():.3f} kl {kl_loss.item():.4f} loss {loss.item():.3f}")
vae.eval()
with torch.no_grad():
    z = vae.encode(x).mode() * vae.config["scaling_factor"]
    out = vae.decode(z / vae.config["scaling_factor"]).clamp(-1, 1)
print("decoded", out.shape, round((out - x).abs().mean().item(), 4))
img = ((out / 2 + 0.5).clamp(0, 1) * 255).round().to(torch.uint8).permute(0, 2, 3, 1)
print("uint8 image", img.shape, img.dtype, img[0, 0, 0].tolist())
