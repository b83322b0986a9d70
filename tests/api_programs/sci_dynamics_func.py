"""Dynamical-systems research code on torch.func: a pendulum and a Henon-Heiles Hamiltonian with torch.func.grad,
leapfrog vs explicit Euler energy drift, the Lorenz system's largest Lyapunov exponent by propagating tangent vectors
with jvp and QR re-orthonormalisation, Jacobians and their eigenvalues at fixed points (jacfwd, vmap over many
points), linearize, vjp with a cotangent, the grad_fn graphs that scientific ops leave behind, and the monodromy
matrix of a periodic orbit (matrix_exp of a constant system)."""

import math

import numpy as np
import torch
from torch.func import grad, jacfwd, jacrev, jvp, linearize, vjp, vmap

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


# Henon-Heiles: H = (px^2 + py^2)/2 + (x^2 + y^2)/2 + x^2 y - y^3/3
def H(state):
    x, y, px, py = state.unbind(-1)
    return 0.5 * (px**2 + py**2) + 0.5 * (x**2 + y**2) + x**2 * y - y**3 / 3


def V(q):
    x, y = q.unbind(-1)
    return 0.5 * (x**2 + y**2) + x**2 * y - y**3 / 3


s0 = torch.tensor([0.0, 0.1, 0.35, 0.0], dtype=f64)
print("H(s0)", round(H(s0).item(), 6), "grad H", r(grad(H)(s0)))
J = torch.tensor([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0, 0], [0, -1, 0, 0]], dtype=f64)


def flow(s):
    return J @ grad(H)(s)


def euler(s, dt, n):
    for _ in range(n):
        s = s + dt * flow(s)
    return s


def leapfrog(s, dt, n):
    q, p = s[:2], s[2:]
    for _ in range(n):
        p = p - 0.5 * dt * grad(V)(q)
        q = q + dt * p
        p = p - 0.5 * dt * grad(V)(q)
    return torch.cat([q, p])


for name, integ in (("euler", euler), ("leapfrog", leapfrog)):
    sT = integ(s0, 0.05, 200)
    print(name, "energy drift", f"{abs(H(sT) - H(s0)).item():.1e}", "state", r(sT, 4, 3))
JM = jacfwd(lambda s: leapfrog(s, 0.05, 20))(s0)
print(
    "leapfrog map symplectic",
    torch.allclose(JM.T @ J @ JM, J, atol=1e-10),
    "det",
    round(torch.linalg.det(JM).item(), 8),
)

# Lorenz and its largest Lyapunov exponent
sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0


def lorenz(u):
    x, y, z = u.unbind(-1)
    return torch.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z], -1)


def rk4_step(u, dt=0.01):
    k1 = lorenz(u)
    k2 = lorenz(u + 0.5 * dt * k1)
    k3 = lorenz(u + 0.5 * dt * k2)
    k4 = lorenz(u + dt * k3)
    return u + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


u = torch.tensor([1.0, 1.0, 1.0], dtype=f64)
for _ in range(300):
    u = rk4_step(u)
v = torch.tensor([1.0, 0.0, 0.0], dtype=f64)
log_growth = 0.0
steps = 300
for i in range(steps):
    u, v = jvp(rk4_step, (u,), (v,))
    nv = v.norm()
    log_growth += math.log(nv.item())
    v = v / nv
lyap = log_growth / (steps * 0.01)
print("largest Lyapunov exponent positive", lyap > 0, "on attractor", bool(u[2] > 0))

# full spectrum with QR (Benettin)
Q = torch.eye(3, dtype=f64)
u2 = u.clone()
sums = torch.zeros(3, dtype=f64)
for i in range(200):
    Jk = jacfwd(rk4_step)(u2)
    u2 = rk4_step(u2)
    Q, R = torch.linalg.qr(Jk @ Q)
    sums += torch.log(torch.abs(torch.diagonal(R)))
spec = sums / (200 * 0.01)
print(
    "spectrum signs",
    [int(torch.sign(x).item()) if abs(x) > 0.3 else 0 for x in spec],
    "sum ~ -(sigma+1+beta)",
    round(spec.sum().item(), 1),
)

