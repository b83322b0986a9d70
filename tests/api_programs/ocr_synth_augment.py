"""Synthetic-text augmentation as OCR data generators write it with tensors: seeded per-sample rotation, shear and
scale turned into affine matrices for affine_grid, depthwise Gaussian and motion blur by conv2d with groups,
perspective-like column warps through grid_sample with reflection padding, salt-and-pepper noise from torch.rand
masks, contrast jitter with clamp_, JPEG-like 8x8 block quantisation with unfold/fold, and uint8 round trips."""

import math

import torch

F = torch.nn.functional

g = torch.Generator().manual_seed(0)
N, H, W = 3, 16, 40
imgs = torch.zeros(N, 1, H, W)
imgs[:, :, 5:11, 4:36] = 1.0
imgs[:, :, 6:10, 8::6] = 0.3  # letter gaps


def random_affine(n, gen):
    angle = (torch.rand(n, generator=gen) - 0.5) * math.radians(10)
    shear = (torch.rand(n, generator=gen) - 0.5) * 0.3
    scale = 0.9 + 0.2 * torch.rand(n, generator=gen)
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = cos / scale
    theta[:, 0, 1] = (-sin + shear) / scale
    theta[:, 1, 0] = sin / scale
    theta[:, 1, 1] = cos / scale
    return theta, angle, shear, scale


theta, angle, shear, scale = random_affine(N, g)
print("angles deg", torch.rad2deg(angle).round(decimals=4).tolist())
print("shear", shear.round(decimals=4).tolist(), "scale", scale.round(decimals=4).tolist())
grid = F.affine_grid(theta, (N, 1, H, W), align_corners=False)
warped = F.grid_sample(imgs, grid, mode="bilinear", padding_mode="border", align_corners=False)
print("warped means", warped.mean(dim=(1, 2, 3)).round(decimals=4).tolist())


def gaussian_kernel(sigma, k=5):
    x = torch.arange(k, dtype=torch.float32) - k // 2
    g1 = torch.exp(-x.pow(2) / (2 * sigma**2))
    g1 = g1 / g1.sum()
    return torch.outer(g1, g1)


sigmas = 0.5 + torch.rand(N, generator=g)
kernels = torch.stack([gaussian_kernel(s.item()) for s in sigmas])[:, None]  # (N, 1, 5, 5)
blurred = F.conv2d(warped.transpose(0, 1), kernels, padding=2, groups=N).transpose(0, 1)
print("sigmas", sigmas.round(decimals=4).tolist(), "blur means", blurred.mean(dim=(1, 2, 3)).round(decimals=4).tolist())
motion = torch.zeros(1, 1, 1, 7)
motion[..., :] = 1 / 7
mblur = F.conv2d(F.pad(blurred, (3, 3, 0, 0), mode="replicate"), motion)
print("motion", tuple(mblur.shape), round(mblur.mean().item(), 4))

ys, xs = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
amp = 0.08 * torch.rand(N, 1, 1, generator=g)
curve = torch.stack([xs.expand(N, H, W), ys + amp * torch.sin(math.pi * xs)], -1)
curved = F.grid_sample(mblur, curve, mode="bilinear", padding_mode="reflection", align_corners=True)
print("curved", round(curved.mean().item(), 4), "amp", amp.flatten().round(decimals=4).tolist())

noise = torch.rand(curved.shape, generator=g)
sp = curved.clone()
sp[noise < 0.02] = 0.0
sp[noise > 0.98] = 1.0
print("salt", int((noise > 0.98).sum()), "pepper", int((noise < 0.02).sum()))
contrast = 0.7 + 0.6 * torch.rand(N, 1, 1, 1, generator=g)
jit = ((sp - 0.5) * contrast + 0.5).clamp_(0, 1)
print(
    "contrast",
    contrast.flatten().round(decimals=4).tolist(),
    "range",
    round(jit.min().item(), 4),
    round(jit.max().item(), 4),
)

blocks = F.unfold(jit, kernel_size=8, stride=8)  # (N, 64, L)
q = 0.125
quant = torch.round(blocks / q) * q
back = F.fold(quant, output_size=(H, W), kernel_size=8, stride=8)
print("blocks", tuple(blocks.shape), "quant err", round((back - jit).abs().max().item(), 4))
u8 = (back * 255).round().to(torch.uint8)
print(
    "uint8",
    u8.dtype,
    u8.float().mean().round(decimals=4).item(),
    torch.equal(u8.float().div(255).mul(255).round().to(torch.uint8), u8),
)
hist = torch.histc(back, bins=8, min=0, max=1)
print("hist", hist.tolist())
