"""Trajectory optimisation for a 2-D point robot and a planar arm, as CHOMP/TrajOpt-style code writes it: waypoints
as a Parameter with fixed endpoints restored through index_copy_, smoothness from finite-difference matrices,
obstacle costs from a signed distance with softplus hinges, LBFGS with strong-Wolfe line search and a closure,
its state_dict, joint-limit penalties with relu, collocation defects, and the errors LBFGS raises."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
N = 24
start, goal = torch.tensor([0.0, 0.0], dtype=f64), torch.tensor([4.0, 3.0], dtype=f64)
OBST = torch.tensor([[1.5, 1.2, 0.6], [2.8, 2.0, 0.5], [2.0, 3.0, 0.4]], dtype=f64)  # x, y, radius

# second-difference operator K (N-2, N): acceleration = K @ x
K = torch.zeros(N - 2, N, dtype=f64)
rows = torch.arange(N - 2)
K[rows, rows] = 1.0
K[rows, rows + 1] = -2.0
K[rows, rows + 2] = 1.0
print("K rank", torch.linalg.matrix_rank(K).item(), "K row", K[0, :4].tolist())


def sdf(p):
    d = torch.cdist(p, OBST[:, :2]) - OBST[:, 2]
    return d.min(dim=-1).values


def cost(traj, w_obs=10.0, margin=0.2):
    acc = K @ traj
    vel = torch.diff(traj, dim=0)
    smooth = (acc ** 2).sum() + 0.1 * (vel ** 2).sum()
    obs = F.softplus(margin - sdf(traj), beta=20.0).pow(2).sum()
    return smooth + w_obs * obs, smooth, obs


init = torch.lerp(start, goal, torch.linspace(0, 1, N, dtype=f64).unsqueeze(-1))
print("straight line min sdf", round(sdf(init).min().item(), 4), "collides", bool((sdf(init) < 0).any()))
traj = torch.nn.Parameter(init + 0.01 * torch.randn(N, 2, dtype=f64))
ends = torch.tensor([0, N - 1])
opt = torch.optim.LBFGS([traj], lr=1.0, max_iter=50, history_size=10, line_search_fn="strong_wolfe",
                        tolerance_grad=1e-5, tolerance_change=1e-6)
calls = []


def closure():
    opt.zero_grad()
    with torch.no_grad():
        traj.index_copy_(0, ends, torch.stack([start, goal]))
    total, s, o = cost(traj)
    total.backward()
    traj.grad.index_fill_(0, ends, 0.0)
    calls.append(total.item())
    return total


for outer in range(3):
    loss = opt.step(closure)
    print(f"outer {outer} start cost {loss.item():.3f}")
total, s, o = cost(traj.detach())
print("final smooth", round(s.item(), 3), "obstacle", round(o.item(), 4), "min sdf",
      round(sdf(traj.detach()).min().item(), 2))
print("endpoints", traj.detach()[[0, -1]].tolist())
st = opt.state_dict()
print("lbfgs state keys", sorted(st["state"][0].keys()))
print("func_evals counted", st["state"][0]["func_evals"] == len(calls), "history", len(st["state"][0]["old_dirs"]))
print("param_groups", {k: v for k, v in st["param_groups"][0].items() if k != "params"})

# planar 2-link arm: joint trajectory with a reach constraint as a penalty
L1, L2 = 1.0, 0.8
q_start, q_lim = torch.tensor([0.0, 0.0], dtype=f64), torch.tensor([2.6, 2.6], dtype=f64)
target = torch.tensor([0.2, 1.4], dtype=f64)


def fk(q):
    return torch.stack([L1 * torch.cos(q[..., 0]) + L2 * torch.cos(q.sum(-1)),
                        L1 * torch.sin(q[..., 0]) + L2 * torch.sin(q.sum(-1))], -1)


q = torch.zeros(16, 2, dtype=f64, requires_grad=True)
opt2 = torch.optim.LBFGS([q], lr=0.8, max_iter=100, line_search_fn="strong_wolfe")


def arm_closure():
    opt2.zero_grad()
    qq = torch.cat([q_start[None], q[1:]])
    reach = (fk(qq[-1]) - target).pow(2).sum()
    limits = F.relu(qq.abs() - q_lim).pow(2).sum()
    c = 100 * reach + (torch.diff(qq, dim=0) ** 2).sum() + 1e3 * limits
    c.backward()
    return c


val = opt2.step(arm_closure)
qq = torch.cat([q_start[None], q.detach()[1:]])
print("arm initial cost", round(val.item(), 4), "reach err", round((fk(qq[-1]) - target).norm().item(), 3))
print("final joints", qq[-1].round(decimals=3).tolist(), "within limits", bool((qq.abs() <= q_lim + 1e-3).all()))

# collocation defects of a double integrator, x_{k+1} - x_k - dt * f(x_k, u_k)
dt = 0.1
x = torch.stack([torch.linspace(0, 1, 11, dtype=f64), torch.full((11,), 1.0, dtype=f64)], -1)
u = torch.zeros(10, dtype=f64)
defect = x[1:] - x[:-1] - dt * torch.stack([x[:-1, 1], u], -1)
print("defects", defect.abs().max().item() < 1e-12, defect.shape)
try:
    torch.optim.LBFGS([traj], line_search_fn="backtracking").step(closure)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.LBFGS([traj, q])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.LBFGS([traj]).step()
except Exception as e:
    print(type(e).__name__, e)
