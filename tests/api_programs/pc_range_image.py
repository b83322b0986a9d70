"""Lidar range images as RangeNet/SalsaNext pipelines write them: spherical projection with atan2/asin, floored
and clamped pixel coordinates, the nearest return per pixel by sorting on depth descending and a last-write
index_put_, the same by scatter_reduce('amin') on flat pixel ids, a 5-channel image normalised with per-channel
statistics, unfold for kNN post-processing in the image, back-projection and the mask of empty pixels."""

import math

import torch

F = torch.nn.functional

torch.manual_seed(0)
N = 400
az = torch.rand(N) * 2 * math.pi - math.pi
el = torch.rand(N) * math.radians(25) - math.radians(15)
rng = torch.rand(N) * 20 + 2
xyz = torch.stack([rng * torch.cos(el) * torch.cos(az), rng * torch.cos(el) * torch.sin(az), rng * torch.sin(el)], -1)
remission = torch.rand(N)
H, W = 16, 64
fov_up, fov_down = math.radians(10.0), math.radians(-15.0)
fov = abs(fov_down) + abs(fov_up)

depth = torch.linalg.norm(xyz, 2, dim=1)
yaw = -torch.atan2(xyz[:, 1], xyz[:, 0])
pitch = torch.asin(xyz[:, 2] / depth)
proj_x = 0.5 * (yaw / math.pi + 1.0) * W
proj_y = (1.0 - (pitch + abs(fov_down)) / fov) * H
px = torch.clamp(torch.floor(proj_x), 0, W - 1).to(torch.int32)
py = torch.clamp(torch.floor(proj_y), min=0, max=H - 1).long()
print("proj", px.dtype, py.dtype, px[:6].tolist(), py[:6].tolist())
print("depth", round(depth.min().item(), 4), round(depth.max().item(), 4), torch.allclose(depth, rng, atol=1e-4))

order = torch.argsort(depth, descending=True)
rimg = torch.full((H, W), -1.0)
idx_img = torch.full((H, W), -1, dtype=torch.long)
sy, sx = py[order], px[order].long()
flat = sy * W + sx
first_of_pixel = torch.ones_like(flat, dtype=torch.bool)
srt, perm = torch.sort(flat, stable=True)
last = torch.ones_like(srt, dtype=torch.bool)
last[:-1] = srt[1:] != srt[:-1]
win = perm[last]
rimg[sy[win], sx[win]] = depth[order][win]
idx_img[sy[win], sx[win]] = order[win]
print("filled", (rimg > 0).sum().item(), "of", H * W, "points kept", torch.unique(idx_img[idx_img >= 0]).numel())

amin = torch.full((H * W,), float("inf")).scatter_reduce(0, (py * W + px).long(), depth, "amin")
amin = torch.where(torch.isinf(amin), torch.full_like(amin, -1.0), amin).view(H, W)
print("scatter amin agrees", torch.equal(amin, rimg))

img = torch.full((5, H, W), 0.0)
m = idx_img >= 0
src = idx_img[m]
img[:, m] = torch.stack([depth[src], xyz[src, 0], xyz[src, 1], xyz[src, 2], remission[src]])
mean = img.flatten(1)[:, m.flatten()].mean(1)
std = img.flatten(1)[:, m.flatten()].std(1)
norm = (img - mean[:, None, None]) / std[:, None, None] * m
print("channel mean", mean.round(decimals=4).tolist())
print("channel std", std.round(decimals=4).tolist())
print("normalised", norm.shape, round(norm.sum().item(), 2))

k = 3
pad = F.pad(rimg[None, None], (k // 2, k // 2, k // 2, k // 2), mode="circular")
windows = F.unfold(pad, kernel_size=k)
print("unfold", windows.shape)
proj_range = rimg.flatten()[(py * W + px).long()]
unproj = windows[0][:, (py * W + px).long()]
diff = (unproj - depth[None]).abs()
diff[unproj < 0] = float("inf")
votes = diff.argmin(0)
print("knn window", votes.bincount(minlength=9).tolist(), (proj_range == depth).sum().item())

col = (torch.arange(W) + 0.5) / W
row = (torch.arange(H) + 0.5) / H
yaw_g = (col * 2 - 1) * math.pi
pitch_g = (1 - row) * fov - abs(fov_down)
pp, yy = torch.meshgrid(pitch_g, -yaw_g, indexing="ij")
dirs = torch.stack([torch.cos(pp) * torch.cos(yy), torch.cos(pp) * torch.sin(yy), torch.sin(pp)], 0)
back = dirs * rimg.clamp_min(0)
print("back projected", back.shape, round(back[:, m].norm(dim=0).sum().item() - rimg[m].sum().item(), 2))
err = (back[:, m] - img[1:4, m]).norm(dim=0)
print("quantisation error", round(err.max().item(), 3) < 2.0, round(err.median().item(), 3) < 1.0)
print("empty mask", (~m).sum().item(), m.dtype, m.float().mean().round(decimals=4).item())
