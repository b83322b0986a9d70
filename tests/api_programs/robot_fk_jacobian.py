"""Forward kinematics of a 6-DOF arm from Denavit-Hartenberg tables, batched over joint configurations: per-link
4x4 transforms, the chain product by matmul and linalg.multi_dot, the geometric Jacobian by cross products checked
against torch.autograd.functional.jacobian (vectorize and forward-mode strategies) and torch.func.jacrev,
manipulability and singularities through svdvals, det and matrix_rank."""

import torch
from functools import reduce

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64

# UR5-like standard DH: a, alpha, d
DH = torch.tensor([[0.0, torch.pi / 2, 0.089159], [-0.425, 0.0, 0.0], [-0.39225, 0.0, 0.0],
                   [0.0, torch.pi / 2, 0.10915], [0.0, -torch.pi / 2, 0.09465], [0.0, 0.0, 0.0823]], dtype=f64)


def dh_transform(theta, a, alpha, d):
    ct, st = torch.cos(theta), torch.sin(theta)
    ca, sa = torch.cos(alpha).expand_as(theta), torch.sin(alpha).expand_as(theta)
    z, o = torch.zeros_like(theta), torch.ones_like(theta)
    rows = [ct, -st * ca, st * sa, a * ct,
            st, ct * ca, -ct * sa, a * st,
            z, sa, ca, d.expand_as(theta),
            z, z, z, o]
    return torch.stack(rows, -1).reshape(theta.shape + (4, 4))


def link_frames(q):
    """(B, 6) joints -> (B, 7, 4, 4) frames of the base and every link."""
    T = dh_transform(q, DH[:, 0], DH[:, 1], DH[:, 2])
    frames = [torch.eye(4, dtype=q.dtype).expand(q.shape[0], 4, 4)]
    for i in range(q.shape[-1]):
        frames.append(torch.bmm(frames[-1], T[:, i]))
    return torch.stack(frames, 1)


def fk(q):
    return link_frames(q)[:, -1]


def geometric_jacobian(q):
    F = link_frames(q)
    z = F[:, :-1, :3, 2]
    p = F[:, :-1, :3, 3]
    pe = F[:, -1:, :3, 3]
    Jv = torch.linalg.cross(z, pe - p, dim=-1)
    return torch.cat([Jv, z], -1).transpose(1, 2)


q = torch.tensor([[0.0, -1.57, 1.57, 0.0, 1.57, 0.0], [0.3, -0.8, 1.2, -0.4, 0.9, 0.2],
                  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, -2.0, 0.5, 1.5, -0.7, 2.5]], dtype=f64)
T = fk(q)
print("T", T.shape, T.dtype)
print("ee positions", T[:, :3, 3].round(decimals=4).tolist())
Ts = dh_transform(q[1], DH[:, 0], DH[:, 1], DH[:, 2])
print("multi_dot == bmm chain", torch.allclose(torch.linalg.multi_dot(list(Ts.unbind(0))), T[1]))
print("reduce matmul", torch.allclose(reduce(torch.matmul, Ts.unbind(0)), T[1]))
print("homogeneous last row", T[:, 3].tolist()[0])
R = T[:, :3, :3]
print("orthonormal", round((R @ R.transpose(1, 2) - torch.eye(3, dtype=f64)).abs().max().item(), 10))

J = geometric_jacobian(q)
print("J", J.shape, J[1].round(decimals=4)[:3].tolist())
pos = lambda qq: fk(qq.unsqueeze(0))[0, :3, 3]
J_ad = torch.autograd.functional.jacobian(pos, q[1])
J_vec = torch.autograd.functional.jacobian(pos, q[1], vectorize=True)
J_fwd = torch.autograd.functional.jacobian(pos, q[1], vectorize=True, strategy="forward-mode")
J_func = torch.func.jacrev(pos)(q[1])
print("autograd == geometric", torch.allclose(J_ad, J[1, :3]), torch.allclose(J_vec, J_ad), torch.allclose(J_fwd, J_ad),
      torch.allclose(J_func, J_ad))
batched = torch.autograd.functional.jacobian(lambda qq: fk(qq)[:, :3, 3].sum(0), q)
print("batched jac", batched.shape, torch.allclose(batched.permute(1, 0, 2), J[:, :3]))

sv = torch.linalg.svdvals(J)
print("svdvals", sv.round(decimals=4).tolist()[1])
manip = torch.sqrt(torch.det(J @ J.transpose(1, 2)).clamp_min(0))
print("manipulability", manip.round(decimals=5).tolist())
print("rank", torch.linalg.matrix_rank(J).tolist(), torch.linalg.matrix_rank(J, atol=1e-6, rtol=0.0).tolist())
print("condition", torch.linalg.cond(J[1]).round(decimals=3).item(), (sv[:, -1] < 1e-8).tolist())

qg = q[1:2].clone().requires_grad_(True)
target = torch.tensor([0.3, 0.2, 0.4], dtype=f64)
err = (fk(qg)[0, :3, 3] - target).pow(2).sum()
err.backward()
print("grad of reach error", qg.grad.round(decimals=4).tolist(), err.grad_fn.name())
print("grad vs J^T e", torch.allclose(qg.grad[0], 2 * J[1, :3].T @ (T[1, :3, 3] - target)))

try:
    torch.bmm(T, T[:, :3])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.multi_dot([T[0]])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.functional.jacobian(pos, q[1], strategy="forward-mode")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bmm(T, T.float())
except Exception as e:
    print(type(e).__name__, e)
