"""Rotation regression as pose-estimation code writes it: the 6-D representation with Gram-Schmidt, SVD
orthogonalisation with the determinant fix (special orthogonal Procrustes), quaternions normalised and
sign-canonicalised, the geodesic loss through a clamped acos, and a small network trained on each head."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def rot6d_to_matrix(d6):
    a1, a2 = d6[..., :3], d6[..., 3:]
    b1 = F.normalize(a1, dim=-1)
    b2 = F.normalize(a2 - (b1 * a2).sum(-1, keepdim=True) * b1, dim=-1)
    b3 = torch.linalg.cross(b1, b2, dim=-1)
    return torch.stack((b1, b2, b3), dim=-2)


def matrix_to_rot6d(R):
    return R[..., :2, :].clone().reshape(*R.shape[:-2], 6)


def svd_orthogonalize(M):
    U, S, Vh = torch.linalg.svd(M)
    det = torch.det(U @ Vh)
    D = torch.diag_embed(torch.stack([torch.ones_like(det), torch.ones_like(det), det], -1))
    return U @ D @ Vh


def quat_to_matrix(q):
    q = F.normalize(q, dim=-1)
    q = torch.where(q[..., :1] < 0, -q, q)
    w, x, y, z = q.unbind(-1)
    two_s = 2.0 / (q * q).sum(-1)
    o = torch.stack((1 - two_s * (y * y + z * z), two_s * (x * y - z * w), two_s * (x * z + y * w),
                     two_s * (x * y + z * w), 1 - two_s * (x * x + z * z), two_s * (y * z - x * w),
                     two_s * (x * z - y * w), two_s * (y * z + x * w), 1 - two_s * (x * x + y * y)), -1)
    return o.reshape(q.shape[:-1] + (3, 3))


def geodesic(R1, R2, eps=1e-6):
    cos = ((R1.transpose(-1, -2) @ R2).diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2
    return torch.acos(cos.clamp(-1 + eps, 1 - eps))


# ground-truth rotations from random quaternions
q = torch.randn(64, 4)
R_gt = quat_to_matrix(q)
print("R_gt", R_gt.shape, R_gt.dtype, "orthonormal err", round((R_gt @ R_gt.mT - torch.eye(3)).abs().max().item(), 4))
print("det", torch.linalg.det(R_gt).mean().round(decimals=4).item())
print("6d roundtrip", round((rot6d_to_matrix(matrix_to_rot6d(R_gt)) - R_gt).abs().max().item(), 4))

noisy = R_gt + 0.1 * torch.randn(64, 3, 3)
R_svd = svd_orthogonalize(noisy)
print("svd det", torch.det(R_svd)[:4].round(decimals=4).tolist())
print("svd dist", geodesic(R_svd, R_gt).mean().round(decimals=4).item())
reflect = torch.diag(torch.tensor([1.0, 1.0, -1.0]))
print("reflection fixed", torch.det(svd_orthogonalize(reflect)).item())
print("svdvals", torch.linalg.svdvals(noisy[0]).round(decimals=4).tolist())

canon = torch.tensor([[-0.5, 0.5, 0.5, 0.5], [0.0, -1.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]])
print("canon", torch.where(canon[:, :1] < 0, -canon, canon).tolist(), F.normalize(canon, dim=1).norm(dim=1).tolist())
print("same rotation q/-q", torch.allclose(quat_to_matrix(canon), quat_to_matrix(-canon)))


class Head(nn.Module):
    def __init__(self, out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(9, 64), nn.ReLU(), nn.Linear(64, out))

    def forward(self, x):
        return self.net(x.flatten(1))


inputs = R_gt + 0.05 * torch.randn(64, 3, 3)
for name, out, to_R in [("6d", 6, rot6d_to_matrix), ("quat", 4, quat_to_matrix),
                        ("svd", 9, lambda m: svd_orthogonalize(m.view(-1, 3, 3)))]:
    torch.manual_seed(1)
    model = Head(out)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(60):
        loss = geodesic(to_R(model(inputs)), R_gt).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(name, "final geodesic deg", round(math.degrees(loss.item()), 1), type(loss.grad_fn).__name__)

x = torch.randn(4, 6, requires_grad=True)
R = rot6d_to_matrix(x)
R.sum().backward()
print("6d grad", x.grad.shape, R.grad_fn.name(), torch.isfinite(x.grad).all().item())
try:
    torch.linalg.cross(torch.randn(3, 2), torch.randn(3, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.cross(torch.randn(4, 3), torch.randn(5, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.svd(torch.randn(3))
except Exception as e:
    print(type(e).__name__, e)
