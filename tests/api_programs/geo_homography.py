"""Projective geometry in homogeneous coordinates as vision code writes it: lines through points and their
intersections by cross products, points at infinity, a homography estimated by normalized DLT (SVD), applied
with F.pad and division, a perspective warp through grid_sample, the plane-induced homography K (R + t n^T / d)
K^-1, its decomposition check, a RANSAC loop with a seeded generator, and conic fitting by the smallest
singular vector."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(17)
torch.set_printoptions(precision=4, sci_mode=False)


def to_h(p):
    return F.pad(p, (0, 1), value=1.0)


def from_h(p):
    return p[..., :-1] / p[..., -1:]


# lines and intersections
p1, p2 = to_h(torch.tensor([0.0, 0.0])), to_h(torch.tensor([2.0, 2.0]))
q1, q2 = to_h(torch.tensor([0.0, 2.0])), to_h(torch.tensor([2.0, 0.0]))
l1 = torch.linalg.cross(p1, p2, dim=-1)
l2 = torch.linalg.cross(q1, q2, dim=-1)
x = torch.linalg.cross(l1, l2, dim=-1)
print("lines", l1, l2, "meet at", from_h(x))
par1 = torch.linalg.cross(to_h(torch.tensor([0.0, 1.0])), to_h(torch.tensor([1.0, 2.0])), dim=-1)
par2 = torch.linalg.cross(to_h(torch.tensor([0.0, 3.0])), to_h(torch.tensor([1.0, 4.0])), dim=-1)
inf_pt = torch.linalg.cross(par1, par2, dim=-1)
print("parallel lines meet at infinity", inf_pt, "direction", F.normalize(inf_pt[:2], dim=0))
print("point on line", (l1 @ to_h(torch.tensor([5.0, 5.0]))).item())


def normalize_points(pts):
    c = pts.mean(0)
    s = math.sqrt(2) / (pts - c).norm(dim=1).mean()
    T = torch.tensor([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]], dtype=pts.dtype)
    return from_h(to_h(pts) @ T.T), T


def dlt(src, dst):
    ns, Ts = normalize_points(src)
    nd, Td = normalize_points(dst)
    zeros = torch.zeros(len(src), 3, dtype=src.dtype)
    hs = to_h(ns)
    rows1 = torch.cat([-hs, zeros, nd[:, :1] * hs], 1)
    rows2 = torch.cat([zeros, -hs, nd[:, 1:] * hs], 1)
    A = torch.stack([rows1, rows2], 1).reshape(-1, 9)
    _, S, Vh = torch.linalg.svd(A)
    Hn = Vh[-1].view(3, 3)
    Hm = torch.linalg.inv(Td) @ Hn @ Ts
    return Hm / Hm[2, 2], S


H_true = torch.tensor([[1.1, 0.2, 3.0], [-0.1, 0.9, -2.0], [0.001, 0.002, 1.0]], dtype=torch.float64)
src = torch.rand(30, 2, dtype=torch.float64) * 100
dst = from_h(to_h(src) @ H_true.T)
H_est, S = dlt(src[:4], dst[:4])
print("H from 4 points", H_est)
print("max err", (H_est - H_true).abs().max().item() < 1e-8, "singular values", S.shape)
H_all, S_all = dlt(src, dst + 0.05 * torch.randn_like(dst))
print("H from 30 noisy", (H_all - H_true).abs().max().round(decimals=3))
reproj = (from_h(to_h(src) @ H_all.T) - dst).norm(dim=1)
print("reprojection rmse", round(reproj.pow(2).mean().sqrt().item(), 3))

# RANSAC with outliers and a dedicated generator
dst_out = dst.clone()
dst_out[::5] += torch.randn(6, 2, dtype=torch.float64) * 30
g = torch.Generator().manual_seed(3)
best_inliers, best_H = None, None
for it in range(40):
    sample = torch.randperm(30, generator=g)[:4]
    Hc, _ = dlt(src[sample], dst_out[sample])
    err = (from_h(to_h(src) @ Hc.T) - dst_out).norm(dim=1)
    inliers = err < 1.0
    if best_inliers is None or inliers.sum() > best_inliers.sum():
        best_inliers, best_H = inliers, Hc
print("ransac inliers", best_inliers.sum().item(), "outliers found", (~best_inliers).nonzero().flatten().tolist())
H_ref, _ = dlt(src[best_inliers], dst_out[best_inliers])
print("refit err", (H_ref - H_true).abs().max().item() < 1e-6)

# perspective warp of a small image via grid_sample
img = torch.zeros(1, 1, 16, 16)
img[..., 4:12, 4:12] = 1.0
img[..., 6:10, 6:10] = 0.5
ys, xs = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")
Hw = torch.tensor([[1.0, 0.1, -1.0], [0.05, 1.0, 0.5], [0.002, 0.004, 1.0]])
src_xy = from_h(torch.stack([xs, ys, torch.ones_like(xs)], -1) @ torch.linalg.inv(Hw).T)
grid = (src_xy / 15) * 2 - 1
warped = F.grid_sample(img, grid[None], align_corners=True)
print("warped mass", round(warped.sum().item(), 3), "of", img.sum().item())
print("warped row", warped[0, 0, 8, ::2])

# plane-induced homography between two views
K = torch.tensor([[200.0, 0, 64], [0, 200.0, 48], [0, 0, 1]])
ang = 0.1
R = torch.tensor([[math.cos(ang), 0, math.sin(ang)], [0, 1, 0], [-math.sin(ang), 0, math.cos(ang)]])
t = torch.tensor([0.2, 0.0, 0.05])
n = torch.tensor([0.0, 0.0, 1.0])
d = 4.0
Hp = K @ (R + torch.outer(t, n) / d) @ torch.linalg.inv(K)
Hp = Hp / Hp[2, 2]
P = torch.cat([torch.rand(5, 2) * 2 - 1, torch.full((5, 1), d)], 1)
u1 = from_h(P @ K.T)
u2 = from_h((P @ R.T + t) @ K.T)
print("plane homography", Hp.round(decimals=4) + 0.0)
print("transfer err", (from_h(to_h(u1) @ Hp.T) - u2).abs().max().item() < 1e-3)
print("det sign", torch.linalg.det(Hp).sign().item(), "svals", torch.linalg.svdvals(Hp / Hp.norm()))

# conic through points on an ellipse: smallest right singular vector
phi = torch.linspace(0, 2 * math.pi, 9, dtype=torch.float64)[:-1]
ex, ey = 3 * torch.cos(phi) + 1, 2 * torch.sin(phi) - 1
M = torch.stack([ex**2, ex * ey, ey**2, ex, ey, torch.ones_like(ex)], 1)
conic = torch.linalg.svd(M).Vh[-1]
conic = conic / conic[0]
print("conic coeffs", conic.float().round(decimals=4) + 0.0)
C = torch.tensor([[conic[0], conic[1] / 2, conic[3] / 2], [conic[1] / 2, conic[2], conic[4] / 2],
                  [conic[3] / 2, conic[4] / 2, conic[5]]], dtype=torch.float64)
center = torch.linalg.solve(C[:2, :2], -C[:2, 2])
print("center", [round(c, 4) for c in center.tolist()], "is ellipse", (torch.linalg.det(C[:2, :2]) > 0).item())
