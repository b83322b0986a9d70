"""Video stabilisation and 3-D augmentation: F.affine_grid over 4-D and 5-D sizes with both align_corners, per-frame
similarity transforms, grid_sample on volumes (trilinear via 'bilinear', nearest), inverse warps and the errors."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def similarity(angle, scale, tx, ty):
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    return torch.tensor([[c, -s, tx], [s, c, ty]])


thetas = torch.stack([similarity(0.1 * i, 1 + 0.05 * i, 0.02 * i, -0.01 * i) for i in range(4)])
for ac in [True, False]:
    grid = F.affine_grid(thetas, (4, 1, 3, 4), align_corners=ac)
    print(
        "grid2d", ac, tuple(grid.shape), grid[1, 0].round(decimals=4).tolist(), grid[3, 2, 3].round(decimals=4).tolist()
    )

frames = torch.arange(4 * 1 * 6 * 6, dtype=torch.float32).view(4, 1, 6, 6) / 100
stab = F.grid_sample(frames, F.affine_grid(thetas, frames.shape, align_corners=False), align_corners=False)
print("stabilised", stab[2, 0, 2].round(decimals=4).tolist(), round(stab.mean().item(), 4))

inv = torch.linalg.inv(torch.cat([thetas, torch.tensor([[[0.0, 0.0, 1.0]]]).expand(4, 1, 3)], 1))[:, :2]
back = F.grid_sample(stab, F.affine_grid(inv, frames.shape, align_corners=False), align_corners=False)
print("roundtrip centre err", round((back - frames)[:, :, 2:4, 2:4].abs().max().item(), 4))

theta3 = torch.zeros(2, 3, 4)
theta3[:, :3, :3] = torch.eye(3)
theta3[1, 0, 3] = 0.25
theta3[1, 2, 3] = -0.5
rot = torch.tensor([[math.cos(0.3), 0.0, math.sin(0.3)], [0.0, 1.0, 0.0], [-math.sin(0.3), 0.0, math.cos(0.3)]])
theta3[1, :3, :3] = rot
for ac in [True, False]:
    g3 = F.affine_grid(theta3, (2, 2, 3, 4, 5), align_corners=ac)
    print(
        "grid3d",
        ac,
        tuple(g3.shape),
        g3[0, 1, 2, 3].round(decimals=4).tolist(),
        g3[1, 2, 0, 4].round(decimals=4).tolist(),
    )

vol = torch.arange(2 * 2 * 3 * 4 * 5, dtype=torch.float32).view(2, 2, 3, 4, 5) / 100
g3 = F.affine_grid(theta3, vol.shape, align_corners=False)
for mode in ["bilinear", "nearest"]:
    for pad in ["zeros", "border", "reflection"]:
        out = F.grid_sample(vol, g3, mode=mode, padding_mode=pad, align_corners=False)
        print(
            "vol", mode, pad, tuple(out.shape), round(out.sum().item(), 4), out[1, 1, 1, 2].round(decimals=4).tolist()
        )
print("identity", torch.allclose(F.grid_sample(vol[:1], g3[:1], align_corners=False), vol[:1], atol=1e-5))

th = theta3.clone().requires_grad_()
v = vol.clone().requires_grad_()
out = F.grid_sample(v, F.affine_grid(th, (2, 2, 2, 3, 3), align_corners=True), align_corners=True)
(out * torch.linspace(0, 1, out.numel()).view_as(out)).sum().backward()
print("grad theta", th.grad.round(decimals=4)[1].tolist())
print("grad vol", round(v.grad.sum().item(), 4), round(v.grad.abs().max().item(), 4))
print("grad_fns", type(out.grad_fn).__name__)

print("double", F.affine_grid(theta3.double(), (2, 1, 2, 2, 2), align_corners=False).dtype)
for bad in [
    lambda: F.affine_grid(theta3, (2, 2, 3, 4), align_corners=False),
    lambda: F.affine_grid(thetas, (4, 1, 3, 4, 5), align_corners=False),
    lambda: F.affine_grid(thetas, (3, 1, 3, 4), align_corners=False),
    lambda: F.affine_grid(thetas, (4, 1, 3), align_corners=False),
    lambda: F.affine_grid(thetas.long(), (4, 1, 3, 4), align_corners=False),
    lambda: F.grid_sample(vol, g3, mode="bicubic", align_corners=False),
    lambda: F.grid_sample(vol, g3[..., :2], align_corners=False),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
