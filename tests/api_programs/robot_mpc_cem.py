"""Sampling- and gradient-based model-predictive control of a unicycle reaching a goal around an obstacle, as
robot-learning code writes it: the cross-entropy method with topk elites and their mean/std (correction=0),
MPPI with softmax weights over costs, gradient MPC with Adam through a differentiable rollout and tanh-bounded
controls, warm starts by roll with the tail refilled, a learned dynamics MLP fitted first, and the errors."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
DT, H, U_MAX = 0.1, 15, torch.tensor([1.0, 2.0])
GOAL, OBST, R_OBS = torch.tensor([2.0, 2.0]), torch.tensor([1.0, 1.0]), 0.4


def step(x, u):
    v, w = u[..., 0], u[..., 1]
    th = x[..., 2]
    return torch.stack([x[..., 0] + DT * v * torch.cos(th), x[..., 1] + DT * v * torch.sin(th), th + DT * w], -1)


def rollout_cost(x0, U):
    """U: (K, H, 2) control sequences from state x0 -> (K,) costs."""
    x = x0.expand(U.shape[0], 3)
    cost = torch.zeros(U.shape[0])
    for t in range(U.shape[1]):
        x = step(x, U[:, t])
        d_obs = (x[:, :2] - OBST).norm(dim=-1)
        cost = cost + 0.1 * (x[:, :2] - GOAL).pow(2).sum(-1) + 5.0 * F.relu(R_OBS + 0.1 - d_obs).pow(2) * 100
        cost = cost + 0.01 * U[:, t].pow(2).sum(-1)
    return cost + 2.0 * (x[:, :2] - GOAL).pow(2).sum(-1)


def cem(x0, mean, iters=4, K=200, n_elite=20):
    std = U_MAX.expand(H, 2) * 0.5
    for _ in range(iters):
        U = torch.max(torch.min(mean + std * torch.randn(K, H, 2), U_MAX), -U_MAX)
        costs = rollout_cost(x0, U)
        elite = U[torch.topk(costs, n_elite, largest=False).indices]
        mean, std = elite.mean(0), elite.std(0, correction=0) + 1e-3
    return mean, costs.min()


def mppi(x0, mean, K=200, lam=1.0):
    eps = torch.randn(K, H, 2) * 0.4
    U = (mean + eps).clamp(-U_MAX, U_MAX)
    costs = rollout_cost(x0, U)
    w = torch.softmax(-(costs - costs.min()) / lam, 0)
    return (w[:, None, None] * U).sum(0), w


x = torch.tensor([0.0, 0.0, 0.0])
mean = torch.zeros(H, 2)
for k in range(25):
    mean, best = cem(x, mean)
    x = step(x, mean[0])
    mean = torch.roll(mean, -1, 0)
    mean[-1] = 0.0
    if k % 8 == 0:
        dist = round((x[:2] - GOAL).norm().item(), 1)
        print(f"cem step {k} best cost finite {torch.isfinite(best).item()} dist {dist}")
print("cem final near goal", bool((x[:2] - GOAL).norm() < 0.6), "cleared obstacle", bool((x[:2] - OBST).norm() > R_OBS))

mean, w = mppi(torch.tensor([0.0, 0.0, 0.0]), torch.zeros(H, 2))
print("mppi weights", w.shape, round(w.sum().item(), 4), "ess", round((1 / (w * w).sum()).item(), 1) > 1.0)
print("mppi plan", mean.shape, bool((mean.abs() <= U_MAX).all()))

# gradient MPC: controls through tanh, Adam on the differentiable rollout
raw = torch.zeros(1, H, 2, requires_grad=True)
opt = torch.optim.Adam([raw], lr=0.1)
x0 = torch.tensor([0.0, 0.0, 0.785])
for it in range(60):
    U = torch.tanh(raw) * U_MAX
    c = rollout_cost(x0, U)[0]
    opt.zero_grad()
    c.backward()
    opt.step()
print("grad-mpc cost", round(c.item(), 1), "grad finite", torch.isfinite(raw.grad).all().item(), "U bounded",
      bool((U.abs() <= U_MAX).all()))

# learned dynamics: fit an MLP to transitions, then plan through it
X = torch.rand(2048, 3) * torch.tensor([3.0, 3.0, 2 * math.pi]) - torch.tensor([0.5, 0.5, math.pi])
Uu = (torch.rand(2048, 2) * 2 - 1) * U_MAX
target = step(X, Uu) - X
feats = lambda s, a: torch.cat([torch.sin(s[..., 2:]), torch.cos(s[..., 2:]), a], -1)
model = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 3))
mopt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(300):
    idx = torch.randint(0, 2048, (256,))
    loss = F.mse_loss(model(feats(X[idx], Uu[idx])), target[idx])
    mopt.zero_grad()
    loss.backward()
    mopt.step()
with torch.no_grad():
    full = F.mse_loss(model(feats(X, Uu)), target).item()
print("model mse small", full < 1e-3, "type", type(model[1]).__name__)
try:
    torch.topk(torch.zeros(5), 6)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.roll(mean, (1, 2), 0)
except Exception as e:
    print(type(e).__name__, e)
print("std of one sample", torch.zeros(1, 2).std(0).tolist(), torch.zeros(1, 2).std(0, correction=0).tolist())
