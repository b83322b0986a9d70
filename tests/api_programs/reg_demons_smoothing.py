"""Demons-style registration: the optical-flow force from torch.gradient of the fixed image, Gaussian smoothing of
the displacement by separable conv2d with reflect padding, composition by grid_sample with border padding, and the
bookkeeping such loops do (clamp_, nan_to_num_, where, norms, an early stop on the MSE)."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
H, W = 12, 14
yy, xx = torch.meshgrid(torch.arange(H, dtype=torch.float64), torch.arange(W, dtype=torch.float64), indexing="ij")
fixed = torch.exp(-((yy - 6) ** 2 + (xx - 7) ** 2) / 8.0)[None, None]
moving = torch.exp(-((yy - 5) ** 2 + (xx - 8.5) ** 2) / 8.0)[None, None]


def gaussian_kernel(sigma):
    r = int(3 * sigma + 0.5)
    t = torch.arange(-r, r + 1, dtype=torch.float64)
    k = torch.exp(-(t**2) / (2 * sigma**2))
    return k / k.sum(), r


def smooth(field, sigma):
    k, r = gaussian_kernel(sigma)
    c = field.shape[1]
    out = F.pad(field, (0, 0, r, r), mode="reflect")
    out = F.conv2d(out, k.view(1, 1, -1, 1).repeat(c, 1, 1, 1), groups=c)
    out = F.pad(out, (r, r, 0, 0), mode="reflect")
    return F.conv2d(out, k.view(1, 1, 1, -1).repeat(c, 1, 1, 1), groups=c)


def warp(img, disp):
    gy, gx = yy + disp[:, 0], xx + disp[:, 1]
    grid = torch.stack([2 * gx / (W - 1) - 1, 2 * gy / (H - 1) - 1], -1)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=True)


k, r = gaussian_kernel(1.0)
print("kernel", r, k.round(decimals=4), round(k.sum().item(), 6))
gy, gx = torch.gradient(fixed[0, 0])
print("grad", gy.shape, round(gy.abs().max().item(), 4), gx[6, 5:9].round(decimals=4))
disp = torch.zeros(1, 2, H, W, dtype=torch.float64)
prev = float("inf")
for it in range(40):
    warped = warp(moving, disp)
    diff = warped - fixed
    grad = torch.stack([gy, gx])[None]
    denom = (grad**2).sum(1, keepdim=True) + diff**2
    update = torch.where(denom > 1e-9, -diff * grad / denom, torch.zeros_like(grad))
    update.nan_to_num_(0.0).clamp_(-1.0, 1.0)
    disp = smooth(disp + update, 1.0)
    mse = F.mse_loss(warped, fixed).item()
    if it % 8 == 0:
        print(it, round(mse, 6), round(disp.norm().item(), 4), round(update.abs().max().item(), 4))
    if prev - mse < 1e-8:
        print("stop", it, round(mse, 6))
        break
    prev = mse
print("mean disp", disp.mean((2, 3)).round(decimals=3), disp[0, :, 6, 7].round(decimals=3))
print(
    "smooth preserves const",
    torch.allclose(
        smooth(torch.ones(1, 2, H, W, dtype=torch.float64), 2.0), torch.ones(1, 2, H, W, dtype=torch.float64)
    ),
)
print("dims", smooth(disp, 0.5).shape, F.pad(disp, (2, 2, 1, 1), mode="reflect").shape)
jac = torch.stack(torch.gradient(disp[0, 0]) + torch.gradient(disp[0, 1])).view(2, 2, H, W)
det = (1 + jac[0, 0]) * (1 + jac[1, 1]) - jac[0, 1] * jac[1, 0]
print("det", round(det.min().item(), 4), round(det.max().item(), 4), (det < 0).any().item())
try:
    smooth(disp, 5.0)
except RuntimeError as e:
    print("too wide", e)
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), posinf=9.0))
print(torch.tensor([[0.5, -2.0], [3.0, float("nan")]]).clamp(min=-1, max=1))
print(torch.where(torch.tensor([True, False]), torch.tensor([1.0, 2.0]), 0.5), torch.where(torch.tensor([1, 0]) > 0))
