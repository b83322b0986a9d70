"""Seeded Monte Carlo statistics in float64 as a methods notebook computes them: pi by rejection, integrals by
importance sampling, bootstrap confidence intervals from randint resamples, a permutation test with randperm,
random walks, Metropolis sampling of a banana density, and reservoir/stratified sampling."""
import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(12345)
f64 = torch.float64

pts = torch.rand(200000, 2, dtype=f64)
inside = (pts.pow(2).sum(1) <= 1.0)
pi_hat = 4 * inside.double().mean().item()
print("pi estimate", round(pi_hat, 4), "error", round(abs(pi_hat - math.pi), 4))

u = torch.rand(100000, dtype=f64)
plain = torch.exp(-u ** 2).mean().item()
print("plain MC int exp(-x^2)", round(plain, 4))
q = torch.distributions.Exponential(torch.tensor(1.0, dtype=f64))
z = q.sample((100000,))
w = torch.where(z < 1.0, torch.exp(-z ** 2) / torch.exp(q.log_prob(z)), torch.zeros_like(z))
print("importance sampled", round(w.mean().item(), 4), "exact", round(math.sqrt(math.pi) / 2 * math.erf(1.0), 4))

data = torch.randn(60, dtype=f64) * 2.0 + 5.0
print("sample mean/std", round(data.mean().item(), 4), round(data.std().item(), 4))
B = 2000
idx = torch.randint(0, len(data), (B, len(data)))
boot = data[idx].mean(1)
lo, hi = torch.quantile(boot, torch.tensor([0.025, 0.975], dtype=f64)).tolist()
print("bootstrap mean CI", round(lo, 4), round(hi, 4), "se", round(boot.std().item(), 4))
boot_med = data[idx].median(1).values
print("bootstrap median", round(boot_med.mean().item(), 4), round(boot_med.std().item(), 4))

a = torch.randn(30, dtype=f64) + 0.5
b = torch.randn(25, dtype=f64)
obs = (a.mean() - b.mean()).item()
pooled = torch.cat([a, b])
count = 0
diffs = []
for _ in range(1000):
    perm = torch.randperm(len(pooled))
    d = (pooled[perm[:30]].mean() - pooled[perm[30:]].mean()).item()
    diffs.append(d)
    count += abs(d) >= abs(obs)
print("permutation test obs", round(obs, 4), "p", round(count / 1000, 4),
      "null std", round(torch.tensor(diffs, dtype=f64).std().item(), 4))

steps = torch.randint(0, 2, (500, 100)) * 2 - 1
walks = steps.cumsum(1)
print("random walk final mean", round(walks[:, -1].double().mean().item(), 4),
      "var", round(walks[:, -1].double().var().item(), 4),
      "max reach", walks.abs().max().item())
gauss_walk = torch.randn(200, 50, dtype=f64).cumsum(1)
print("gaussian walk var ratio", round((gauss_walk[:, -1].var() / 50).item(), 4))


def log_banana(x):
    return -0.5 * (x[..., 0] ** 2 / 4 + (x[..., 1] - 0.3 * x[..., 0] ** 2) ** 2)


x = torch.zeros(2, dtype=f64)
lp = log_banana(x)
chain = []
accepted = 0
for t in range(3000):
    prop = x + 0.8 * torch.randn(2, dtype=f64)
    lp_new = log_banana(prop)
    if torch.rand(1, dtype=f64).log().item() < (lp_new - lp).item():
        x, lp = prop, lp_new
        accepted += 1
    chain.append(x)
chain = torch.stack(chain[500:])
print("metropolis accept", round(accepted / 3000, 4), "mean", [round(v, 4) for v in chain.mean(0).tolist()],
      "var", [round(v, 4) for v in chain.var(0).tolist()])

strata = (torch.arange(100, dtype=f64) + torch.rand(100, dtype=f64)) / 100
print("stratified int x^3", round(strata.pow(3).mean().item(), 4))
antithetic = torch.rand(5000, dtype=f64)
anti = 0.5 * (torch.exp(antithetic) + torch.exp(1 - antithetic))
print("antithetic e-1", round(anti.mean().item(), 4), "var", round(anti.var().item(), 6))

stream = torch.randn(1000, dtype=f64)
k = 5
reservoir = stream[:k].clone()
for i in range(k, len(stream)):
    j = torch.randint(0, i + 1, (1,)).item()
    if j < k:
        reservoir[j] = stream[i]
print("reservoir", [round(v, 4) for v in reservoir.tolist()])

gen = torch.Generator().manual_seed(7)
normals = torch.randn(4, 10000, dtype=f64, generator=gen)
print("gen moments", [round(v, 4) for v in normals.mean(1).tolist()], round(normals.var().item(), 4))
corr = torch.corrcoef(normals)
print("max off-diag corr", round((corr - torch.eye(4, dtype=f64)).abs().max().item(), 4))
chi = torch.distributions.Chi2(torch.tensor(3.0, dtype=f64)).sample((20000,))
print("chi2 mean/var", round(chi.mean().item(), 4), round(chi.var().item(), 4))
