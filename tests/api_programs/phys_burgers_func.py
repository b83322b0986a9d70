"""Burgers' equation residuals through torch.func the way newer PINN code writes them: a functional_call'd MLP,
jacrev/jacfwd/hessian per point under vmap for u_x, u_t, u_xx, compared against autograd.grad, and a
grad-of-loss-w.r.t.-parameters with torch.func.grad over a parameter dict."""

import math

import torch
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, vmap

nn = torch.nn
torch.manual_seed(0)
NU = 0.01 / math.pi

net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)).double()
params = {k: v.detach() for k, v in net.named_parameters()}
print(sorted(params), params["0.weight"].dtype)


def u_fn(p, x, t):
    return functional_call(net, p, (torch.stack([x, t]).unsqueeze(0),)).squeeze()


x = torch.linspace(-1, 1, 7, dtype=torch.float64)
t = torch.linspace(0, 1, 7, dtype=torch.float64)
u = vmap(u_fn, in_dims=(None, 0, 0))(params, x, t)
u_x = vmap(jacrev(u_fn, argnums=1), in_dims=(None, 0, 0))(params, x, t)
u_t = vmap(jacfwd(u_fn, argnums=2), in_dims=(None, 0, 0))(params, x, t)
u_xx = vmap(hessian(u_fn, argnums=1), in_dims=(None, 0, 0))(params, x, t)
print("shapes", tuple(u.shape), tuple(u_x.shape), tuple(u_xx.shape), u_xx.dtype)
res = u_t + u * u_x - NU * u_xx
print("res", res.round(decimals=4).tolist())

# the same through autograd.grad
xa, ta = x.clone().requires_grad_(), t.clone().requires_grad_()
ua = net(torch.stack([xa, ta], 1)).squeeze(1)
ux_a, ut_a = torch.autograd.grad(ua.sum(), (xa, ta), create_graph=True)
uxx_a, = torch.autograd.grad(ux_a.sum(), xa, create_graph=True)
print("agree", torch.allclose(ux_a, u_x), torch.allclose(ut_a, u_t), torch.allclose(uxx_a, u_xx))

# full 2x2 Hessian per point and the Laplacian as its trace
H = vmap(hessian(lambda z: functional_call(net, params, (z.unsqueeze(0),)).squeeze()))(torch.stack([x, t], 1))
print("H", tuple(H.shape), H[0].round(decimals=4).tolist(), torch.allclose(H, H.transpose(1, 2)))
print("lap", vmap(torch.trace)(H).round(decimals=4).tolist())
print("jacfwd(jacrev) == hessian", torch.allclose(
    vmap(jacfwd(jacrev(lambda z: net(z.unsqueeze(0)).squeeze())))(torch.stack([x, t], 1)), H))


def loss_fn(p):
    ux = vmap(jacrev(u_fn, argnums=1), in_dims=(None, 0, 0))(p, x, t)
    ut = vmap(jacrev(u_fn, argnums=2), in_dims=(None, 0, 0))(p, x, t)
    uu = vmap(u_fn, in_dims=(None, 0, 0))(p, x, t)
    uxx = vmap(jacrev(jacrev(u_fn, argnums=1), argnums=1), in_dims=(None, 0, 0))(p, x, t)
    r = ut + uu * ux - NU * uxx
    ic = vmap(u_fn, in_dims=(None, 0, None))(p, x, torch.tensor(0.0, dtype=torch.float64)) + torch.sin(math.pi * x)
    return (r ** 2).mean() + (ic ** 2).mean()


g = grad(loss_fn)(params)
print("grad keys", list(g) == list(params), {k: tuple(v.shape) for k, v in g.items()})
print("grad norms", {k: round(v.norm().item(), 4) for k, v in g.items()})
net.zero_grad()
L = loss_fn(dict(net.named_parameters()))
L.backward()
print("loss", round(L.item(), 4), "match", all(torch.allclose(g[k], p.grad) for k, p in net.named_parameters()))
try:
    vmap(jacrev(u_fn, argnums=3), in_dims=(None, 0, 0))(params, x, t)
except Exception as e:
    print(type(e).__name__, e)
try:
    vmap(u_fn, in_dims=(None, 0, 0))(params, x, t[:3])
except Exception as e:
    print(type(e).__name__, str(e)[:120])
