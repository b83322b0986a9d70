"""Multi-armed bandits as experiment code writes them: epsilon-greedy, UCB1 with its confidence bonus, Thompson
sampling with Beta posteriors for Bernoulli arms and Normal-Gamma posteriors for Gaussian arms, EXP3's exponential
weights, and the regret curves printed as summaries; plus the samplers' validation errors."""

import math

import torch
from torch.distributions import Bernoulli, Beta, Gamma, Normal

torch.manual_seed(0)
K, T, RUNS = 5, 300, 8
p_true = torch.tensor([0.1, 0.3, 0.5, 0.55, 0.7])
best = p_true.max()


def pull(arms, gen):
    """arms: (RUNS,) long -> Bernoulli rewards."""
    return torch.bernoulli(p_true[arms], generator=gen)


def run(select):
    gen = torch.Generator().manual_seed(11)
    counts = torch.zeros(RUNS, K)
    sums = torch.zeros(RUNS, K)
    regret = torch.zeros(T)
    for t in range(T):
        arms = select(t, counts, sums, gen)
        r = pull(arms, gen)
        counts.scatter_add_(1, arms[:, None], torch.ones(RUNS, 1))
        sums.scatter_add_(1, arms[:, None], r[:, None])
        regret[t] = (best - p_true[arms]).mean()
    return counts, regret.cumsum(0)


def eps_greedy(t, counts, sums, gen, eps=0.1):
    means = torch.where(counts > 0, sums / counts.clamp(min=1), torch.full_like(sums, float("inf")))
    greedy = means.argmax(1)
    explore = torch.rand(RUNS, generator=gen) < eps
    rand_arm = torch.randint(0, K, (RUNS,), generator=gen)
    return torch.where(explore, rand_arm, greedy)


def ucb1(t, counts, sums, gen):
    if t < K:
        return torch.full((RUNS,), t, dtype=torch.long)
    bonus = torch.sqrt(2 * math.log(t + 1) / counts)
    return (sums / counts + bonus).argmax(1)


def thompson(t, counts, sums, gen):
    a = 1 + sums
    b = 1 + counts - sums
    x = torch._standard_gamma(a)
    y = torch._standard_gamma(b)
    return (x / (x + y)).argmax(1)


for name, fn in [("eps-greedy", eps_greedy), ("ucb1", ucb1), ("thompson", thompson)]:
    counts, creg = run(fn)
    frac_best = (counts[:, -1] / counts.sum(1)).mean()
    print(name, "pulls", counts.sum().item(), "best-arm share >", frac_best.item() > 0.2,
          "regret finite", bool(torch.isfinite(creg).all()), "monotone", bool((creg.diff() >= 0).all()))

# UCB bonus values are deterministic: print them for a fixed count table
counts = torch.tensor([[10.0, 5.0, 1.0, 20.0, 64.0]])
sums = counts * p_true
bonus = torch.sqrt(2 * math.log(100) / counts)
print("ucb", (sums / counts + bonus).round(decimals=4).tolist(), (sums / counts + bonus).argmax().item())

# Beta posteriors: analytic quantities (no sampling)
post = Beta(1 + sums, 1 + counts - sums)
print("beta mean", post.mean.round(decimals=4).tolist())
print("beta var", post.variance.round(decimals=5).tolist())
print("beta entropy", post.entropy().round(decimals=4).tolist())
print("beta log_prob(0.5)", post.log_prob(torch.full((1, K), 0.5)).round(decimals=4).tolist())
print("batch/event", post.batch_shape, post.event_shape, post.sample((3,)).shape)
print("support", post.support, Beta(torch.tensor(2.0), torch.tensor(2.0)).mode.item())
s = Beta(torch.tensor([2.0, 5.0]), torch.tensor([5.0, 2.0])).sample((4000,))
print("sample moments", s.mean(0).round(decimals=1).tolist(), bool(((s > 0) & (s < 1)).all()))

# Normal-Gamma Thompson for Gaussian arms: posterior parameters in closed form
mu0, lam0, alpha0, beta0 = 0.0, 1.0, 1.0, 1.0
obs = torch.tensor([[0.2, 0.5, 0.1, 0.4], [1.0, 1.2, 0.8, 1.1], [-0.5, 0.0, 0.3, -0.2]])
n = obs.shape[1]
xbar = obs.mean(1)
lam_n = lam0 + n
mu_n = (lam0 * mu0 + n * xbar) / lam_n
alpha_n = alpha0 + n / 2
beta_n = beta0 + 0.5 * ((obs - xbar[:, None]) ** 2).sum(1) + lam0 * n * (xbar - mu0) ** 2 / (2 * lam_n)
print("NG posterior", mu_n.round(decimals=4).tolist(), round(alpha_n, 4), beta_n.round(decimals=4).tolist())
prec = Gamma(torch.full((3,), alpha_n), beta_n)
print("precision mean", prec.mean.round(decimals=4).tolist(), "entropy", prec.entropy().round(decimals=4).tolist())
tau = prec.sample((2000,))
theta = Normal(mu_n, 1 / torch.sqrt(lam_n * tau)).sample()
print("thompson draw shape", theta.shape, "winner", torch.bincount(theta.argmax(1), minlength=3).argmax().item())

# EXP3 weights: deterministic updates from a fixed reward sequence
gamma = 0.1
w = torch.ones(K)
for t, (arm, rew) in enumerate([(0, 0.0), (4, 1.0), (4, 1.0), (2, 0.0), (3, 1.0), (4, 0.0)]):
    p = (1 - gamma) * w / w.sum() + gamma / K
    xhat = torch.zeros(K).index_fill_(0, torch.tensor([arm]), rew / p[arm].item())
    w = w * torch.exp(gamma * xhat / K)
print("exp3 p", p.round(decimals=4).tolist(), "w", w.round(decimals=4).tolist())
print("bernoulli log_prob", Bernoulli(probs=p_true).log_prob(torch.ones(K)).round(decimals=4).tolist())

for bad in [
    lambda: Beta(torch.tensor([0.0]), torch.tensor([1.0])),
    lambda: Beta(torch.tensor([1.0]), torch.tensor([1.0])).log_prob(torch.tensor([1.5])),
    lambda: Gamma(torch.tensor([1.0]), torch.tensor([-1.0])),
    lambda: torch.bernoulli(torch.tensor([1.5])),
    lambda: torch._standard_gamma(torch.tensor([1, 2])),
    lambda: torch.zeros(2, 3).index_fill_(1, torch.tensor([3]), 1.0),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
