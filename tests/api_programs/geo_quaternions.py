"""3-D rotations as pytorch3d-style code writes them: quaternion multiply/invert/normalize, quaternion <-> matrix
with the largest-component branch, axis-angle <-> quaternion, Euler angles through atan2 and a clamped asin,
slerp, rotating points, and the printed shapes, dtypes and rounded values along the way."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def standardize(q):
    """Quaternions with a non-negative real part (q and -q are the same rotation)."""
    return torch.where(q[..., :1] < 0, -q, q)


def quat_mul(a, b):
    aw, ax, ay, az = torch.unbind(a, -1)
    bw, bx, by, bz = torch.unbind(b, -1)
    ow = aw * bw - ax * bx - ay * by - az * bz
    ox = aw * bx + ax * bw + ay * bz - az * by
    oy = aw * by - ax * bz + ay * bw + az * bx
    oz = aw * bz + ax * by - ay * bx + az * bw
    return torch.stack((ow, ox, oy, oz), -1)


def quat_invert(q):
    return q * q.new_tensor([1, -1, -1, -1])


def quat_apply(q, p):
    pq = torch.cat([p.new_zeros(p.shape[:-1] + (1,)), p], -1)
    return quat_mul(quat_mul(q, pq), quat_invert(q))[..., 1:]


def quat_to_matrix(q):
    r, i, j, k = torch.unbind(q, -1)
    two_s = 2.0 / (q * q).sum(-1)
    o = torch.stack(
        (
            1 - two_s * (j * j + k * k), two_s * (i * j - k * r), two_s * (i * k + j * r),
            two_s * (i * j + k * r), 1 - two_s * (i * i + k * k), two_s * (j * k - i * r),
            two_s * (i * k - j * r), two_s * (j * k + i * r), 1 - two_s * (i * i + j * j),
        ),
        -1,
    )
    return o.reshape(q.shape[:-1] + (3, 3))


def _sqrt_positive_part(x):
    ret = torch.zeros_like(x)
    positive = x > 0
    ret[positive] = torch.sqrt(x[positive])
    return ret


def matrix_to_quat(m):
    batch = m.shape[:-2]
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = torch.unbind(m.reshape(batch + (9,)), -1)
    q_abs = _sqrt_positive_part(
        torch.stack(
            [1.0 + m00 + m11 + m22, 1.0 + m00 - m11 - m22, 1.0 - m00 + m11 - m22, 1.0 - m00 - m11 + m22], -1
        )
    )
    quat_by_rijk = torch.stack(
        [
            torch.stack([q_abs[..., 0] ** 2, m21 - m12, m02 - m20, m10 - m01], -1),
            torch.stack([m21 - m12, q_abs[..., 1] ** 2, m10 + m01, m02 + m20], -1),
            torch.stack([m02 - m20, m10 + m01, q_abs[..., 2] ** 2, m12 + m21], -1),
            torch.stack([m10 - m01, m20 + m02, m21 + m12, q_abs[..., 3] ** 2], -1),
        ],
        -2,
    )
    flr = torch.tensor(0.1).to(dtype=q_abs.dtype, device=q_abs.device)
    quat_candidates = quat_by_rijk / (2.0 * q_abs[..., None].max(flr))
    best = F.one_hot(q_abs.argmax(-1), num_classes=4) > 0.5
    out = quat_candidates[best, :].reshape(batch + (4,))
    return standardize(out)


def axis_angle_to_quat(aa):
    angles = torch.norm(aa, p=2, dim=-1, keepdim=True)
    sin_half_over = torch.where(angles.abs() < 1e-6, 0.5 - angles * angles / 48, torch.sin(angles / 2) / angles)
    return torch.cat([torch.cos(angles / 2), aa * sin_half_over], -1)


def quat_to_axis_angle(q):
    norms = torch.norm(q[..., 1:], p=2, dim=-1, keepdim=True)
    half = torch.atan2(norms, q[..., :1])
    sin_half_over = torch.where(half.abs() < 1e-6, 0.5 - half * half / 6, torch.sin(half) / (2 * half))
    return q[..., 1:] / (2 * sin_half_over)


def matrix_to_euler_zyx(m):
    yaw = torch.atan2(m[..., 1, 0], m[..., 0, 0])
    pitch = torch.asin((-m[..., 2, 0]).clamp(-1.0, 1.0))
    roll = torch.atan2(m[..., 2, 1], m[..., 2, 2])
    return torch.stack([yaw, pitch, roll], -1)


def slerp(q0, q1, t):
    dot = (q0 * q1).sum(-1, keepdim=True)
    q1 = torch.where(dot < 0, -q1, q1)
    dot = dot.abs().clamp(max=1.0)
    theta = torch.acos(dot)
    s = torch.sin(theta)
    w0 = torch.sin((1 - t) * theta) / s
    w1 = torch.sin(t * theta) / s
    return w0 * q0 + w1 * q1


q = F.normalize(torch.randn(5, 4), dim=-1)
print("random quats", q.shape, q.dtype)
print(standardize(q))
print("unit norms", torch.linalg.vector_norm(q, dim=-1))

R = quat_to_matrix(q)
print("matrices", R.shape)
print(R[0])
eye = torch.eye(3).expand_as(R)
print("orthonormal", torch.allclose(R @ R.mT, eye, atol=1e-5), "dets", torch.linalg.det(R))

q_back = matrix_to_quat(R)
print("roundtrip max err", round((q_back - standardize(q)).abs().max().item(), 4))

# composition: matrix product equals the quaternion product
q2 = F.normalize(torch.randn(5, 4), dim=-1)
lhs = quat_to_matrix(quat_mul(q, q2))
rhs = quat_to_matrix(q) @ quat_to_matrix(q2)
print("compose err", round((lhs - rhs).abs().max().item(), 4))
print("q * q^-1", standardize(quat_mul(q, quat_invert(q))).round(decimals=4))

pts = torch.randn(5, 3)
rot_q = quat_apply(q, pts)
rot_m = (R @ pts.unsqueeze(-1)).squeeze(-1)
print("apply", rot_q[:2], "err", round((rot_q - rot_m).abs().max().item(), 4))
print("lengths kept", torch.allclose(rot_q.norm(dim=-1), pts.norm(dim=-1), atol=1e-5))

aa = torch.tensor([[0.0, 0.0, 0.0], [math.pi / 2, 0.0, 0.0], [0.1, -0.2, 0.3], [1e-8, 0.0, 0.0]])
qa = axis_angle_to_quat(aa)
print("aa->quat", qa)
print("quat->aa", quat_to_axis_angle(qa))
print("angles", torch.rad2deg(2 * torch.acos(qa[:, 0].clamp(-1, 1))))

euler = matrix_to_euler_zyx(R)
print("euler zyx", euler)
print("euler deg", torch.rad2deg(euler).round(decimals=2))

ts = torch.linspace(0, 1, 5).unsqueeze(-1)
path = slerp(q[:1].expand(5, 4), q2[:1].expand(5, 4), ts)
print("slerp", path)
print("slerp norms", path.norm(dim=-1))
angle_steps = torch.acos((path[1:] * path[:-1]).sum(-1).abs().clamp(max=1))
print("equal steps", angle_steps)

# gradients flow through the whole chain
w = torch.randn(3, 4, requires_grad=True)
Rw = quat_to_matrix(F.normalize(w, dim=-1))
loss = (Rw - torch.eye(3)).pow(2).sum()
loss.backward()
print("loss", round(loss.item(), 4), "grad", w.grad)
print("grad ⟂ w", (w.grad * w.detach()).sum(-1).abs().max() < 1e-4)

# double precision and a batched broadcast
qd = q.double()
Rd = quat_to_matrix(qd[:, None, :] * torch.ones(1, 2, 1, dtype=torch.float64))
print(Rd.shape, Rd.dtype, Rd[0, 1, 0])
