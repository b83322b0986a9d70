"""Camera pose math of NeRF data loaders and pose refinement (BARF/NeRF--): quaternions to rotation matrices and back
with copysign, look-at frames with cross/normalize, spherical render paths, pose inversion by torch.linalg.inv against
the closed form, recentering poses by their average, the se(3) exponential with Taylor-safe coefficients, pinhole
projection, and the inversion errors on singular matrices."""

import math

import torch
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=9):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def quat_to_rotmat(q):
    q = F.normalize(q, dim=-1)
    w, x, y, z = q.unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1).unflatten(-1, (3, 3))


def rotmat_to_quat(R):
    m = R.flatten(-2)
    w = torch.sqrt(torch.clamp(1 + m[..., 0] + m[..., 4] + m[..., 8], min=0)) / 2
    x = torch.sqrt(torch.clamp(1 + m[..., 0] - m[..., 4] - m[..., 8], min=0)) / 2
    y = torch.sqrt(torch.clamp(1 - m[..., 0] + m[..., 4] - m[..., 8], min=0)) / 2
    z = torch.sqrt(torch.clamp(1 - m[..., 0] - m[..., 4] + m[..., 8], min=0)) / 2
    x = torch.copysign(x, m[..., 7] - m[..., 5])
    y = torch.copysign(y, m[..., 2] - m[..., 6])
    z = torch.copysign(z, m[..., 3] - m[..., 1])
    return torch.stack([w, x, y, z], -1)


q = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.9, 0.1, -0.3, 0.2], [0.0, 0.0, 1.0, 0.0], [-0.5, 0.5, 0.5, -0.5]])
R = quat_to_rotmat(q)
print("R", tuple(R.shape), r(R[1]))
print("orthonormal", r((R @ R.transpose(-1, -2) - torch.eye(3)).abs().amax((-1, -2))), r(torch.linalg.det(R)))
q_back = rotmat_to_quat(R)
qn = F.normalize(q, dim=-1)
print("quat_roundtrip", r(q_back[1], 4), r(q_back[3], 4), r((q_back.abs() - qn.abs()).abs().max()))
print("copysign", torch.copysign(torch.tensor([1.0, 2.0, 0.0]), torch.tensor([-0.0, 3.0, -1.0])).tolist(),
      torch.copysign(torch.tensor([1, -2]), -1.0).tolist())


def look_at(eye, target, up):
    fwd = F.normalize(target - eye, dim=-1)
    right = F.normalize(torch.linalg.cross(fwd, up.expand_as(fwd), dim=-1), dim=-1)
    true_up = torch.cross(right, fwd, dim=-1)
    c2w = torch.eye(4).repeat(eye.shape[0], 1, 1)
    c2w[:, :3, :3] = torch.stack([right, true_up, -fwd], dim=-1)
    c2w[:, :3, 3] = eye
    return c2w


thetas = torch.linspace(0, 2 * math.pi, 5)[:-1]
eyes = torch.stack([4 * torch.cos(thetas), 4 * torch.sin(thetas), torch.full_like(thetas, 1.5)], -1)
c2w = look_at(eyes, torch.zeros(3), torch.tensor([0.0, 0.0, 1.0]))
print("c2w", tuple(c2w.shape), r(c2w[1, :3], 12))
w2c = torch.linalg.inv(c2w)
Rt = c2w[:, :3, :3].transpose(1, 2)
w2c_closed = torch.cat([torch.cat([Rt, -Rt @ c2w[:, :3, 3:]], -1), c2w[:, 3:]], 1)
print("inv", torch.allclose(w2c, w2c_closed, atol=1e-5), r(w2c[2, :3, 3]))
inv, info = torch.linalg.inv_ex(c2w)
print("inv_ex", info.tolist(), info.dtype, torch.allclose(inv, w2c))
print("solve", r(torch.linalg.solve(c2w[0], torch.tensor([0.0, 0.0, 0.0, 1.0]))))


