"""Seeded reinforcement-learning code as RL libraries write it: a stochastic gridworld stepped with torch.rand,
REINFORCE with Categorical sampling and a baseline, epsilon-greedy Q-learning with a replay buffer sampled by
randint, a tanh-squashed Gaussian policy with rsample (SAC-style log-prob correction), and Ornstein-Uhlenbeck
exploration noise; every return, loss and sampled action is PyTorch's."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

S, A = 6, 2


def env_step(s, a):
    """Chain MDP: action 1 moves right with prob 0.8 (else left), action 0 moves left; reward at the end."""
    slip = torch.rand(1).item() < 0.2
    move = (1 if a == 1 else -1) * (-1 if slip else 1)
    s2 = min(max(s + move, 0), S - 1)
    return s2, (1.0 if s2 == S - 1 else -0.01), s2 == S - 1


policy = nn.Sequential(nn.Linear(S, 16), nn.ReLU(), nn.Linear(16, A))
opt = torch.optim.Adam(policy.parameters(), lr=0.02)
baseline = 0.0
for episode in range(20):
    s, logps, rewards, ents = 0, [], [], []
    for t in range(20):
        logits = policy(F.one_hot(torch.tensor(s), S).float())
        dist = Categorical(logits=logits)
        a = dist.sample()
        logps.append(dist.log_prob(a))
        ents.append(dist.entropy())
        s, r, done = env_step(s, a.item())
        rewards.append(r)
        if done:
            break
    returns, g = [], 0.0
    for r in reversed(rewards):
        g = r + 0.95 * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    baseline = 0.9 * baseline + 0.1 * returns[0].item()
    loss = -(torch.stack(logps) * (returns - baseline)).sum() - 0.01 * torch.stack(ents).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if episode % 5 == 4:
        print(f"episode {episode} len {len(rewards)} return {returns[0].item():.4f} loss {loss.item():.4f}")
with torch.no_grad():
    probs = policy(torch.eye(S)).softmax(-1)
print("policy P(right)", probs[:, 1])

torch.manual_seed(1)
qnet = nn.Linear(S, A)
target = nn.Linear(S, A)
target.load_state_dict(qnet.state_dict())
qopt = torch.optim.SGD(qnet.parameters(), lr=0.1)
cap = 64
buf_s = torch.zeros(cap, dtype=torch.long)
buf_a = torch.zeros(cap, dtype=torch.long)
buf_r = torch.zeros(cap)
buf_s2 = torch.zeros(cap, dtype=torch.long)
buf_d = torch.zeros(cap)
n, ptr, s = 0, 0, 0
eps_hist = []
for step in range(100):
    eps = max(0.05, 1.0 - step / 70)
    if torch.rand(1).item() < eps:
        a = torch.randint(0, A, (1,)).item()
    else:
        with torch.no_grad():
            a = qnet(F.one_hot(torch.tensor(s), S).float()).argmax().item()
    s2, r, done = env_step(s, a)
    buf_s[ptr], buf_a[ptr], buf_r[ptr], buf_s2[ptr], buf_d[ptr] = s, a, r, s2, float(done)
    ptr, n = (ptr + 1) % cap, min(n + 1, cap)
    s = 0 if done else s2
    if n >= 16:
        idx = torch.randint(0, n, (16,))
        q = qnet(F.one_hot(buf_s[idx], S).float()).gather(1, buf_a[idx].unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            tq = buf_r[idx] + 0.9 * (1 - buf_d[idx]) * target(F.one_hot(buf_s2[idx], S).float()).max(1).values
        loss = F.smooth_l1_loss(q, tq)
        qopt.zero_grad()
        loss.backward()
        qopt.step()
        if step % 25 == 0:
            print(f"dqn step {step} eps {eps:.2f} loss {loss.item():.4f} batch {idx[:5].tolist()}")
    if step % 40 == 0:
        target.load_state_dict(qnet.state_dict())
print("q values", qnet(torch.eye(S)).detach())

torch.manual_seed(2)
actor = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 4))
obs = torch.randn(5, 3)
mu, log_std = actor(obs).chunk(2, -1)
log_std = log_std.clamp(-5, 2)
dist = Normal(mu, log_std.exp())
u = dist.rsample()
act = torch.tanh(u)
logp = (dist.log_prob(u) - torch.log(1 - act.pow(2) + 1e-6)).sum(-1)
print("squashed actions", act.detach())
print("log probs", logp.detach())
alpha = 0.2
q_fake = (act * torch.tensor([1.0, -0.5])).sum(-1)
actor_loss = (alpha * logp - q_fake).mean()
actor_loss.backward()
print("actor loss", round(actor_loss.item(), 4), "grad norm", round(actor[0].weight.grad.norm().item(), 4))
print("deterministic", torch.tanh(mu).detach()[0])

theta, sigma, x = 0.15, 0.2, torch.zeros(2)
trace = []
for _ in range(50):
    x = x + theta * (0.0 - x) + sigma * torch.randn(2)
    trace.append(x.clone())
trace = torch.stack(trace)
print("OU noise last", trace[-1], "std", trace.std(0))
gae_r = torch.rand(8)
gae_v = torch.rand(9)
adv, last = torch.zeros(8), 0.0
for t in reversed(range(8)):
    delta = gae_r[t] + 0.99 * gae_v[t + 1] - gae_v[t]
    last = delta + 0.99 * 0.95 * last
    adv[t] = last
print("gae", adv)
