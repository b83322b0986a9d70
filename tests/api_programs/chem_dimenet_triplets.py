"""Directional message passing (DimeNet-style) by hand: triplets k->j->i built from edge lists with
repeat_interleave over CSR counts, bond angles by atan2(|a x b|, a.b), a radial Bessel basis with an envelope,
spherical Bessel j0 / sinc and Legendre polynomials from torch.special for the angular basis, torsions from
cross products, and a triplet interaction aggregated with index_add and its gradients."""

import math

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
dt = torch.float64

# propane-like backbone with hydrogens: 0-1-2 carbons, hydrogens 3..7
pos = torch.tensor([[0.0, 0.0, 0.0], [1.52, 0.0, 0.0], [2.03, 1.43, 0.0], [-0.36, -1.02, 0.1],
                    [-0.38, 0.5, 0.88], [1.9, -0.52, -0.89], [1.65, 1.96, 0.88], [3.12, 1.43, 0.05]], dtype=dt)
bonds = [(0, 1), (1, 2), (0, 3), (0, 4), (1, 5), (2, 6), (2, 7)]
i_, j_ = zip(*bonds)
src = torch.tensor(i_ + j_)  # j (source)
dst = torch.tensor(j_ + i_)  # i (target)
order = torch.argsort(dst, stable=True)
src, dst = src[order], dst[order]
E = src.numel()
print("edges", E, dst.tolist())

# triplets: for edge (j->i) take every edge (k->j) with k != i
deg_in = torch.bincount(dst, minlength=8)
ptr = torch.cat([torch.zeros(1, dtype=torch.long), deg_in.cumsum(0)])
n_kj = deg_in[src]                                   # edges arriving at j
idx_ji = torch.repeat_interleave(torch.arange(E), n_kj)
start = ptr[src].repeat_interleave(n_kj)
within = torch.arange(idx_ji.numel()) - torch.repeat_interleave(torch.cumsum(n_kj, 0) - n_kj, n_kj)
idx_kj = start + within
keep = src[idx_kj] != dst[idx_ji]
idx_ji, idx_kj = idx_ji[keep], idx_kj[keep]
print("triplets", idx_ji.numel(), idx_ji[:6].tolist(), idx_kj[:6].tolist())

vec = pos[dst] - pos[src]                           # j -> i
dist = vec.norm(dim=-1)
a = vec[idx_ji]
b = -vec[idx_kj]                                    # j -> k
cosang = (a * b).sum(-1)
sinang = torch.linalg.cross(a, b).norm(dim=-1)
angle = torch.atan2(sinang, cosang)
print("angles deg", torch.rad2deg(angle).round(decimals=2)[:6].tolist())
print("acos agrees", torch.allclose(angle, torch.acos((cosang / (a.norm(dim=-1) * b.norm(dim=-1))).clamp(-1, 1))))

# radial Bessel basis with polynomial envelope (p = 6)
cutoff, p = 5.0, 6
x = dist / cutoff
env = 1 - (p + 1) * (p + 2) / 2 * x ** p + p * (p + 2) * x ** (p + 1) - p * (p + 1) / 2 * x ** (p + 2)
freq = torch.arange(1, 7, dtype=dt) * math.pi
rbf = env[:, None] * math.sqrt(2 / cutoff) * torch.sin(freq * x[:, None]) / dist[:, None]
print("rbf", tuple(rbf.shape), rbf[0].round(decimals=4).tolist())
print("sinc form",
      torch.allclose(torch.sin(freq * x[:, None]) / (freq * x[:, None]),
                     torch.special.sinc(freq * x[:, None] / math.pi)))
print("j0", torch.special.spherical_bessel_j0(freq * x[0]).round(decimals=4).tolist())

# angular basis: Legendre P_l(cos theta) for l = 0..3
c = torch.cos(angle)
P = torch.stack([torch.special.legendre_polynomial_p(c, l) for l in range(4)], dim=-1)
print("legendre", P[:2].round(decimals=4).tolist())
print("P2 closed form", torch.allclose(P[:, 2], 0.5 * (3 * c ** 2 - 1)))
print("chebyshev T3", torch.special.chebyshev_polynomial_t(c[:3], 3).round(decimals=4).tolist())
n_tensor = torch.special.legendre_polynomial_p(torch.tensor([0.5], dtype=dt), torch.arange(5))
print("P_n(0.5)", n_tensor.round(decimals=4).tolist())

# torsion around the central C-C bond: 3-0-1-2
b0, b1, b2 = pos[0] - pos[3], pos[1] - pos[0], pos[2] - pos[1]
n1, n2 = torch.linalg.cross(b0, b1), torch.linalg.cross(b1, b2)
m1 = torch.linalg.cross(n1, b1 / b1.norm())
tors = torch.atan2((m1 * n2).sum(), (n1 * n2).sum())
print("torsion deg", round(math.degrees(tors.item()), 2))


class TripletInteraction(nn.Module):
    def __init__(self, h=8, n_rbf=6, n_sbf=4):
        super().__init__()
        self.lin_rbf = nn.Linear(n_rbf, h, bias=False)
        self.lin_sbf = nn.Linear(n_sbf, h, bias=False)
        self.lin_kj = nn.Linear(h, h)
        self.lin_ji = nn.Linear(h, h)

    def forward(self, m, rbf, sbf, idx_kj, idx_ji):
        x_kj = F.silu(self.lin_kj(m)) * self.lin_rbf(rbf)
        x_kj = x_kj[idx_kj] * self.lin_sbf(sbf)
        agg = torch.zeros_like(m).index_add(0, idx_ji, x_kj)
        return m + F.silu(self.lin_ji(m)) + agg


posr = pos.clone().requires_grad_(True)
vec = posr[dst] - posr[src]
dist = vec.norm(dim=-1)
a, b = vec[idx_ji], -vec[idx_kj]
ang = torch.atan2(torch.linalg.cross(a, b).norm(dim=-1), (a * b).sum(-1))
sbf = torch.stack([torch.cos(l * ang) for l in range(4)], dim=-1)   # differentiable stand-in for P_l
xr = dist / cutoff
rb = torch.sin(freq * xr[:, None]) / dist[:, None]
block = TripletInteraction().to(dt)
m = torch.randn(E, 8, dtype=dt)
out = block(m, rb, sbf, idx_kj, idx_ji)
energy = out.sum()
(forces,) = torch.autograd.grad(-energy, posr)
print("energy", round(energy.item(), 4), "net force", forces.sum(0).abs().max().item() < 1e-9)
print("forces", forces[:3].round(decimals=4).tolist())
print("legendre grad", torch.special.legendre_polynomial_p(c.clone().requires_grad_(True), 2).requires_grad)
