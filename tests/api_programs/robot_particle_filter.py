"""Monte Carlo localisation of a robot in 2-D with range-bearing landmarks, as probabilistic-robotics code writes
it: a motion model with noise, log-weights normalised by logsumexp, effective sample size, systematic and
stratified resampling through cumsum + searchsorted (right=, side=, out_int32=), multinomial resampling,
torch.distributions for the likelihood, circular means with atan2, and the errors of searchsorted."""

import math

import torch
from torch.distributions import Normal, VonMises

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
LANDMARKS = torch.tensor([[2.0, 2.0], [8.0, 1.0], [5.0, 8.0], [1.0, 7.0]])
N = 1000


def motion(p, v, w, dt, noise):
    x, y, th = p.unbind(-1)
    v = v + noise[..., 0]
    w = w + noise[..., 1]
    th_n = th + w * dt
    return torch.stack([x + v * dt * torch.cos(th), y + v * dt * torch.sin(th), th_n], -1)


def observe(p):
    d = LANDMARKS.unsqueeze(0) - p[..., None, :2]
    rng = d.norm(dim=-1)
    bearing = torch.atan2(d[..., 1], d[..., 0]) - p[..., None, 2]
    return rng, torch.atan2(torch.sin(bearing), torch.cos(bearing))


def systematic(w, u0):
    cdf = torch.cumsum(w, 0)
    cdf[-1] = 1.0
    u = (u0 + torch.arange(len(w), dtype=w.dtype)) / len(w)
    return torch.searchsorted(cdf, u)


def stratified(w, u):
    cdf = torch.cumsum(w, 0)
    pos = (torch.arange(len(w), dtype=w.dtype) + u) / len(w)
    return torch.searchsorted(cdf, pos, side="right").clamp_max(len(w) - 1)


def ess(w):
    return 1.0 / (w * w).sum()


truth = torch.tensor([1.0, 1.0, 0.3])
particles = torch.stack([torch.rand(N) * 10, torch.rand(N) * 10, (torch.rand(N) * 2 - 1) * math.pi], -1)
logw = torch.full((N,), -math.log(N))
print("initial ess", round(ess(logw.exp()).item(), 1))
resamples = 0
for t in range(25):
    truth = motion(truth, 1.0, 0.2, 0.2, torch.zeros(2))
    particles = motion(particles, 1.0, 0.2, 0.2, torch.randn(N, 2) * torch.tensor([0.1, 0.05]))
    z_r, z_b = observe(truth)
    p_r, p_b = observe(particles)
    ll = Normal(p_r, 0.3).log_prob(z_r).sum(-1) + VonMises(p_b, torch.tensor(20.0)).log_prob(z_b).sum(-1)
    logw = logw + ll
    logw = logw - torch.logsumexp(logw, 0)
    w = logw.exp()
    if ess(w) < N / 2:
        idx = systematic(w, torch.rand(()).item())
        particles = particles.index_select(0, idx)
        logw = torch.full((N,), -math.log(N))
        resamples += 1
    if t % 8 == 0:
        w = logw.exp()
        mean_xy = (w[:, None] * particles[:, :2]).sum(0)
        mean_th = torch.atan2((w * torch.sin(particles[:, 2])).sum(), (w * torch.cos(particles[:, 2])).sum())
        err = (mean_xy - truth[:2]).norm().item()
        print(f"t={t} err<0.5 {err < 0.5} heading err<0.2 {abs((mean_th - truth[2]).item()) < 0.2}")
print("resampled", resamples > 5, "truth", truth.round(decimals=4).tolist())

# the resamplers on fixed weights
w = torch.tensor([0.1, 0.2, 0.05, 0.4, 0.25], dtype=torch.float64)
print("systematic", systematic(w, 0.3).tolist())
print("stratified", stratified(w, torch.tensor([0.1, 0.9, 0.5, 0.3, 0.7], dtype=torch.float64)).tolist())
cdf = torch.cumsum(w, 0)
print("cdf", cdf.tolist())
print("left/right", torch.searchsorted(cdf, torch.tensor([0.3, 0.35], dtype=torch.float64)).tolist(),
      torch.searchsorted(cdf, torch.tensor([0.3, 0.35], dtype=torch.float64), right=True).tolist())
print("int32", torch.searchsorted(cdf, torch.tensor([0.5], dtype=torch.float64), out_int32=True).dtype)
unsorted = torch.tensor([0.4, 0.1, 0.3])
order = torch.argsort(unsorted)
print("sorter", torch.searchsorted(unsorted, torch.tensor([0.2, 0.35]), sorter=order).tolist())
print("bucketize", torch.bucketize(torch.tensor([0.05, 0.3, 0.99]), cdf.float()).tolist())
counts = torch.bincount(systematic(w, 0.5), minlength=5)
print("counts", counts.tolist(), "ratio", (counts / 5.0).tolist())
torch.manual_seed(1)
idx = torch.multinomial(w, 1000, replacement=True)
print("multinomial freq", (torch.bincount(idx, minlength=5) / 1000.0).round(decimals=1).tolist())
print("ess fixed", round(ess(w).item(), 4), "entropy", round(-(w * w.log()).sum().item(), 4))
try:
    torch.searchsorted(cdf, torch.tensor([0.5]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.searchsorted(cdf, torch.tensor([0.5], dtype=torch.float64), side="middle")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.searchsorted(cdf, torch.tensor([0.5], dtype=torch.float64), side="left", right=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.searchsorted(cdf.view(5, 1), torch.tensor([0.5, 0.2], dtype=torch.float64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.tensor([0.0, -1.0]), 1)
except Exception as e:
    print(type(e).__name__, e)
