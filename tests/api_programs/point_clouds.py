"""point clouds and geometry: rotation matrices, farthest point sampling, kNN with cdist + topk, ball query,
PointNet with a T-Net, EdgeConv features, scatter_reduce/index_reduce voxel pooling, and the Chamfer distance."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(11)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.2):
    with torch.no_grad():
        for name, p in m.named_parameters():
            if p.dim() > 1:
                p.copy_(T(*p.shape, scale=scale))
            elif "bias" in name:
                p.copy_(T(*p.shape, scale=0.05))
    return m


def rot_z(a):
    c, s = torch.cos(a), torch.sin(a)
    z, o = torch.zeros_like(a), torch.ones_like(a)
    return torch.stack([torch.stack([c, -s, z], -1), torch.stack([s, c, z], -1), torch.stack([z, z, o], -1)], -2)


def axis_angle(axis, angle):
    """Rodrigues' formula through matrix_exp of the skew matrix."""
    axis = F.normalize(axis, dim=-1)
    x, y, z = axis.unbind(-1)
    zero = torch.zeros_like(x)
    K = torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], -1).reshape(*axis.shape[:-1], 3, 3)
    return torch.linalg.matrix_exp(K * angle[..., None, None])


angles = torch.tensor([0.3, 1.2, -2.0])
Rz = rot_z(angles)
print("rot_z", Rz.shape, r(Rz[1], 9))
print("orthonormal", torch.allclose(Rz @ Rz.transpose(-1, -2), torch.eye(3).expand(3, 3, 3), atol=1e-6))
print("det", r(torch.linalg.det(Rz)))
Ra = axis_angle(torch.tensor([[0.0, 0.0, 1.0], [1.0, 1.0, 0.0]]), torch.tensor([0.3, math.pi / 3]))
print("rodrigues", r(Ra[0], 9), torch.allclose(Ra[0], Rz[0], atol=1e-6))
print("rodrigues 2", r(Ra[1], 9))
trace = Ra.diagonal(dim1=-2, dim2=-1).sum(-1)
print("angle back", r(torch.acos(((trace - 1) / 2).clamp(-1, 1))))

B, N = 2, 64
u = torch.from_numpy(rng.uniform(0, 2 * math.pi, (B, N)).astype(np.float32))
v = torch.from_numpy(rng.uniform(-1, 1, (B, N)).astype(np.float32))
sphere = torch.stack([torch.sqrt(1 - v**2) * torch.cos(u), torch.sqrt(1 - v**2) * torch.sin(u), v], -1)
cloud = sphere * torch.tensor([1.0, 0.6, 0.3]) + 0.02 * T(B, N, 3)
print("cloud", cloud.shape, r(cloud.mean(1)), r(cloud.std(1)))
centered = cloud - cloud.mean(1, keepdim=True)
cov = centered.transpose(1, 2) @ centered / (N - 1)
evals, evecs = torch.linalg.eigh(cov)
print("pca evals", r(evals))
print("pca axis", r(evecs[0, :, -1].abs()))
aligned = centered @ evecs.flip(-1)
print("aligned var", r(aligned.var(1)))


def farthest_point_sample(xyz, m):
    b, n, _ = xyz.shape
    idx = torch.zeros(b, m, dtype=torch.long)
    dist = torch.full((b, n), float("inf"))
    far = torch.zeros(b, dtype=torch.long)
    batch = torch.arange(b)
    for i in range(m):
        idx[:, i] = far
        c = xyz[batch, far].unsqueeze(1)
        dist = torch.minimum(dist, ((xyz - c) ** 2).sum(-1))
        far = dist.argmax(-1)
    return idx


fps = farthest_point_sample(cloud, 8)
print("fps", fps.tolist())
centers = torch.gather(cloud, 1, fps.unsqueeze(-1).expand(-1, -1, 3))
print("centers", centers.shape, r(centers[0, :2]))
d = torch.cdist(centers, cloud)
print("cdist", d.shape, r(d[1, 0]))
print(
    "cdist p=1",
    r(torch.cdist(centers, cloud, p=1.0)[0, 0]),
    "inf",
    r(torch.cdist(centers, cloud, p=float("inf"))[0, 0]),
)
knn_d, knn_i = d.topk(5, dim=-1, largest=False)
print("knn", r(knn_d[0, 0]), knn_i[0, :2].tolist())
ball = d < 0.5
print("ball counts", ball.sum(-1).tolist())
first_k = torch.where(ball, torch.arange(N).expand_as(d), N).sort(-1).values[..., :4]
first_k = torch.where(first_k == N, first_k[..., :1], first_k)
print("ball query", first_k[0, :3].tolist())
groups = torch.gather(cloud.unsqueeze(1).expand(-1, 8, -1, -1), 2, knn_i.unsqueeze(-1).expand(-1, -1, -1, 3))
local = groups - centers.unsqueeze(2)
print("grouped", groups.shape, r(local[0, 0, :2]))


