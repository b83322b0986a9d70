"""A spatial transformer in front of a recogniser, as RARE/ASTER-style code writes it: a localisation network
whose last Linear starts at the identity transform, F.affine_grid with align_corners both ways, F.grid_sample
over its modes and padding modes, gradients reaching theta, rectified crops of a fixed output size, and the
shape errors that affine_grid and grid_sample raise."""

import torch
from torch import nn
F = torch.nn.functional

torch.manual_seed(0)
img = torch.arange(2 * 1 * 6 * 8, dtype=torch.float32).reshape(2, 1, 6, 8) / 10


class Localizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((2, 2)),
                                      nn.Flatten())
        self.fc = nn.Linear(16, 6)
        nn.init.zeros_(self.fc.weight)
        with torch.no_grad():
            self.fc.bias.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def forward(self, x):
        return self.fc(self.features(x)).view(-1, 2, 3)


loc = Localizer()
theta = loc(img)
print("theta", theta.round(decimals=4).tolist(), theta.grad_fn.name())
for ac in (False, True):
    grid = F.affine_grid(theta, [2, 1, 6, 8], align_corners=ac)
    out = F.grid_sample(img, grid, align_corners=ac)
    print("identity align_corners", ac, tuple(grid.shape), "max err", round((out - img).abs().max().item(), 4))
    print("  corner grid", grid[0, 0, 0].round(decimals=4).tolist(), grid[0, -1, -1].round(decimals=4).tolist())

rot = torch.tensor([[[0.8, -0.3, 0.1], [0.3, 0.8, -0.2]]]).repeat(2, 1, 1)
grid = F.affine_grid(rot, (2, 1, 4, 10), align_corners=False)
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        o = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=False)
        print(mode, pad, tuple(o.shape), round(o.sum().item(), 4), round(o[1, 0, 2, 3].item(), 4))

for dt in (torch.bfloat16, torch.float16):
    low = F.affine_grid(rot[:1].to(dt), (1, 1, 3, 5), align_corners=False)
    print("low precision grid", dt, low[0, 0].float().tolist(), low.dtype)
    print("  sampled", F.grid_sample(img[:1].to(dt), low, align_corners=False).float().sum().item())

zoom = torch.tensor([[[1.5, 0.0, 0.0], [0.0, 1.5, 0.0]]])
oob = F.grid_sample(img[:1], F.affine_grid(zoom, (1, 1, 6, 8), align_corners=True), align_corners=True)
print("zoom out zero border rows", oob[0, 0, 0].round(decimals=4).tolist())

theta_p = theta.detach().clone().requires_grad_(True)
rect = F.grid_sample(img, F.affine_grid(theta_p, (2, 1, 4, 12), align_corners=False), align_corners=False)
target = torch.zeros_like(rect)
loss = F.mse_loss(rect, target)
loss.backward()
print("rect", tuple(rect.shape), round(loss.item(), 4), "theta grad", theta_p.grad.round(decimals=4).tolist())

img_g = img.clone().requires_grad_(True)
g2 = F.affine_grid(rot[:1], (1, 1, 3, 3), align_corners=True).requires_grad_(True)
s = F.grid_sample(img_g[:1], g2, mode="bilinear", padding_mode="border", align_corners=True)
s.sum().backward()
print("input grad sum", round(img_g.grad.sum().item(), 4), "grid grad", g2.grad[0, 1].round(decimals=4).tolist())
print("grad_fn", s.grad_fn.name())

loss_stn = F.grid_sample(img, F.affine_grid(loc(img), img.shape, align_corners=False), align_corners=False).mean()
loss_stn.backward()
print("fc.bias grad", loc.fc.bias.grad.round(decimals=4).tolist())
print("fc.weight grad norm", round(loc.fc.weight.grad.norm().item(), 4))

for bad in (lambda: F.affine_grid(torch.zeros(2, 3, 3), (2, 1, 4, 4), align_corners=False),
            lambda: F.affine_grid(torch.zeros(2, 2, 3), (3, 1, 4, 4), align_corners=False),
            lambda: F.grid_sample(img, torch.zeros(2, 4, 4, 3), align_corners=False),
            lambda: F.grid_sample(img, torch.zeros(2, 4, 4, 2), mode="area", align_corners=False),
            lambda: F.grid_sample(img, torch.zeros(2, 4, 4, 2), padding_mode="wrap", align_corners=False)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
