"""Double DQN on a numpy gridworld: target network copied by load_state_dict and tracked by Polyak averaging
(lerp_, mul_/add_ under no_grad, torch._foreach_lerp_), gather of Q-values, argmax of the online net, Huber loss,
n-step returns, epsilon schedules and a proportional prioritized replay with a sum tree held in a tensor."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class GridWorld:
    """A 4x4 grid, goal in the corner, a pit in the middle; actions up/down/left/right."""

    moves = np.array([[-1, 0], [1, 0], [0, -1], [0, 1]])

    def __init__(self, n=4):
        self.n = n
        self.pos = np.zeros(2, dtype=np.int64)

    def obs(self):
        o = np.zeros(self.n * self.n, dtype=np.float32)
        o[self.pos[0] * self.n + self.pos[1]] = 1.0
        return o

    def reset(self):
        self.pos[:] = 0
        return self.obs()

    def step(self, a):
        self.pos = np.clip(self.pos + self.moves[a], 0, self.n - 1)
        if (self.pos == self.n - 1).all():
            return self.obs(), 1.0, True
        if (self.pos == [1, 2]).all():
            return self.obs(), -1.0, True
        return self.obs(), -0.04, False


class QNet(nn.Module):
    def __init__(self, n_in, n_act, hidden=24, dueling=False):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU())
        self.dueling = dueling
        self.adv = nn.Linear(hidden, n_act)
        self.val = nn.Linear(hidden, 1) if dueling else None

    def forward(self, x):
        h = self.body(x)
        a = self.adv(h)
        if self.dueling:
            return self.val(h) + a - a.mean(dim=-1, keepdim=True)
        return a


def init_(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * scale))
    return m


class SumTree:
    """Proportional prioritized replay: leaves hold priorities, parents their sums (a tensor of 2*cap-1)."""

    def __init__(self, capacity):
        self.cap = capacity
        self.tree = torch.zeros(2 * capacity - 1, dtype=torch.float64)
        self.ptr = 0

    def update(self, idx, p):
        i = idx + self.cap - 1
        change = p - self.tree[i]
        self.tree[i] = p
        while i > 0:
            i = (i - 1) // 2
            self.tree[i] += change

    def add(self, p):
        self.update(self.ptr, p)
        self.ptr = (self.ptr + 1) % self.cap

    def find(self, s):
        i = 0
        while 2 * i + 1 < len(self.tree):
            left = 2 * i + 1
            if s <= self.tree[left]:
                i = left
            else:
                s = s - self.tree[left]
                i = left + 1
        return i - self.cap + 1

    @property
    def total(self):
        return self.tree[0].item()


env = GridWorld()
online = init_(QNet(16, 4, dueling=True))
target = copy.deepcopy(online)
print("deepcopy same values", all(torch.equal(a, b) for a, b in zip(online.parameters(), target.parameters())))
print("target requires_grad", next(target.parameters()).requires_grad)
target.requires_grad_(False)
opt = torch.optim.Adam(online.parameters(), lr=5e-3)

cap = 16
tree = SumTree(cap)
buf_s = torch.zeros(cap, 16)
buf_a = torch.zeros(cap, dtype=torch.long)
buf_r = torch.zeros(cap)
buf_s2 = torch.zeros(cap, 16)
buf_d = torch.zeros(cap, dtype=torch.bool)
alpha, beta, gamma, tau = 0.6, 0.4, 0.95, 0.1
count = 0
losses = []
obs = env.reset()
for step in range(40):
    eps = max(0.05, 1.0 - step / 30)
    with torch.no_grad():
        q = online(torch.from_numpy(obs).unsqueeze(0))
    a = int(rng.integers(4)) if rng.random() < eps else int(q.argmax(dim=1).item())
    obs2, rew, done = env.step(a)
    i = count % cap
    buf_s[i] = torch.from_numpy(obs)
    buf_a[i] = a
    buf_r[i] = rew
    buf_s2[i] = torch.from_numpy(obs2)
    buf_d[i] = done
    tree.add(1.0 if count == 0 else tree.tree[cap - 1:].max().item())
    count += 1
    obs = env.reset() if done else obs2
    if count < 8:
        continue
    seg = tree.total / 8
    idx = torch.tensor([tree.find(seg * (k + rng.random())) for k in range(8)])
    probs = tree.tree[cap - 1 + idx] / tree.total
    w = (min(count, cap) * probs) ** (-beta)
    w = (w / w.max()).float()
    q_sa = online(buf_s[idx]).gather(1, buf_a[idx].unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        best = online(buf_s2[idx]).argmax(dim=1, keepdim=True)
        q_next = target(buf_s2[idx]).gather(1, best).squeeze(1)
        y = buf_r[idx] + gamma * q_next * (~buf_d[idx]).float()
    td = y - q_sa
    loss = (w * F.huber_loss(q_sa, y, reduction="none", delta=1.0)).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(online.parameters(), max_norm=10.0)
    opt.step()
    for j, e in zip(idx.tolist(), td.detach().abs().add(1e-3).pow(alpha).tolist()):
        tree.update(j, e)
    with torch.no_grad():
        for tp, op in zip(target.parameters(), online.parameters()):
            tp.lerp_(op, tau)
    losses.append(loss.item())
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} gn {gn.item():.4f} eps {eps:.3f} idx {idx.tolist()}")

print("losses", len(losses), round(sum(losses), 4))
print("tree total", round(tree.total, 4), r(tree.tree[cap - 1:], 8))
print("q(start)", r(online(torch.from_numpy(env.reset()))))

# Polyak by hand equals lerp_ and _foreach_lerp_
src = [p.detach().clone() for p in online.parameters()]
a1 = [p.detach().clone() for p in target.parameters()]
a2 = [p.clone() for p in a1]
a3 = [p.clone() for p in a1]
with torch.no_grad():
    for t_, s_ in zip(a1, src):
        t_.mul_(1 - tau).add_(s_, alpha=tau)
    for t_, s_ in zip(a2, src):
        t_.lerp_(s_, tau)
    torch._foreach_lerp_(a3, src, tau)
print("polyak agree", all(torch.allclose(x, y, atol=1e-6) for x, y in zip(a1, a2)),
      all(torch.allclose(x, y, atol=1e-6) for x, y in zip(a1, a3)))
sd = target.state_dict()
print("state keys", list(sd.keys()))
missing = target.load_state_dict(online.state_dict())
print("load result", missing)
same_ptr = target.adv.weight.data_ptr() == online.adv.weight.data_ptr()
print("copied", torch.equal(target.adv.weight, online.adv.weight), not same_ptr)

# n-step return with a discount vector and a done mask (cumprod trick)
rews = torch.tensor([[0.1, -0.04, 1.0], [-0.04, -0.04, -0.04]])
dones = torch.tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
disc = gamma ** torch.arange(3, dtype=torch.float32)
alive = torch.cumprod(1 - torch.cat([torch.zeros(2, 1), dones[:, :-1]], 1), 1)
nstep = (rews * disc * alive).sum(1) + gamma ** 3 * torch.tensor([0.5, 0.7]) * alive[:, -1] * (1 - dones[:, -1])
print("nstep", r(nstep), disc.dtype, alive.tolist())

# typical mistakes
try:
    online(buf_s[:2]).gather(1, buf_a[:2])
except RuntimeError as e:
    print("gather err:", type(e).__name__, str(e).split("\n")[0])
hl = F.huber_loss(q_sa, y.long().float(), delta=0.5)
print("huber", round(hl.item(), 4), hl.dtype, F.smooth_l1_loss(q_sa.double(), y.double(), beta=0.0).dtype)
try:
    online(buf_s[:2]).gather(1, buf_a[:2].unsqueeze(1).int().float())
except RuntimeError as e:
    print("gather float idx:", type(e).__name__, str(e)[:60])
try:
    target.load_state_dict({"adv.weight": torch.zeros(4, 24)})
except RuntimeError as e:
    print("load err:", str(e).split("\n")[0], "|", "Missing key(s)" in str(e))
qs = online(buf_s[:4])
print("max", r(qs.max(1).values), qs.max(1).indices.tolist(), qs.argmax(-1).dtype)
