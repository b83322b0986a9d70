"""Harmonic vibrational analysis of a small molecule on a hand-written force field: the Hessian by
torch.autograd.functional.hessian, torch.func.hessian and jacrev of forces, mass weighting with
repeat_interleave, eigh for normal modes with the six zero modes of translation and rotation projected out,
frequencies in wavenumbers, a vmap over displaced geometries, and a Newton geometry optimisation with lstsq."""

import math

import torch
from torch.func import hessian, jacrev, vmap

torch.manual_seed(0)
dt = torch.float64

# water: O, H, H  (bond k, angle k)
masses = torch.tensor([15.999, 1.008, 1.008], dtype=dt)
r0, th0, kb, ka = 0.9572, math.radians(104.52), 1100.0, 100.0


def energy(x):
    x = x.reshape(3, 3)
    v1, v2 = x[1] - x[0], x[2] - x[0]
    r1, r2 = torch.linalg.vector_norm(v1), torch.linalg.vector_norm(v2)
    cos = torch.dot(v1, v2) / (r1 * r2)
    th = torch.acos(cos.clamp(-1 + 1e-12, 1 - 1e-12))
    return 0.5 * kb * ((r1 - r0) ** 2 + (r2 - r0) ** 2) + 0.5 * ka * (th - th0) ** 2


x0 = torch.tensor([[0.0, 0.0, 0.1], [0.76, 0.0, -0.5], [-0.74, 0.05, -0.52]], dtype=dt).reshape(-1)
print("E0", round(energy(x0).item(), 4))

# Newton steps with a pseudo-inverse (the Hessian is singular: 6 zero modes)
x = x0.clone()
for it in range(6):
    g = torch.func.grad(energy)(x)
    H = hessian(energy)(x)
    step = torch.linalg.lstsq(H, -g.unsqueeze(-1), rcond=1e-8, driver="gelsd").solution.squeeze(-1)
    x = x + step
    print("newton", it, round(energy(x).item(), 8), round(g.norm().item(), 6))
xe = x.reshape(3, 3)
print("r", torch.linalg.vector_norm(xe[1:] - xe[0], dim=-1).round(decimals=4).tolist())

H1 = torch.autograd.functional.hessian(energy, x)
H2 = hessian(energy)(x)
H3 = -jacrev(lambda y: -torch.func.grad(energy)(y))(x)
H4 = torch.autograd.functional.hessian(energy, x, vectorize=True, outer_jacobian_strategy="forward-mode")
print("hessians agree", torch.allclose(H1, H2), torch.allclose(H1, H3), torch.allclose(H1, H4))
print("symmetric", torch.allclose(H1, H1.T), H1.shape)

# mass-weighted Hessian and the projector removing translations and rotations
m3 = masses.repeat_interleave(3)
Hmw = H1 / torch.sqrt(m3[:, None] * m3[None, :])
com = (masses[:, None] * xe).sum(0) / masses.sum()
rc = xe - com
D = torch.zeros(6, 9, dtype=dt)
sm = masses.sqrt()
for k in range(3):
    D[k, k::3] = sm
for k in range(3):
    axis = torch.zeros(3, dtype=dt)
    axis[k] = 1.0
    D[3 + k] = (torch.linalg.cross(axis.expand(3, 3), rc, dim=-1) * sm[:, None]).reshape(-1)
Q, _ = torch.linalg.qr(D.T)
P = torch.eye(9, dtype=dt) - Q @ Q.T
Hp = P @ Hmw @ P
evals, evecs = torch.linalg.eigh(Hp)
print("eigvals", torch.where(evals.abs() < 1e-6, torch.zeros((), dtype=dt), evals).round(decimals=4).tolist())
internal = evals[evals.abs() > 1e-6]
to_cm = math.sqrt(4184.0 / 6.02214076e23 / 1e-20 / 1.66053907e-27) / (2 * math.pi * 2.99792458e10)
freqs = internal.sqrt() * to_cm
print("n modes", internal.numel(), "freqs", freqs.round(decimals=1).tolist())
print("orthonormal", torch.allclose(evecs.T @ evecs, torch.eye(9, dtype=dt), atol=1e-10))
mode = (evecs[:, -1] / m3.sqrt()).reshape(3, 3)
print("stretch mode", (mode / mode.norm()).round(decimals=3).tolist())

# energies of displaced geometries along each internal mode, batched with vmap
amps = torch.linspace(-0.05, 0.05, 5, dtype=dt)
modes = evecs[:, evals.abs() > 1e-6].T / m3.sqrt()
disp = x + amps[:, None, None] * modes[None]
Eb = vmap(vmap(energy))(disp)
print("scan", tuple(Eb.shape), (Eb - energy(x)).round(decimals=6)[:, 0].tolist())
quad = 0.5 * amps ** 2 * internal[0] * 1.0
print("harmonic",
      torch.allclose((Eb - energy(x))[:, 0], quad * (modes[0] * m3.sqrt()).norm() ** 2, rtol=5e-2, atol=1e-6))
