"""Latent-space and augmentation utilities from GAN repos: slerp/lerp interpolation, the truncation trick toward a
tracked w_avg, style mixing with a crossover index, perceptual-path-length style finite differences, the minibatch
standard-deviation layer, DiffAugment (brightness/saturation/contrast, translation by padded gather, cutout) and
ADA-style geometric augmentation through affine_grid/grid_sample, all with fixed, seed-independent parameters."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def slerp(a, b, t):
    a_n = a / a.norm(dim=-1, keepdim=True)
    b_n = b / b.norm(dim=-1, keepdim=True)
    d = (a_n * b_n).sum(dim=-1, keepdim=True).clamp(-1 + 1e-7, 1 - 1e-7)
    p = t * torch.acos(d)
    c = b_n - d * a_n
    c = c / c.norm(dim=-1, keepdim=True)
    out = a_n * torch.cos(p) + c * torch.sin(p)
    return out * torch.lerp(a.norm(dim=-1, keepdim=True), b.norm(dim=-1, keepdim=True), t)


z0 = torch.sin(torch.arange(8, dtype=torch.float32) * 0.9)
z1 = torch.cos(torch.arange(8, dtype=torch.float32) * 0.4)
ts = torch.linspace(0, 1, 5).view(-1, 1)
path = slerp(z0.expand(5, -1), z1.expand(5, -1), ts)
print("slerp ends", torch.allclose(path[0], z0, atol=1e-5), torch.allclose(path[-1], z1, atol=1e-5))
print("slerp norms", r(path.norm(dim=-1), 5), "lerp norms", r(torch.lerp(z0, z1, ts).norm(dim=-1), 5))
angles = torch.acos(F.cosine_similarity(path[:-1], path[1:], dim=-1).clamp(-1, 1))
print("equal angular steps", r(angles, 4))


class Mapping(nn.Module):
    def __init__(self, z_dim=8, w_dim=8, n=3):
        super().__init__()
        layers = []
        for i in range(n):
            layers += [nn.Linear(z_dim if i == 0 else w_dim, w_dim), nn.LeakyReLU(0.2)]
        self.net = nn.Sequential(*layers)
        self.register_buffer("w_avg", torch.zeros(w_dim))
        with torch.no_grad():
            for k, p in enumerate(self.parameters()):
                p.copy_(0.4 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.5 + 0.1 * k)).view_as(p))

    def forward(self, z, truncation_psi=1.0, update_avg=False, beta=0.995):
        z = z * (z.square().mean(dim=1, keepdim=True) + 1e-8).rsqrt()  # pixel norm
        w = self.net(z)
        if update_avg:
            self.w_avg.copy_(w.detach().mean(dim=0).lerp(self.w_avg, beta))
        if truncation_psi != 1:
            w = self.w_avg.lerp(w, truncation_psi)
        return w


mapping = Mapping()
zs = torch.stack([torch.sin(torch.arange(8.0) * (0.3 + 0.2 * k) + k) for k in range(6)])
for _ in range(20):
    mapping(zs, update_avg=True)
print("w_avg", r(mapping.w_avg, 4))
w = mapping(zs)
for psi in [1.0, 0.7, 0.0]:
    wt = mapping(zs, truncation_psi=psi)
    print(f"psi {psi}: dist to avg {(wt - mapping.w_avg).norm(dim=1).mean().item():.4f}")

# style mixing: broadcast w to num_ws layers, swap after a crossover index
num_ws = 6
ws = w.unsqueeze(1).repeat(1, num_ws, 1)
ws2 = mapping(zs.flip(0)).unsqueeze(1).repeat(1, num_ws, 1)
cutoff = torch.tensor([2, 4, 6, 1, 3, 5])
layer_idx = torch.arange(num_ws)[None, :, None]
mixed = torch.where(layer_idx < cutoff[:, None, None], ws, ws2)
print("mixed from first", (mixed == ws).all(-1).sum(1).tolist(), "shape", tuple(mixed.shape))

# perceptual-path-length style finite difference along slerp in z
eps = 1e-4
g = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 12))
with torch.no_grad():
    for k, p in enumerate(g.parameters()):
        p.copy_(0.3 * torch.cos(torch.arange(p.numel(), dtype=p.dtype) * (0.7 + 0.05 * k)).view_as(p))
t = torch.tensor([[0.1], [0.5], [0.9]], dtype=torch.float64)
za, zb = zs[:3].double(), zs[3:].double()
g = g.double()
img0 = g(slerp(za, zb, t))
img1 = g(slerp(za, zb, t + eps))
ppl = (img1 - img0).square().sum(1) / eps ** 2
print("ppl terms", r(ppl, 3), "dtype", ppl.dtype)


class MinibatchStd(nn.Module):
    def __init__(self, group_size=2, num_channels=1):
        super().__init__()
        self.group_size, self.num_channels = group_size, num_channels

    def forward(self, x):
        N, C, H, W = x.shape
        G = min(self.group_size, N)
        F_ = self.num_channels
        c = C // F_
        y = x.reshape(G, -1, F_, c, H, W)
        y = y - y.mean(dim=0)
        y = y.square().mean(dim=0)
        y = (y + 1e-8).sqrt()
        y = y.mean(dim=[2, 3, 4])
        y = y.reshape(-1, F_, 1, 1)
        y = y.repeat(G, 1, H, W)
        return torch.cat([x, y], dim=1)


feat = torch.sin(torch.arange(4 * 3 * 2 * 2, dtype=torch.float32).view(4, 3, 2, 2) * 0.6)
out = MinibatchStd()(feat)
print("mbstd", tuple(out.shape), r(out[:, -1, 0, 0], 4))

# DiffAugment with fixed parameters
x = (torch.sin(torch.arange(2 * 3 * 6 * 6, dtype=torch.float32).view(2, 3, 6, 6) * 0.21) + 1) / 2
brightness = torch.tensor([0.1, -0.2]).view(-1, 1, 1, 1)
x_b = x + brightness
x_mean = x_b.mean(dim=1, keepdim=True)
x_s = (x_b - x_mean) * torch.tensor([1.5, 0.5]).view(-1, 1, 1, 1) + x_mean
x_mean = x_s.mean(dim=[1, 2, 3], keepdim=True)
x_c = (x_s - x_mean) * torch.tensor([1.2, 0.8]).view(-1, 1, 1, 1) + x_mean
print("color aug", r(x_c[0, 0, 0], 4), r(x_c[1, 2, 5], 4))


def translate(x, tx, ty):
    B, C, H, W = x.shape
    grid_batch, grid_x, grid_y = torch.meshgrid(torch.arange(B), torch.arange(H), torch.arange(W), indexing="ij")
    grid_x = torch.clamp(grid_x + tx.view(-1, 1, 1) + 1, 0, H + 1)
    grid_y = torch.clamp(grid_y + ty.view(-1, 1, 1) + 1, 0, W + 1)
    x_pad = F.pad(x, [1, 1, 1, 1, 0, 0, 0, 0])
    return x_pad.permute(0, 2, 3, 1).contiguous()[grid_batch, grid_x, grid_y].permute(0, 3, 1, 2)


x_t = translate(x, torch.tensor([1, -1]), torch.tensor([0, 2]))
print("translate", torch.equal(x_t[0, :, 1:, :], x[0, :, :-1, :]) or r(x_t[0, 0, :, 0], 6), r(x_t[1, 0, 0], 6))


def cutout(x, offset_x, offset_y, size=2):
    B, C, H, W = x.shape
    gb, gx, gy = torch.meshgrid(torch.arange(B), torch.arange(size), torch.arange(size), indexing="ij")
    gx = torch.clamp(gx + offset_x.view(-1, 1, 1) - size // 2, min=0, max=H - 1)
    gy = torch.clamp(gy + offset_y.view(-1, 1, 1) - size // 2, min=0, max=W - 1)
    mask = torch.ones(B, H, W, dtype=x.dtype)
    mask[gb, gx, gy] = 0
    return x * mask.unsqueeze(1), mask


x_cut, mask = cutout(x, torch.tensor([0, 3]), torch.tensor([5, 2]))
print("cutout zeros per image", (mask == 0).sum(dim=(1, 2)).tolist(), "\n", mask[1].int())

# ADA-style geometric augmentation: rotation + isotropic scale + flip through affine_grid/grid_sample
theta_deg = torch.tensor([15.0, -30.0])
scale = torch.tensor([1.1, 0.9])
flip = torch.tensor([1.0, -1.0])
rad = theta_deg * math.pi / 180
mat = torch.zeros(2, 2, 3)
mat[:, 0, 0] = flip * torch.cos(rad) / scale
mat[:, 0, 1] = -torch.sin(rad) / scale
mat[:, 1, 0] = flip * torch.sin(rad) / scale
mat[:, 1, 1] = torch.cos(rad) / scale
grid = F.affine_grid(mat, list(x.shape), align_corners=False)
aug = F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
print("grid", tuple(grid.shape), r(grid[0, 0, 0], 4), "aug", r(aug[0, 0, 2], 4), r(aug[1, 1, 3], 4))
ident = F.grid_sample(x, F.affine_grid(torch.eye(2, 3).expand(2, 2, 3), list(x.shape), align_corners=False),
                      align_corners=False)
print("identity warp exact", torch.allclose(ident, x, atol=1e-6))
