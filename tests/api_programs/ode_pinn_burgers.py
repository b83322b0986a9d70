"""A time-dependent PINN for viscous Burgers' equation u_t + u u_x = nu u_xx written JAX-style with torch.func:
u(t, x) as a function of one point, its derivatives by grad/jacrev/hessian vmapped over collocation points,
residual-based adaptive sampling with torch.multinomial, initial and boundary terms, the same residual by
autograd.grad on a batch for comparison, a method-of-lines reference solution whose stencils crop with negative
F.pad, and the refusals of these transforms."""

import math

import torch
from torch.func import functional_call, grad, hessian, jacrev, vmap

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
nu = 0.01 / math.pi

net = nn.Sequential(nn.Linear(2, 20), nn.Tanh(), nn.Linear(20, 20), nn.Tanh(), nn.Linear(20, 1))
params = {k: v.detach() for k, v in net.named_parameters()}


def u_fn(p, tx):
    return functional_call(net, p, (tx,)).squeeze(-1)


def residual_point(p, tx):
    u = u_fn(p, tx)
    du = grad(u_fn, argnums=1)(p, tx)
    H = hessian(u_fn, argnums=1)(p, tx)
    return du[0] + u * du[1] - nu * H[1, 1]


t = torch.rand(32)
x = torch.rand(32) * 2 - 1
pts = torch.stack([t, x], dim=-1)
res = vmap(residual_point, in_dims=(None, 0))(params, pts)
print("residual", res.shape, res.dtype, round(res.pow(2).mean().item(), 6))

pb = pts.clone().requires_grad_(True)
u = net(pb).squeeze(-1)
(du,) = torch.autograd.grad(u, pb, torch.ones_like(u), create_graph=True)
(dux,) = torch.autograd.grad(du[:, 1], pb, torch.ones_like(u), create_graph=True)
res_ag = du[:, 0] + u * du[:, 1] - nu * dux[:, 1]
print("autograd agrees", torch.allclose(res, res_ag.detach(), atol=1e-10), res_ag.grad_fn.name())
J = vmap(jacrev(u_fn, argnums=1), in_dims=(None, 0))(params, pts[:3])
print("jacrev per point", tuple(J.shape), torch.allclose(J, du[:3].detach()))

weights = res.abs() / res.abs().sum()
idx = torch.multinomial(weights, 16, replacement=False, generator=torch.Generator().manual_seed(3))
print(
    "adaptive picks unique",
    idx.unique().numel() == 16,
    "top residuals picked",
    len(set(idx.tolist()) & set(res.abs().topk(8).indices.tolist())) >= 4,
)

t0 = torch.zeros(32)
x0 = torch.linspace(-1, 1, 32)
ic = torch.stack([t0, x0], -1)
bc = torch.stack([torch.rand(16), torch.where(torch.arange(16) % 2 == 0, -1.0, 1.0)], -1)
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for step in range(10):
    opt.zero_grad()
    p = dict(net.named_parameters())
    r = vmap(residual_point, in_dims=(None, 0))(p, pts)
    loss = r.pow(2).mean() + (net(ic).squeeze(-1) + torch.sin(math.pi * x0)).pow(2).mean() + net(bc).pow(2).mean()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print("step", step, round(loss.item(), 5), round(net[0].weight.grad.norm().item(), 5))

# method of lines with upwinded advection: interior slices by negative padding
n = 65
xs = torch.linspace(-1, 1, n)
dx = xs[1] - xs[0]
uu = -torch.sin(math.pi * xs)
dt = 1e-3
for _ in range(300):
    inner = F.pad(uu, (-1, -1))
    left, right = F.pad(uu, (0, -2)), F.pad(uu, (-2, 0))
    adv = torch.where(inner > 0, inner * (inner - left) / dx, inner * (right - inner) / dx)
    diff = nu * (right - 2 * inner + left) / dx**2
    uu = F.pad(inner + dt * (diff - adv), (1, 1))
print("MOL u(0.3)", uu[::8].round(decimals=4).tolist())
print("max slope", round((uu.diff() / dx).abs().max().item(), 2), "crop shape", tuple(F.pad(uu, (-1, -1)).shape))

for call in (
    lambda: vmap(residual_point, in_dims=(None, 2))(params, pts),
    lambda: grad(lambda p, tx: functional_call(net, p, (tx,)), argnums=1)(params, pts[0]),
    lambda: hessian(u_fn, argnums=2)(params, pts[0]),
    lambda: F.pad(uu, (-40, -40)),
    lambda: torch.multinomial(weights, 100, replacement=False),
):
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