class TNet(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.mlp = nn.Sequential(nn.Conv1d(k, 16, 1), nn.ReLU(), nn.Conv1d(16, 32, 1), nn.ReLU())
        self.fc = nn.Linear(32, k * k)

    def forward(self, x):
        h = self.mlp(x).max(dim=-1).values
        return self.fc(h).view(-1, self.k, self.k) + torch.eye(self.k)


class PointNet(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.tnet = TNet()
        self.feat = nn.Sequential(nn.Conv1d(3, 32, 1), nn.GroupNorm(4, 32), nn.ReLU(), nn.Conv1d(32, 64, 1))
        self.head = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.0), nn.Linear(32, n_cls))

    def forward(self, pts):
        x = pts.transpose(1, 2)
        trans = self.tnet(x)
        x = torch.bmm(trans, x)
        g, arg = self.feat(x).max(dim=-1)
        return self.head(g), trans, arg


net = det(PointNet())
labels = torch.tensor([0, 2])
opt = torch.optim.Adam(net.parameters(), lr=0.005)
for step in range(6):
    logits, trans, arg = net(cloud)
    reg = torch.linalg.matrix_norm(trans @ trans.transpose(1, 2) - torch.eye(3), ord="fro").mean()
    loss = F.cross_entropy(logits, labels) + 0.01 * reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"pointnet step {step} loss {loss.item():.4f} reg {reg.item():.4f}")
print("critical points", torch.unique(arg[0]).numel(), arg.shape)
perm = torch.from_numpy(rng.permutation(N))
with torch.no_grad():
    l1, _, _ = net(cloud)
    l2, _, _ = net(cloud[:, perm])
print("permutation invariant", torch.allclose(l1, l2, atol=1e-5), r(l1))


def edge_features(x, k):
    dist = torch.cdist(x, x)
    idx = dist.topk(k + 1, largest=False).indices[..., 1:]
    nbrs = torch.gather(x.unsqueeze(1).expand(-1, x.shape[1], -1, -1), 2, idx.unsqueeze(-1).expand(-1, -1, -1, 3))
    ctr = x.unsqueeze(2).expand_as(nbrs)
    return torch.cat([ctr, nbrs - ctr], -1)


ef = edge_features(cloud, 4)
print("edgeconv", ef.shape, r(ef[0, 0, 0]))
lin = det(nn.Linear(6, 8))
print("edgeconv max", r(lin(ef).amax(2)[0, 0]))

voxel = torch.floor((cloud[0] + 1.0) / 0.5).long().clamp(0, 3)
flat = voxel[:, 0] * 16 + voxel[:, 1] * 4 + voxel[:, 2]
uniq, inv, counts = torch.unique(flat, return_inverse=True, return_counts=True)
print("voxels", uniq.tolist(), counts.tolist())
vsum = torch.zeros(len(uniq), 3).index_add_(0, inv, cloud[0])
vmean = torch.zeros(len(uniq), 3).scatter_reduce(
    0, inv.unsqueeze(-1).expand(-1, 3), cloud[0], "mean", include_self=False
)
print("voxel mean", r(vmean[:2]), torch.allclose(vmean, vsum / counts.unsqueeze(-1)))
vmax = torch.full((len(uniq), 3), -1e9).index_reduce_(0, inv, cloud[0], "amax", include_self=True)
print("voxel max", r(vmax[:2]))
vmin = torch.zeros(len(uniq), 3).index_reduce(0, inv, cloud[0], "amin", include_self=False)
print("voxel min", r(vmin[:2]))
vmean2 = torch.ones(len(uniq), 3).index_reduce(0, inv, cloud[0], "mean")
print("index_reduce mean include_self", r(vmean2[:2]))


def chamfer(a, b):
    dd = torch.cdist(a, b) ** 2
    return dd.min(-1).values.mean(-1) + dd.min(-2).values.mean(-1)


rotated = cloud @ Rz[:2].transpose(1, 2)
print("chamfer self", r(chamfer(cloud, cloud)), "rotated", r(chamfer(cloud, rotated)))
shift = torch.zeros(1, 1, 3, requires_grad=True)
opt = torch.optim.SGD([shift], lr=0.5)
target = cloud[:1] + torch.tensor([0.2, -0.1, 0.05])
for step in range(4):
    loss = chamfer(cloud[:1] + shift, target).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"align step {step} chamfer {loss.item():.5f} shift {r(shift)}")
try:
    torch.cdist(cloud, torch.zeros(2, 5, 2))
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    torch.zeros(3).index_reduce_(0, torch.tensor([0]), torch.ones(1), "median")
except RuntimeError as e:
    print("RuntimeError", str(e))
