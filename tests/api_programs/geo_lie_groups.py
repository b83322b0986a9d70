"""SO(3) and SE(3) as pose-optimisation code writes them: hat/vee, Rodrigues exp with a Taylor branch near zero,
the log map through a clamped acos, matrix_exp cross-checks, SE(3) exp with the left Jacobian, 4x4 homogeneous
composition and inversion, and a pose fitted by gradient descent on se(3) increments."""

import math

import torch

torch.manual_seed(3)
torch.set_printoptions(precision=4, sci_mode=False)


def hat(w):
    z = torch.zeros_like(w[..., 0])
    wx, wy, wz = w.unbind(-1)
    return torch.stack([z, -wz, wy, wz, z, -wx, -wy, wx, z], -1).view(*w.shape[:-1], 3, 3)


def vee(W):
    return torch.stack([W[..., 2, 1], W[..., 0, 2], W[..., 1, 0]], -1)


def so3_exp(w, eps=1e-4):
    theta2 = (w * w).sum(-1, keepdim=True).unsqueeze(-1)
    theta = theta2.clamp_min(eps * eps).sqrt()
    small = theta2 < eps * eps
    a = torch.where(small, 1 - theta2 / 6, torch.sin(theta) / theta)
    b = torch.where(small, 0.5 - theta2 / 24, (1 - torch.cos(theta)) / theta2.clamp_min(eps * eps))
    K = hat(w)
    eye = torch.eye(3, dtype=w.dtype).expand(K.shape)
    return eye + a * K + b * (K @ K)


def so3_log(R):
    trace = R.diagonal(dim1=-2, dim2=-1).sum(-1)
    cos = ((trace - 1) / 2).clamp(-1 + 1e-6, 1 - 1e-6)
    theta = torch.acos(cos)
    factor = torch.where(theta < 1e-3, 0.5 + theta**2 / 12, theta / (2 * torch.sin(theta)))
    return vee(R - R.mT) * factor.unsqueeze(-1)


def left_jacobian(w):
    theta = w.norm(dim=-1, keepdim=True).unsqueeze(-1).clamp_min(1e-8)
    K = hat(w)
    eye = torch.eye(3, dtype=w.dtype).expand(K.shape)
    return eye + (1 - torch.cos(theta)) / theta**2 * K + (theta - torch.sin(theta)) / theta**3 * (K @ K)


def se3_exp(xi):
    v, w = xi[..., :3], xi[..., 3:]
    R = so3_exp(w)
    t = (left_jacobian(w) @ v.unsqueeze(-1)).squeeze(-1)
    T = torch.zeros(*xi.shape[:-1], 4, 4, dtype=xi.dtype)
    T[..., :3, :3] = R
    T[..., :3, 3] = t
    T[..., 3, 3] = 1
    return T


def se3_inv(T):
    R, t = T[..., :3, :3], T[..., :3, 3:]
    Rt = R.transpose(-1, -2)
    top = torch.cat([Rt, -Rt @ t], -1)
    bottom = T.new_tensor([0, 0, 0, 1]).expand(*T.shape[:-2], 1, 4)
    return torch.cat([top, bottom], -2)


def to_homogeneous(p):
    return torch.cat([p, torch.ones_like(p[..., :1])], -1)


def from_homogeneous(p):
    return p[..., :-1] / p[..., -1:]


w = torch.randn(4, 3) * torch.tensor([[1.0], [0.1], [1e-6], [2.5]])
R = so3_exp(w)
print("so3 exp", R.shape, R.dtype)
print(R[0])
print("vs matrix_exp", round((R - torch.linalg.matrix_exp(hat(w))).abs().max().item(), 4))
print("det", [round(d, 4) for d in torch.det(R).tolist()])
print("log(exp(w)) - w", (so3_log(R) - w).abs().amax(-1))
print("rotation angles", torch.rad2deg(w.norm(dim=-1)))

# exp map and its gradient near the identity (Taylor branch) and away from it
wg = torch.tensor([[1e-6, 0.0, 0.0], [0.3, -0.4, 0.5]], requires_grad=True)
Rg = so3_exp(wg)
Rg[..., 2, 1].sum().backward()
print("grad R21", wg.grad)

# composing rotations: log of a product is not the sum (BCH), but it is near for small angles
a, b = torch.tensor([0.01, 0.02, -0.01]), torch.tensor([-0.02, 0.01, 0.03])
print("BCH small", so3_log(so3_exp(a) @ so3_exp(b)), a + b)
a, b = a * 50, b * 50
print("BCH large", so3_log(so3_exp(a) @ so3_exp(b)), a + b)

# SE(3)
xi = torch.randn(3, 6, dtype=torch.float64)
T = se3_exp(xi)
print("se3", T.shape, T.dtype)
print(T[0])
print("T @ T^-1 = I", torch.allclose(T @ se3_inv(T), torch.eye(4, dtype=torch.float64).expand(3, 4, 4)))
print("inv vs linalg.inv", (se3_inv(T) - torch.linalg.inv(T)).abs().max().item() < 1e-12)
print("vs matrix_exp", (T - torch.linalg.matrix_exp(
    torch.cat([torch.cat([hat(xi[:, 3:]), xi[:, :3, None]], -1), torch.zeros(3, 1, 4, dtype=torch.float64)], -2)
)).abs().max().item() < 1e-10)

pts = torch.randn(3, 5, 3, dtype=torch.float64)
moved = from_homogeneous((T.unsqueeze(1) @ to_homogeneous(pts).unsqueeze(-1)).squeeze(-1))
manual = pts @ T[:, :3, :3].mT + T[:, None, :3, 3]
print("homogeneous apply", moved[0, :2], (moved - manual).abs().max().item() < 1e-12)
chain = T[0] @ T[1] @ T[2]
print("chain", chain[:3, 3], torch.linalg.matrix_rank(chain[:3, :3]).item())

# pose estimation: recover a rigid transform from point pairs with se(3) increments
torch.manual_seed(7)
src = torch.randn(20, 3)
true_xi = torch.tensor([0.2, -0.1, 0.3, 0.4, -0.3, 0.2])
T_true = se3_exp(true_xi)
dst = src @ T_true[:3, :3].T + T_true[:3, 3] + 0.001 * torch.randn(20, 3)

T_est = torch.eye(4)
delta = torch.zeros(6, requires_grad=True)
opt = torch.optim.SGD([delta], lr=0.02)
for it in range(60):
    Tc = se3_exp(delta) @ T_est
    pred = src @ Tc[:3, :3].T + Tc[:3, 3]
    loss = ((pred - dst) ** 2).sum(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 15 == 0:
        with torch.no_grad():
            T_est = se3_exp(delta) @ T_est
            delta.zero_()
        print(f"iter {it:2d} loss {loss.item():.4f}")
with torch.no_grad():
    T_est = se3_exp(delta) @ T_est
err_R = so3_log(T_est[:3, :3].T @ T_true[:3, :3]).norm()
print("rotation error deg", round(math.degrees(err_R.item()), 3))
print("translation error", round((T_est[:3, 3] - T_true[:3, 3]).norm().item(), 4))
print("estimated", T_est)
