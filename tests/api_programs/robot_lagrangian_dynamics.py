"""Rigid-body dynamics of a planar 2-link arm derived from its Lagrangian with autograd, as differentiable-physics
code writes it: the mass matrix as the Hessian of kinetic energy (torch.func.hessian), Coriolis terms from
jacrev/jvp, gravity from grad, forward dynamics through linalg.solve batched by vmap, computed-torque control, a
symplectic rollout, energy bookkeeping, and checks against the closed-form equations."""

import math

import torch
from torch.func import grad, hessian, jacfwd, jacrev, jvp, vmap

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
m1, m2, l1, l2, g = 1.0, 0.7, 1.0, 0.8, 9.81
lc1, lc2, I1, I2 = l1 / 2, l2 / 2, m1 * l1 ** 2 / 12, m2 * l2 ** 2 / 12


def kinetic(q, qd):
    c2 = torch.cos(q[1])
    M11 = m1 * lc1 ** 2 + m2 * (l1 ** 2 + lc2 ** 2 + 2 * l1 * lc2 * c2) + I1 + I2
    M12 = m2 * (lc2 ** 2 + l1 * lc2 * c2) + I2
    M22 = m2 * lc2 ** 2 + I2
    return 0.5 * (M11 * qd[0] ** 2 + 2 * M12 * qd[0] * qd[1] + M22 * qd[1] ** 2)


def potential(q):
    y1 = lc1 * torch.sin(q[0])
    y2 = l1 * torch.sin(q[0]) + lc2 * torch.sin(q[0] + q[1])
    return g * (m1 * y1 + m2 * y2)


def lagrangian(q, qd):
    return kinetic(q, qd) - potential(q)


def mass_matrix(q):
    return hessian(kinetic, argnums=1)(q, torch.zeros_like(q))


def bias(q, qd):
    """C(q, qd) qd + G(q) = d/dt(dL/dqd) - dL/dq without the M qdd part."""
    dL_dqd = lambda qq: jacrev(lagrangian, argnums=1)(qq, qd)
    _, mixed = jvp(dL_dqd, (q,), (qd,))
    return mixed - jacrev(lagrangian, argnums=0)(q, qd)


def forward_dynamics(q, qd, tau):
    return torch.linalg.solve(mass_matrix(q), tau - bias(q, qd))


q = torch.tensor([0.4, -0.9], dtype=f64)
qd = torch.tensor([1.2, -0.5], dtype=f64)
M = mass_matrix(q)
print("M", M.round(decimals=5).tolist(), "symmetric", torch.allclose(M, M.T), "PD",
      bool(torch.linalg.eigvalsh(M).min() > 0))
c2, s2 = math.cos(q[1].item()), math.sin(q[1].item())
h = -m2 * l1 * lc2 * s2
C_closed = torch.tensor([[h * qd[1], h * (qd[0] + qd[1])], [-h * qd[0], 0.0]], dtype=f64)
G_closed = g * torch.tensor([(m1 * lc1 + m2 * l1) * math.cos(q[0]) + m2 * lc2 * math.cos(q[0] + q[1]),
                             m2 * lc2 * math.cos(q[0] + q[1])], dtype=f64)
print("bias vs closed form", torch.allclose(bias(q, qd), C_closed @ qd + G_closed))
print("gravity by grad", grad(potential)(q).round(decimals=4).tolist(), torch.allclose(grad(potential)(q), G_closed))
qdd = forward_dynamics(q, qd, torch.zeros(2, dtype=f64))
print("free qdd", qdd.round(decimals=4).tolist())
Mdot = jacfwd(mass_matrix)(q) @ qd
skew = Mdot - 2 * C_closed
print("M_dot - 2C skew-symmetric", torch.allclose(skew, -skew.T))

qs = torch.stack([torch.linspace(-1, 1, 5, dtype=f64), torch.linspace(0.5, -0.5, 5, dtype=f64)], -1)
qds = torch.ones(5, 2, dtype=f64) * 0.3
Ms = vmap(mass_matrix)(qs)
print("vmap M", Ms.shape, Ms[:, 0, 0].round(decimals=4).tolist())
acc = vmap(forward_dynamics)(qs, qds, torch.zeros(5, 2, dtype=f64))
print("vmap qdd", acc.round(decimals=3).tolist())


def energy(q, qd):
    return kinetic(q, qd) + potential(q)


def step(q, qd, tau, dt):
    qd = qd + dt * forward_dynamics(q, qd, tau)  # semi-implicit Euler
    return q + dt * qd, qd


qq, vv = q.clone(), qd.clone()
E0 = energy(qq, vv)
for _ in range(100):
    qq, vv = step(qq, vv, torch.zeros(2, dtype=f64), 0.005)
print("passive after 0.5s", qq.round(decimals=4).tolist(), "energy drift", round((energy(qq, vv) - E0).item(), 3))

# computed torque tracking a sinusoid
Kp, Kd = torch.diag(torch.tensor([100.0, 100.0], dtype=f64)), torch.diag(torch.tensor([20.0, 20.0], dtype=f64))
qq, vv = torch.zeros(2, dtype=f64), torch.zeros(2, dtype=f64)
errs = []
for k in range(200):
    t = k * 0.005
    qr = torch.tensor([0.5 * math.sin(t), 0.3 * math.cos(t)], dtype=f64)
    qdr = torch.tensor([0.5 * math.cos(t), -0.3 * math.sin(t)], dtype=f64)
    qddr = torch.tensor([-0.5 * math.sin(t), -0.3 * math.cos(t)], dtype=f64)
    tau = mass_matrix(qq) @ (qddr + Kd @ (qdr - vv) + Kp @ (qr - qq)) + bias(qq, vv)
    qq, vv = step(qq, vv, tau, 0.005)
    errs.append((qr - qq).norm())
errs = torch.stack(errs)
print("tracking err start/end", round(errs[0].item(), 4), round(errs[-1].item(), 4), "max tau",
      round(tau.abs().max().item(), 2))
print("hessian of L wrt qd == M", torch.allclose(hessian(lagrangian, argnums=1)(q, qd), M))
H_full = torch.autograd.functional.hessian(lagrangian, (q, qd))
print("autograd hessian blocks", [[tuple(b.shape) for b in row] for row in H_full], torch.allclose(H_full[1][1], M))
try:
    hessian(kinetic, argnums=2)(q, qd)
except Exception as e:
    print(type(e).__name__, e)
try:
    jvp(kinetic, (q, qd), (qd,))
except Exception as e:
    print(type(e).__name__, e)
try:
    vmap(mass_matrix)(q)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
