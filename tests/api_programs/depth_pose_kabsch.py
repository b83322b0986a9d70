"""Pose estimation as visual-odometry and registration code does it: Rodrigues' formula with torch.linalg.cross and
vector norms, quaternions to and from matrices with slerp, Kabsch/Umeyama alignment through torch.linalg.svd with a
determinant sign fix, linalg.solve/lstsq for a DLT homography, pose composition and inversion, and gradients."""

import math

import torch

torch.manual_seed(0)


def s(t, n=9):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


def skew(v):
    zero = torch.zeros_like(v[..., 0])
    return torch.stack(
        [zero, -v[..., 2], v[..., 1], v[..., 2], zero, -v[..., 0], -v[..., 1], v[..., 0], zero], -1
    ).unflatten(-1, (3, 3))


def rodrigues(rvec):
    theta = torch.linalg.norm(rvec, dim=-1, keepdim=True)
    k = rvec / theta.clamp_min(1e-8)
    Kx = skew(k)
    th = theta.unsqueeze(-1)
    return torch.eye(3) + torch.sin(th) * Kx + (1 - torch.cos(th)) * Kx @ Kx


def matrix_to_axis_angle(R):
    cos = ((R.diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2).clamp(-1, 1)
    angle = torch.acos(cos)
    w = torch.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]], -1)
    return w / (2 * torch.sin(angle)).unsqueeze(-1) * angle.unsqueeze(-1)


rvec = torch.tensor([[0.3, -0.2, 0.1], [0.0, 0.0, 1.2], [1e-3, 2e-3, -1e-3]], dtype=torch.float64)
R = rodrigues(rvec)
print("R", s(R[0]), R.dtype)
print("det", s(torch.linalg.det(R), 3), "orth", (R @ R.mT - torch.eye(3, dtype=R.dtype)).abs().max().item() < 1e-12)
print("back", s(matrix_to_axis_angle(R), 9))
print("matrix_exp", torch.allclose(torch.linalg.matrix_exp(skew(rvec)), R))
a, b = torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])
print("cross", torch.linalg.cross(a, b).tolist(), torch.cross(a.expand(2, 3), b.expand(2, 3), dim=1).tolist())
print("cross bcast", tuple(torch.linalg.cross(torch.randn(4, 1, 3), torch.randn(1, 5, 3)).shape))
try:
    torch.linalg.cross(torch.randn(4, 1, 3), torch.randn(5, 3))
except Exception as e:
    print(type(e).__name__, e)
print(
    "norms",
    round(torch.linalg.vector_norm(rvec, ord=1).item(), 4),
    s(torch.linalg.norm(rvec, dim=1, ord=math.inf), 3),
    round(torch.linalg.matrix_norm(R[0], ord="fro").item(), 4),
    round(torch.linalg.norm(R[0], ord=2).item(), 4),
)


def quat_to_matrix(q):
    q = q / q.norm(dim=-1, keepdim=True)
    w, x, y, z = q.unbind(-1)
    return torch.stack(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - z * w),
            2 * (x * z + y * w),
            2 * (x * y + z * w),
            1 - 2 * (x * x + z * z),
            2 * (y * z - x * w),
            2 * (x * z - y * w),
            2 * (y * z + x * w),
            1 - 2 * (x * x + y * y),
        ],
        -1,
    ).view(*q.shape[:-1], 3, 3)


def matrix_to_quat(R):
    w = torch.sqrt(torch.clamp(1 + R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2], min=1e-12)) / 2
    x = (R[..., 2, 1] - R[..., 1, 2]) / (4 * w)
    y = (R[..., 0, 2] - R[..., 2, 0]) / (4 * w)
    z = (R[..., 1, 0] - R[..., 0, 1]) / (4 * w)
    q = torch.stack([w, x, y, z], -1)
    return torch.where(q[..., :1] < 0, -q, q)


def quat_mul(p, q):
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    return torch.cat(
        [pw * qw - (pv * qv).sum(-1, keepdim=True), pw * qv + qw * pv + torch.linalg.cross(pv, qv, dim=-1)], -1
    )


q = matrix_to_quat(R)
print("quat", s(q, 12), torch.allclose(quat_to_matrix(q), R))
print("quat mul = matmul", torch.allclose(quat_to_matrix(quat_mul(q[0], q[1])), R[0] @ R[1]))


