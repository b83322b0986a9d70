"""Runge-Kutta ODE integration and sensitivities as in a numerical-methods course: fixed-step RK4 and adaptive
Dormand-Prince on a Lotka-Volterra system, convergence orders, the linear ODE against matrix_exp, parameter
gradients by backpropagating through the solver versus a hand-written adjoint (vector-Jacobian products with
torch.autograd.grad) versus forward sensitivities by torch.func.jacfwd, and fitting the parameters with Adam."""

import math

import numpy as np
import torch
from torch.func import jacfwd, jacrev, vmap

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


def lotka(t, y, theta):
    a, b, c, d = theta.unbind()
    x, z = y[..., 0], y[..., 1]
    return torch.stack([a * x - b * x * z, c * x * z - d * z], -1)


def rk4(f, y0, t, theta):
    ys = [y0]
    y = y0
    for i in range(t.numel() - 1):
        h = t[i + 1] - t[i]
        k1 = f(t[i], y, theta)
        k2 = f(t[i] + h / 2, y + h / 2 * k1, theta)
        k3 = f(t[i] + h / 2, y + h / 2 * k2, theta)
        k4 = f(t[i] + h, y + h * k3, theta)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys)


theta = torch.tensor([1.1, 0.4, 0.1, 0.4], dtype=f64)
y0 = torch.tensor([10.0, 10.0], dtype=f64)
t = torch.linspace(0, 10, 101, dtype=f64)
sol = rk4(lotka, y0, t, theta)
print("rk4", sol.shape, sol.dtype, "y(10)", r(sol[-1]))


# the conserved quantity of Lotka-Volterra
def invariant(y, th):
    a, b, c, d = th
    return c * y[..., 0] - d * torch.log(y[..., 0]) + b * y[..., 1] - a * torch.log(y[..., 1])


V = invariant(sol, theta)
print("invariant drift", f"{(V.max() - V.min()).item():.2e}" if (V.max() - V.min()) > 1e-6 else "tiny")

# convergence order on y' = -y cos t with y(t) = exp(-sin t)
errs = []
for n in (10, 20, 40, 80):
    tt = torch.linspace(0, 2, n + 1, dtype=f64)
    ys = rk4(lambda s, y, th: -y * torch.cos(s), torch.ones(1, dtype=f64), tt, None)
    errs.append((ys[-1, 0] - math.exp(-math.sin(2.0))).abs().item())
orders = [math.log2(errs[i] / errs[i + 1]) for i in range(3)]
print("rk4 orders", [round(o, 1) for o in orders])

# Dormand-Prince 5(4) with step-size control
A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
C = torch.tensor([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1], dtype=f64)
B5 = torch.tensor([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0], dtype=f64)
B4 = torch.tensor([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40], dtype=f64)


def dopri(f, y0, t0, t1, theta, rtol=1e-7, atol=1e-9):
    t_, y, h = t0, y0, 0.1
    accepted = rejected = 0
    while t_ < t1 - 1e-12:
        h = min(h, t1 - t_)
        ks = []
        for i in range(7):
            yi = y + h * sum(a * k for a, k in zip(A[i], ks)) if i else y
            ks.append(f(t_ + C[i] * h, yi, theta))
        K = torch.stack(ks)
        y5 = y + h * torch.einsum("s,s...->...", B5, K)
        y4 = y + h * torch.einsum("s,s...->...", B4, K)
        scale = atol + rtol * torch.maximum(y.abs(), y5.abs())
        err = torch.sqrt(torch.mean(((y5 - y4) / scale) ** 2)).item()
        if err <= 1.0:
            t_, y = t_ + h, y5
            accepted += 1
        else:
            rejected += 1
        h = h * min(5.0, max(0.2, 0.9 * (err + 1e-16) ** -0.2))
    return y, accepted, rejected


y_dp, acc, rej = dopri(lotka, y0, 0.0, 10.0, theta)
print("dopri y(10)", r(y_dp, nd=3), "steps", acc > 20, "rejected some", rej >= 0)
print("rk4 vs dopri", round((y_dp - sol[-1]).abs().max().item(), 3))

