"""Rigid and affine registration: rotation matrices built from Euler angles with torch.stack, axis-angle via
matrix_exp of skew matrices, quaternions, Kabsch landmark alignment by SVD, least-squares affine fits, and a
gradient-descent rigid registration of a 3-D volume through affine_grid/grid_sample."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def euler_to_matrix(angles):
    a, b, c = angles.unbind(-1)
    one, zero = torch.ones_like(a), torch.zeros_like(a)
    rx = torch.stack([one, zero, zero, zero, a.cos(), -a.sin(), zero, a.sin(), a.cos()], -1).view(*a.shape, 3, 3)
    ry = torch.stack([b.cos(), zero, b.sin(), zero, one, zero, -b.sin(), zero, b.cos()], -1).view(*a.shape, 3, 3)
    rz = torch.stack([c.cos(), -c.sin(), zero, c.sin(), c.cos(), zero, zero, zero, one], -1).view(*a.shape, 3, 3)
    return rz @ ry @ rx


def skew(v):
    z = torch.zeros_like(v[..., 0])
    return torch.stack([z, -v[..., 2], v[..., 1], v[..., 2], z, -v[..., 0], -v[..., 1], v[..., 0], z], -1).unflatten(
        -1, (3, 3)
    )


ang = torch.deg2rad(torch.tensor([[10.0, -20.0, 35.0], [0.0, 90.0, 0.0]], dtype=torch.float64))
R = euler_to_matrix(ang)
print(R[0], torch.linalg.det(R).round(decimals=6))
print("orth", torch.allclose(R @ R.mT, torch.eye(3, dtype=torch.float64).expand(2, 3, 3)), R.mT.is_contiguous())
print("angles back", torch.rad2deg(torch.atan2(R[0, 2, 1], R[0, 2, 2])).round(decimals=4), torch.asin(-R[0, 2, 0]))
aa = torch.tensor([0.3, -0.2, 0.5], dtype=torch.float64)
Re = torch.linalg.matrix_exp(skew(aa))
th = aa.norm()
K = skew(aa / th)
Rr = torch.eye(3, dtype=torch.float64) + th.sin() * K + (1 - th.cos()) * K @ K
print("rodrigues", torch.allclose(Re, Rr), round(torch.acos(((Re.trace() - 1) / 2).clamp(-1, 1)).item(), 6), th.item())
q = F.normalize(torch.tensor([0.9, 0.1, -0.3, 0.2], dtype=torch.float64), dim=0)
w, x, y, z = q
Rq = torch.stack(
    [
        torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)]),
        torch.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)]),
        torch.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]),
    ]
)
print("quat", q.round(decimals=4), torch.linalg.det(Rq).item() - 1 < 1e-12, torch.linalg.eigvals(Rq).abs())

# Kabsch: recover a rotation + translation from noisy landmarks
src = torch.randn(12, 3, dtype=torch.float64)
t_true = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
dst = src @ R[0].T + t_true + 0.001 * torch.randn(12, 3, dtype=torch.float64)
mu_s, mu_d = src.mean(0), dst.mean(0)
Hm = (src - mu_s).T @ (dst - mu_d)
U, S, Vh = torch.linalg.svd(Hm)
d = torch.sign(torch.linalg.det(Vh.T @ U.T))
Rk = Vh.T @ torch.diag(torch.stack([torch.ones_like(d), torch.ones_like(d), d])) @ U.T
tk = mu_d - Rk @ mu_s
print("kabsch", (Rk - R[0]).abs().max().item() < 1e-2, tk.round(decimals=2), S.shape, S.dtype)
print("procrustes", torch.linalg.svdvals(Hm).round(decimals=4), torch.linalg.matrix_rank(Hm).item())
A = torch.cat([src, torch.ones(12, 1, dtype=torch.float64)], 1)
sol = torch.linalg.lstsq(A, dst)
print("lstsq affine", sol.solution.shape, sol.solution[:3].T.round(decimals=2), sol.rank, sol.residuals.shape)
print("pinv", torch.allclose(torch.linalg.pinv(A) @ dst, sol.solution), torch.linalg.cond(A[:4, :4]).round(decimals=3))
print("solve", torch.linalg.solve(A.T @ A, A.T @ dst).sub(sol.solution).abs().max().item() < 1e-9)
aff = torch.eye(4, dtype=torch.float64)
aff[:3, :3], aff[:3, 3] = R[0], t_true
inv = torch.linalg.inv(aff)
print("inverse", inv[:3, 3].round(decimals=4), torch.allclose(inv[:3, :3], R[0].T), torch.inverse(aff).shape)
print(torch.linalg.inv_ex(torch.zeros(2, 2)))

# gradient-descent rigid registration of a volume
D = 8
zz, yy, xx = torch.meshgrid(*[torch.linspace(-1, 1, D)] * 3, indexing="ij")
fixed = (((xx / 0.7) ** 2 + (yy / 0.4) ** 2 + (zz / 0.3) ** 2) < 1).float()[None, None]
theta_true = torch.cat([euler_to_matrix(torch.tensor([0.0, 0.0, 0.3])), torch.tensor([[0.1], [0.0], [0.0]])], 1)
moving = F.grid_sample(fixed, F.affine_grid(theta_true[None], fixed.shape, align_corners=False), align_corners=False)
params = torch.zeros(6, requires_grad=True)
opt = torch.optim.Adam([params], lr=0.05)
for it in range(30):
    opt.zero_grad()
    theta = torch.cat([euler_to_matrix(params[:3]), params[3:, None]], 1)[None]
    warped = F.grid_sample(moving, F.affine_grid(theta, fixed.shape, align_corners=False), align_corners=False)
    loss = F.mse_loss(warped, fixed)
    loss.backward()
    opt.step()
    if it % 10 == 0 or it == 29:
        print(it, round(loss.item(), 4), params.detach().round(decimals=3).tolist())
print("angle deg", round(math.degrees(params[2].item()), 1), params.grad.abs().max().item() > 0)

cases = [
    lambda: torch.linalg.inv(torch.zeros(3, 3)),
    lambda: torch.linalg.matrix_exp(torch.zeros(2, 3)),
    lambda: torch.linalg.lstsq(A, dst[:5]),
    lambda: torch.linalg.svd(torch.zeros(0, 3)),
    lambda: euler_to_matrix(torch.zeros(4)),
    lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", r)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:160])
