"""Point-cloud utilities as PointNet++/pytorch3d-style code writes them: kNN three ways (cdist+topk, argsort,
squared distances by expansion), ball query with a radius mask, farthest point sampling from a seeded start,
Chamfer distance with gradients, voxel-grid downsampling through floor/unique(dim=0, return_inverse)/index_add_,
normal estimation by batched eigh, and three_nn interpolation."""

import torch

torch.manual_seed(5)
torch.set_printoptions(precision=4, sci_mode=False)


def square_distance(a, b):
    return (a.pow(2).sum(-1, keepdim=True) - 2 * a @ b.transpose(-1, -2) + b.pow(2).sum(-1).unsqueeze(-2)).clamp_min(0)


def knn_topk(x, k):
    d = torch.cdist(x, x)
    return d.topk(k, dim=-1, largest=False)


def knn_argsort(x, k):
    d = square_distance(x, x)
    idx = d.argsort(dim=-1, stable=True)[..., :k]
    return d.gather(-1, idx).sqrt(), idx


def index_points(points, idx):
    """points (B, N, C), idx (B, ...) -> (B, ..., C)"""
    B = points.shape[0]
    batch = torch.arange(B).view(B, *([1] * (idx.dim() - 1))).expand_as(idx)
    return points[batch, idx]


def farthest_point_sample(xyz, m, start):
    B, N, _ = xyz.shape
    centroids = torch.zeros(B, m, dtype=torch.long)
    distance = torch.full((B, N), 1e10)
    farthest = start
    batch = torch.arange(B)
    for i in range(m):
        centroids[:, i] = farthest
        c = xyz[batch, farthest].unsqueeze(1)
        distance = torch.minimum(distance, ((xyz - c) ** 2).sum(-1))
        farthest = distance.max(-1)[1]
    return centroids


def ball_query(radius, nsample, xyz, new_xyz):
    B, N, _ = xyz.shape
    S = new_xyz.shape[1]
    group_idx = torch.arange(N).view(1, 1, N).repeat(B, S, 1)
    sqr = square_distance(new_xyz, xyz)
    group_idx[sqr > radius**2] = N
    group_idx = group_idx.sort(dim=-1)[0][..., :nsample]
    first = group_idx[..., :1].repeat(1, 1, nsample)
    mask = group_idx == N
    group_idx[mask] = first[mask]
    return group_idx


def chamfer(a, b):
    d = square_distance(a, b)
    return d.min(-1).values.mean(-1) + d.min(-2).values.mean(-1)


B, N = 2, 48
pts = torch.rand(B, N, 3)
print("cloud", pts.shape, pts.dtype, pts.mean(1))

dist, idx = knn_topk(pts, 4)
print("knn topk idx", idx[0, :4].tolist())
print("knn dist", dist[0, :2])
dist2, idx2 = knn_argsort(pts, 4)
print("argsort agrees", torch.equal(idx, idx2), torch.allclose(dist, dist2, atol=1e-5))
print("self first", (idx[..., 0] == torch.arange(N)).all().item())
neigh = index_points(pts, idx[..., 1:])
print("neighbors", neigh.shape)
local = neigh - pts.unsqueeze(2)
print("mean local offset", local.norm(dim=-1).mean().item() < 0.3)

start = torch.randint(0, N, (B,))
print("fps start", start.tolist())
fps_idx = farthest_point_sample(pts, 8, start)
print("fps", fps_idx.tolist())
centers = index_points(pts, fps_idx)
min_sep = torch.cdist(centers, centers) + torch.eye(8) * 10
print("fps min separation", min_sep.amin(dim=(-1, -2)))

groups = ball_query(0.3, 6, pts, centers)
print("ball groups", groups.shape, groups[0, :3].tolist())
grouped = index_points(pts, groups) - centers.unsqueeze(2)
print("within radius", (grouped.norm(dim=-1) <= 0.3 + 1e-6).all().item())

# Chamfer distance as a loss: pull a noisy copy onto the cloud
target = pts[:1]
src = (target + 0.1 * torch.randn_like(target)).requires_grad_(True)
opt = torch.optim.Adam([src], lr=0.01)
for step in range(30):
    loss = chamfer(src, target).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"chamfer step {step} {loss.item():.4f} grad norm {src.grad.norm().item():.4f}")
print("chamfer final", round(chamfer(src, target).item(), 4))
print("chamfer symmetric", torch.allclose(chamfer(pts[:1], pts[1:]), chamfer(pts[1:], pts[:1])))

# voxel downsampling: one centroid per occupied cell
voxel = 0.25
cloud = pts[0]
coords = torch.floor(cloud / voxel).long()
print("coords", coords.dtype, coords[:4].tolist())
uniq, inverse, counts = torch.unique(coords, dim=0, return_inverse=True, return_counts=True)
print("occupied", uniq.shape[0], "of", N, "counts", counts.tolist())
sums = torch.zeros(uniq.shape[0], 3).index_add_(0, inverse, cloud)
centroids = sums / counts.unsqueeze(1)
print("centroids", centroids[:3])
lin = coords[:, 0] * 16 + coords[:, 1] * 4 + coords[:, 2]
print("linear keys", torch.unique(lin).tolist()[:8], torch.unique(lin).numel() == uniq.shape[0])
mx = torch.full((uniq.shape[0],), -1.0).scatter_reduce(0, inverse, cloud[:, 2], reduce="amax", include_self=False)
print("max z per voxel", mx[:5])

# normals from local covariance: eigenvector of the smallest eigenvalue
plane = torch.rand(1, 64, 3) * torch.tensor([1.0, 1.0, 0.0])
tilt = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.8, -0.6], [0.0, 0.6, 0.8]])
plane = plane @ tilt.T
_, nidx = knn_topk(plane, 8)
nb = index_points(plane, nidx)
nb = nb - nb.mean(2, keepdim=True)
cov = nb.transpose(-1, -2) @ nb / 8
evals, evecs = torch.linalg.eigh(cov)
normals = evecs[..., 0]
normals = normals * torch.sign(normals[..., 2:3])
print("normals", normals[0, :2].round(decimals=4) + 0.0)
print("all aligned", (normals @ tilt[:, 2]).abs().min().item() > 0.999)
print("flatness", evals[..., 0].abs().max().item() < 1e-5)

# three_nn inverse-distance interpolation of features
feat = torch.randn(B, 8, 5)
d3, i3 = square_distance(pts, centers).topk(3, dim=-1, largest=False)
w = 1.0 / (d3 + 1e-8)
w = w / w.sum(-1, keepdim=True)
interp = (index_points(feat, i3) * w.unsqueeze(-1)).sum(2)
print("interp", interp.shape, interp[0, :2])
at_centers = interp[torch.arange(B)[:, None], fps_idx]
print("exact at centers", torch.allclose(at_centers, feat, atol=1e-4))
