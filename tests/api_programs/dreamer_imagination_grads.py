"""Dreamer's actor-critic in imagination: rollouts of a frozen world model (requires_grad_(False), no_grad,
inference_mode, detach), dynamics backprop vs REINFORCE gradients, a slow critic by EMA, and grad-mode errors."""

import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)
S, A, H = 6, 2, 5
wm = nn.Sequential(nn.Linear(S + A, 16), nn.SiLU(), nn.Linear(16, S))
rew = nn.Linear(S, 1)
actor = nn.Sequential(nn.Linear(S, 16), nn.SiLU(), nn.Linear(16, A), nn.Tanh())
critic = nn.Sequential(nn.Linear(S, 16), nn.SiLU(), nn.Linear(16, 1))
slow = copy.deepcopy(critic).requires_grad_(False)
for m in (wm, rew):
    m.requires_grad_(False)
print(all(not p.requires_grad for p in wm.parameters()), next(slow.parameters()).requires_grad)

start = torch.randn(3, S)
s, states, actions = start, [], []
for t in range(H):
    a = actor(s.detach())
    s = wm(torch.cat([s, a], -1))
    states.append(s)
    actions.append(a)
traj = torch.stack(states)
print(traj.requires_grad, traj.grad_fn.name(), traj.shape)
r = rew(traj).squeeze(-1)
ret = r.sum(0)
ret.mean().backward()
print([round(p.grad.abs().sum().item(), 4) for p in actor.parameters()][:2], wm[0].weight.grad)
actor.zero_grad()

# critic targets from a no_grad rollout
with torch.no_grad():
    v_slow = slow(traj).squeeze(-1)
    print(v_slow.requires_grad, torch.is_grad_enabled())
    with torch.enable_grad():
        inner = critic(traj.detach())
        print(inner.requires_grad, torch.is_grad_enabled())
target = (r + 0.99 * v_slow).detach()
vloss = 0.5 * (critic(traj.detach()).squeeze(-1) - target).pow(2).mean()
vloss.backward()
print(round(vloss.item(), 4), critic[0].weight.grad.shape, actor[0].weight.grad)

# slow critic EMA, in place under no_grad
with torch.no_grad():
    for p_slow, p in zip(slow.parameters(), critic.parameters()):
        p_slow.mul_(0.98).add_(p, alpha=0.02)
        p_slow.lerp_(p, 0.0)
print(round(sum((a - b).abs().sum().item() for a, b in zip(slow.parameters(), critic.parameters())), 4))
try:
    for p_slow, p in zip(slow.parameters(), critic.parameters()):
        p.mul_(0.5)
except RuntimeError as e:
    print("RuntimeError", e)

# inference_mode tensors cannot join autograd
with torch.inference_mode():
    inf = wm(torch.cat([start, torch.zeros(3, A)], -1))
print(inf.is_inference(), inf.requires_grad, torch.is_inference_mode_enabled())
for bad in [
    lambda: critic(inf).sum().backward(),
    lambda: inf.add_(1.0),
    lambda: inf.requires_grad_(),
    lambda: (inf * torch.ones(1, requires_grad=True)).sum().backward(),
]:
    try:
        bad()
        print("ok")
    except RuntimeError as e:
        print("RuntimeError", e)
print(inf.clone().is_inference(), torch.tensor(inf.tolist()).is_inference())
# detach shares storage: in-place on the detached tensor is seen by backward
x = torch.ones(3, requires_grad=True)
y = x * 2
z = y.exp()
zd = z.detach()
zd.zero_()
try:
    z.sum().backward()
except RuntimeError as e:
    print("RuntimeError", str(e)[:200])
print(y.detach().requires_grad, y.detach()._version, z._version, zd.data_ptr() == z.data_ptr())
w = torch.ones(2, requires_grad=True)
try:
    w.add_(1)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.autograd.grad(rew(traj).sum(), wm[0].weight)
except RuntimeError as e:
    print("RuntimeError", e)
print(torch.autograd.grad(critic(traj.detach()).sum(), critic[2].bias)[0], len(list(actor.parameters())))
print(torch.autograd.grad(critic(traj.detach()).sum(), [critic[2].bias, actor[0].bias], allow_unused=True)[1])
print(torch.autograd.grad(critic(traj.detach()).sum(), [actor[0].bias], allow_unused=True, materialize_grads=True))
