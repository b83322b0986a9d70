"""Causal training of a time-dependent PINN (Wang, Sankaran & Perdikaris 2022) for the Allen-Cahn equation:
per-time-slice residual losses, weights exp(-eps * exclusive cumsum) computed under no_grad, the eps annealing
schedule, time-marching windows with a frozen previous model (requires_grad_(False), deepcopy), and periodic
boundary handling through a sin/cos input embedding."""

import copy
import math

import torch

nn = torch.nn
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class PeriodicNet(nn.Module):
    def __init__(self, width=24):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(3, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1)
        )

    def forward(self, x, t):
        return self.mlp(torch.cat([torch.cos(math.pi * x), torch.sin(math.pi * x), t], -1))


def D(f, v):
    return torch.autograd.grad(f, v, torch.ones_like(f), create_graph=True)[0]


nt, nx = 6, 12
t = torch.linspace(0, 0.5, nt).repeat_interleave(nx).unsqueeze(1).requires_grad_()
x = torch.linspace(-1, 1, nx + 1)[:-1].repeat(nt).unsqueeze(1).requires_grad_()
print("grid", tuple(t.shape), t[:3].squeeze(1).tolist(), t[nx : nx + 2].squeeze(1).tolist())
net = PeriodicNet()
u0 = x.detach() ** 2 * torch.cos(math.pi * x.detach())


def slice_losses():
    u = net(x, t)
    r = D(u, t) - 1e-3 * D(D(u, x), x) + 5 * (u**3 - u)
    per_slice = r.pow(2).view(nt, nx).mean(1)
    ic = (net(x[:nx], torch.zeros(nx, 1)) - u0[:nx]).pow(2).mean()
    return per_slice, ic


per_slice, ic = slice_losses()
print("per-slice", tuple(per_slice.shape), per_slice.grad_fn.name())
print(
    "periodic",
    torch.allclose(
        net(torch.tensor([[-1.0]]), torch.tensor([[0.2]])), net(torch.tensor([[1.0]]), torch.tensor([[0.2]]))
    ),
)
opt = torch.optim.Adam(net.parameters(), lr=2e-3)
for eps in (0.1, 1.0, 10.0):
    for it in range(10):
        per_slice, ic = slice_losses()
        with torch.no_grad():
            w = torch.exp(-eps * (torch.cumsum(per_slice, 0) - per_slice))
        loss = (w * per_slice).mean() + 100 * ic
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(
        "eps", eps, "w", w.round(decimals=3).tolist(), "min w", round(w.min().item(), 4), "loss", round(loss.item(), 3)
    )
print("w requires_grad", w.requires_grad, w.grad_fn)

# time marching: freeze the window's model and use its end state as the next initial condition
prev = copy.deepcopy(net).requires_grad_(False)
print(
    "frozen",
    all(not p.requires_grad for p in prev.parameters()),
    "trainable",
    all(p.requires_grad for p in net.parameters()),
)
with torch.no_grad():
    x_end = torch.linspace(-1, 1, nx + 1)[:-1].unsqueeze(1)
    u_end = prev(x_end, torch.full_like(x_end, 0.5))
print("handoff", tuple(u_end.shape), u_end.requires_grad, round(u_end.abs().max().item(), 3) < 2)
shift = prev(x_end, torch.full_like(x_end, 0.5))
print("prev output grad_fn", shift.grad_fn is None, shift.requires_grad)
excl = torch.cumsum(torch.tensor([1.0, 2.0, 3.0]), 0) - torch.tensor([1.0, 2.0, 3.0])
print(
    "exclusive cumsum",
    excl.tolist(),
    torch.cat([torch.zeros(1), torch.tensor([1.0, 2.0, 3.0]).cumsum(0)[:-1]]).tolist(),
)
print("repeat_interleave tensor", torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([2, 0, 1])).tolist())
try:
    torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([1, 2, 3]))
except Exception as e:
    print(type(e).__name__, e)
try:
    per_slice.view(nx, nt)
except Exception as e:
    print(type(e).__name__, e)
