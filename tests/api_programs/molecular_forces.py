"""machine-learned interatomic potentials: periodic minimum-image distances, neighbour lists under a cutoff,
radial basis expansions with a cosine cutoff, a SchNet-style continuous-filter convolution aggregated with
index_add, forces as -dE/dx through autograd.grad(create_graph=True), force matching (double backward), a
Lennard-Jones reference and velocity-Verlet dynamics with energy drift."""

import math

import numpy as np
import torch
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(9)
f64 = torch.float64


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


box = 4.0
grid = torch.stack(torch.meshgrid(*[torch.arange(2, dtype=f64)] * 3, indexing="ij"), -1).reshape(-1, 3)
pos0 = (grid + 0.5) * (box / 2) + torch.from_numpy(rng.standard_normal((8, 3)) * 0.08)
print("positions", pos0.shape, r(pos0[0]), r(pos0[-1]))


def minimum_image(pos, box):
    d = pos[:, None, :] - pos[None, :, :]
    return d - box * torch.round(d / box)


def lj_energy(pos, eps=1.0, sigma=1.0, rc=2.2):
    d = minimum_image(pos, box)
    r2 = (d**2).sum(-1)
    n = pos.shape[0]
    mask = ~torch.eye(n, dtype=torch.bool) & (r2 < rc**2)
    inv6 = (sigma**2 / r2.masked_fill(~mask, 1.0)) ** 3
    e = 4 * eps * (inv6**2 - inv6)
    shift = 4 * eps * ((sigma / rc) ** 12 - (sigma / rc) ** 6)
    return 0.5 * torch.where(mask, e - shift, torch.zeros_like(e)).sum()


pos = pos0.clone().requires_grad_(True)
E = lj_energy(pos)
(F,) = torch.autograd.grad(-E, pos)
print("LJ energy", round(E.item(), 6), "force sum", r(F.sum(0)), "max |F|", round(F.abs().max().item(), 4))
eps_fd = 1e-6
dp = torch.zeros_like(pos0)
dp[2, 1] = eps_fd
fd = -(lj_energy(pos0 + dp) - lj_energy(pos0 - dp)) / (2 * eps_fd)
print("finite difference", round(fd.item(), 5), round(F[2, 1].item(), 5))
dist = minimum_image(pos0, box).norm(dim=-1)
print("min-image distances", r(dist[0, 1:]), "cdist raw", r(torch.cdist(pos0, pos0)[0, 1:4]))
i_idx, j_idx = torch.nonzero((dist < 2.5) & (dist > 0), as_tuple=True)
print("neighbour pairs", i_idx.numel(), i_idx[:6].tolist(), j_idx[:6].tolist())
print("wrapped", r(torch.remainder(pos0 + 3.5, box)[0]), r(torch.fmod(pos0 - 3.5, box)[0]))


def rbf(d, n=8, rc=2.5):
    centers = torch.linspace(0, rc, n, dtype=d.dtype)
    gamma = 10.0
    cutoff = 0.5 * (torch.cos(math.pi * d / rc) + 1) * (d < rc)
    return torch.exp(-gamma * (d[..., None] - centers) ** 2) * cutoff[..., None]


class CFConv(nn.Module):
    def __init__(self, h, n_rbf):
        super().__init__()
        self.filt = nn.Sequential(nn.Linear(n_rbf, h), nn.Tanh(), nn.Linear(h, h))
        self.lin_in = nn.Linear(h, h, bias=False)
        self.lin_out = nn.Sequential(nn.Linear(h, h), nn.Tanh(), nn.Linear(h, h))

    def forward(self, x, i, j, e):
        msg = self.lin_in(x)[j] * self.filt(e)
        agg = torch.zeros_like(x).index_add(0, i, msg)
        return x + self.lin_out(agg)


