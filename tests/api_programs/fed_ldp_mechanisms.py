"""Local differential privacy on the client: randomized response on bits and k-ary labels with debiased
frequency estimates, the Laplace and Gaussian mechanisms from torch.distributions and seeded generators, clipping
before noise, and the error of the private means against the true ones."""

import math

import torch

torch.manual_seed(0)
N, K = 5000, 4
true_bits = (torch.rand(N) < 0.3).long()
labels = torch.multinomial(torch.tensor([0.4, 0.3, 0.2, 0.1]), N, replacement=True)
print("true freq", torch.bincount(labels, minlength=K).div(N).tolist(), round(true_bits.float().mean().item(), 4))

# binary randomized response
eps = 1.0
p_keep = math.exp(eps) / (1 + math.exp(eps))
g = torch.Generator().manual_seed(1)
keep = torch.rand(N, generator=g) < p_keep
reported = torch.where(keep, true_bits, 1 - true_bits)
est = (reported.float().mean() - (1 - p_keep)) / (2 * p_keep - 1)
print(
    "rr p_keep", round(p_keep, 4), "estimate", round(est.item(), 2), "flipped", round(1 - keep.float().mean().item(), 2)
)

# k-ary randomized response
p = math.exp(eps) / (math.exp(eps) + K - 1)
q = 1 / (math.exp(eps) + K - 1)
keep = torch.bernoulli(torch.full((N,), p - q) / (1 - q), generator=g).bool()
noise = torch.randint(0, K, (N,), generator=g)
reported = torch.where(keep, labels, noise)
counts = torch.bincount(reported, minlength=K).float()
freq = (counts / N - q) / (p - q)
print(
    "krr p q", round(p, 4), round(q, 4), "estimate", freq.round(decimals=1).tolist(), "sum", round(freq.sum().item(), 4)
)

# Laplace mechanism on clipped values
values = torch.randn(N) * 2 + 1
lo, hi = -2.0, 4.0
clipped = values.clamp(lo, hi)
sens = (hi - lo) / N
lap = torch.distributions.Laplace(torch.tensor(0.0), torch.tensor(sens / eps))
print(
    "laplace",
    lap.mean.item(),
    round(lap.stddev.item(), 6),
    round(lap.variance.item(), 8),
    round(lap.log_prob(torch.tensor(0.0)).item(), 4),
    round(lap.cdf(torch.tensor(0.001)).item(), 4),
)
private_mean = clipped.mean() + lap.sample()
print(
    "clip bias",
    round((clipped.mean() - values.mean()).item(), 2),
    "private err small",
    abs(private_mean.item() - clipped.mean().item()) < 0.05,
)
print("laplace icdf", lap.icdf(torch.tensor([0.25, 0.5, 0.75])).mul(1e4).round(decimals=4).tolist())

# Gaussian mechanism per client (local), averaged at the server
delta = 1e-5
sigma = math.sqrt(2 * math.log(1.25 / delta)) * 1.0 / eps
per_client = torch.randn(100, 3).clamp(-1, 1)
l2 = per_client.norm(dim=1, keepdim=True)
per_client = per_client / torch.maximum(l2, torch.ones_like(l2))
g2 = torch.Generator().manual_seed(9)
noisy = per_client + torch.randn(per_client.shape, generator=g2) * sigma
print(
    "sigma",
    round(sigma, 4),
    "norms<=1",
    bool((per_client.norm(dim=1) <= 1 + 1e-6).all()),
    "mean err",
    round((noisy.mean(0) - per_client.mean(0)).norm().item(), 1),
)
normal = torch.distributions.Normal(0.0, sigma)
print("tail prob", round((1 - normal.cdf(torch.tensor(3 * sigma))).item(), 4), round(normal.entropy().item(), 4))
print(
    "bernoulli",
    torch.distributions.Bernoulli(probs=torch.tensor(p_keep)).entropy().round(decimals=4).item(),
    torch.distributions.Categorical(probs=torch.tensor([p, q, q, q])).entropy().round(decimals=4).item(),
)
print(
    "expm1/log1p",
    round(math.expm1(eps), 4),
    torch.expm1(torch.tensor([eps, 1e-8])).tolist()[0] > 1.7,
    torch.log1p(torch.tensor([1e-8])).item() > 0,
)

try:
    torch.distributions.Laplace(0.0, -1.0)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    torch.bernoulli(torch.tensor([1.5]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.tensor([0.5, 0.5]), 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.where(keep, labels, 1.5 * noise)
except Exception as e:
    print(type(e).__name__, e)
print("where promotes", torch.where(keep[:3], labels[:3], 1.5 * noise[:3]).dtype)
