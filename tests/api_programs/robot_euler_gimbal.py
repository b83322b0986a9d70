"""Euler angles as robot drivers and IMU code handle them: ZYX (yaw-pitch-roll) and XYZ conventions through atan2 and
a clamped asin, the gimbal-lock branch chosen with torch.where, angle wrapping with remainder/fmod/atan2, degree
conversions, axis-angle by Rodrigues with its small-angle branch, and finite gradients at the singular poles."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)


def rot_x(a):
    c, s, o, z = torch.cos(a), torch.sin(a), torch.ones_like(a), torch.zeros_like(a)
    return torch.stack([o, z, z, z, c, -s, z, s, c], -1).unflatten(-1, (3, 3))


def rot_y(a):
    c, s, o, z = torch.cos(a), torch.sin(a), torch.ones_like(a), torch.zeros_like(a)
    return torch.stack([c, z, s, z, o, z, -s, z, c], -1).unflatten(-1, (3, 3))


def rot_z(a):
    c, s, o, z = torch.cos(a), torch.sin(a), torch.ones_like(a), torch.zeros_like(a)
    return torch.stack([c, -s, z, s, c, z, z, z, o], -1).unflatten(-1, (3, 3))


def zyx_to_matrix(ypr):
    return rot_z(ypr[..., 0]) @ rot_y(ypr[..., 1]) @ rot_x(ypr[..., 2])


def matrix_to_zyx(R, eps=1e-6):
    pitch = torch.asin((-R[..., 2, 0]).clamp(-1.0, 1.0))
    locked = (R[..., 2, 0].abs() > 1 - eps)
    yaw = torch.where(locked, torch.zeros_like(pitch), torch.atan2(R[..., 1, 0], R[..., 0, 0]))
    roll_free = torch.atan2(R[..., 2, 1], R[..., 2, 2])
    roll_locked = torch.atan2(-torch.sign(R[..., 2, 0]) * R[..., 0, 1], R[..., 1, 1])
    roll = torch.where(locked, roll_locked, roll_free)
    return torch.stack([yaw, pitch, roll], -1), locked


def wrap(a):
    return torch.remainder(a + math.pi, 2 * math.pi) - math.pi


def rodrigues(axis_angle):
    theta = axis_angle.norm(dim=-1, keepdim=True)
    small = theta < 1e-4
    k = axis_angle / torch.where(small, torch.ones_like(theta), theta)
    K = torch.zeros(axis_angle.shape[:-1] + (3, 3), dtype=axis_angle.dtype)
    K[..., 0, 1], K[..., 0, 2], K[..., 1, 2] = -k[..., 2], k[..., 1], -k[..., 0]
    K = K - K.transpose(-1, -2)
    th = theta[..., None]
    I = torch.eye(3, dtype=axis_angle.dtype).expand_as(K)
    R = I + torch.sin(th) * K + (1 - torch.cos(th)) * (K @ K)
    return torch.where(small[..., None], I + K, R)


angles_deg = torch.tensor([[30.0, 20.0, -10.0], [170.0, -45.0, 100.0], [-90.0, 89.9, 5.0],
                           [45.0, 90.0, 30.0], [10.0, -90.0, -20.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
ypr = torch.deg2rad(angles_deg)
R = zyx_to_matrix(ypr)
back, locked = matrix_to_zyx(R)
print("locked", locked.tolist())
print("recovered deg", torch.rad2deg(back).round(decimals=3).tolist())
print("matrix roundtrip", round((zyx_to_matrix(back) - R).abs().max().item(), 6))
print("det", torch.linalg.det(R).round(decimals=6).tolist())

raw = torch.tensor([-7.0, -3.2, 3.2, 3.15, 6.5, 10.0, -math.pi, math.pi])
print("remainder wrap", wrap(raw).round(decimals=4).tolist())
print("atan2 wrap", torch.atan2(torch.sin(raw), torch.cos(raw)).round(decimals=4).tolist())
print("fmod", torch.fmod(raw, 2 * math.pi).round(decimals=4).tolist())
signed = torch.tensor([-1.0, 1.0, -7.0])
print("remainder sign", torch.remainder(signed, 3).tolist(), torch.fmod(signed, 3).tolist())
print("angle diff", wrap(torch.tensor([3.1]) - torch.tensor([-3.1])).round(decimals=4).tolist())
print("unwrap-like", torch.cumsum(wrap(torch.diff(torch.tensor([3.0, -3.1, 3.0, -3.0]))), 0).round(decimals=4).tolist())
print("copysign", torch.copysign(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([-0.0, 0.0, -1.0])).tolist())
print("hypot", torch.hypot(torch.tensor([3.0, 5.0]), torch.tensor([4.0, 12.0])).tolist())
print("asin out of range", torch.asin(torch.tensor([1.0000001, -1.5, 0.5])).round(decimals=4).tolist())

aa = torch.tensor([[0.0, 0.0, math.pi / 2], [1e-6, 0.0, 0.0], [0.3, -0.2, 0.9], [0.0, 0.0, 0.0]], dtype=torch.float64)
Rr = rodrigues(aa)
Rexp = torch.linalg.matrix_exp(torch.stack([torch.zeros(4, dtype=torch.float64), -aa[:, 2], aa[:, 1], aa[:, 2],
                                            torch.zeros(4, dtype=torch.float64), -aa[:, 0], -aa[:, 1], aa[:, 0],
                                            torch.zeros(4, dtype=torch.float64)], -1).view(4, 3, 3))
print("rodrigues vs matrix_exp", round((Rr - Rexp).abs().max().item(), 8))
print("R90z", Rr[0].round(decimals=4).tolist())

x = torch.deg2rad(torch.tensor([[20.0, 89.99999, 10.0], [20.0, 30.0, 10.0]], dtype=torch.float64)).requires_grad_()
out, lk = matrix_to_zyx(zyx_to_matrix(x))
out.sum().backward()
print("grads finite", torch.isfinite(x.grad).all(dim=1).tolist(), lk.tolist())
print("grad row2", x.grad[1].round(decimals=4).tolist())
y0 = torch.zeros(2, requires_grad=True)
torch.atan2(y0, torch.tensor([0.0, 1.0])).sum().backward()
print("atan2 grad", y0.grad.tolist())
a = torch.tensor([1.0, -1.0, 0.999999], requires_grad=True)
torch.asin(a).sum().backward()
print("asin grad at 1", a.grad.tolist()[:2], a.grad[2].item() > 100)
try:
    torch.atan2(torch.ones(2, 3), torch.ones(4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.deg2rad(torch.tensor([1, 2]))
    print("deg2rad int", torch.deg2rad(torch.tensor([180, 90])).dtype)
except Exception as e:
    print(type(e).__name__, e)
print("rad2deg f64", torch.rad2deg(torch.tensor([math.pi], dtype=torch.float64)).item())
