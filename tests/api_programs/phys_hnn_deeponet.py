"""Two physics-ML models: a Hamiltonian neural network (the symplectic gradient (dH/dp, -dH/dq) from
autograd.grad(create_graph=True), trained on a pendulum's derivatives, then a leapfrog rollout under no_grad with
its energy drift) and a DeepONet for the antiderivative operator (branch/trunk nets joined by einsum, targets from
cumulative_trapezoid, a seeded DataLoader)."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
TensorDataset = torch.utils.data.TensorDataset
DataLoader = torch.utils.data.DataLoader


class HNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.H = nn.Sequential(nn.Linear(2, 32), nn.Softplus(), nn.Linear(32, 1))

    def forward(self, qp):
        qp = qp if qp.requires_grad else qp.requires_grad_()
        H = self.H(qp)
        dH = torch.autograd.grad(H.sum(), qp, create_graph=True)[0]
        return torch.stack([dH[:, 1], -dH[:, 0]], 1)


q = torch.linspace(-2, 2, 9)
p = torch.linspace(-1.5, 1.5, 7)
qp = torch.cartesian_prod(q, p)
target = torch.stack([qp[:, 1], -torch.sin(qp[:, 0])], 1)
hnn = HNN()
opt = torch.optim.Adam(hnn.parameters(), lr=1e-2)
for epoch in range(60):
    loss = F.mse_loss(hnn(qp.clone()), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("hnn loss", round(loss.item(), 4), loss.item() < 0.1)
field = hnn(qp[:3].clone())
print("field", tuple(field.shape), field.grad_fn.name())


def energy(z):
    return (0.5 * z[:, 1] ** 2 + (1 - torch.cos(z[:, 0])))


z = torch.tensor([[1.0, 0.0]])
dt = 0.1
with torch.enable_grad():
    e0 = energy(z)
    for _ in range(50):
        z = z.detach()
        z = z + dt * hnn(z.clone())
print("rollout", tuple(z.shape), z.requires_grad, "drift finite", bool(torch.isfinite(energy(z) - e0).all()))
with torch.no_grad():
    try:
        hnn(torch.tensor([[1.0, 0.0]]))
    except Exception as e:
        print("no_grad", type(e).__name__, e)

# DeepONet: G(u)(y) = int_0^y u
m, n_funcs = 20, 64
xs = torch.linspace(0, 1, m)
a = torch.randn(n_funcs, 3)
U = a[:, :1] * torch.sin(2 * math.pi * xs) + a[:, 1:2] * torch.cos(math.pi * xs) + a[:, 2:]
G = torch.cumulative_trapezoid(U, xs, dim=1)
G = torch.cat([torch.zeros(n_funcs, 1), G], 1)
print("operator data", tuple(U.shape), tuple(G.shape), round(G[0, -1].item(), 4))


class DeepONet(nn.Module):
    def __init__(self, m, p=16):
        super().__init__()
        self.branch = nn.Sequential(nn.Linear(m, 32), nn.GELU(), nn.Linear(32, p))
        self.trunk = nn.Sequential(nn.Linear(1, 32), nn.GELU(), nn.Linear(32, p), nn.GELU())
        self.b0 = nn.Parameter(torch.zeros(()))

    def forward(self, u, y):
        return torch.einsum("bi,ni->bn", self.branch(u), self.trunk(y)) + self.b0


model = DeepONet(m)
print(model)
ds = TensorDataset(U, G)
loader = DataLoader(ds, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(0))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
y = xs.unsqueeze(1)
for epoch in range(15):
    tot = 0.0
    for ub, gb in loader:
        loss = F.mse_loss(model(ub, y), gb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * ub.shape[0]
    if epoch % 5 == 4:
        print("epoch", epoch, round(tot / len(ds), 4))
print("batches", len(loader), "first batch idx", next(iter(DataLoader(ds, 16, shuffle=True,
      generator=torch.Generator().manual_seed(0))))[0].shape)
print("b0", model.b0.shape, model.b0.grad is not None)
try:
    model(U[:2], xs)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("bi,ni->bn", torch.ones(2, 3), torch.ones(4, 5))
except Exception as e:
    print(type(e).__name__, e)