def average_pose(poses):
    center = poses[:, :3, 3].mean(0)
    z = F.normalize(poses[:, :3, 2].sum(0), dim=0)
    y_ = poses[:, :3, 1].sum(0)
    x = F.normalize(torch.cross(y_, z, dim=0), dim=0)
    y = torch.cross(z, x, dim=0)
    return torch.stack([x, y, z, center], 1)


avg = average_pose(c2w)
avg_h = torch.cat([avg, torch.tensor([[0.0, 0.0, 0.0, 1.0]])], 0)
centered = torch.linalg.inv(avg_h) @ c2w
print("recenter", r(avg, 12), r(centered[:, :3, 3].mean(0)))


def se3_exp(xi):
    w, u = xi[..., :3], xi[..., 3:]
    theta = w.norm(dim=-1)[..., None, None]
    wx = torch.zeros(*w.shape[:-1], 3, 3, dtype=xi.dtype)
    wx[..., 0, 1], wx[..., 0, 2], wx[..., 1, 2] = -w[..., 2], w[..., 1], -w[..., 0]
    wx = wx - wx.transpose(-1, -2)
    small = theta < 1e-3
    A = torch.where(small, 1 - theta**2 / 6, torch.sin(theta) / theta.clamp_min(1e-8))
    B = torch.where(small, 0.5 - theta**2 / 24, (1 - torch.cos(theta)) / (theta**2).clamp_min(1e-12))
    C = torch.where(small, 1 / 6 - theta**2 / 120, (theta - torch.sin(theta)) / (theta**3).clamp_min(1e-12))
    I = torch.eye(3, dtype=xi.dtype)
    Rm = I + A * wx + B * wx @ wx
    V = I + B * wx + C * wx @ wx
    return torch.cat([Rm, V @ u[..., None]], -1)


xi = torch.tensor([[0.0, 0.0, 0.0, 0.1, 0.2, 0.3], [0.1, -0.2, 0.3, 0.0, 0.0, 1.0], [1e-5, 0.0, 0.0, 1.0, 0.0, 0.0]],
                  requires_grad=True)
T = se3_exp(xi)
print("se3", r(T[1], 12), r(T[2, :, 3]))
print("matrix_exp_agrees", torch.allclose(T[1, :, :3], torch.linalg.matrix_exp(T[1, :, :3] - T[1, :, :3].mT) * 0 +
                                         torch.linalg.matrix_exp(torch.tensor([[0.0, -0.3, -0.2], [0.3, 0.0, -0.1],
                                                                               [0.2, 0.1, 0.0]])), atol=1e-5))
T.sum().backward()
print("se3_grad", r(xi.grad))

K = torch.tensor([[100.0, 0.0, 32.0], [0.0, 100.0, 24.0], [0.0, 0.0, 1.0]])
pts_w = torch.tensor([[0.0, 0.0, 0.0], [0.5, -0.2, 0.3], [1.0, 1.0, 1.0]])
pts_c = (w2c[0, :3, :3] @ pts_w.T + w2c[0, :3, 3:]).T
uvz = pts_c @ K.T
uv = uvz[:, :2] / uvz[:, 2:].neg()
print("project", r(uv, 6), r(pts_c[:, 2]))
print("atan2", r(torch.atan2(c2w[:, 1, 3], c2w[:, 0, 3])), r(torch.rad2deg(torch.acos(c2w[:, 2, 2].clamp(-1, 1)))))
sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
print("inv_ex_singular", torch.linalg.inv_ex(sing).info.item())
for bad in (lambda: torch.linalg.inv(sing), lambda: torch.linalg.inv(torch.ones(2, 3)),
            lambda: torch.linalg.cross(torch.ones(4), torch.ones(4)),
            lambda: torch.linalg.inv_ex(sing, check_errors=True),
            lambda: torch.linalg.inv(torch.stack([torch.eye(2), sing]))):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
