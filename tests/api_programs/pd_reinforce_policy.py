"""Policy-gradient code as RL tutorials write it: REINFORCE with Categorical(logits).log_prob on a corridor
environment with discounted returns and a baseline, entropy bonuses, a Gaussian policy for a continuous bandit
(Normal log_prob with a learned log_std), a Bernoulli policy, and the score-function estimator checked against the
reparameterized gradient."""
import torch
import torch.distributions as D
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


class Corridor:
    """States 0..5; action 1 moves right, 0 left; reward 1 at the right end, -0.01 per step."""

    def __init__(self, n=6):
        self.n = n

    def reset(self):
        self.s = 0
        return self.s

    def step(self, a):
        self.s = max(0, min(self.n - 1, self.s + (1 if a == 1 else -1)))
        done = self.s == self.n - 1
        return self.s, (1.0 if done else -0.01), done


def one_hot(s, n=6):
    return torch.nn.functional.one_hot(torch.tensor(s), n).float()


policy = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=0.02)
env = Corridor()
gamma = 0.95
baseline = 0.0
for episode in range(80):
    s = env.reset()
    log_probs, rewards, entropies = [], [], []
    for _ in range(30):
        dist = D.Categorical(logits=policy(one_hot(s)))
        a = dist.sample()
        log_probs.append(dist.log_prob(a))
        entropies.append(dist.entropy())
        s, rwd, done = env.step(a.item())
        rewards.append(rwd)
        if done:
            break
    returns, g = [], 0.0
    for rwd in reversed(rewards):
        g = rwd + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    baseline = 0.9 * baseline + 0.1 * returns.mean().item()
    adv = returns - baseline
    loss = -(torch.stack(log_probs) * adv).sum() - 0.01 * torch.stack(entropies).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if episode % 20 == 0 or episode == 79:
        print(f"episode {episode:2d} steps {len(rewards):2d} return {returns[0].item():.4f} loss {loss.item():.4f}")

with torch.no_grad():
    probs = torch.softmax(policy(torch.eye(6)), -1)[:, 1]
    print("P(right) per state", [round(p, 3) for p in probs.tolist()])
    print("greedy right everywhere but the goal", bool((probs[:5] > 0.5).all()))

# batched Categorical policy: log_prob of a batch of actions, entropy, and sampling shapes
logits = torch.tensor([[2.0, 0.0, -1.0], [0.0, 0.0, 0.0], [-3.0, 1.0, 1.0]])
pi = D.Categorical(logits=logits)
torch.manual_seed(1)
acts = pi.sample((4,))
print("actions", acts.tolist())
print("log_prob", pi.log_prob(acts))
print("entropy", pi.entropy(), "max entropy", round(torch.log(torch.tensor(3.0)).item(), 4))
print("probs rows sum", pi.probs.sum(-1), "logits normalised", pi.logits.exp().sum(-1))
print("enumerate_support", pi.enumerate_support().shape, pi.enumerate_support(expand=False).shape)
print("log_prob of all actions", pi.log_prob(pi.enumerate_support()).T)

# Gaussian policy on a continuous bandit: reward = -(a - 1.5)^2
mu = torch.zeros(1, requires_grad=True)
log_std = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([mu, log_std], lr=0.02)
torch.manual_seed(2)
for it in range(150):
    pi_c = D.Normal(mu, log_std.exp())
    a = pi_c.sample((64,))
    rwd = -(a - 1.5).pow(2)
    adv = (rwd - rwd.mean()) / (rwd.std() + 1e-8)
    loss = -(pi_c.log_prob(a) * adv).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 50 == 0:
        print(f"gauss it {it:3d} mu {mu.item():.4f} std {log_std.exp().item():.4f}")
print("final mu", round(mu.item(), 2), "std", round(log_std.exp().item(), 2), "near 1.5", abs(mu.item() - 1.5) < 0.3)

# score function vs reparameterization: d/dmu E[x^2] for x ~ N(mu, 1) is 2*mu
m = torch.tensor(0.7, requires_grad=True)
torch.manual_seed(3)
dist = D.Normal(m, 1.0)
x = dist.sample((50000,))
sf = torch.autograd.grad((dist.log_prob(x) * x.pow(2)).mean(), m)[0]
torch.manual_seed(3)
xr = D.Normal(m, 1.0).rsample((50000,))
rp = torch.autograd.grad(xr.pow(2).mean(), m)[0]
print("score-function", round(sf.item(), 1), "reparam", round(rp.item(), 3), "exact", 1.4)

# Bernoulli policy (e.g. a stop/continue head) with logits
head = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
pb = D.Bernoulli(logits=head)
torch.manual_seed(4)
b = pb.sample()
lp = pb.log_prob(b)
(-(lp * torch.tensor([1.0, -1.0, 0.5]))).sum().backward()
print("bernoulli action", b.tolist(), "log_prob", [round(v, 4) for v in lp.tolist()], "grad",
      [round(v, 4) for v in head.grad.tolist()])
print("bernoulli entropy", pb.entropy(), "probs", pb.probs)
