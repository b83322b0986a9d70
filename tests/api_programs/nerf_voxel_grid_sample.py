"""Explicit radiance fields (Plenoxels/DVGO/EG3D-style): 3-D grid_sample over a density voxel grid and a tri-plane,
align_corners both ways, zeros/border/reflection padding, nearest mode, gradients to the grid values and to the
sample coordinates, coarse-to-fine upsampling with trilinear interpolate, total-variation loss, and shape errors."""

import torch
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


D, H, W = 4, 5, 6
zz, yy, xx = torch.meshgrid(torch.arange(D), torch.arange(H), torch.arange(W), indexing="ij")
density = (xx + 10 * yy + 100 * zz).float()[None, None]
feat = torch.stack([torch.sin(xx * 0.7), torch.cos(yy * 0.5 + zz)], 0).float()[None]
print("grid", tuple(density.shape), tuple(feat.shape))

pts = torch.tensor([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.3, -0.7, 0.55], [1.2, -1.3, 0.1],
                    [-1.05, 0.2, 1.4]])
grid = pts.view(1, -1, 1, 1, 3)
for ac in (True, False):
    for pad in ("zeros", "border", "reflection"):
        s = F.grid_sample(density, grid, mode="bilinear", padding_mode=pad, align_corners=ac)
        print("sample3d", ac, pad, tuple(s.shape), r(s, 6))
    nn_s = F.grid_sample(density, grid, mode="nearest", padding_mode="border", align_corners=ac)
    print("nearest3d", ac, r(nn_s, 6))
fs = F.grid_sample(feat, grid, align_corners=True).view(2, -1).t()
print("feat", tuple(fs.shape), r(fs[3]), r(fs[2]))

# Tri-plane: three 2-D feature planes, summed.
planes = torch.randn(3, 4, 8, 8)
xyz = torch.rand(10, 3) * 2 - 1
coords = torch.stack([xyz[:, [0, 1]], xyz[:, [0, 2]], xyz[:, [1, 2]]])[:, :, None, :]
tri = F.grid_sample(planes, coords, mode="bilinear", padding_mode="zeros", align_corners=False)
print("triplane", tuple(tri.shape), r(tri.sum(0).squeeze(-1)[:, 0]))
bic = F.grid_sample(planes, coords, mode="bicubic", padding_mode="border", align_corners=True)
print("bicubic", r(bic[:, 0, :2].flatten()))

# Gradients to both the voxel values and the query points.
dens = density.clone().requires_grad_(True)
q = grid.clone().requires_grad_(True)
out = F.grid_sample(dens, q, mode="bilinear", padding_mode="border", align_corners=True)
out.sum().backward()
print("grad_fn", out.grad_fn.__class__.__name__, round(dens.grad.sum().item(), 4), int((dens.grad != 0).sum()))
print("grad_pts", r(q.grad.view(-1, 3)[2]), r(q.grad.view(-1, 3)[3]), r(q.grad.view(-1, 3)[4]))
q2 = grid.clone().requires_grad_(True)
F.grid_sample(density, q2, mode="bilinear", padding_mode="reflection", align_corners=False).sum().backward()
print("grad_pts_refl", r(q2.grad.view(-1, 3)[3]), r(q2.grad.view(-1, 3)[5]))

# Coarse-to-fine: upsample the grid, as DVGO does every few thousand steps.
up = F.interpolate(density, size=(7, 9, 11), mode="trilinear", align_corners=True)
print("upsample", tuple(up.shape), r(up[0, 0, 1, 1, :4]), r(up[0, 0, -1, -1, -3:]))
up2 = F.interpolate(density, scale_factor=2, mode="trilinear", align_corners=False)
print("upsample2", tuple(up2.shape), r(up2[0, 0, 0, 0, :4]))
upn = F.interpolate(density, scale_factor=(1, 2, 0.5), mode="nearest-exact")
print("nearest_exact", tuple(upn.shape), r(upn[0, 0, 1, :2].flatten()))

# Total variation on the density grid.
vol = dens.detach().clone().requires_grad_(True)
tv = (((vol[..., 1:, :, :] - vol[..., :-1, :, :]) ** 2).mean()
      + ((vol[..., :, 1:, :] - vol[..., :, :-1, :]) ** 2).mean()
      + ((vol[..., 1:] - vol[..., :-1]) ** 2).mean())
tv.backward()
print("tv", round(tv.item(), 4), r(vol.grad[0, 0, 0, 0]), r(vol.grad[0, 0, 1, 1]))
act = F.softplus(density - 200.0, beta=0.01, threshold=20)
alpha = 1 - torch.exp(-act * 0.1)
print("act", r(act[0, 0, 0, 0]), r(alpha[0, 0, -1, -1, -3:]))
occ = F.max_pool3d(density, kernel_size=3, stride=1, padding=1)
print("maxpool3d", tuple(occ.shape), r(occ[0, 0, 0, 0]), r(occ[0, 0, 2, 2]))

for bad in (lambda: F.grid_sample(density, torch.zeros(1, 2, 2, 3)),
            lambda: F.grid_sample(density, torch.zeros(1, 2, 2, 2, 2)),
            lambda: F.grid_sample(density, grid, mode="bicubic"),
            lambda: F.grid_sample(planes, coords, padding_mode="circular"),
            lambda: F.grid_sample(density, grid.double()),
            lambda: F.interpolate(density, size=(2, 2), mode="trilinear")):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
