"""A Lennard-Jones cluster studied as a computational chemist would: pair distances by cdist and pdist with
triu_indices, energies and forces by autograd, geometry optimisation with LBFGS and with FIRE-style steepest descent,
the Hessian by torch.func.hessian and torch.autograd.functional.hessian, normal modes from eigh (six zero modes),
vmap over a batch of perturbed geometries, a Morse potential fitted with Adam, and the radius of gyration and
inertia tensor."""

import numpy as np
import torch
from torch.func import grad, hessian, jacrev, vmap

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
rng = np.random.default_rng(21)


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


# a 7-atom cluster: pentagonal bipyramid plus noise
ang = torch.arange(5, dtype=f64) * (2 * torch.pi / 5)
ring = torch.stack([torch.cos(ang), torch.sin(ang), torch.zeros(5, dtype=f64)], 1) * 1.2
caps = torch.tensor([[0.0, 0.0, 0.75], [0.0, 0.0, -0.75]], dtype=f64)
pos0 = torch.cat([ring, caps]) + torch.from_numpy(0.05 * rng.standard_normal((7, 3)))
n = pos0.shape[0]
print("cluster", pos0.shape, pos0.dtype)

iu = torch.triu_indices(n, n, offset=1)
print("pairs", iu.shape, iu.dtype, iu[:, :4].tolist())


def lj(pos, eps=1.0, sigma=1.0):
    d = torch.cdist(pos, pos)[iu[0], iu[1]]
    sr6 = (sigma / d) ** 6
    return 4 * eps * (sr6**2 - sr6).sum()


def lj_diff(pos):
    # explicit differences: cdist has no forward-mode derivative in PyTorch, so jacfwd-based hessians need this
    diff = pos[iu[0]] - pos[iu[1]]
    d2 = (diff * diff).sum(-1)
    return 4 * (d2**-6 - d2**-3).sum()


def lj_pdist(pos):
    d = torch.pdist(pos)
    return 4 * ((1 / d) ** 12 - (1 / d) ** 6).sum()


d_c = torch.cdist(pos0, pos0)[iu[0], iu[1]]
d_p = torch.pdist(pos0)
print("pdist == cdist upper", torch.allclose(d_c, d_p), d_p.shape, "min", round(d_p.min().item(), 4))
print(
    "cdist euclid mm vs donot",
    torch.allclose(
        torch.cdist(pos0, pos0, compute_mode="use_mm_for_euclid_dist"),
        torch.cdist(pos0, pos0, compute_mode="donot_use_mm_for_euclid_dist"),
        atol=1e-6,
    ),
)
E0 = lj(pos0)
print(
    "E0", round(E0.item(), 4), "pdist energy", round(lj_pdist(pos0).item(), 4), "diff", round(lj_diff(pos0).item(), 4)
)

pos = pos0.clone().requires_grad_(True)
E = lj(pos)
(g,) = torch.autograd.grad(E, pos)
print("forces", r(-g), "net force ~0", bool((-g).sum(0).abs().max() < 1e-10))
g2 = pos.new_zeros(pos.shape)
pos_pd = pos0.clone().requires_grad_(True)
lj_pdist(pos_pd).backward()
print("pdist grad matches", torch.allclose(pos_pd.grad, g))
gf = grad(lj)(pos0)
print("func.grad matches", torch.allclose(gf, g))
# torque-free: sum r x F = 0 for a central potential
torque = torch.linalg.cross(pos0, -g).sum(0)
print("net torque ~0", bool(torque.abs().max() < 1e-10))

# optimisation with LBFGS
x = pos0.clone().requires_grad_(True)
opt = torch.optim.LBFGS(
    [x], lr=1.0, max_iter=200, tolerance_grad=1e-10, tolerance_change=1e-14, line_search_fn="strong_wolfe"
)


def closure():
    opt.zero_grad()
    e = lj(x)
    e.backward()
    return e


