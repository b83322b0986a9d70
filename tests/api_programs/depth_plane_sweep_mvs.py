"""Multi-view stereo (MVSNet-style) plane sweeping: depth hypotheses from torch.linspace and inverse-depth sampling,
per-plane homographies with batched matrix inverse, warping source features into a 5-D volume through grid_sample,
variance cost volumes, soft-argmin depth with a confidence from avg_pool3d of probabilities, and gradients."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


B, C, H, W, D, V = 1, 4, 6, 8, 5, 3
feats = torch.randn(B, V, C, H, W, requires_grad=True)
K = torch.tensor([[8.0, 0.0, 4.0], [0.0, 8.0, 3.0], [0.0, 0.0, 1.0]]).expand(B, V, 3, 3)
angles = torch.tensor([0.0, 0.05, -0.04])
c, sn = torch.cos(angles), torch.sin(angles)
Rs = torch.zeros(V, 3, 3)
Rs[:, 0, 0], Rs[:, 0, 2], Rs[:, 1, 1], Rs[:, 2, 0], Rs[:, 2, 2] = c, sn, 1.0, -sn, c
ts = torch.tensor([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [-0.15, 0.05, 0.0]])
proj = torch.eye(4).repeat(B, V, 1, 1)
proj[:, :, :3, :3] = K @ Rs
proj[:, :, :3, 3:] = K @ ts.unsqueeze(-1)
print("proj", tuple(proj.shape), s(proj[0, 1, :3], 12))

d_min, d_max = 2.0, 10.0
depth_lin = torch.linspace(d_min, d_max, D)
inv = torch.linspace(1 / d_max, 1 / d_min, D).flip(0)
depth_inv = 1.0 / inv
print("hypotheses", s(depth_lin, 5), s(depth_inv, 5))
depth_values = depth_inv.view(1, D).expand(B, D)


def homo_warping(src_fea, src_proj, ref_proj, depth_values):
    b, c, h, w = src_fea.shape
    nd = depth_values.shape[1]
    with torch.no_grad():
        P = src_proj @ torch.inverse(ref_proj)
        rot, trans = P[:, :3, :3], P[:, :3, 3:4]
        y, x = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
        xyz = torch.stack((x.reshape(-1), y.reshape(-1), torch.ones(h * w)))
        xyz = xyz.unsqueeze(0).repeat(b, 1, 1)
        rot_xyz = torch.matmul(rot, xyz)
        rot_depth = rot_xyz.unsqueeze(2).repeat(1, 1, nd, 1) * depth_values.view(b, 1, nd, 1)
        proj_xyz = rot_depth + trans.view(b, 3, 1, 1)
        proj_xy = proj_xyz[:, :2] / proj_xyz[:, 2:3]
        gx = proj_xy[:, 0] / ((w - 1) / 2) - 1
        gy = proj_xy[:, 1] / ((h - 1) / 2) - 1
        grid = torch.stack((gx, gy), dim=3)
    warped = F.grid_sample(
        src_fea, grid.view(b, nd * h, w, 2), mode="bilinear", padding_mode="zeros", align_corners=True
    )
    return warped.view(b, c, nd, h, w), grid


ref = feats[:, 0]
volume_sum = ref.unsqueeze(2).repeat(1, 1, D, 1, 1)
volume_sq = volume_sum**2
for v in range(1, V):
    warped, grid = homo_warping(feats[:, v], proj[:, v], proj[:, 0], depth_values)
    print("view", v, "grid range", round(grid.min().item(), 4), round(grid.max().item(), 4), warped.grad_fn.name())
    volume_sum = volume_sum + warped
    volume_sq = volume_sq + warped.pow(2)
variance = volume_sq / V - (volume_sum / V).pow(2)
print("variance", tuple(variance.shape), round(variance.mean().item(), 4))

reg = nn.Sequential(nn.Conv3d(C, 2, 3, padding=1), nn.GroupNorm(1, 2), nn.ReLU(), nn.Conv3d(2, 1, 3, padding=1))
cost = reg(variance).squeeze(1)
prob = F.softmax(cost, dim=1)
depth = torch.sum(prob * depth_values.view(B, D, 1, 1), dim=1)
print("depth", tuple(depth.shape), s(depth[0, 0], 4))
prob_sum4 = 4 * F.avg_pool3d(F.pad(prob.unsqueeze(1), pad=(0, 0, 0, 0, 1, 2)), (4, 1, 1), stride=1).squeeze(1)
idx = torch.sum(prob * torch.arange(D, dtype=torch.float32).view(1, D, 1, 1), dim=1).long()
conf = torch.gather(prob_sum4, 1, idx.clamp(0, D - 1).unsqueeze(1)).squeeze(1)
print("confidence", s(conf[0, 0], 4), idx.dtype, round(conf.mean().item(), 4))
gt = torch.rand(B, H, W) * 6 + 3
mask = gt > 4
loss = F.smooth_l1_loss(depth[mask], gt[mask])
loss.backward()
print("loss", round(loss.item(), 4), "feat grad", round(feats.grad.abs().sum().item(), 4), s(feats.grad[0, 1, 0, 2], 4))

Hs = torch.linalg.inv(proj[0, 1:, :3, :3])
print("batched inv", tuple(Hs.shape), torch.allclose(Hs @ proj[0, 1:, :3, :3], torch.eye(3).expand(2, 3, 3), atol=1e-5))
print("inverse == linalg.inv", torch.equal(torch.inverse(proj[0]), torch.linalg.inv(proj[0])))
print(
    "ref self-warp",
    torch.allclose(
        homo_warping(ref.detach(), proj[:, 0], proj[:, 0], depth_values)[0][:, :, 0], ref.detach(), atol=1e-5
    ),
)
try:
    torch.inverse(torch.zeros(2, 3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linspace(0, 1)
except Exception as e:
    print(type(e).__name__, e)
