"""Voxelisation as lidar detectors write it: integer voxel coordinates by floor_divide and div(rounding_mode=),
unique over rows with return_inverse/return_counts, per-voxel statistics with scatter_reduce over every reduce
name and include_self=False, index_add_, index_reduce_, bincount with weights, point caps per voxel with a stable
sort, PointPillars' scatter onto a BEV canvas, and the errors of those calls."""

import torch

torch.manual_seed(0)
pts = torch.rand(200, 4) * torch.tensor([4.0, 4.0, 2.0, 1.0]) - torch.tensor([2.0, 2.0, 1.0, 0.0])
vsize = torch.tensor([0.5, 0.5, 1.0])
pc_min = torch.tensor([-2.0, -2.0, -1.0])

coords_f = torch.floor_divide(pts[:, :3] - pc_min, vsize)
print("floor_divide", coords_f.dtype, coords_f[:3].tolist())
coords = ((pts[:, :3] - pc_min) / vsize).floor().long()
print("same as floor", torch.equal(coords_f.long(), coords))
print("div modes", torch.div(torch.tensor([-7, 7]), 2, rounding_mode="floor").tolist(),
      torch.div(torch.tensor([-7, 7]), 2, rounding_mode="trunc").tolist(),
      torch.floor_divide(torch.tensor([-7, 7]), 2).tolist(), (torch.tensor([-7.5, 7.5]) // 2).tolist())

uniq, inv, counts = torch.unique(coords, dim=0, return_inverse=True, return_counts=True)
print("voxels", uniq.shape, inv.shape, counts.sum().item(), uniq[:4].tolist(), counts[:8].tolist())
print("inverse roundtrip", torch.equal(uniq[inv], coords))
nv = uniq.shape[0]
intensity = pts[:, 3]
for red in ["sum", "prod", "mean", "amax", "amin"]:
    out = torch.zeros(nv).scatter_reduce(0, inv, intensity, reduce=red, include_self=False)
    out2 = torch.full((nv,), 0.5).scatter_reduce(0, inv, intensity, reduce=red, include_self=True)
    print(red, out[:4].round(decimals=4).tolist(), out2[:4].round(decimals=4).tolist())
xyz_mean = torch.zeros(nv, 3).scatter_reduce(0, inv[:, None].expand(-1, 3), pts[:, :3], "mean", include_self=False)
print("centroids", xyz_mean[:2].round(decimals=4).tolist())
acc = torch.zeros(nv, 3).index_add_(0, inv, pts[:, :3])
print("index_add mean", torch.allclose(acc / counts[:, None], xyz_mean, atol=1e-6))
scaled = torch.zeros(nv, 3).index_add_(0, inv, pts[:, :3], alpha=2.0)
print("alpha", torch.allclose(scaled, 2 * acc))
mx = torch.full((nv,), -1.0).index_reduce_(0, inv, intensity, "amax", include_self=False)
print("index_reduce amax", mx[:4].round(decimals=4).tolist())
w = torch.bincount(inv, weights=intensity, minlength=nv + 2)
print("bincount", w.shape, w.dtype, w[:4].round(decimals=4).tolist(), w[-2:].tolist())
print("bincount counts", torch.equal(torch.bincount(inv), counts))

max_pts = 3
order = torch.sort(inv, stable=True).indices
sorted_inv = inv[order]
first = torch.cumsum(counts, 0) - counts
rank = torch.arange(len(inv)) - first[sorted_inv]
keep = order[rank < max_pts]
print("capped", keep.numel(), (rank < max_pts).sum().item(), keep[:6].tolist())

hashed = coords[:, 0] * 64 + coords[:, 1] * 8 + coords[:, 2]
uk, uinv = torch.unique(hashed, sorted=True, return_inverse=True)
print("hash voxels", uk.numel() == nv, torch.equal(uinv, inv))
uc = torch.unique_consecutive(torch.sort(hashed).values, return_counts=True)
print("unique_consecutive", torch.equal(uc[1], counts))

pillar_xy, pinv = torch.unique(coords[:, :2], dim=0, return_inverse=True)
pillar_feat = torch.zeros(len(pillar_xy), 4).scatter_reduce(0, pinv[:, None].expand(-1, 4), pts, "amax",
                                                           include_self=False)
canvas = torch.zeros(4, 8 * 8)
canvas[:, pillar_xy[:, 0] * 8 + pillar_xy[:, 1]] = pillar_feat.t()
canvas = canvas.view(1, 4, 8, 8)
print("bev", canvas.shape, canvas.sum().round(decimals=4).item(), (canvas[0, 0] != 0).sum().item())

for call in [
    lambda: torch.zeros(5).scatter_reduce(0, inv, intensity, reduce="max"),
    lambda: torch.zeros(nv).scatter_reduce(0, inv.int(), intensity, "sum"),
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(inv, weights=intensity[:3]),
    lambda: torch.floor_divide(torch.tensor([3]), 0),
    lambda: torch.unique(coords, dim=2),
    lambda: torch.zeros(3).index_reduce_(0, torch.tensor([0]), torch.ones(1), "max"),
]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