class SchNet(nn.Module):
    def __init__(self, h=16, n_rbf=8, layers=2):
        super().__init__()
        self.embed = nn.Embedding(2, h)
        self.convs = nn.ModuleList(CFConv(h, n_rbf) for _ in range(layers))
        self.head = nn.Sequential(nn.Linear(h, h // 2), nn.Tanh(), nn.Linear(h // 2, 1))

    def forward(self, z, pos):
        d = minimum_image(pos, box)
        n = pos.shape[0]
        ii, jj = torch.triu_indices(n, n, 1)
        ii, jj = torch.cat([ii, jj]), torch.cat([jj, ii])
        dij = d[ii, jj].norm(dim=-1)
        e = rbf(dij)
        x = self.embed(z)
        for conv in self.convs:
            x = conv(x, ii, jj, e)
        return self.head(x).sum()


model = SchNet().double()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(p.shape)) * 0.3)
z = torch.tensor([0, 1, 0, 1, 1, 0, 1, 0])
p_t = pos0.clone().requires_grad_(True)
e_pred = model(z, p_t)
(f_pred,) = torch.autograd.grad(-e_pred, p_t, create_graph=True)
print(
    "schnet energy",
    round(e_pred.item(), 5),
    "forces",
    r(f_pred[0]),
    "net force",
    round(f_pred.sum(0).abs().max().item(), 8),
)
print("translation invariant", round(model(z, pos0 + 0.37).item(), 5))
perm = torch.tensor([1, 0, 3, 2, 5, 4, 7, 6])
print("permutation invariant", round(model(z[perm], pos0[perm]).item(), 5))
print("grad_fn", type(f_pred.grad_fn).__name__ if f_pred.grad_fn is not None else None, f_pred.requires_grad)

configs = [pos0 + torch.from_numpy(rng.standard_normal((8, 3)) * 0.05) for _ in range(4)]
targets = []
for c in configs:
    c = c.clone().requires_grad_(True)
    e_ref = lj_energy(c)
    targets.append((e_ref.detach(), -torch.autograd.grad(e_ref, c)[0]))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    total = torch.zeros((), dtype=f64)
    for c, (e_ref, f_ref) in zip(configs, targets):
        c = c.clone().requires_grad_(True)
        e_hat = model(z, c)
        (f_hat,) = torch.autograd.grad(-e_hat, c, create_graph=True)
        total = total + 0.01 * (e_hat - e_ref) ** 2 + ((f_hat - f_ref) ** 2).mean()
    opt.zero_grad()
    total.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    opt.step()
    print(f"force matching {step} loss {total.item():.5f} grad norm {gnorm.item():.4f}")

# hessian of the LJ energy at one atom, and velocity Verlet
hess = torch.autograd.functional.hessian(lambda x: lj_energy(torch.cat([pos0[:2], x.view(1, 3), pos0[3:]])), pos0[2])
print("hessian", hess.shape, r(hess, 9), torch.allclose(hess, hess.T))
mass, dt = 1.0, 0.002
x = pos0.clone()
v = torch.from_numpy(rng.standard_normal((8, 3)) * 0.3)
v = v - v.mean(0)


def force(x):
    x = x.clone().requires_grad_(True)
    e = lj_energy(x)
    return e.detach(), -torch.autograd.grad(e, x)[0]


e_pot, f = force(x)
e0 = e_pot + 0.5 * mass * (v**2).sum()
for step in range(50):
    v = v + 0.5 * dt * f / mass
    x = torch.remainder(x + dt * v, box)
    e_pot, f = force(x)
    v = v + 0.5 * dt * f / mass
    if step % 10 == 9:
        e_tot = e_pot + 0.5 * mass * (v**2).sum()
        temp = (v**2).sum() / (3 * 8 - 3)
        print(f"md {step + 1} E {e_tot.item():.6f} drift {abs(e_tot - e0).item():.2e} T {temp.item():.4f}")
print("momentum", r(v.sum(0)))
try:
    torch.autograd.grad(lj_energy(pos0), pos0)
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    torch.zeros(3, 2).index_add(0, torch.tensor([0, 3]), torch.ones(2, 2))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, str(e))
