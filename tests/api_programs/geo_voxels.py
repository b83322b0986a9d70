"""Voxel and occupancy-grid code as 3-D deep-learning repos write it: point clouds to occupancy with floor/clamp
and index_put_(accumulate=True), histogramdd, a scatter-mean feature grid, trilinear devoxelization via
grid_sample, a 3-D conv encoder with max_pool3d indices and max_unpool3d, conv_transpose3d decoding, trilinear
interpolate, a signed distance field with its finite-difference gradient, and occupancy IoU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
torch.set_printoptions(precision=4, sci_mode=False)

R = 8
pts = torch.rand(200, 3) * 2 - 1
pts = pts[pts.norm(dim=1) < 0.9]
print("points", pts.shape)

# occupancy via integer voxel coordinates
ijk = ((pts + 1) / 2 * R).floor().long().clamp(0, R - 1)
occ = torch.zeros(R, R, R)
occ.index_put_((ijk[:, 0], ijk[:, 1], ijk[:, 2]), torch.ones(len(pts)), accumulate=True)
print("counts", occ.sum().item(), "occupied", (occ > 0).sum().item(), "max", occ.max().item())
hist, edges = torch.histogramdd(pts, bins=[R, R, R], range=[-1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
print("histogramdd agrees", torch.equal(hist, occ), len(edges), edges[0][:3])
flat = ijk[:, 0] * R * R + ijk[:, 1] * R + ijk[:, 2]
print("bincount agrees", torch.equal(torch.bincount(flat, minlength=R**3).view(R, R, R).float(), occ))
b = torch.bucketize(pts[:, 0].contiguous(), torch.linspace(-1, 1, R + 1)[1:-1], right=True)
print("bucketize agrees", torch.equal(b, ijk[:, 0]))

# scatter-mean features per voxel, then trilinear devoxelize
feat = torch.randn(len(pts), 4)
grid = torch.zeros(R**3, 4).index_add_(0, flat, feat)
cnt = torch.zeros(R**3).index_add_(0, flat, torch.ones(len(pts))).clamp_min(1)
grid = (grid / cnt[:, None]).view(R, R, R, 4).permute(3, 0, 1, 2).unsqueeze(0)
print("feature grid", grid.shape, grid.is_contiguous())
sample = pts[:, [2, 1, 0]].view(1, 1, 1, -1, 3)  # grid_sample wants (x, y, z) = (W, H, D)
devox = F.grid_sample(grid, sample, mode="bilinear", align_corners=False).view(4, -1).T
near = F.grid_sample(grid, sample, mode="nearest", align_corners=False).view(4, -1).T
print("devoxelized", devox[:2])
print("nearest = voxel mean", torch.allclose(near, grid[0].permute(1, 2, 3, 0)[ijk[:, 0], ijk[:, 1], ijk[:, 2]]))


class VoxEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(1, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm3d(4)
        self.pool = nn.MaxPool3d(2, return_indices=True)
        self.unpool = nn.MaxUnpool3d(2)
        self.conv2 = nn.Conv3d(4, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose3d(8, 4, 4, stride=2, padding=1)
        self.head = nn.Conv3d(4, 1, 1)

    def forward(self, x):
        h = F.relu(self.bn(self.conv1(x)))
        p, idx = self.pool(h)
        z = F.relu(self.conv2(p))
        u = self.up(z)
        u = self.unpool(u, idx, output_size=h.shape[-3:])
        return self.head(u + h), z, idx


model = VoxEncoder()
print(model)
print("params", sum(p.numel() for p in model.parameters()))
x = (occ > 0).float()[None, None]
logits, z, idx = model(x)
print("shapes", logits.shape, z.shape, idx.shape, idx.dtype)
print("pool idx", idx[0, 0, 0, 0].tolist())
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(25):
    logits, _, _ = model(x)
    loss = F.binary_cross_entropy_with_logits(logits, x, pos_weight=torch.tensor(2.0))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 8 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    pred = torch.sigmoid(model(x)[0]) > 0.5
inter = (pred & (x > 0)).sum()
union = (pred | (x > 0)).sum()
print("occupancy IoU", round((inter / union).item(), 4), inter.item(), union.item())
print("running stats", model.bn.running_mean, model.bn.num_batches_tracked)

# upsampling a coarse grid
coarse = torch.arange(8.0).view(1, 1, 2, 2, 2)
up = F.interpolate(coarse, scale_factor=2, mode="trilinear", align_corners=False)
print("trilinear", up.shape, up[0, 0, 1])
up_ac = F.interpolate(coarse, size=(3, 3, 3), mode="trilinear", align_corners=True)
print("align_corners", up_ac[0, 0, 1])
print("nearest-exact", F.interpolate(coarse, size=(3, 3, 3), mode="nearest-exact")[0, 0, :, 0])
pooled = F.adaptive_avg_pool3d(up, (1, 2, 1))
print("adaptive pool", pooled.flatten())

# an SDF of a sphere on the grid and its gradient by central differences
lin = torch.linspace(-1, 1, R + 1)
Z, Y, X = torch.meshgrid(lin, lin, lin, indexing="ij")
sdf = torch.sqrt(X**2 + Y**2 + Z**2) - 0.6
print("sdf", sdf.shape, sdf.min().round(decimals=4), (sdf < 0).sum().item())
gz, gy, gx = torch.gradient(sdf, spacing=(lin,) * 3)
gn = torch.stack([gx, gy, gz], -1).norm(dim=-1)
print("eikonal |grad| interior", gn[2:-2, 2:-2, 2:-2].mean().round(decimals=3))
shell = (sdf.abs() < 0.2)
print("shell voxels", shell.sum().item(), "nonzero", shell.nonzero()[:3].tolist())