opt.step(closure)
E_min = lj(x).item()
print("LBFGS minimum", round(E_min, 4), "|grad| small", bool(x.grad.norm() < 1e-4))
state = opt.state[opt._params[0]]
print("lbfgs state keys", sorted(k for k in state.keys()))
xm = x.detach()

# FIRE-like damped dynamics
y = pos0.clone()
v = torch.zeros_like(y)
dt = 0.01
for step in range(300):
    f = -grad(lj)(y)
    power = (f * v).sum()
    v = torch.where(power > 0, 0.9 * v + 0.1 * f.norm() * v / (v.norm() + 1e-12), torch.zeros_like(v))
    v = v + dt * f
    y = y + dt * v
print("damped dynamics energy", round(lj(y).item(), 3), "close to LBFGS", abs(lj(y).item() - E_min) < 0.05)

# Hessian, two ways, and normal modes
flat = xm.reshape(-1)
Hf = hessian(lambda z: lj_diff(z.view(n, 3)))(flat)
Ha = torch.autograd.functional.hessian(lambda z: lj_diff(z.view(n, 3)), flat)
print(
    "hessian",
    Hf.shape,
    "func == functional",
    torch.allclose(Hf, Ha, atol=1e-8),
    "symmetric",
    torch.allclose(Hf, Hf.T, atol=1e-8),
)
w, V = torch.linalg.eigh(Hf)
print("zero modes", int((w.abs() < 1e-5).sum()), "positive modes", int((w > 1e-5).sum()))
print("lowest nonzero freqs", np.round(w[6:9].clamp_min(0).sqrt().numpy(), 3).tolist())
print("eigvec orthonormal", torch.allclose(V.T @ V, torch.eye(3 * n, dtype=f64), atol=1e-10))
Jr = jacrev(grad(lambda z: lj_diff(z.view(n, 3))))(flat)
print("jacrev(grad) == hessian", torch.allclose(Jr, Hf, atol=1e-8))

# batch of perturbed geometries with vmap
pert = xm + torch.from_numpy(0.02 * rng.standard_normal((5, n, 3)))
Eb = vmap(lj)(pert)
Fb = -vmap(grad(lj))(pert)
print("vmap energies", r(Eb, 5, 3), "all above min", bool((Eb > E_min).all()))
print("vmap forces", Fb.shape, "match loop", torch.allclose(Fb[2], -grad(lj)(pert[2])))
harm = 0.5 * torch.einsum("bi,ij,bj->b", (pert - xm).reshape(5, -1), Hf, (pert - xm).reshape(5, -1)) + E_min
print("harmonic approx err", round(float((harm - Eb).abs().max()), 3))

# geometry descriptors
com = xm.mean(0)
rel = xm - com
rg = rel.pow(2).sum(1).mean().sqrt()
inertia = torch.eye(3, dtype=f64) * rel.pow(2).sum() - rel.T @ rel
print("radius of gyration", round(rg.item(), 4), "principal moments", r(torch.linalg.eigvalsh(inertia), 3, 3))
dist_sorted, order = torch.sort(torch.pdist(xm))
print("bond lengths", r(dist_sorted[:4], 4, 3), "coordination", int((torch.pdist(xm) < 1.3).sum()))

# fit a Morse potential to the LJ pair curve
rr = torch.linspace(0.95, 2.5, 40, dtype=f64)
target = 4 * (rr**-12 - rr**-6)
params = torch.tensor([1.0, 1.5, 1.1], dtype=f64, requires_grad=True)  # D, a, r0
opt = torch.optim.Adam([params], lr=0.02)
for it in range(300):
    D, a, r0 = params
    morse = D * ((1 - torch.exp(-a * (rr - r0))) ** 2 - 1)
    loss = torch.nn.functional.mse_loss(morse, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("morse fit", r(params, nd=2), "loss", round(loss.item(), 3))

# typical mistakes
try:
    torch.cdist(pos0, pos0[:, :2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.pdist(pos0[None])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.triu_indices(3, 3, dtype=torch.float32)
except Exception as e:
    print(type(e).__name__, e)