def slerp(q0, q1, t):
    dot = (q0 * q1).sum(-1, keepdim=True)
    q1 = torch.where(dot < 0, -q1, q1)
    omega = torch.acos(dot.abs().clamp(max=1.0))
    so = torch.sin(omega)
    return (torch.sin((1 - t) * omega) / so) * q0 + (torch.sin(t * omega) / so) * q1


ts = torch.linspace(0, 1, 5, dtype=torch.float64).unsqueeze(-1)
path = slerp(q[0].expand(5, 4), q[1].expand(5, 4), ts)
print("slerp", s(path[2], 4), s(path.norm(dim=-1), 5))

src = torch.randn(20, 3, dtype=torch.float64)
t_true = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
dst = 1.5 * src @ R[0].T + t_true + 1e-3 * torch.randn(20, 3, dtype=torch.float64)


def umeyama(X, Y):
    mx, my = X.mean(0), Y.mean(0)
    Xc, Yc = X - mx, Y - my
    cov = Yc.T @ Xc / X.shape[0]
    U, S, Vh = torch.linalg.svd(cov)
    d = torch.sign(torch.linalg.det(U @ Vh))
    D = torch.diag(torch.stack([torch.ones_like(d), torch.ones_like(d), d]))
    Rh = U @ D @ Vh
    scale = (S * D.diagonal()).sum() / Xc.pow(2).sum(1).mean()
    return scale, Rh, my - scale * Rh @ mx


sc, Rh, th = umeyama(src, dst)
print("umeyama", round(sc.item(), 3), s(Rh, 9), s(th, 3))
print("rot err deg", round(math.degrees(torch.acos(((Rh.T @ R[0]).trace() - 1).clamp(-2, 2) / 2).item()), 2))
refl = torch.diag(torch.tensor([1.0, 1.0, -1.0], dtype=torch.float64))
_, Rr, _ = umeyama(src, src @ refl)
print("reflection fixed det", round(torch.linalg.det(Rr).item(), 4))
U, S, Vh = torch.linalg.svd(torch.randn(2, 4, 3), full_matrices=True)
print("svd full", tuple(U.shape), tuple(S.shape), tuple(Vh.shape), s(torch.linalg.svdvals(torch.eye(3) * 2), 3))

pts = torch.tensor([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.2]], dtype=torch.float64)
Hgt = torch.tensor([[1.1, 0.05, 0.2], [-0.02, 0.95, 0.1], [0.01, 0.02, 1.0]], dtype=torch.float64)
ph = torch.cat([pts, torch.ones(5, 1, dtype=torch.float64)], 1) @ Hgt.T
proj = ph[:, :2] / ph[:, 2:]
rows = []
for (x, y), (u, v) in zip(pts.tolist(), proj.tolist()):
    rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
    rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
A = torch.tensor(rows, dtype=torch.float64)
bvec = proj.flatten()
h8 = torch.linalg.lstsq(A, bvec.unsqueeze(1)).solution.squeeze(1)
print("DLT lstsq", s(h8, 8))
h8s = torch.linalg.solve(A[:8], bvec[:8])
print("DLT solve", torch.allclose(h8s, h8, atol=1e-8), s(torch.linalg.solve(A[:8].T, bvec[:8], left=True), 2))

T = torch.eye(4, dtype=torch.float64).repeat(3, 1, 1)
T[:, :3, :3] = R
T[:, :3, 3] = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
Tinv = torch.eye(4, dtype=torch.float64).repeat(3, 1, 1)
Tinv[:, :3, :3] = R.mT
Tinv[:, :3, 3:] = -R.mT @ T[:, :3, 3:]
print("inverse", torch.allclose(Tinv, torch.linalg.inv(T)), torch.allclose(torch.linalg.inv_ex(T).inverse, Tinv))
chain = torch.linalg.multi_dot([T[0], T[1], T[2]])
print("chain", s(chain[:3, 3], 3))

r = rvec.clone().requires_grad_(True)
target = torch.eye(3, dtype=torch.float64).expand(3, 3, 3)
loss = (rodrigues(r) - target).pow(2).sum()
loss.backward()
print("grad", s(r.grad, 9), round(loss.item(), 4))
try:
    torch.linalg.cross(torch.randn(3, 2), torch.randn(3, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.zeros(3, 3), torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.inv(torch.randn(2, 3))
except Exception as e:
    print(type(e).__name__, e)
