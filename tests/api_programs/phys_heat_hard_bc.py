"""1-D heat equation PINN as papers write it: u_t = k u_xx on [0,1]x[0,1] with a hard-constraint output transform
(u = sin(pi x) + t x (1-x) N), residuals from autograd.grad(create_graph=True), Adam with a StepLR schedule, and the
error against the exact solution exp(-k pi^2 t) sin(pi x) in float64."""

import math

import torch

nn = torch.nn
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
K = 0.1


class HardBCNet(nn.Module):
    def __init__(self, width=20, depth=3):
        super().__init__()
        layers = [nn.Linear(2, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        layers.append(nn.Linear(width, 1))
        self.body = nn.Sequential(*layers)
        for m in self.body.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight, gain=nn.init.calculate_gain("tanh"))
                nn.init.zeros_(m.bias)

    def forward(self, xt):
        x, t = xt[:, :1], xt[:, 1:2]
        return torch.sin(math.pi * x) + t * x * (1 - x) * self.body(xt)


def d(u, z):
    return torch.autograd.grad(u, z, grad_outputs=torch.ones_like(u), create_graph=True)[0]


net = HardBCNet()
print(net)
print("params", sum(p.numel() for p in net.parameters()), next(net.parameters()).dtype)

g = torch.linspace(0, 1, 9)
X, T = torch.meshgrid(g, g, indexing="ij")
xt = torch.stack([X.reshape(-1), T.reshape(-1)], dim=1).requires_grad_(True)
print("collocation", tuple(xt.shape), xt.dtype, xt.is_leaf)


def residual(xt):
    u = net(xt)
    du = d(u, xt)
    u_x, u_t = du[:, 0:1], du[:, 1:2]
    u_xx = d(u_x, xt)[:, 0:1]
    return u_t - K * u_xx, u


r, u = residual(xt)
print("residual", tuple(r.shape), r.grad_fn.name(), round(r.pow(2).mean().item(), 4))
print("bc at x=0", net(torch.tensor([[0.0, 0.3], [1.0, 0.7]])).detach().abs().max().item() < 1e-12)
print("ic at t=0", round((net(torch.tensor([[0.25, 0.0]])) - math.sin(math.pi / 4)).abs().item(), 6))

opt = torch.optim.Adam(net.parameters(), lr=5e-3, betas=(0.9, 0.99))
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
for step in range(60):
    opt.zero_grad(set_to_none=True)
    r, _ = residual(xt)
    loss = (r**2).mean()
    loss.backward()
    opt.step()
    sched.step()
    if step % 15 == 0:
        print("step", step, round(loss.item(), 4), sched.get_last_lr())

with torch.no_grad():
    xe = torch.stack(torch.meshgrid(torch.linspace(0, 1, 11), torch.linspace(0, 1, 5), indexing="xy"), -1).reshape(
        -1, 2
    )
    ue = torch.exp(-K * math.pi**2 * xe[:, 1:]) * torch.sin(math.pi * xe[:, :1])
    up = net(xe)
    rel = torch.linalg.vector_norm(up - ue) / torch.linalg.vector_norm(ue)
    print("rel L2", round(rel.item(), 4), "max err", round((up - ue).abs().max().item(), 4))
    print("xe", tuple(xe.shape), xe[:3].tolist())

# second derivative tensor stays in the graph; a third derivative works too
r, u = residual(xt)
u_x = d(u, xt)[:, :1]
u_xxx = d(d(u_x, xt)[:, :1], xt)[:, :1]
print("u_xxx", u_xxx.grad_fn is not None, round(u_xxx.sum().item(), 4))
try:
    torch.autograd.grad(u.sum(), xt)
    torch.autograd.grad(u.sum(), xt)
except Exception as e:
    print(type(e).__name__, str(e)[:90])
try:
    torch.autograd.grad(u, xt)
except Exception as e:
    print(type(e).__name__, e)
