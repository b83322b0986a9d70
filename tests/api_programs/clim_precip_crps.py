"""Probabilistic precipitation verification: log1p/Box-Cox transforms and their inverses, ensemble CRPS (sorted and
pairwise forms, fair CRPS), Gaussian closed-form CRPS, spread-skill ratios, rank histograms, and threshold scores."""

import math

import torch
import torch.nn.functional as F
from torch.distributions import Normal

torch.manual_seed(0)
torch.set_printoptions(precision=4)
E, N = 8, 50
rain = torch.distributions.Gamma(0.6, 0.4).sample((N,)) * (torch.rand(N) < 0.5)
print("dry frac", (rain == 0).float().mean().item(), round(rain.max().item(), 4))
eps = 1e-3
lt = torch.log1p(rain / eps)
back = torch.expm1(lt) * eps
print("log1p", torch.allclose(back, rain, atol=1e-5), lt.dtype, round(lt.mean().item(), 4))
print("log eps", torch.log(rain + eps)[:4], torch.log(rain).isinf().sum().item())
lam = 0.25
bc = (torch.pow(rain + 1, lam) - 1) / lam
print("boxcox", bc[:4], torch.allclose(torch.pow(bc * lam + 1, 1 / lam) - 1, rain, atol=1e-4))
print("sqrt", rain.sqrt()[:4], torch.log1p(torch.tensor([-1.0, -1.5, 0.0, 1e-8])))
print("clamp", F.relu(torch.tensor([-0.3, 0.0, 2.0])), torch.clamp(torch.tensor([-0.3, 2.0]), min=0.0).tolist())

ens = rain.unsqueeze(0) + torch.randn(E, N) * (rain.unsqueeze(0) + 0.5)
ens = ens.clamp_min(0.0)


def crps_pairwise(ens, obs, fair=False):
    m = ens.shape[0]
    skill = (ens - obs).abs().mean(0)
    spread = (ens.unsqueeze(0) - ens.unsqueeze(1)).abs().sum((0, 1))
    return skill - spread / (2 * m * (m - 1) if fair else 2 * m * m)


def crps_sorted(ens, obs):
    m = ens.shape[0]
    s = ens.sort(dim=0).values
    i = torch.arange(1, m + 1, dtype=ens.dtype).unsqueeze(-1)
    return (ens - obs).abs().mean(0) + (s * (m + 1 - 2 * i)).sum(0) / (m * m)


c1, c2 = crps_pairwise(ens, rain), crps_sorted(ens, rain)
print(
    "crps",
    round(c1.mean().item(), 4),
    torch.allclose(c1, c2, atol=1e-5),
    round(crps_pairwise(ens, rain, True).mean().item(), 4),
)
c64 = crps_pairwise(ens.double(), rain.double())
print("crps64", c64.dtype, round(c64.mean().item(), 6))

mu, sigma = ens.mean(0), ens.std(0)
z = (rain - mu) / sigma
nd = Normal(torch.zeros(()), torch.ones(()))
crps_g = sigma * (z * (2 * nd.cdf(z) - 1) + 2 * nd.log_prob(z).exp() - 1 / math.sqrt(math.pi))
print("gaussian crps", round(crps_g.mean().item(), 4), nd, nd.cdf(torch.tensor(0.0)).item())
mu_p = torch.tensor([0.0, 1.0], requires_grad=True)
sg_p = torch.tensor([1.0, 2.0], requires_grad=True)
zz = (torch.tensor([0.5, -1.0]) - mu_p) / sg_p
crps_t = sg_p * (
    zz * (2 * torch.special.ndtr(zz) - 1)
    + 2 * torch.exp(-0.5 * zz**2) / math.sqrt(2 * math.pi)
    - 1 / math.sqrt(math.pi)
)
crps_t.sum().backward()
print("crps grads", mu_p.grad, sg_p.grad)

rmse = (mu - rain).pow(2).mean().sqrt()
spread = ens.var(0, unbiased=True).mean().sqrt()
print("spread-skill", round((spread / rmse).item(), 4), round(math.sqrt((E + 1) / E) * spread.item() / rmse.item(), 4))
rank = (ens < rain.unsqueeze(0)).sum(0)
hist = torch.bincount(rank, minlength=E + 1)
print("rank hist", hist.tolist(), hist.sum().item(), rank.dtype)
print("histc", torch.histc(rank.float(), bins=E + 1, min=0, max=E))
q = torch.quantile(ens, torch.tensor([0.1, 0.5, 0.9]), dim=0)
print("quantiles", q.shape, q[:, :3])
cover = ((rain >= q[0]) & (rain <= q[2])).float().mean()
print("coverage", cover.item())

for thr in (0.1, 1.0, 5.0):
    prob = (ens > thr).float().mean(0)
    obs = (rain > thr).float()
    bs = F.mse_loss(prob, obs)
    hits = ((prob > 0.5) & (obs > 0)).sum()
    fa = ((prob > 0.5) & (obs == 0)).sum()
    miss = ((prob <= 0.5) & (obs > 0)).sum()
    csi = hits / (hits + fa + miss).clamp(min=1)
    print(f"thr {thr} brier={bs.item():.4f} csi={csi.item():.4f}", hits.dtype, csi.dtype)
print("bce", F.binary_cross_entropy((ens > 1).float().mean(0).clamp(1e-3, 1 - 1e-3), (rain > 1).float()).item() > 0)
try:
    F.binary_cross_entropy((ens > 1).float().mean(0), (rain > 1).float() * 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.quantile(ens, 1.5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.bincount(rank.float())
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.log1p(torch.tensor([1, 2])).dtype, torch.expm1(torch.tensor([True]))
    print("int log1p", torch.log1p(torch.tensor([1, 2])).dtype, torch.expm1(torch.tensor([True])))
except RuntimeError as e:
    print(type(e).__name__, e)
