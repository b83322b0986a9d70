"""Linear-quadratic regulation as control code writes it: zero-order-hold discretisation through the block
matrix_exp, controllability through matrix_power and matrix_rank, the discrete Riccati equation iterated to a
fixed point, the gain by linalg.solve, closed-loop poles from linalg.eigvals, a Lyapunov equation solved with kron,
finite-horizon time-varying gains, batched LQR over masses, and rollouts of a double integrator and a cart-pole."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def c2d(A, B, dt):
    n, m = A.shape[0], B.shape[1]
    M = torch.zeros(n + m, n + m, dtype=A.dtype)
    M[:n, :n] = A
    M[:n, n:] = B
    E = torch.linalg.matrix_exp(M * dt)
    return E[:n, :n], E[:n, n:]


def dare(A, B, Q, R, iters=500, tol=1e-10):
    P = Q.clone()
    for i in range(iters):
        BtP = B.mT @ P
        K = torch.linalg.solve(R + BtP @ B, BtP @ A)
        P_new = Q + A.mT @ P @ (A - B @ K)
        P_new = 0.5 * (P_new + P_new.mT)
        if torch.max(torch.abs(P_new - P)) < tol:
            return P_new, K, i
        P = P_new
    return P, K, iters


# double integrator
A = torch.tensor([[0.0, 1.0], [0.0, 0.0]], dtype=f64)
B = torch.tensor([[0.0], [1.0]], dtype=f64)
Ad, Bd = c2d(A, B, 0.1)
print("Ad", Ad.round(decimals=6).tolist(), "Bd", Bd.round(decimals=6).tolist())
ctrb = torch.cat([torch.linalg.matrix_power(Ad, k) @ Bd for k in range(2)], 1)
print("controllable", torch.linalg.matrix_rank(ctrb).item() == 2, torch.linalg.det(ctrb).round(decimals=6).item())
Q, R = torch.diag(torch.tensor([1.0, 0.1], dtype=f64)), torch.tensor([[0.01]], dtype=f64)
P, K, n_it = dare(Ad, Bd, Q, R)
print("P", P.round(decimals=4).tolist(), "K", K.round(decimals=4).tolist(), "converged", n_it < 500)
resid = Ad.mT @ P @ Ad - P - Ad.mT @ P @ Bd @ torch.linalg.inv(R + Bd.mT @ P @ Bd) @ Bd.mT @ P @ Ad + Q
print("riccati residual", round(resid.abs().max().item(), 8))
poles = torch.linalg.eigvals(Ad - Bd @ K)
print("poles", poles.dtype, poles.abs().round(decimals=4).tolist(), "stable", bool((poles.abs() < 1).all()))
print("cholesky of P ok", torch.linalg.cholesky_ex(P).info.item() == 0)

# Lyapunov: Acl^T X Acl - X + Q = 0 via kron
Acl = Ad - Bd @ K
n = Acl.shape[0]
vecX = torch.linalg.solve(torch.eye(n * n, dtype=f64) - torch.kron(Acl.mT, Acl.mT), Q.reshape(-1))
X = vecX.reshape(n, n)
print("lyapunov residual", round((Acl.mT @ X @ Acl - X + Q).abs().max().item(), 8))
x0 = torch.tensor([1.0, 0.0], dtype=f64)
print("cost-to-go x0^T X x0", round((x0 @ X @ x0).item(), 4))

# finite-horizon backward recursion, gains stacked
N = 30
Ps, Ks = [Q], []
for t in range(N):
    Pn = Ps[-1]
    Kt = torch.linalg.solve(R + Bd.mT @ Pn @ Bd, Bd.mT @ Pn @ Ad)
    Ps.append(Q + Ad.mT @ Pn @ (Ad - Bd @ Kt))
    Ks.append(Kt)
Ks = torch.stack(Ks[::-1])
print("finite gains", Ks.shape, Ks[0].round(decimals=4).tolist(), Ks[-1].round(decimals=4).tolist())

x = x0.clone()
xs, us = [x], []
for t in range(N):
    u = -(Ks[t] @ x)
    x = Ad @ x + Bd @ u
    xs.append(x)
    us.append(u)
xs = torch.stack(xs)
us = torch.cat(us)
print("rollout final", xs[-1].round(decimals=4).tolist(), "max |u|", round(us.abs().max().item(), 4))
cost = torch.einsum("ti,ij,tj->", xs[:-1], Q, xs[:-1]) + (us * us).sum() * R.item()
print("rollout cost", round(cost.item(), 4))

# batched gains over several masses: B = [0, 1/m]
masses = torch.tensor([0.5, 1.0, 2.0, 4.0], dtype=f64)
Bb = torch.zeros(4, 2, 1, dtype=f64)
Bb[:, 1, 0] = 0.1 / masses
Ab = Ad.expand(4, 2, 2)
Pb = Q.expand(4, 2, 2).clone()
for _ in range(400):
    Kb = torch.linalg.solve(R + Bb.mT @ Pb @ Bb, Bb.mT @ Pb @ Ab)
    Pb = Q + Ab.mT @ Pb @ (Ab - Bb @ Kb)
print("batched K", Kb.squeeze(1).round(decimals=3).tolist())
print("batched poles |.|", torch.linalg.eigvals(Ab - Bb @ Kb).abs().amax(-1).round(decimals=4).tolist())

# linearised cart-pole (x, xdot, theta, thetadot)
g, mc, mp, l = 9.81, 1.0, 0.1, 0.5
Ac = torch.tensor([[0, 1, 0, 0], [0, 0, -mp * g / mc, 0], [0, 0, 0, 1], [0, 0, (mc + mp) * g / (mc * l), 0]], dtype=f64)
Bc = torch.tensor([[0], [1 / mc], [0], [-1 / (mc * l)]], dtype=f64)
Acd, Bcd = c2d(Ac, Bc, 0.02)
open_loop = torch.linalg.eigvals(Acd)
print("open-loop unstable", bool((open_loop.abs() > 1).any()), open_loop.abs().max().round(decimals=4).item())
Pc, Kc, _ = dare(Acd, Bcd, torch.diag(torch.tensor([1.0, 1.0, 10.0, 1.0], dtype=f64)), torch.eye(1, dtype=f64) * 0.1,
                 iters=5000)
print("cart-pole K", Kc.round(decimals=3).tolist())
print("closed-loop spectral radius", torch.linalg.eigvals(Acd - Bcd @ Kc).abs().max().round(decimals=4).item())
try:
    torch.linalg.matrix_exp(torch.zeros(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_power(Ad, -1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.eigvals(torch.zeros(3, 2))
except Exception as e:
    print(type(e).__name__, e)
print("matrix_power -1", torch.allclose(torch.linalg.matrix_power(Ad, -1), torch.linalg.inv(Ad)))
