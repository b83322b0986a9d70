"""Pinhole cameras as multi-view geometry code writes them: intrinsics K, look-at extrinsics, world -> camera ->
pixel projection with homogeneous coordinates, depth unprojection through torch.linalg.inv and meshgrid, radial
distortion, the frustum mask, back-projected rays, the epipolar constraint, and DLT triangulation with SVD."""

import torch
import torch.nn.functional as F

torch.manual_seed(11)
torch.set_printoptions(precision=4, sci_mode=False)


def intrinsics(fx, fy, cx, cy, dtype=torch.float32):
    K = torch.eye(3, dtype=dtype)
    K[0, 0], K[1, 1], K[0, 2], K[1, 2] = fx, fy, cx, cy
    return K


def look_at(eye, target, up=(0.0, 1.0, 0.0)):
    """World-to-camera [R|t] with the camera looking down +z (OpenCV convention)."""
    up = torch.tensor(up, dtype=eye.dtype)
    z = F.normalize(target - eye, dim=-1)
    x = F.normalize(torch.linalg.cross(z, up.expand_as(z), dim=-1), dim=-1)
    y = torch.linalg.cross(z, x, dim=-1)
    R = torch.stack([x, y, z], -2)
    t = -(R @ eye.unsqueeze(-1)).squeeze(-1)
    return R, t


def project(K, R, t, X):
    Xc = X @ R.mT + t.unsqueeze(-2)
    uvw = Xc @ K.mT
    return uvw[..., :2] / uvw[..., 2:3], Xc[..., 2]


def unproject(K, depth):
    H, W = depth.shape[-2:]
    v, u = torch.meshgrid(torch.arange(H, dtype=depth.dtype), torch.arange(W, dtype=depth.dtype), indexing="ij")
    pix = torch.stack([u + 0.5, v + 0.5, torch.ones_like(u)], -1)
    rays = pix @ torch.linalg.inv(K).mT
    return rays * depth.unsqueeze(-1)


def distort(xn, k1, k2):
    r2 = (xn**2).sum(-1, keepdim=True)
    return xn * (1 + k1 * r2 + k2 * r2**2)


K = intrinsics(100.0, 110.0, 32.0, 24.0)
print("K", K)
print("K^-1", torch.linalg.inv(K))

eyes = torch.tensor([[0.0, 0.0, -5.0], [3.0, 1.0, -4.0]])
R, t = look_at(eyes, torch.zeros(2, 3))
print("R", R.shape, "t", t.round(decimals=4) + 0.0)
print("R orthonormal", torch.allclose(R @ R.mT, torch.eye(3).expand(2, 3, 3), atol=1e-6))
print("det R", [round(d, 4) for d in torch.linalg.det(R).tolist()])

X = torch.randn(6, 3)
uv, z = project(K, R, t, X.expand(2, 6, 3))
print("uv", uv.shape, uv[0])
print("depth", z)
inside = (uv[..., 0] >= 0) & (uv[..., 0] < 64) & (uv[..., 1] >= 0) & (uv[..., 1] < 48) & (z > 0)
print("in frustum", inside, inside.sum(1).tolist())
print("pixel ids", uv.floor().long()[inside].tolist())

# camera center from the extrinsics: C = -R^T t
C = -(R.mT @ t.unsqueeze(-1)).squeeze(-1)
print("camera centers", C.round(decimals=4) + 0.0)

# a synthetic depth map, unprojected to camera space and back
H, W = 4, 6
Ks = intrinsics(5.0, 5.0, W / 2, H / 2)
depth = 2.0 + torch.rand(H, W)
P = unproject(Ks, depth)
print("points", P.shape, P[0, :3])
uvw = P @ Ks.mT
pix = uvw[..., :2] / uvw[..., 2:]
print("reprojected", pix[1, :3])
print("depth kept", torch.allclose(P[..., 2], depth))

# rays through pixel centers, normalized
dirs = F.normalize(unproject(Ks, torch.ones(H, W)), dim=-1)
print("ray dirs", dirs[0, 0], dirs[H // 2, W // 2])
cos_angle = dirs @ torch.tensor([0.0, 0.0, 1.0])
print("off-axis deg", torch.rad2deg(torch.acos(cos_angle.clamp(-1, 1)))[0])

# radial distortion and its fixed-point undistortion
xn = torch.tensor([[0.1, 0.2], [-0.3, 0.25], [0.5, -0.4]])
xd = distort(xn, -0.2, 0.05)
xu = xd.clone()
for _ in range(20):
    xu = xd / (1 + -0.2 * (xu**2).sum(-1, keepdim=True) + 0.05 * (xu**2).sum(-1, keepdim=True) ** 2)
print("distorted", xd)
print("undistort err", round((xu - xn).abs().max().item(), 4))

# two-view geometry: essential matrix x2^T E x1 = 0
R1, t1 = R[0], t[0]
R2, t2 = R[1], t[1]
R12 = R2 @ R1.T
t12 = t2 - R12 @ t1
tx = torch.zeros(3, 3)
tx[0, 1], tx[0, 2], tx[1, 2] = -t12[2], t12[1], -t12[0]
tx = tx - tx.T
E = tx @ R12
x1 = X @ R1.T + t1
x2 = X @ R2.T + t2
x1n, x2n = x1 / x1[:, 2:], x2 / x2[:, 2:]
print("epipolar residual", (x2n * (x1n @ E.T)).sum(-1).abs().max() < 1e-4)
print("E singular values", torch.linalg.svdvals(E / E.norm()))

# DLT triangulation of every point from both views
P1 = K @ torch.cat([R1, t1[:, None]], 1)
P2 = K @ torch.cat([R2, t2[:, None]], 1)
rows = torch.stack(
    [
        uv[0, :, 0:1] * P1[2] - P1[0],
        uv[0, :, 1:2] * P1[2] - P1[1],
        uv[1, :, 0:1] * P2[2] - P2[0],
        uv[1, :, 1:2] * P2[2] - P2[1],
    ],
    1,
).double()
_, S, Vh = torch.linalg.svd(rows)
Xh = Vh[:, -1]
Xt = (Xh[:, :3] / Xh[:, 3:]).float()
print("triangulated", Xt[:3])
print("triangulation err", round((Xt - X).abs().max().item(), 3))
print("smallest singular", (S[:, -1] < 1e-3).tolist())

# projection as a differentiable layer: recover the focal length from observations
f = torch.tensor(80.0, requires_grad=True)
opt = torch.optim.Adam([f], lr=2.0)
for step in range(40):
    Kf = torch.stack([torch.stack([f, f.new_zeros(()), f.new_tensor(32.0)]),
                      torch.stack([f.new_zeros(()), f * 1.1, f.new_tensor(24.0)]),
                      f.new_tensor([0.0, 0.0, 1.0])])
    pred, _ = project(Kf, R[0], t[0], X)
    loss = F.smooth_l1_loss(pred, uv[0])
    opt.zero_grad()
    loss.backward()
    opt.step()
print("focal", round(f.item(), 2), "loss", round(loss.item(), 4))
Kq = torch.diag(torch.stack([f, f * 1.1, torch.ones(())])) + torch.tensor([[0, 0, 32.0], [0, 0, 24.0], [0, 0, 0]])
f.grad = None
Kinv = torch.linalg.inv(Kq)
print("K^-1 node", type(Kinv.grad_fn).__name__, "ray node", type((Kinv @ torch.ones(3)).grad_fn).__name__)
torch.linalg.cross(Kinv[0], Kinv[1], dim=0).sum().backward()
print("d cross / d f", round(f.grad.item(), 6))
