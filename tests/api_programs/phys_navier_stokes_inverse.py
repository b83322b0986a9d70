"""Raissi-style inverse Navier-Stokes PINN: a stream function psi gives a divergence-free (u, v) = (psi_y, -psi_x),
the network's two outputs split with unbind/split, learnable viscosity and convection coefficients (one through
softplus) in their own param group with a larger learning rate, the momentum residuals, and a MultiStepLR."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class NS(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 20), nn.Tanh(), nn.Linear(20, 20), nn.Tanh(), nn.Linear(20, 2))
        self.lambda1 = nn.Parameter(torch.tensor(0.0))
        self.raw_lambda2 = nn.Parameter(torch.tensor(-3.0))

    @property
    def lambda2(self):
        return F.softplus(self.raw_lambda2)

    def forward(self, x, y, t):
        psi, p = self.net(torch.cat([x, y, t], 1)).unbind(1)
        return psi.unsqueeze(1), p.unsqueeze(1)


def D(f, v):
    return torch.autograd.grad(f, v, torch.ones_like(f), create_graph=True)[0]


model = NS()
print([n for n, _ in model.named_parameters()])
print("lambda2 init", round(model.lambda2.item(), 5))
g = torch.Generator().manual_seed(1)
x, y, t = (torch.rand(50, 1, generator=g).requires_grad_() for _ in range(3))

# synthetic data from Taylor-Green vortex decay with nu = 0.05
nu = 0.05
with torch.no_grad():
    decay = torch.exp(-2 * nu * t)
    u_obs = -torch.cos(x) * torch.sin(y) * decay
    v_obs = torch.sin(x) * torch.cos(y) * decay


def residuals():
    psi, p = model(x, y, t)
    u, v = D(psi, y), -D(psi, x)
    u_t, u_x, u_y = D(u, t), D(u, x), D(u, y)
    v_t, v_x, v_y = D(v, t), D(v, x), D(v, y)
    p_x, p_y = D(p, x), D(p, y)
    u_xx, u_yy, v_xx, v_yy = D(u_x, x), D(u_y, y), D(v_x, x), D(v_y, y)
    l1, l2 = model.lambda1, model.lambda2
    f = u_t + l1 * (u * u_x + v * u_y) + p_x - l2 * (u_xx + u_yy)
    gg = v_t + l1 * (u * v_x + v * v_y) + p_y - l2 * (v_xx + v_yy)
    div = u_x + v_y
    return u, v, f, gg, div


u, v, f, gg, div = residuals()
print("divergence-free", div.abs().max().item() < 1e-12, "shapes", tuple(u.shape), tuple(f.shape))
net_params = [p for n, p in model.named_parameters() if n.startswith("net.")]
opt = torch.optim.Adam([{"params": net_params}, {"params": [model.lambda1, model.raw_lambda2], "lr": 2e-2}], lr=5e-3)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[15, 30], gamma=0.3)
print("groups", [(len(gp["params"]), gp["lr"]) for gp in opt.param_groups])
for it in range(40):
    u, v, f, gg, _ = residuals()
    loss = F.mse_loss(u, u_obs) + F.mse_loss(v, v_obs) + f.pow(2).mean() + gg.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if it % 10 == 9:
        print(it, round(loss.item(), 4), "l1", round(model.lambda1.item(), 4), "l2", round(model.lambda2.item(), 4),
              [round(lr, 6) for lr in sched.get_last_lr()])
print("lambda grads", model.lambda1.grad is not None, model.raw_lambda2.grad.dtype)
psi_p = model.net(torch.cat([x, y, t], 1)).detach()
a, b = psi_p.split([1, 1], dim=1)
c = psi_p.chunk(2, dim=1)
print("split==chunk", torch.equal(a, c[0]) and torch.equal(b, c[1]), tuple(a.shape))
print("state", sorted(opt.state_dict()["state"].keys()), opt.state_dict()["param_groups"][1]["params"])
try:
    model(x, y)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.Adam([{"params": net_params}, {"params": net_params[:1]}])
except Exception as e:
    print(type(e).__name__, e)
