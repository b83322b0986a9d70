"""Optical-flow warping as video models do it: a backward warp with grid_sample over every mode, padding_mode and
align_corners, forward-backward consistency occlusion masks, a photometric loss and gradients w.r.t. the flow."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def base_grid(b, h, w, dtype=torch.float32):
    ys, xs = torch.meshgrid(torch.arange(h, dtype=dtype), torch.arange(w, dtype=dtype), indexing="ij")
    return torch.stack((xs, ys), 0).unsqueeze(0).expand(b, -1, -1, -1)


def warp(img, flow, mode="bilinear", padding_mode="zeros", align_corners=True):
    b, _, h, w = img.shape
    coords = base_grid(b, h, w, img.dtype) + flow
    if align_corners:
        gx = 2.0 * coords[:, 0] / max(w - 1, 1) - 1.0
        gy = 2.0 * coords[:, 1] / max(h - 1, 1) - 1.0
    else:
        gx = (2.0 * coords[:, 0] + 1.0) / w - 1.0
        gy = (2.0 * coords[:, 1] + 1.0) / h - 1.0
    grid = torch.stack((gx, gy), dim=3)
    return F.grid_sample(img, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


img = torch.arange(2 * 5 * 6, dtype=torch.float32).view(1, 2, 5, 6) / 10
flow = torch.zeros(1, 2, 5, 6)
print(
    "identity ac",
    torch.allclose(warp(img, flow), img, atol=1e-5),
    "identity no-ac",
    torch.allclose(warp(img, flow, align_corners=False), img, atol=1e-5),
)
flow[:, 0] = 1.5
flow[:, 1] = -0.75
for mode in ["bilinear", "nearest", "bicubic"]:
    for pad in ["zeros", "border", "reflection"]:
        for ac in [True, False]:
            out = warp(img, flow, mode, pad, ac)
            print(mode, pad, ac, out[0, 0, 0].round(decimals=4).tolist(), round(out.sum().item(), 3))

wide = torch.randn(1, 1, 3, 4)
far = torch.full((1, 3, 2, 2), 0.0)
far[..., 0], far[..., 1] = 2.7, -3.1
for pad in ["zeros", "border", "reflection"]:
    for ac in [True, False]:
        print(
            "far",
            pad,
            ac,
            F.grid_sample(wide, far[:1, :1].expand(1, 1, 2, 2).clone(), padding_mode=pad, align_corners=ac)
            .view(-1)
            .round(decimals=4)
            .tolist(),
        )

torch.manual_seed(2)
f1 = torch.randn(2, 3, 8, 8)
fwd = torch.randn(2, 2, 8, 8) * 1.5
bwd = -warp(fwd, fwd) + 0.1 * torch.randn(2, 2, 8, 8)
bwd_warped = warp(bwd, fwd)
mag = (fwd**2).sum(1) + (bwd_warped**2).sum(1)
occ = ((fwd + bwd_warped) ** 2).sum(1) > 0.01 * mag + 0.5
print("occluded", occ.sum().item(), occ.dtype, occ.float().mean().item())

flow_p = fwd.clone().requires_grad_()
f2 = torch.randn(2, 3, 8, 8)
warped = warp(f2, flow_p, padding_mode="border")
valid = (~occ).unsqueeze(1).float()
charb = (((warped - f1) ** 2 + 1e-6) ** 0.45 * valid).sum() / valid.sum().clamp(min=1)
smooth = (flow_p[..., :, 1:] - flow_p[..., :, :-1]).abs().mean() + (
    flow_p[..., 1:, :] - flow_p[..., :-1, :]
).abs().mean()
loss = charb + 0.1 * smooth
loss.backward()
print("loss", round(loss.item(), 4), "grad", round(flow_p.grad.abs().sum().item(), 4), type(warped.grad_fn).__name__)

img_g = img.clone().requires_grad_()
out = warp(img_g, flow, "nearest")
out.sum().backward()
print("nearest img grad", img_g.grad[0, 0].tolist())
g = torch.zeros(1, 2, 2, 2, requires_grad=True)
F.grid_sample(img, g.permute(0, 2, 3, 1), mode="nearest", align_corners=False).sum().backward()
print("nearest grid grad", g.grad.abs().sum().item())

print("double", F.grid_sample(img.double(), torch.zeros(1, 1, 1, 2, dtype=torch.float64), align_corners=True).dtype)
for bad in [
    lambda: F.grid_sample(img, torch.zeros(1, 3, 3, 3)),
    lambda: F.grid_sample(img, torch.zeros(2, 3, 3, 2)),
    lambda: F.grid_sample(img, torch.zeros(1, 3, 3, 2), mode="area"),
    lambda: F.grid_sample(img, torch.zeros(1, 3, 3, 2), padding_mode="wrap"),
    lambda: F.grid_sample(img, torch.zeros(1, 3, 3, 2).double()),
    lambda: F.grid_sample(img[0], torch.zeros(1, 3, 2)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
