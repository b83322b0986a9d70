"""Resampling and registration of volumes: spacing changes with F.interpolate (trilinear with scale_factor and
recompute_scale_factor, nearest-exact for label maps, area for downsampling), affine alignment by affine_grid +
grid_sample in 3-D with each padding mode, a VoxelMorph-style dense displacement warp with an NCC loss, a diffusion
regulariser and the Jacobian determinant of the deformation, optimised by Adam."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
D, H, W = 6, 8, 10
zz, yy, xx = torch.meshgrid(torch.linspace(-1, 1, D), torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
fixed = torch.exp(-((zz / 0.6) ** 2 + (yy / 0.5) ** 2 + ((xx - 0.1) / 0.4) ** 2)).view(1, 1, D, H, W)
moving = torch.exp(-((zz / 0.6) ** 2 + ((yy - 0.2) / 0.5) ** 2 + ((xx + 0.1) / 0.4) ** 2)).view(1, 1, D, H, W)
labels = (fixed > 0.5).float() + (fixed > 0.8).float()

spacing = torch.tensor([3.0, 0.8, 0.8])
target_spacing = torch.tensor([1.5, 1.0, 1.0])
factors = (spacing / target_spacing).tolist()
for rec in (None, True, False):
    r = F.interpolate(fixed, scale_factor=factors, mode="trilinear", align_corners=False, recompute_scale_factor=rec)
    print(f"resample rec={rec}", tuple(r.shape), round(r.sum().item(), 3), round(r[0, 0, 3, 2, 4].item(), 4))
print(
    "align_corners",
    round(F.interpolate(fixed, scale_factor=factors, mode="trilinear", align_corners=True).sum().item(), 4),
)
new_size = [int(round(s * f)) for s, f in zip((D, H, W), factors)]
lab_rs = F.interpolate(labels, size=new_size, mode="nearest-exact")
lab_n = F.interpolate(labels, size=new_size, mode="nearest")
print("labels", tuple(lab_rs.shape), torch.unique(lab_rs).tolist(), lab_rs.sum().item(), lab_n.sum().item())
print(
    "area down",
    tuple(F.interpolate(fixed, scale_factor=0.5, mode="area").shape),
    round(F.interpolate(fixed, size=(3, 3, 5), mode="area").sum().item(), 4),
)
print(
    "nearest sf",
    round(F.interpolate(fixed, scale_factor=(1.0, 0.75, 1.3), mode="nearest").sum().item(), 4),
    round(F.interpolate(fixed, scale_factor=(1.0, 0.75, 1.3), mode="nearest-exact").sum().item(), 4),
)
up = torch.nn.Upsample(scale_factor=(2, 1, 1), mode="trilinear", align_corners=False)
print(up, tuple(up(fixed).shape))

ang = torch.tensor(0.3)
theta = torch.tensor(
    [[torch.cos(ang), -torch.sin(ang), 0.0, 0.1], [torch.sin(ang), torch.cos(ang), 0.0, -0.2], [0.0, 0.0, 1.0, 0.05]]
).unsqueeze(0)
for ac in (False, True):
    grid = F.affine_grid(theta, list(fixed.shape), align_corners=ac)
    print("grid", tuple(grid.shape), ac, grid[0, 0, 0, 0].round(decimals=4).tolist())
    for pm in ("zeros", "border", "reflection"):
        for mode in ("bilinear", "nearest"):
            out = F.grid_sample(moving, grid, mode=mode, padding_mode=pm, align_corners=ac)
            print(" ", pm, mode, round(out.sum().item(), 4))

th = torch.eye(3, 4).unsqueeze(0).requires_grad_()
opt = torch.optim.Adam([th], lr=0.05)
for it in range(30):
    warped = F.grid_sample(
        moving, F.affine_grid(th, list(fixed.shape), align_corners=False), align_corners=False, padding_mode="border"
    )
    loss = F.mse_loss(warped, fixed)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("affine fit", round(loss.item(), 5) < 0.01, th.grad.shape, loss.grad_fn.name(), warped.grad_fn.name())


def identity_grid(shape):
    vecs = [torch.arange(s, dtype=torch.float32) for s in shape]
    grids = torch.stack(torch.meshgrid(*vecs, indexing="ij"))
    return grids.unsqueeze(0)


def warp(img, flow):
    loc = identity_grid(flow.shape[2:]) + flow
    shape = flow.shape[2:]
    for i in range(3):
        loc[:, i] = 2 * (loc[:, i] / (shape[i] - 1) - 0.5)
    loc = loc.permute(0, 2, 3, 4, 1)[..., [2, 1, 0]]
    return F.grid_sample(img, loc, align_corners=True, mode="bilinear")


def ncc(a, b, win=3):
    k = torch.ones(1, 1, win, win, win)
    pad = win // 2
    sums = [F.conv3d(t, k, padding=pad) for t in (a, b, a * a, b * b, a * b)]
    a_s, b_s, a2, b2, ab = sums
    n = win**3
    cross = ab - a_s * b_s / n
    va = a2 - a_s * a_s / n
    vb = b2 - b_s * b_s / n
    return -(cross * cross / (va * vb + 1e-5)).mean()


def grad_loss(flow):
    dz = (flow[:, :, 1:] - flow[:, :, :-1]).abs()
    dy = torch.diff(flow, dim=3).abs()
    dx = torch.diff(flow, dim=4).abs()
    return (dz.pow(2).mean() + dy.pow(2).mean() + dx.pow(2).mean()) / 3


flow = torch.zeros(1, 3, D, H, W, requires_grad=True)
opt = torch.optim.Adam([flow], lr=0.1)
hist = []
for it in range(15):
    w = warp(moving, flow)
    loss = ncc(w, fixed) + 0.5 * grad_loss(flow)
    opt.zero_grad()
    loss.backward()
    opt.step()
    hist.append(loss.item())
print("ncc improved", hist[-1] < hist[0], round(hist[0], 4))
print("identity warp", torch.allclose(warp(moving, torch.zeros(1, 3, D, H, W)), moving, atol=1e-5))

disp = flow.detach()[0]
J = torch.stack(torch.gradient(disp, dim=(1, 2, 3)), dim=1) + torch.eye(3).view(3, 3, 1, 1, 1)
J = J.permute(2, 3, 4, 0, 1)
det = torch.linalg.det(J)
print("jacobian", tuple(J.shape), det.shape, (det <= 0).sum().item(), round(det.mean().item(), 2))
print(
    "gradient spacing",
    [tuple(g.shape) for g in torch.gradient(fixed[0, 0], spacing=(3.0, 0.8, 0.8))],
    round(torch.gradient(fixed[0, 0], spacing=[3.0], dim=0, edge_order=2)[0].abs().sum().item(), 4),
)

for bad in [
    lambda: F.affine_grid(theta, [1, 1, D, H], align_corners=False),
    lambda: F.affine_grid(theta[:, :2], [1, 1, D, H, W], align_corners=False),
    lambda: F.grid_sample(moving, torch.zeros(1, D, H, W, 2), align_corners=False),
    lambda: F.grid_sample(moving, torch.zeros(1, D, H, W, 3), mode="bicubic", align_corners=False),
    lambda: F.interpolate(fixed, scale_factor=factors[:2], mode="trilinear"),
    lambda: F.interpolate(fixed, size=new_size, scale_factor=2.0),
    lambda: F.interpolate(fixed, size=[s * 1.0 for s in new_size], mode="trilinear"),
    lambda: F.interpolate(fixed, scale_factor=2.0, mode="bilinear"),
    lambda: F.interpolate(fixed, scale_factor=2.0, mode="nearest", align_corners=False),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
