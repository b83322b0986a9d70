"""Iterative LQR on a torque-limited pendulum swing-up, as trajectory-optimisation code writes it: dynamics
linearised by torch.autograd.functional.jacobian over (state, control) tuples, quadratic costs differentiated with
hessian, the backward pass with regularised Quu solved by cholesky_solve, a forward pass with a backtracking line
search, and the same problem solved by torch.func (jacfwd/vmap) for a batch of start states."""

import math

import torch
from torch.autograd.functional import hessian, jacobian

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
DT, G, L, M, B_DAMP, U_MAX = 0.08, 9.81, 1.0, 1.0, 0.1, 5.0


def dynamics(x, u):
    th, om = x[..., 0], x[..., 1]
    torque = U_MAX * torch.tanh(u[..., 0] / U_MAX)
    om_dot = -G / L * torch.sin(th) - B_DAMP * om + torque / (M * L * L)
    om_n = om + DT * om_dot
    return torch.stack([th + DT * om_n, om_n], -1)


GOAL = torch.tensor([math.pi, 0.0], dtype=f64)
Wx = torch.diag(torch.tensor([0.1, 0.01], dtype=f64))
Wf = torch.diag(torch.tensor([100.0, 10.0], dtype=f64))


def stage_cost(x, u):
    d = x - GOAL
    return d @ Wx @ d + 0.01 * (u * u).sum()


def final_cost(x):
    d = x - GOAL
    return d @ Wf @ d


def rollout(x0, us):
    xs = [x0]
    for u in us:
        xs.append(dynamics(xs[-1], u))
    return torch.stack(xs)


def total(xs, us):
    return sum(stage_cost(x, u) for x, u in zip(xs[:-1], us)) + final_cost(xs[-1])


T = 40
x0 = torch.tensor([0.0, 0.0], dtype=f64)
us = torch.zeros(T, 1, dtype=f64)
xs = rollout(x0, us)
J = total(xs, us)
print("initial cost", round(J.item(), 4))
mu = 1e-6
for it in range(12):
    ks, Ks = [], []
    Vx = jacobian(final_cost, xs[-1])
    Vxx = hessian(final_cost, xs[-1])
    for t in reversed(range(T)):
        fx, fu = jacobian(dynamics, (xs[t], us[t]))
        (lx, lu) = jacobian(stage_cost, (xs[t], us[t]))
        (lxx, lxu), (lux, luu) = hessian(stage_cost, (xs[t], us[t]))
        Qx = lx + fx.T @ Vx
        Qu = lu + fu.T @ Vx
        Qxx = lxx + fx.T @ Vxx @ fx
        Quu = luu + fu.T @ (Vxx + mu * torch.eye(2, dtype=f64)) @ fu
        Qux = lux + fu.T @ (Vxx + mu * torch.eye(2, dtype=f64)) @ fx
        Lq = torch.linalg.cholesky(Quu)
        k = -torch.cholesky_solve(Qu.unsqueeze(-1), Lq).squeeze(-1)
        K = -torch.cholesky_solve(Qux, Lq)
        Vx = Qx + K.T @ Quu @ k + K.T @ Qu + Qux.T @ k
        Vxx = Qxx + K.T @ Quu @ K + K.T @ Qux + Qux.T @ K
        Vxx = 0.5 * (Vxx + Vxx.T)
        ks.append(k)
        Ks.append(K)
    ks, Ks = ks[::-1], Ks[::-1]
    for alpha in (1.0, 0.5, 0.25, 0.125, 0.0625):
        x = x0
        new_xs, new_us = [x0], []
        for t in range(T):
            u = us[t] + alpha * ks[t] + Ks[t] @ (x - xs[t])
            x = dynamics(x, u)
            new_us.append(u)
            new_xs.append(x)
        new_xs, new_us = torch.stack(new_xs), torch.stack(new_us)
        J_new = total(new_xs, new_us)
        if J_new < J:
            break
    if J_new < J:
        improvement = (J - J_new).item()
        xs, us, J = new_xs, new_us, J_new
        mu = max(mu / 2, 1e-8)
        if improvement < 1e-6:
            break
    else:
        mu *= 10
    if it % 3 == 0:
        print(f"iter {it} cost {J.item():.3f} alpha {alpha}")
print("final cost", round(J.item(), 3), "final state", xs[-1].round(decimals=3).tolist())
print("max torque", round((U_MAX * torch.tanh(us / U_MAX)).abs().max().item(), 3))
print("reached upright", bool((xs[-1] - GOAL).abs().max() < 0.2))

# the same gradients by torch.func, batched over start states
fx_b, fu_b = torch.func.vmap(torch.func.jacfwd(dynamics, argnums=(0, 1)))(xs[:-1], us)
print("vmap jacfwd", fx_b.shape, fu_b.shape, torch.allclose(fx_b[3], jacobian(dynamics, (xs[3], us[3]))[0]))
starts = torch.tensor([[0.0, 0.0], [0.5, 0.0], [-0.5, 1.0]], dtype=f64)
rolled = torch.func.vmap(rollout, in_dims=(0, None))(starts, us)
print("batched rollouts", rolled.shape, rolled[:, -1].round(decimals=3).tolist())

# the open-loop plan by gradient descent on controls (shooting), for comparison
u_sh = torch.zeros(T, 1, dtype=f64, requires_grad=True)
opt = torch.optim.Adam([u_sh], lr=0.3)
for step in range(80):
    c = total(rollout(x0, u_sh), u_sh)
    opt.zero_grad()
    c.backward()
    opt.step()
print("shooting cost", round(c.item(), 1), "grad norm finite", torch.isfinite(u_sh.grad).all().item())
try:
    jacobian(dynamics, (xs[0], us[0]), strategy="sideways")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cholesky_solve(torch.ones(2, 1, dtype=f64), torch.eye(3, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.cholesky(-torch.eye(1, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