# linear ODE y' = M y: exact solution by matrix_exp
M = torch.tensor([[-0.5, 1.0, 0.0], [-1.0, -0.5, 0.2], [0.0, 0.0, -0.1]], dtype=f64)
x0 = torch.tensor([1.0, 0.0, 2.0], dtype=f64)
tl = torch.linspace(0, 3, 31, dtype=f64)
num = rk4(lambda s, y, th: y @ M.T, x0, tl, None)
exact = torch.linalg.matrix_exp(M * 3.0) @ x0
print("matrix_exp", r(exact), "rk4 err", f"{(num[-1] - exact).abs().max().item():.1e}")
batch_exp = torch.matrix_exp(M[None] * tl[:4, None, None])
print("batched matrix_exp", batch_exp.shape, "t=0 is I", torch.allclose(batch_exp[0], torch.eye(3, dtype=f64)))
evals = torch.linalg.eigvals(M)
print("eigvals", evals.dtype, sorted(np.round(evals.real.numpy(), 3).tolist()))

# gradients of a loss on the final state: backprop through the solver
tg = torch.linspace(0, 5, 41, dtype=f64)
th = theta.clone().requires_grad_(True)
yT = rk4(lotka, y0, tg, th)[-1]
loss = (yT**2).sum()
(g_bp,) = torch.autograd.grad(loss, th)
print("backprop grad", r(g_bp, nd=3))


# discrete adjoint: lambda_N = dL/dy_N, lambda_i = lambda_{i+1} d step/dy, dL/dtheta += lambda_{i+1} d step/dtheta
def step(y, th_, i):
    return rk4(lotka, y, tg[i : i + 2], th_)[-1]


with torch.no_grad():
    traj = rk4(lotka, y0, tg, theta)
lam = 2 * traj[-1]
g_adj = torch.zeros(4, dtype=f64)
for i in reversed(range(tg.numel() - 1)):
    y_i = traj[i].clone().requires_grad_(True)
    th_i = theta.clone().requires_grad_(True)
    out = step(y_i, th_i, i)
    gy, gth = torch.autograd.grad(out, (y_i, th_i), grad_outputs=lam)
    lam, g_adj = gy, g_adj + gth
print("adjoint grad", r(g_adj, nd=3), "match", torch.allclose(g_adj, g_bp, rtol=1e-8))
print("dL/dy0", r(lam, nd=3))

# forward sensitivities with jacfwd, and jacrev agreeing
tf = torch.linspace(0, 2, 17, dtype=f64)
final = lambda th_: rk4(lotka, y0, tf, th_)[-1]
Jf = jacfwd(final)(theta)
Jr = jacrev(final)(theta)
print("sensitivity", Jf.shape, r(Jf, 8, 3), "fwd == rev", torch.allclose(Jf, Jr, atol=1e-9))
y0s = torch.tensor([[10.0, 10.0], [5.0, 8.0], [12.0, 3.0]], dtype=f64)
finals = vmap(lambda y: rk4(lotka, y, tf, theta)[-1])(y0s)
print("vmap over initial states", finals.shape, r(finals[1], nd=3))

# recover theta from noisy observations
rng = np.random.default_rng(2)
tobs = torch.linspace(0, 4, 21, dtype=f64)
obs = rk4(lotka, y0, tobs, theta) * torch.from_numpy(np.exp(0.02 * rng.standard_normal((21, 2))))
log_th = torch.log(torch.tensor([1.0, 0.5, 0.15, 0.5], dtype=f64)).requires_grad_(True)
opt = torch.optim.Adam([log_th], lr=0.03)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
for it in range(40):
    opt.zero_grad()
    pred = rk4(lotka, y0, tobs, log_th.exp())
    loss = ((pred.log() - obs.log()) ** 2).mean()
    loss.backward()
    opt.step()
    sched.step()
    if it % 20 == 0:
        print("fit", it, round(loss.item(), 4), "lr", sched.get_last_lr())
print("recovered", r(log_th.exp(), nd=2), "true", theta.tolist())

try:
    torch.linalg.matrix_exp(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad((yT**2).sum(), th)
except Exception as e:
    print(type(e).__name__, str(e)[:90])
