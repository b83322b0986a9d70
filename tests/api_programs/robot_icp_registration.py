"""Scan registration as lidar odometry code writes it: voxel downsampling by unique(dim=0) with scatter_reduce
means, normals from batched eigh of kNN covariances (cdist + topk), point-to-point ICP by Kabsch with the reflection
fix, point-to-plane ICP by a 6x6 Gauss-Newton solve with small-angle linearisation, Huber-weighted residuals,
4x4 SE(3) composition and inversion, and the ill-conditioned case found by cond and eigvalsh."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def skew(v):
    z = torch.zeros_like(v[..., 0])
    rows = [z, -v[..., 2], v[..., 1], v[..., 2], z, -v[..., 0], -v[..., 1], v[..., 0], z]
    return torch.stack(rows, -1).unflatten(-1, (3, 3))


def se3(R, t):
    T = torch.eye(4, dtype=R.dtype)
    T[:3, :3], T[:3, 3] = R, t
    return T


def se3_inv(T):
    R, t = T[:3, :3], T[:3, 3]
    return se3(R.T, -R.T @ t)


def transform(T, p):
    return p @ T[:3, :3].T + T[:3, 3]


def rot_zyx(yaw, pitch, roll):
    return torch.linalg.matrix_exp(skew(torch.tensor([0.0, 0.0, yaw], dtype=f64))) @ \
        torch.linalg.matrix_exp(skew(torch.tensor([0.0, pitch, 0.0], dtype=f64))) @ \
        torch.linalg.matrix_exp(skew(torch.tensor([roll, 0.0, 0.0], dtype=f64)))


# a room corner: floor and two walls, sampled on a grid with noise
g = torch.linspace(0, 2, 15, dtype=f64)
a, b = torch.meshgrid(g, g, indexing="ij")
a, b = a.reshape(-1), b.reshape(-1)
z0 = torch.zeros_like(a)
scene = torch.cat([torch.stack([a, b, z0], -1), torch.stack([a, z0, b], -1), torch.stack([z0, a, b], -1)])
scene = scene + 0.003 * torch.randn_like(scene)
print("scene", scene.shape, scene.dtype)

vox = torch.floor(scene / 0.2).long()
keys, inv, counts = torch.unique(vox, dim=0, return_inverse=True, return_counts=True)
down = torch.zeros(len(keys), 3, dtype=f64).scatter_reduce(0, inv.unsqueeze(-1).expand(-1, 3), scene, reduce="mean",
                                                            include_self=False)
print("voxels", keys.shape[0], "max pts/voxel", counts.max().item(), "mean check",
      torch.allclose(down[0], scene[inv == 0].mean(0)))


def normals(p, k=8):
    d = torch.cdist(p, p)
    nn_idx = torch.topk(d, k, largest=False).indices
    nb = p[nn_idx]
    cov = (nb - nb.mean(1, keepdim=True)).mT @ (nb - nb.mean(1, keepdim=True)) / k
    evals, evecs = torch.linalg.eigh(cov)
    n = evecs[..., 0]
    return n * torch.sign((n * (torch.tensor([0.7, 0.7, 0.7], dtype=f64) - p)).sum(-1, keepdim=True)), evals


tgt = down
tgt_n, ev = normals(tgt)
print("normal planarity", (ev[:, 0] / ev[:, 1].clamp_min(1e-12) < 0.1).float().mean().item() > 0.6,
      "unit", torch.allclose(tgt_n.norm(dim=-1), torch.ones(len(tgt), dtype=f64)))

T_true = se3(rot_zyx(0.12, -0.05, 0.08), torch.tensor([0.15, -0.1, 0.05], dtype=f64))
src = transform(se3_inv(T_true), tgt)
print("T_true @ inv", torch.allclose(T_true @ se3_inv(T_true), torch.eye(4, dtype=f64)))


def kabsch(P, Q, w=None):
    w = torch.ones(len(P), dtype=P.dtype) if w is None else w
    w = w / w.sum()
    mp, mq = (w[:, None] * P).sum(0), (w[:, None] * Q).sum(0)
    Hm = ((P - mp) * w[:, None]).T @ (Q - mq)
    U, S, Vh = torch.linalg.svd(Hm)
    d = torch.sign(torch.linalg.det(Vh.T @ U.T))
    R = Vh.T @ torch.diag(torch.stack([torch.ones((), dtype=P.dtype), torch.ones((), dtype=P.dtype), d])) @ U.T
    return se3(R, mq - R @ mp)


T = torch.eye(4, dtype=f64)
for it in range(20):
    cur = transform(T, src)
    j = torch.cdist(cur, tgt).argmin(1)
    T = kabsch(cur, tgt[j]) @ T
err_p2p = (T - T_true).abs().max().item()
print("point-to-point err", round(err_p2p, 3), "rmse", round((transform(T, src) - tgt).norm(dim=-1).mean().item(), 4))

T = torch.eye(4, dtype=f64)
for it in range(8):
    cur = transform(T, src)
    j = torch.cdist(cur, tgt).argmin(1)
    n, q = tgt_n[j], tgt[j]
    r = ((cur - q) * n).sum(-1)
    huber = torch.where(r.abs() < 0.05, torch.ones_like(r), 0.05 / r.abs())
    J = torch.cat([torch.linalg.cross(cur, n, dim=-1), n], -1)
    A = J.T @ (huber[:, None] * J)
    bvec = -J.T @ (huber * r)
    x = torch.linalg.solve(A, bvec)
    dT = se3(torch.linalg.matrix_exp(skew(x[:3])), x[3:])
    T = dT @ T
    if it in (0, 7):
        print(f"p2plane it {it} cost {round((huber * r * r).sum().item(), 6)} step {round(x.norm().item(), 4)}")
print("point-to-plane err", round((T - T_true).abs().max().item(), 4), "exact", (T - T_true).abs().max().item() < 1e-6)
print("recovered yaw", round(math.atan2(T[1, 0].item(), T[0, 0].item()), 4), "t", T[:3, 3].round(decimals=3).tolist())

floor = tgt[tgt[:, 2] < 0.05]
fn = torch.zeros_like(floor)
fn[:, 2] = 1.0
Jd = torch.cat([torch.linalg.cross(floor, fn, dim=-1), fn], -1)
Ad = Jd.T @ Jd
print("degenerate floor: eig", torch.linalg.eigvalsh(Ad).round(decimals=4).tolist()[:3], "cond inf",
      torch.linalg.cond(Ad).item() > 1e12)
print("lstsq min-norm step", torch.linalg.lstsq(Ad, Jd.T @ torch.full((len(floor),), 0.01, dtype=f64),
                                                driver="gelsd").solution.round(decimals=4).tolist())
try:
    torch.cdist(src, tgt[:, :2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.unique(vox, dim=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3, 3).scatter_reduce(0, inv[:3, None].expand(-1, 3), scene[:3].float(), reduce="median")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.eigh(torch.zeros(3, 4))
except Exception as e:
    print(type(e).__name__, e)
