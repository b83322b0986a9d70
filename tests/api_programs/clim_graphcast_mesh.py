"""GraphCast-style icosahedral mesh processor: icosahedron vertices and faces, subdivision with unique edges, grid2mesh
k-NN edges by cdist/topk on the unit sphere, edge features, message passing by index_add/scatter_reduce, and grads."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)
phi = (1 + math.sqrt(5)) / 2
verts = torch.tensor(
    [
        [-1, phi, 0],
        [1, phi, 0],
        [-1, -phi, 0],
        [1, -phi, 0],
        [0, -1, phi],
        [0, 1, phi],
        [0, -1, -phi],
        [0, 1, -phi],
        [phi, 0, -1],
        [phi, 0, 1],
        [-phi, 0, -1],
        [-phi, 0, 1],
    ],
    dtype=torch.float64,
)
verts = F.normalize(verts, dim=-1)
faces = torch.tensor(
    [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ]
)
print("verts", verts.shape, verts.dtype, round(verts.norm(dim=-1).min().item(), 6))


def faces_to_edges(faces):
    e = torch.cat([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]], dim=0)
    e = torch.cat([e, e.flip(-1)], dim=0)
    return torch.unique(e, dim=0)


def subdivide(verts, faces):
    e = torch.sort(torch.cat([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), dim=-1).values
    uniq, inv = torch.unique(e, dim=0, return_inverse=True)
    mid = F.normalize((verts[uniq[:, 0]] + verts[uniq[:, 1]]) / 2, dim=-1)
    m = inv.view(3, -1) + verts.shape[0]
    a, b, c = faces.unbind(-1)
    new = torch.stack(
        [
            torch.stack([a, m[0], m[2]], -1),
            torch.stack([m[0], b, m[1]], -1),
            torch.stack([m[2], m[1], c], -1),
            torch.stack([m[0], m[1], m[2]], -1),
        ],
        1,
    )
    return torch.cat([verts, mid]), new.reshape(-1, 3)


edges0 = faces_to_edges(faces)
print("level0", verts.shape[0], edges0.shape, edges0[:4].tolist())
v1, f1 = subdivide(verts, faces)
edges1 = faces_to_edges(f1)
print("level1", v1.shape[0], f1.shape[0], edges1.shape[0], "euler", v1.shape[0] - edges1.shape[0] // 2 + f1.shape[0])
deg = torch.bincount(edges1[:, 0], minlength=v1.shape[0])
print("degrees", torch.unique(deg, return_counts=True))
multi = torch.cat([edges0, edges1])
print("multimesh", multi.shape, torch.unique(multi, dim=0).shape)

# lat-lon grid nodes on the sphere
lat = torch.deg2rad(torch.linspace(-60.0, 60.0, 5, dtype=torch.float64))
lon = torch.deg2rad(torch.arange(0.0, 360.0, 45.0, dtype=torch.float64))
LA, LO = torch.meshgrid(lat, lon, indexing="ij")
grid = torch.stack([LA.cos() * LO.cos(), LA.cos() * LO.sin(), LA.sin()], dim=-1).reshape(-1, 3)
print("grid", grid.shape, grid.stride())
d = torch.cdist(grid, v1)
dist, nn_idx = d.topk(3, dim=-1, largest=False)
print("g2m", nn_idx.shape, nn_idx[:2].tolist(), dist[:2].round(decimals=4).tolist())
senders = torch.arange(grid.shape[0]).repeat_interleave(3)
receivers = nn_idx.flatten()
cos_ang = (grid[senders] * v1[receivers]).sum(-1).clamp(-1, 1)
print("arc", torch.rad2deg(torch.acos(cos_ang)).max().round(decimals=3))
edge_feat = torch.cat([grid[senders] - v1[receivers], (grid[senders] - v1[receivers]).norm(dim=-1, keepdim=True)], -1)
print("edge feat", edge_feat.shape, edge_feat.dtype)


class InteractionNetwork(nn.Module):
    def __init__(self, dn, de, h):
        super().__init__()
        self.edge_mlp = nn.Sequential(nn.Linear(2 * dn + de, h), nn.SiLU(), nn.Linear(h, de), nn.LayerNorm(de))
        self.node_mlp = nn.Sequential(nn.Linear(dn + de, h), nn.SiLU(), nn.Linear(h, dn), nn.LayerNorm(dn))

    def forward(self, x, e, src, dst):
        e_new = self.edge_mlp(torch.cat([x[src], x[dst], e], -1))
        agg = torch.zeros(x.shape[0], e_new.shape[-1], dtype=x.dtype).index_add_(0, dst, e_new)
        return x + self.node_mlp(torch.cat([x, agg], -1)), e + e_new


src, dst = edges1[:, 0], edges1[:, 1]
net = InteractionNetwork(4, 2, 8).double()
print(net)
x = torch.randn(v1.shape[0], 4, dtype=torch.float64, requires_grad=True)
e = torch.randn(src.shape[0], 2, dtype=torch.float64)
x2 = x
for _ in range(2):
    x2, e = net(x2, e, src, dst)
print("processed", x2.shape, round(x2.sum().item(), 4), round(e.abs().mean().item(), 4))
x2.pow(2).sum().backward()
print("x grad", round(x.grad.norm().item(), 4), net.edge_mlp[0].weight.grad.shape)

vals = torch.arange(edges1.shape[0], dtype=torch.float64)
for red in ("sum", "mean", "amax", "amin", "prod"):
    out = torch.zeros(v1.shape[0], dtype=torch.float64).scatter_reduce(0, dst, vals, red, include_self=False)
    print("reduce", red, out[:3].tolist())
cnt = torch.zeros(v1.shape[0]).index_add(0, dst, torch.ones(dst.shape[0]))
print("count", cnt[:4].tolist(), cnt.dtype)
mean_agg = torch.zeros(v1.shape[0], 4, dtype=torch.float64).index_reduce_(
    0, dst, x.detach()[src], "mean", include_self=False
)
print("index_reduce mean", mean_agg[0].round(decimals=4))
try:
    torch.zeros(3).index_add_(0, torch.tensor([0, 3]), torch.ones(2))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3, 2).index_add_(0, torch.tensor([0, 1]), torch.ones(2, 2, dtype=torch.float64))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "max")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    x[torch.tensor([0, 99])]
except IndexError as e:
    print(type(e).__name__, e)
