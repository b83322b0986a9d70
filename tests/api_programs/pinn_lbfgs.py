"""Physics-informed network: u_x and u_xx through autograd.grad(create_graph=True), Burgers and heat residuals,
Adam then LBFGS with strong-Wolfe line search, torch.autograd.functional jacobian/hessian."""

import math
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.set_default_dtype(torch.float64)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class PINN(nn.Module):
    def __init__(self, layers=(2, 16, 16, 1)):
        super().__init__()
        mods = []
        for a, b in zip(layers[:-1], layers[1:]):
            mods += [nn.Linear(a, b), nn.Tanh()]
        self.net = nn.Sequential(*mods[:-1])
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)
                with torch.no_grad():
                    m.weight.copy_(T(*m.weight.shape) * math.sqrt(2.0 / sum(m.weight.shape)))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def grad(out, inp):
    return torch.autograd.grad(out, inp, grad_outputs=torch.ones_like(out), create_graph=True, retain_graph=True)[0]


net = PINN()
print("dtype", next(net.parameters()).dtype, torch.get_default_dtype())
nu = 0.01 / math.pi
x = (torch.rand(32, 1) * 0 + torch.from_numpy(rng.uniform(-1, 1, (32, 1)))).requires_grad_(True)
t = torch.from_numpy(rng.uniform(0, 1, (32, 1))).requires_grad_()
x0 = torch.linspace(-1, 1, 16).unsqueeze(-1)
t0 = torch.zeros_like(x0)
u0 = -torch.sin(math.pi * x0)
tb = torch.linspace(0, 1, 8).view(-1, 1)
xb = torch.cat([-torch.ones_like(tb), torch.ones_like(tb)])
tb = tb.repeat(2, 1)


def residual():
    u = net(x, t)
    u_t = grad(u, t)
    u_x = grad(u, x)
    u_xx = grad(u_x, x)
    return u_t + u * u_x - nu * u_xx


def loss_fn():
    f = residual()
    l_f = torch.mean(f**2)
    l_0 = nn.functional.mse_loss(net(x0, t0), u0)
    l_b = net(xb, tb).pow(2).mean()
    return l_f + l_0 + l_b, (l_f, l_0, l_b)


u = net(x, t)
u_x, u_t = torch.autograd.grad(u.sum(), (x, t), create_graph=True)
u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
print("derivs", r(u_x[:3]), r(u_t[:3]), r(u_xx[:3]), u_xx.requires_grad)
u_xxx = torch.autograd.grad(u_xx, x, torch.ones_like(u_xx), retain_graph=True)[0]
print("third", r(u_xxx[:3]), u_xxx.requires_grad)
x0r = x0.clone().requires_grad_()
no_dep = torch.autograd.grad(u.sum(), [x, x0r], allow_unused=True, retain_graph=True)
print("unused", no_dep[1] is None, tuple(no_dep[0].shape))
try:
    torch.autograd.grad(u.sum(), x0r, retain_graph=True)
except RuntimeError as e:
    print("grad_err", str(e)[:70])
zeros = torch.autograd.grad(u.sum(), [x, x0r], allow_unused=True, materialize_grads=True)
print("materialize", zeros[1].abs().sum().item(), tuple(zeros[1].shape))

opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for it in range(5):
    opt.zero_grad()
    loss, parts = loss_fn()
    loss.backward()
    opt.step()
print("adam", round(loss.item(), 4), [round(p.item(), 4) for p in parts])

lbfgs = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=20, history_size=10, line_search_fn="strong_wolfe",
                          tolerance_grad=1e-9, tolerance_change=1e-12)
calls = [0]


def closure():
    calls[0] += 1
    lbfgs.zero_grad()
    loss, _ = loss_fn()
    loss.backward()
    return loss


for _ in range(2):
    l = lbfgs.step(closure)
st = lbfgs.state[lbfgs._params[0]]
print("lbfgs", round(loss_fn()[0].item(), 4), calls[0], st["n_iter"], st["func_evals"],
      sorted(k for k in st.keys())[:4])

# heat equation residual on a closed form: u = exp(-pi^2 t) sin(pi x) solves u_t = u_xx
xs = torch.linspace(0.1, 0.9, 5, requires_grad=True)
ts = torch.full((5,), 0.2, requires_grad=True)
uh = torch.exp(-math.pi**2 * ts) * torch.sin(math.pi * xs)
uh_t = grad(uh, ts)
uh_xx = grad(grad(uh, xs), xs)
print("heat", round((uh_t - uh_xx).abs().max().item(), 8), r(uh_t))

f = lambda z: (z[0] ** 2 * z[1]).sin()
z = torch.tensor([0.5, 1.5])
J = torch.autograd.functional.jacobian(f, z)
H = torch.autograd.functional.hessian(f, z)
vp = torch.autograd.functional.vjp(lambda z: z**3, z, torch.ones(2))
print("functional", r(J), r(H), r(vp[1]))
Jc = torch.autograd.functional.jacobian(lambda a, b: a * b, (z, z + 1), create_graph=True)
print("jac_tuple", len(Jc), r(Jc[0]), r(Jc[1]))
hvp = torch.autograd.functional.hvp(lambda z: (z**3).sum(), z, torch.ones(2))
print("hvp", r(hvp[1]))
torch.set_default_dtype(torch.float32)
print("default", torch.ones(1).dtype)