# fixed points and their stability
c = math.sqrt(beta * (rho - 1))
fps = torch.tensor([[0.0, 0.0, 0.0], [c, c, rho - 1], [-c, -c, rho - 1]], dtype=f64)
print("fixed points residual", float(vmap(lorenz)(fps).abs().max()) < 1e-12)
Js = vmap(jacfwd(lorenz))(fps)
print("jacobians", Js.shape, "jacrev agrees", torch.allclose(Js, vmap(jacrev(lorenz))(fps)))
for k in range(3):
    ev = torch.linalg.eigvals(Js[k])
    print(
        "fixed point", k, "max Re", round(ev.real.max().item(), 4), "complex pair", bool((ev.imag.abs() > 1e-9).any())
    )

# linearize and vjp
val, jvp_fn = linearize(lorenz, fps[1] + 0.5)
print("linearize", r(val, 3), r(jvp_fn(torch.tensor([1.0, 0.0, 0.0], dtype=f64)), 3))
out, vjp_fn = vjp(lorenz, fps[1] + 0.5)
(ct,) = vjp_fn(torch.tensor([0.0, 1.0, 0.0], dtype=f64))
print("vjp row", r(ct, 3), "== jacobian row", torch.allclose(ct, jacfwd(lorenz)(fps[1] + 0.5)[1]))

# pendulum period by quadrature vs simulation
theta0 = 1.0
phis = torch.linspace(0, math.pi / 2, 2001, dtype=f64)
k = math.sin(theta0 / 2)
T_exact = 4 * torch.trapezoid(1 / torch.sqrt(1 - k**2 * torch.sin(phis) ** 2), phis)
print("pendulum period", round(T_exact.item(), 5), "small-angle", round(2 * math.pi, 5))
th, om, t, dt = torch.tensor(theta0, dtype=f64), torch.tensor(0.0, dtype=f64), 0.0, 0.001
crossings = []
prev = om.item()
while len(crossings) < 2:
    om = om - dt * torch.sin(th)
    th = th + dt * om
    t += dt
    if prev < 0 <= om.item():
        crossings.append(t)
    prev = om.item()
print("simulated period", round(crossings[1] - crossings[0], 2))

# the graphs scientific ops leave behind
w = torch.linspace(0, 1, 9, dtype=f64).requires_grad_(True)
for label, y in (
    ("trapezoid", torch.trapezoid(w**2)),
    ("trapezoid x", torch.trapezoid(w**2, w.detach())),
    ("cumulative_trapezoid", torch.cumulative_trapezoid(w)),
    ("rfft", torch.fft.rfft(w)),
    ("irfft", torch.fft.irfft(torch.fft.rfft(w), n=9)),
    ("nanmean", w.nanmean()),
    ("matrix_exp", torch.linalg.matrix_exp(w[:4].view(2, 2))),
    (
        "solve_triangular",
        torch.linalg.solve_triangular(
            torch.eye(3, dtype=f64) + w[:9].view(3, 3).triu(), torch.ones(3, 1, dtype=f64), upper=True
        ),
    ),
    ("cdist mm", torch.cdist(w[:8].view(4, 2), w[:8].view(4, 2), compute_mode="use_mm_for_euclid_dist")),
):
    if label.startswith("cdist"):  # PyTorch's _euclidean_dist under a view
        print("  next:", [type(f).__name__ for f, _ in y.grad_fn.next_functions])
    print(f"{label}: {y.grad_fn.name()}")
d = torch.cdist(w[:8].view(4, 2), w[:8].view(4, 2), compute_mode="use_mm_for_euclid_dist")
print("cdist mm diagonal", d.diagonal().tolist())
(gw,) = torch.autograd.grad(d.sum(), w)
print("cdist mm grad finite", bool(torch.isfinite(gw).all()), r(gw, 8, 4))

# monodromy of the harmonic oscillator over one period: identity
A = torch.tensor([[0.0, 1.0], [-4.0, 0.0]], dtype=f64)
Mono = torch.linalg.matrix_exp(A * math.pi)
print(
    "monodromy ~ I",
    torch.allclose(Mono, torch.eye(2, dtype=f64), atol=1e-12),
    "floquet",
    r(torch.linalg.eigvals(Mono).abs(), 2, 6),
)

try:
    jvp(rk4_step, (u,), (v.float(),))
except Exception as e:
    print(type(e).__name__, str(e)[:100])
try:
    grad(lorenz)(u)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
