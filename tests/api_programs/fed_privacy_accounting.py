"""Privacy accounting arithmetic in torch: Renyi DP of the sampled Gaussian mechanism for integer orders via
binomial expansion in log space (lgamma, logsumexp), composition over steps, conversion to (epsilon, delta),
the analytic Gaussian mechanism's delta through erfc, and a noise-multiplier search by bisection."""

import math

import torch

torch.set_default_dtype(torch.float64)
orders = torch.arange(2, 33, dtype=torch.float64)


def log_binom(n, k):
    return torch.lgamma(n + 1) - torch.lgamma(k + 1) - torch.lgamma(n - k + 1)


def rdp_sampled_gaussian(q, sigma, alpha):
    """Integer-order RDP of the Poisson-subsampled Gaussian (Mironov et al. 2019)."""
    if q == 1.0:
        return alpha / (2 * sigma ** 2)
    k = torch.arange(0, int(alpha) + 1, dtype=torch.float64)
    a = torch.tensor(float(alpha))
    terms = (log_binom(a, k) + k * math.log(q) + (a - k) * math.log1p(-q)
             + (k * k - k) / (2 * sigma ** 2))
    return (torch.logsumexp(terms, dim=0) / (a - 1)).item()


def epsilon(q, sigma, steps, delta):
    rdp = torch.tensor([rdp_sampled_gaussian(q, sigma, a) for a in orders.tolist()]) * steps
    eps = rdp + torch.log1p(-1 / orders) - (math.log(delta) + torch.log(orders)) / (orders - 1)
    best = torch.argmin(eps)
    return eps[best].item(), orders[best].item(), rdp


q, sigma, delta = 256 / 60000, 1.1, 1e-5
for steps in (1, 100, 1000, 10000):
    eps, order, _ = epsilon(q, sigma, steps, delta)
    print("steps", steps, "eps", round(eps, 4), "order", order)

_, _, rdp = epsilon(q, sigma, 1000, delta)
print("rdp head", rdp[:5].round(decimals=4).tolist(), rdp.dtype)
print("full-batch rdp", [round(rdp_sampled_gaussian(1.0, 2.0, a), 4) for a in (2, 8, 16)],
      [round(a / (2 * 2.0 ** 2), 4) for a in (2, 8, 16)])


def analytic_delta(eps, sigma, sens=1.0):
    mu = sens / sigma
    phi = lambda x: 0.5 * torch.erfc(-x / math.sqrt(2))
    e = torch.tensor(eps)
    return (phi(mu / 2 - e / mu) - torch.exp(e) * phi(-mu / 2 - e / mu)).item()


for s in (0.5, 1.0, 2.0):
    print("analytic delta sigma", s, [f"{analytic_delta(e, s):.4e}" for e in (0.5, 1.0, 2.0)])

lo, hi = torch.tensor(0.3), torch.tensor(20.0)
target = 3.0
for _ in range(30):
    mid = (lo + hi) / 2
    if epsilon(q, mid.item(), 2000, delta)[0] > target:
        lo = mid
    else:
        hi = mid
print("sigma for eps<=3", round(hi.item(), 3), round(epsilon(q, hi.item(), 2000, delta)[0], 4))

gauss = torch.distributions.Normal(0.0, 1.0)
print("normal cdf", gauss.cdf(torch.tensor([-1.0, 0.0, 1.5])).round(decimals=4).tolist(),
      round(gauss.icdf(torch.tensor(0.975)).item(), 4))
print("special", torch.special.log_ndtr(torch.tensor([-10.0, 0.0])).round(decimals=4).tolist(),
      torch.special.ndtri(torch.tensor([0.1, 0.5])).round(decimals=4).tolist(),
      torch.special.erfcx(torch.tensor([5.0])).round(decimals=4).tolist())
print("xlogy", torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])).round(decimals=4).tolist(),
      torch.special.gammaln(torch.tensor([0.5, 10.0])).round(decimals=4).tolist())
print("logsumexp -inf", torch.logsumexp(torch.tensor([-float("inf"), -float("inf")]), 0).item(),
      torch.logsumexp(torch.empty(0), 0).item())
print("default dtype", torch.get_default_dtype(), torch.tensor(1.5).dtype, torch.arange(3.0).dtype)
try:
    torch.logsumexp(torch.tensor([1, 2]), dim=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.set_default_dtype(torch.int64)
except Exception as e:
    print(type(e).__name__, e)
torch.set_default_dtype(torch.float32)
print("restored", torch.get_default_dtype(), torch.lgamma(torch.tensor([3, 4])).dtype)
