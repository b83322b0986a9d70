"""Consistency models and rectified flow as their reference code writes them: EDM-style c_skip/c_out boundary
conditions, Karras discretization with a growing N(k) schedule, consistency-training loss against an EMA target
(pseudo-Huber metric), continuous-time tangents via torch.func.jvp and forward-mode AD, rectified-flow velocity
regression with logit-normal timesteps, Euler ODE sampling, reflow pairs and straightness."""

import math

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.3):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.37 + 0.05 * k) + 0.7 * k).view_as(p))


def fixed_normal(*shape, phase=0.0):
    n = math.prod(shape)
    u = torch.remainder(torch.arange(n, dtype=torch.float64) * 0.6180339887 + 0.1234 + phase, 1.0)
    return torch.special.ndtri(u.clamp(1e-4, 1 - 1e-4)).float().view(shape)


SIGMA_MIN, SIGMA_MAX, SIGMA_DATA, RHO = 0.002, 80.0, 0.5, 7.0


def scalings_for_boundary_conditions(sigma):
    c_skip = SIGMA_DATA ** 2 / ((sigma - SIGMA_MIN) ** 2 + SIGMA_DATA ** 2)
    c_out = (sigma - SIGMA_MIN) * SIGMA_DATA / (sigma ** 2 + SIGMA_DATA ** 2) ** 0.5
    c_in = 1 / (sigma ** 2 + SIGMA_DATA ** 2) ** 0.5
    return c_skip, c_out, c_in


class ConsistencyFn(nn.Module):
    def __init__(self, d=3, h=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, h), nn.SiLU(), nn.Linear(h, d))
        det_init_(self)

    def forward(self, x, sigma):
        c_skip, c_out, c_in = [c.view(-1, 1) for c in scalings_for_boundary_conditions(sigma)]
        F_x = self.net(torch.cat([c_in * x, 0.25 * sigma.log().view(-1, 1)], 1))
        return c_skip * x + c_out * F_x


def karras_sigmas(n):
    ramp = torch.arange(n, dtype=torch.float64) / (n - 1)
    return ((SIGMA_MIN ** (1 / RHO) + ramp * (SIGMA_MAX ** (1 / RHO) - SIGMA_MIN ** (1 / RHO))) ** RHO).float()


def n_schedule(k, K, s0=2, s1=150):
    return math.ceil(math.sqrt(k / K * ((s1 + 1) ** 2 - s0 ** 2) + s0 ** 2) - 1) + 1


print("N(k)", [n_schedule(k, 100) for k in (0, 10, 50, 100)])
sig = karras_sigmas(10)
print("karras", sig[:3], sig[-2:])
c_skip, c_out, c_in = scalings_for_boundary_conditions(torch.tensor([SIGMA_MIN, 1.0, 80.0]))
print("boundary c_skip", c_skip, "c_out", c_out)

f = ConsistencyFn()
target = ConsistencyFn()
target.load_state_dict(f.state_dict())
target.requires_grad_(False)
x = torch.stack([torch.linspace(-1, 1, 16), torch.cos(torch.linspace(0, 3, 16)), torch.linspace(0.5, -0.5, 16)], 1)
print("f(x, sigma_min) == x", torch.allclose(f(x, torch.full((16,), SIGMA_MIN)), x))


def pseudo_huber(a, b, c=0.00054 * math.sqrt(3)):
    return torch.sqrt((a - b) ** 2 + c ** 2).sum(1) - c


