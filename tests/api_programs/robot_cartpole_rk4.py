"""A batched cart-pole simulator as RL environments and controls labs write it: the Barto/Florian equations of
motion, RK4 and semi-implicit Euler integrators over a batch of envs, termination masks with logical ops and the
first-done index by argmax over cumulative flags, energy drift, an energy-shaping swing-up controller with sign and
clamp, episode returns with where-masked rewards, and gym-style observation bounds."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

GRAVITY, MC, MP, LEN, FORCE_MAX = 9.8, 1.0, 0.1, 0.5, 10.0
TOTAL, PML = MC + MP, MP * 0.5
X_LIM, TH_LIM = 2.4, 12 * 2 * math.pi / 360


def derivs(s, force):
    x, x_dot, th, th_dot = s.unbind(-1)
    cos, sin = torch.cos(th), torch.sin(th)
    temp = (force + PML * th_dot ** 2 * sin) / TOTAL
    th_acc = (GRAVITY * sin - cos * temp) / (LEN * (4.0 / 3.0 - MP * cos ** 2 / TOTAL))
    x_acc = temp - PML * th_acc * cos / TOTAL
    return torch.stack([x_dot, x_acc, th_dot, th_acc], -1)


def rk4(s, force, dt):
    k1 = derivs(s, force)
    k2 = derivs(s + 0.5 * dt * k1, force)
    k3 = derivs(s + 0.5 * dt * k2, force)
    k4 = derivs(s + dt * k3, force)
    return s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def euler(s, force, dt):
    d = derivs(s, force)
    v = s[..., 1::2] + dt * d[..., 1::2]
    p = s[..., 0::2] + dt * v
    return torch.stack([p[..., 0], v[..., 0], p[..., 1], v[..., 1]], -1)


def energy(s):
    x, x_dot, th, th_dot = s.unbind(-1)
    vx = x_dot + LEN * th_dot * torch.cos(th)
    vy = -LEN * th_dot * torch.sin(th)
    return 0.5 * MC * x_dot ** 2 + 0.5 * MP * (vx ** 2 + vy ** 2) + MP * GRAVITY * LEN * torch.cos(th) + \
        0.5 * MP * LEN ** 2 * th_dot ** 2 / 3


n_env = 8
state = torch.empty(n_env, 4).uniform_(-0.05, 0.05)
print("init", state.shape, state.dtype, state.abs().max().item() <= 0.05)
K = torch.tensor([1.0, 1.5, 18.0, 3.0])
policies = torch.linspace(0.0, 1.4, n_env)  # gain scale per env
done = torch.zeros(n_env, dtype=torch.bool)
dones, rewards = [], []
s = state.clone()
for t in range(200):
    force = (policies * (s @ K)).clamp(-FORCE_MAX, FORCE_MAX)
    s = torch.where(done.unsqueeze(-1), s, rk4(s, force, 0.02))
    fail = torch.logical_or(s[:, 0].abs() > X_LIM, s[:, 2].abs() > TH_LIM)
    rewards.append(torch.where(done, 0.0, 1.0))
    done = done | fail
    dones.append(done)
dones = torch.stack(dones, 1)
returns = torch.stack(rewards, 1).sum(1)
first = torch.where(dones.any(1), dones.int().argmax(1), torch.full((n_env,), -1))
print("returns", returns.tolist())
print("first done step", first.tolist(), "survivors", (~dones[:, -1]).sum().item())
print("done counts", dones.sum(1).tolist(), torch.count_nonzero(dones, dim=0)[::50].tolist())

# integrator comparison on an unforced swing from 1 rad: energy drift
s0 = torch.tensor([[0.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
for name, step, dt in [("rk4", rk4, 0.02), ("euler", euler, 0.02), ("rk4 coarse", rk4, 0.1)]:
    s = s0.clone()
    e0 = energy(s)
    traj = [s]
    for _ in range(int(2.0 / dt)):
        s = step(s, torch.zeros(1, dtype=torch.float64), dt)
        traj.append(s)
    traj = torch.cat(traj)
    drift = (energy(traj) - e0).abs().max().item()
    print(name, "final", s.round(decimals=4).tolist(), "energy drift", f"{drift:.2e}"[-3:], drift < 1e-2)

# energy-shaping swing-up from hanging down (theta = pi) with a saturating controller
s = torch.tensor([[0.0, 0.0, math.pi - 0.1, 0.0]], dtype=torch.float64)
e_up = MP * GRAVITY * LEN
peak = -1.0
for t in range(400):
    th, th_dot = s[0, 2], s[0, 3]
    e = energy(s)[0] - 0.5 * MC * s[0, 1] ** 2 - e_up
    u = torch.clamp(-8.0 * e * torch.sign(th_dot * torch.cos(th)) - 0.5 * s[0, 0] - s[0, 1], -FORCE_MAX, FORCE_MAX)
    s = rk4(s, u.reshape(1), 0.01)
    peak = max(peak, torch.cos(s[0, 2]).item())
print("swing-up peak cos(theta)", round(peak, 2) > 0.5, "cart |x| max bounded", bool(s[0, 0].abs() < 50))
high = torch.tensor([X_LIM * 2, torch.finfo(torch.float32).max, TH_LIM * 2, torch.finfo(torch.float32).max])
print("obs high", high.tolist()[:1], high.dtype, torch.finfo(torch.float32).max == high[1].item())
obs = torch.tensor([[5.0, 1e39, 0.1, -1e39]])
print("clipped obs", torch.clamp(obs, -high, high).tolist()[0][0], torch.isinf(obs).tolist())
try:
    rk4(torch.zeros(3, 4), torch.zeros(2), 0.02)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.logical_or(torch.zeros(3, dtype=torch.bool), torch.zeros(2))
except Exception as e:
    print(type(e).__name__, e)
