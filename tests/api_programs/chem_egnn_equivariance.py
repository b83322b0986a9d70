"""An E(n)-equivariant graph network (EGNN, Satorras et al. 2021) written by hand: relative positions and squared
distances with keepdim, edge MLPs, coordinate updates normalised by clamp_min'd norms and aggregated with
scatter_reduce mean, node updates by index_add, checked for rotation/reflection/translation/permutation
equivariance, with gradient flow through torch.linalg.vector_norm at coincident atoms."""

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
dt = torch.float64


class EGCL(nn.Module):
    def __init__(self, h, e_dim=0):
        super().__init__()
        self.phi_e = nn.Sequential(nn.Linear(2 * h + 1 + e_dim, h), nn.SiLU(), nn.Linear(h, h), nn.SiLU())
        self.phi_x = nn.Sequential(nn.Linear(h, h), nn.SiLU(), nn.Linear(h, 1, bias=False))
        self.phi_h = nn.Sequential(nn.Linear(2 * h, h), nn.SiLU(), nn.Linear(h, h))
        self.att = nn.Sequential(nn.Linear(h, 1), nn.Sigmoid())
        nn.init.xavier_uniform_(self.phi_x[2].weight, gain=0.001)

    def forward(self, h, x, row, col, edge_attr=None):
        rel = x[row] - x[col]
        d2 = (rel ** 2).sum(dim=-1, keepdim=True)
        parts = [h[row], h[col], d2] + ([edge_attr] if edge_attr is not None else [])
        m = self.phi_e(torch.cat(parts, dim=-1))
        m = m * self.att(m)
        norm = torch.linalg.vector_norm(rel, dim=-1, keepdim=True).clamp_min(1e-8)
        trans = rel / (norm + 1.0) * self.phi_x(m)
        agg_x = torch.zeros_like(x).scatter_reduce(0, row[:, None].expand_as(trans), trans, "mean", include_self=False)
        x = x + agg_x
        agg_h = torch.zeros(h.shape[0], m.shape[1], dtype=h.dtype).index_add_(0, row, m)
        h = h + self.phi_h(torch.cat([h, agg_h], dim=-1))
        return h, x


class EGNN(nn.Module):
    def __init__(self, n_types=5, h=16, layers=3):
        super().__init__()
        self.emb = nn.Linear(n_types, h)
        self.layers = nn.ModuleList([EGCL(h, e_dim=1) for _ in range(layers)])
        self.out = nn.Linear(h, 1)

    def forward(self, z, x, row, col, edge_attr):
        h = self.emb(F.one_hot(z, 5).to(x.dtype))
        for layer in self.layers:
            h, x = layer(h, x, row, col, edge_attr)
        return self.out(h).sum(), h, x


n = 9
z = torch.tensor([0, 1, 1, 2, 3, 1, 4, 0, 2])
x = torch.randn(n, 3, dtype=dt) * 1.5
row, col = (~torch.eye(n, dtype=torch.bool)).nonzero(as_tuple=True)
edge_attr = (z[row] == z[col]).to(dt).unsqueeze(-1)
model = EGNN().to(dt)
E, h, xo = model(z, x, row, col, edge_attr)
print("E", round(E.item(), 4), "h", tuple(h.shape), "x", tuple(xo.shape), xo.grad_fn.name())
print("dx", (xo - x).norm(dim=-1).round(decimals=4).tolist())

Q, _ = torch.linalg.qr(torch.randn(3, 3, dtype=dt))
print("det Q", round(abs(torch.linalg.det(Q).item()), 4))
for name, Qi in [("rotation", Q * torch.sign(torch.linalg.det(Q))),
                 ("reflection", torch.diag(torch.tensor([-1.0, 1.0, 1.0], dtype=dt)))]:
    t = torch.tensor([[0.5, -2.0, 3.0]], dtype=dt)
    E2, h2, x2 = model(z, x @ Qi.T + t, row, col, edge_attr)
    print(name, torch.allclose(E, E2), torch.allclose(h, h2, atol=1e-10), torch.allclose(xo @ Qi.T + t, x2, atol=1e-10))

perm = torch.randperm(n)
inv = torch.empty_like(perm)
inv[perm] = torch.arange(n)
rp, cp = inv[row], inv[col]
E3, h3, x3 = model(z[perm], x[perm], rp, cp, edge_attr)
print("permutation", torch.allclose(E, E3), torch.allclose(h[perm], h3, atol=1e-10),
      torch.allclose(xo[perm], x3, atol=1e-10))
print("argsort(perm) == inv", torch.equal(torch.argsort(perm), inv))

# training the coordinates to a target geometry; norm gradient at coincident points is finite thanks to clamp_min
target = torch.randn(n, 3, dtype=dt)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
for step in range(5):
    _, _, xp = model(z, x, row, col, edge_attr)
    loss = F.smooth_l1_loss(torch.cdist(xp, xp), torch.cdist(target, target), beta=0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 6))

xc = torch.zeros(2, 3, dtype=dt, requires_grad=True)
nrm = torch.linalg.vector_norm(xc[0:1] - xc[1:2], dim=-1, keepdim=True)
(g,) = torch.autograd.grad(nrm.clamp_min(1e-8).sum(), xc)
print("norm grad at zero", g.tolist(), nrm.grad_fn.name())
xc2 = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=dt, requires_grad=True)
(g2,) = torch.autograd.grad((xc2[0] - xc2[1]).norm(), xc2)
print("plain norm grad at zero", g2.tolist())
(g3,) = torch.autograd.grad(((xc2[0] - xc2[1]).pow(2).sum() + 1e-12).sqrt(), xc2)
print("eps sqrt grad", g3.tolist())
print("clamp_min grad", torch.func.grad(lambda v: v.clamp_min(1.0).sum())(torch.tensor([0.5, 1.0, 2.0])).tolist())
print("clamp_min tensor", torch.tensor([0.5, 1.0, 2.0]).clamp_min(torch.tensor([1.0, 0.0, 3.0])).tolist())
