"""LLFF forward-facing scenes: poses_bounds rows unpacked to 3x5 matrices, the axis swap of the loader with
torch.cat of negated columns, rescaling by the near bound, a spiral render path with normalize and cross, rays
shifted to the near plane and mapped to normalized device coordinates, depth in NDC back to metric depth, and
rays batched from several images with meshgrid(indexing='ij') against 'xy'."""

import math

import torch
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=9):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


N_img, H, W, focal = 3, 4, 6, 5.0
angles = torch.tensor([-0.1, 0.0, 0.12])
rows = []
for k, a in enumerate(angles.tolist()):
    R = torch.tensor([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0], [-math.sin(a), 0.0, math.cos(a)]])
    t = torch.tensor([0.1 * k, -0.05 * k, 0.0])
    hwf = torch.tensor([H, W, focal], dtype=torch.float32)[:, None]
    rows.append(torch.cat([torch.cat([R, t[:, None]], 1), hwf], 1).reshape(-1))
poses_bounds = torch.cat([torch.stack(rows), torch.tensor([[1.5, 8.0], [1.2, 9.0], [1.4, 7.5]])], 1)
print("poses_bounds", tuple(poses_bounds.shape), r(poses_bounds[1], 17))
poses = poses_bounds[:, :-2].reshape(-1, 3, 5)
bds = poses_bounds[:, -2:]
poses = torch.cat([poses[:, :, 1:2], -poses[:, :, 0:1], poses[:, :, 2:]], 2)
print("swapped", r(poses[2, :, :4], 12))
sc = 1.0 / (bds.min() * 0.75)
poses[:, :3, 3] *= sc
bds = bds * sc
print("rescaled", round(sc.item(), 4), r(bds, 6), r(poses[:, :3, 3], 9))


def viewmatrix(z, up, pos):
    vec2 = F.normalize(z, dim=0)
    vec0 = F.normalize(torch.cross(up, vec2, dim=0), dim=0)
    vec1 = F.normalize(torch.cross(vec2, vec0, dim=0), dim=0)
    return torch.stack([vec0, vec1, vec2, pos], 1)


def poses_avg(p):
    hwf = p[0, :3, -1:]
    center = p[:, :3, 3].mean(0)
    return torch.cat([viewmatrix(p[:, :3, 2].sum(0), p[:, :3, 1].sum(0), center), hwf], 1)


c2w = poses_avg(poses)
print("avg", r(c2w, 15))
rads = torch.quantile(poses[:, :3, 3].abs(), 0.9, dim=0)
print("rads", r(rads, 3))
render_poses = []
for theta in torch.linspace(0.0, 2 * math.pi * 2, 5 + 1)[:-1].tolist():
    c = c2w[:3, :4] @ (torch.tensor([math.cos(theta), -math.sin(theta), -math.sin(theta * 0.5), 1.0]) *
                       torch.cat([rads, torch.ones(1)]))
    zdir = F.normalize(c - c2w[:3, :4] @ torch.tensor([0.0, 0.0, -focal, 1.0]), dim=0)
    render_poses.append(torch.cat([viewmatrix(zdir, c2w[:3, 1], c), c2w[:3, 4:5]], 1))
render_poses = torch.stack(render_poses)
print("spiral", tuple(render_poses.shape), r(render_poses[:, :3, 3], 15))


def get_rays(H, W, focal, c2w, indexing="xy"):
    if indexing == "xy":
        i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32),
                              indexing="xy")
    else:
        j, i = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32),
                              indexing="ij")
    dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = torch.einsum("hwc,rc->hwr", dirs, c2w[:3, :3])
    return c2w[:3, 3].expand(rays_d.shape), rays_d


o_xy, d_xy = get_rays(H, W, focal, poses[1])
o_ij, d_ij = get_rays(H, W, focal, poses[1], indexing="ij")
print("rays", tuple(d_xy.shape), torch.equal(d_xy, d_ij), r(d_xy[1, 2], 3))


def ndc_rays(H, W, focal, near, rays_o, rays_d):
    t = -(near + rays_o[..., 2]) / rays_d[..., 2]
    rays_o = rays_o + t[..., None] * rays_d
    o0 = -1.0 / (W / (2.0 * focal)) * rays_o[..., 0] / rays_o[..., 2]
    o1 = -1.0 / (H / (2.0 * focal)) * rays_o[..., 1] / rays_o[..., 2]
    o2 = 1.0 + 2.0 * near / rays_o[..., 2]
    d0 = -1.0 / (W / (2.0 * focal)) * (rays_d[..., 0] / rays_d[..., 2] - rays_o[..., 0] / rays_o[..., 2])
    d1 = -1.0 / (H / (2.0 * focal)) * (rays_d[..., 1] / rays_d[..., 2] - rays_o[..., 1] / rays_o[..., 2])
    d2 = -2.0 * near / rays_o[..., 2]
    return torch.stack([o0, o1, o2], -1), torch.stack([d0, d1, d2], -1)


ro, rd = ndc_rays(H, W, focal, 1.0, o_xy.reshape(-1, 3), d_xy.reshape(-1, 3))
print("ndc", r(ro[:2], 6), r(rd[:2], 6), round(ro[:, 2].max().item(), 4), round((ro + rd)[:, 2].max().item(), 4))
t_ndc = torch.linspace(0.0, 1.0, 5)
z_ndc = ro[0, 2] + t_ndc * rd[0, 2]
metric = 2.0 * 1.0 / (1.0 - z_ndc)
print("ndc_depth", r(z_ndc, 5), r(metric[:-1], 4), metric[-1].item())

all_rays = torch.stack([torch.stack(get_rays(H, W, focal, p), 0) for p in poses[:, :3, :4]], 0)
print("all_rays", tuple(all_rays.shape))
rays_rgb = all_rays.permute(0, 2, 3, 1, 4).reshape(-1, 2, 3)
perm = torch.randperm(rays_rgb.shape[0])
batch = rays_rgb[perm[:8]].transpose(0, 1)
print("batch", tuple(batch.shape), round(batch.sum().item(), 4), perm[:5].tolist())
i_test = torch.arange(N_img)[::2]
i_train = torch.tensor([i for i in range(N_img) if i not in i_test.tolist()])
print("split", i_test.tolist(), i_train.tolist(), torch.isin(torch.arange(N_img), i_test).tolist())
try:
    poses_bounds[:, :-2].reshape(-1, 3, 4)
except Exception as e:
    print(type(e).__name__, e)
