"""2-D Poisson problem -lap u = 2 pi^2 sin(pi x) sin(pi y) on the unit square: interior collocation from
torch.cartesian_prod, boundary points from the four edges, a weighted BC loss, the Laplacian by two autograd.grad
passes, and the relative L2 error against the exact solution; float32 as most code runs it."""

import math

import torch

nn = torch.nn
torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(2, 24), nn.Linear(24, 24), nn.Linear(24, 1)

    def forward(self, z):
        h = torch.tanh(self.l1(z))
        h = torch.tanh(self.l2(h))
        return self.l3(h)


def laplacian(u, z):
    g = torch.autograd.grad(u.sum(), z, create_graph=True)[0]
    lap = torch.zeros_like(u.squeeze(-1))
    for i in range(z.shape[1]):
        lap = lap + torch.autograd.grad(g[:, i].sum(), z, create_graph=True)[0][:, i]
    return lap


n = torch.linspace(0.05, 0.95, 8)
interior = torch.cartesian_prod(n, n).requires_grad_()
s = torch.linspace(0, 1, 6)
zeros, ones = torch.zeros_like(s), torch.ones_like(s)
bnd = torch.cat([torch.stack(p, 1) for p in ((s, zeros), (s, ones), (zeros, s), (ones, s))])
print("interior", tuple(interior.shape), "boundary", tuple(bnd.shape), bnd.unique(dim=0).shape[0])
f = 2 * math.pi ** 2 * torch.sin(math.pi * interior[:, 0]) * torch.sin(math.pi * interior[:, 1])
f = f.detach()

model = MLP()
lam_bc = 10.0
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
hist = []
for it in range(80):
    opt.zero_grad()
    u = model(interior)
    lap = laplacian(u, interior)
    l_pde = nn.functional.mse_loss(-lap, f)
    l_bc = model(bnd).pow(2).mean()
    loss = l_pde + lam_bc * l_bc
    loss.backward()
    opt.step()
    hist.append(loss.item())
print("loss first/last", round(hist[0], 3), round(hist[-1], 3), hist[-1] < hist[0])
print("lap grad_fn", lap.grad_fn.name(), "u grad_fn", u.grad_fn.name())

with torch.no_grad():
    g = torch.linspace(0, 1, 21)
    Xg, Yg = torch.meshgrid(g, g, indexing="xy")
    Z = torch.stack([Xg.flatten(), Yg.flatten()], -1)
    exact = torch.sin(math.pi * Z[:, 0]) * torch.sin(math.pi * Z[:, 1])
    pred = model(Z).squeeze(-1)
    err = torch.linalg.norm(pred - exact) / torch.linalg.norm(exact)
    print("rel L2 < 1", err.item() < 1.0, round(err.item(), 2))
    print("grid", tuple(Xg.shape), Xg[0, :3].tolist(), Yg[:3, 0].tolist())

# the Laplacian of a known function through the same helper
z = torch.tensor([[0.2, 0.3], [0.5, 0.5]], requires_grad=True)
q = (z[:, :1] ** 3 + z[:, 1:] ** 2 * z[:, :1])
print("lap x^3+y^2 x", laplacian(q, z).tolist(), "expected", (6 * z[:, 0] + 2 * z[:, 0]).tolist())
try:
    torch.cartesian_prod(n.view(2, 4), n)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.meshgrid(n, n, indexing="yx")
except Exception as e:
    print(type(e).__name__, e)