opt = torch.optim.RAdam(f.parameters(), lr=1e-3)
mu0 = 0.9
for k in range(20):
    N = n_schedule(k, 20, s1=20)
    sigmas = karras_sigmas(N)
    n = torch.arange(16) % (N - 1)
    z = fixed_normal(16, 3, phase=0.03 * k)
    s_n, s_n1 = sigmas[n], sigmas[n + 1]
    x_n1 = x + s_n1.view(-1, 1) * z
    x_n = x + s_n.view(-1, 1) * z
    weight = 1 / (s_n1 - s_n)
    out = f(x_n1, s_n1)
    with torch.no_grad():
        tgt = target(x_n, s_n)
    loss = (weight * pseudo_huber(out, tgt)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    mu = math.exp(2 * math.log(mu0) / N)
    with torch.no_grad():
        for pt, p in zip(target.parameters(), f.parameters()):
            pt.mul_(mu).add_(p, alpha=1 - mu)
    if k % 5 == 4:
        print(f"k {k:2d} N {N:2d} mu {mu:.4f} loss {loss.item():.4f}")

# one-step and two-step sampling
with torch.no_grad():
    z = fixed_normal(4, 3, phase=0.5) * SIGMA_MAX
    x1 = f(z, torch.full((4,), SIGMA_MAX))
    t_mid = torch.full((4,), 0.8)
    x2 = f(x1 + (t_mid.view(-1, 1) ** 2 - SIGMA_MIN ** 2).sqrt() * fixed_normal(4, 3, phase=0.9), t_mid)
print("one-step", r(x1, 6), "\ntwo-step", r(x2, 6))

# continuous-time tangent d f(x_t, t)/dt along the PF-ODE: torch.func.jvp and forward-mode AD agree
xt = x[:4] + 0.7 * fixed_normal(4, 3, phase=0.2)
t = torch.full((4,), 0.7)
dxdt = (xt - x[:4]) / t.view(-1, 1)
out_f, tangent = torch.func.jvp(lambda a, b: f(a, b), (xt, t), (dxdt, torch.ones_like(t)))
with fwAD.dual_level():
    out_d = f(fwAD.make_dual(xt, dxdt), fwAD.make_dual(t, torch.ones_like(t)))
    primal, tangent2 = fwAD.unpack_dual(out_d)
print("jvp", r(tangent, 6), "\nfwAD same", torch.allclose(tangent, tangent2, atol=1e-5), torch.allclose(out_f, primal))


# ---- rectified flow ----
class Velocity(nn.Module):
    def __init__(self, d=2, h=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, h), nn.GELU(approximate="tanh"), nn.Linear(h, h), nn.GELU(),
                                 nn.Linear(h, d))
        det_init_(self, 0.2)

    def forward(self, x, t):
        return self.net(torch.cat([x, t.view(-1, 1)], 1))


x1_data = torch.stack([torch.linspace(-2, 2, 64), torch.sin(torch.linspace(-2, 2, 64) * 2)], 1)
v = Velocity()
opt = torch.optim.AdamW(v.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(60):
    x0 = fixed_normal(64, 2, phase=0.021 * step)
    t = torch.sigmoid(fixed_normal(64, phase=0.37 + 0.013 * step))  # logit-normal timesteps (SD3)
    xt = (1 - t.view(-1, 1)) * x0 + t.view(-1, 1) * x1_data
    loss = F.mse_loss(v(xt, t), x1_data - x0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 19:
        print("rf step", step, round(loss.item(), 4))


@torch.no_grad()
def euler_ode(v, x0, steps):
    dt = 1.0 / steps
    x = x0.clone()
    traj = [x]
    for i in range(steps):
        t = torch.full((x.shape[0],), i * dt)
        x = x + dt * v(x, t)
        traj.append(x)
    return x, torch.stack(traj)


z0 = fixed_normal(64, 2, phase=0.77)
for steps in [1, 4, 16]:
    out, traj = euler_ode(v, z0, steps)
    print(f"euler {steps:2d} steps mean {r(out.mean(0), 2)} std {r(out.std(0), 2)}")
out, traj = euler_ode(v, z0, 16)
chord = out - z0
vel = torch.diff(traj, dim=0) * 16
straightness = ((vel - chord.unsqueeze(0)) ** 2).sum(-1).mean()
print("straightness", round(straightness.item(), 4), "traj", traj.shape)
reflow_pairs = torch.utils.data.TensorDataset(z0, out)
print("reflow pairs", len(reflow_pairs), [t.shape for t in reflow_pairs[0]])
