"""A SchNet-style potential trained on energies and forces: Gaussian RBF expansion of pair distances with a cosine
cutoff, shifted-softplus filter networks, continuous-filter convolutions aggregated with index_add, per-atom energies
summed per molecule with scatter_add, forces as -dE/dpos through autograd.grad(create_graph=True), and a force-matching
loss whose backward is a double backward through the whole graph."""

import math

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
dt = torch.float64


class GaussianRBF(nn.Module):
    def __init__(self, n, cutoff):
        super().__init__()
        self.register_buffer("mu", torch.linspace(0.0, cutoff, n, dtype=dt))
        self.gamma = 0.5 / float(self.mu[1] - self.mu[0]) ** 2

    def forward(self, d):
        return torch.exp(-self.gamma * (d.unsqueeze(-1) - self.mu) ** 2)


class ShiftedSoftplus(nn.Module):
    def forward(self, x):
        return F.softplus(x) - math.log(2.0)


def cosine_cutoff(d, rc):
    return 0.5 * (torch.cos(d * math.pi / rc) + 1.0) * (d < rc).to(d.dtype)


class Interaction(nn.Module):
    def __init__(self, h, n_rbf):
        super().__init__()
        self.filt = nn.Sequential(nn.Linear(n_rbf, h), ShiftedSoftplus(), nn.Linear(h, h))
        self.lin1 = nn.Linear(h, h, bias=False)
        self.out = nn.Sequential(nn.Linear(h, h), ShiftedSoftplus(), nn.Linear(h, h))

    def forward(self, x, rbf, fcut, src, dst):
        W = self.filt(rbf) * fcut.unsqueeze(-1)
        m = self.lin1(x)[src] * W
        agg = torch.zeros_like(x).index_add(0, dst, m)
        return x + self.out(agg)


class SchNet(nn.Module):
    def __init__(self, h=16, n_rbf=12, cutoff=3.0):
        super().__init__()
        self.cutoff = cutoff
        self.emb = nn.Embedding(10, h, padding_idx=0)
        self.rbf = GaussianRBF(n_rbf, cutoff)
        self.blocks = nn.ModuleList([Interaction(h, n_rbf) for _ in range(2)])
        self.head = nn.Sequential(nn.Linear(h, h // 2), ShiftedSoftplus(), nn.Linear(h // 2, 1))

    def forward(self, z, pos, batch, n_mol):
        same = batch[:, None] == batch[None, :]
        d_all = torch.cdist(pos, pos)
        src, dst = ((d_all < self.cutoff) & same & ~torch.eye(len(z), dtype=torch.bool)).nonzero(as_tuple=True)
        d = (pos[src] - pos[dst]).norm(dim=-1)
        rbf, fc = self.rbf(d), cosine_cutoff(d, self.cutoff)
        x = self.emb(z)
        for blk in self.blocks:
            x = blk(x, rbf, fc, src, dst)
        e_atom = self.head(x).squeeze(-1)
        return torch.zeros(n_mol, dtype=dt).scatter_add(0, batch, e_atom), src.numel()


z = torch.tensor([8, 1, 1, 6, 1, 1, 1, 1, 7, 1, 1, 1])
batch = torch.tensor([0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2])
pos0 = torch.randn(12, 3, dtype=dt) * 0.9


def lj_reference(pos):
    same = batch[:, None] == batch[None, :]
    i, j = torch.triu_indices(12, 12, offset=1)
    keep = same[i, j]
    r = (pos[i[keep]] - pos[j[keep]]).norm(dim=-1).clamp_min(0.6)
    e = 4 * 0.1 * ((1.0 / r) ** 12 - (1.0 / r) ** 6)
    return torch.zeros(3, dtype=dt).index_add(0, batch[i[keep]], e)


model = SchNet().to(dt)
print("params", sum(p.numel() for p in model.parameters()), model.emb.weight[0].abs().sum().item())
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(6):
    pos = (pos0 + 0.05 * torch.randn(12, 3, dtype=dt)).requires_grad_(True)
    e_ref = lj_reference(pos)
    (f_ref,) = torch.autograd.grad(-e_ref.sum(), pos)
    energy, n_edges = model(z, pos, batch, 3)
    (forces,) = torch.autograd.grad(-energy.sum(), pos, create_graph=True)
    loss = F.mse_loss(energy, e_ref.detach()) + 10.0 * F.mse_loss(forces, f_ref)
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    print(step, n_edges, round(loss.item(), 4), round(float(gn), 4), forces.grad_fn.name())

# forces sum to zero per molecule (translation invariance); rotation equivariance
pos = pos0.clone().requires_grad_(True)
e, _ = model(z, pos, batch, 3)
(f,) = torch.autograd.grad(e.sum(), pos)
print("net force", torch.zeros(3, 3, dtype=dt).index_add(0, batch, f).abs().max().item() < 1e-10)
Q, _ = torch.linalg.qr(torch.randn(3, 3, dtype=dt))
pr = (pos0 @ Q.T).requires_grad_(True)
er, _ = model(z, pr, batch, 3)
(fr,) = torch.autograd.grad(er.sum(), pr)
print("invariant E", torch.allclose(e, er), "equivariant F", torch.allclose(f @ Q.T, fr))
print("energies", e.detach().round(decimals=4).tolist())
print("rbf row", model.rbf(torch.tensor([1.0], dtype=dt)).round(decimals=4)[0, :6].tolist())
print("cutoff", cosine_cutoff(torch.tensor([0.0, 1.5, 2.999, 3.0, 4.0], dtype=dt), 3.0).round(decimals=4).tolist())
