"""Byzantine-robust aggregation of client updates: coordinate-wise median and trimmed mean (sort, kthvalue,
nanmedian), Krum and Multi-Krum scored from torch.cdist distances, geometric median by Weiszfeld iterations,
norm-bounded clipping, and how each rule fares against sign-flipping and large-noise attackers."""

import torch

torch.manual_seed(0)
n, f, d = 10, 3, 6
honest = torch.randn(n - f, d) * 0.1 + torch.tensor([1.0, -1.0, 0.5, 0.0, 2.0, -0.5])
true_mean = honest.mean(0)
attacks = {
    "signflip": -4.0 * honest[:f],
    "noise": torch.randn(f, d) * 10,
    "same": torch.full((f, d), 5.0),
}


def median(u):
    return u.median(dim=0).values


def trimmed_mean(u, b):
    s, _ = torch.sort(u, dim=0)
    return s[b:u.shape[0] - b].mean(0)


def krum(u, f, m=1):
    dist = torch.cdist(u, u) ** 2
    k = u.shape[0] - f - 2
    scores = torch.topk(dist, k + 1, dim=1, largest=False).values.sum(1)
    chosen = torch.argsort(scores)[:m]
    return u[chosen].mean(0), chosen, scores


def geometric_median(u, iters=50, eps=1e-8):
    z = u.mean(0)
    for _ in range(iters):
        w = 1.0 / torch.clamp(torch.linalg.norm(u - z, dim=1), min=eps)
        z = (w[:, None] * u).sum(0) / w.sum()
    return z


def norm_clip(u, tau):
    norms = u.norm(dim=1, keepdim=True)
    return (u * torch.clamp(tau / norms, max=1.0)).mean(0)


for name, bad in attacks.items():
    u = torch.cat([honest, bad])
    res = {
        "mean": u.mean(0),
        "median": median(u),
        "trimmed": trimmed_mean(u, f),
        "krum": krum(u, f)[0],
        "multikrum": krum(u, f, m=4)[0],
        "geomed": geometric_median(u),
        "clip": norm_clip(u, 2.0),
    }
    errs = {k: round((v - true_mean).norm().item(), 4) for k, v in res.items()}
    print(name, errs)
    _, chosen, scores = krum(u, f, m=4)
    print("  krum picks", sorted(chosen.tolist()), "byzantine picked", int((chosen >= n - f).sum()))

u = torch.cat([honest, attacks["noise"]])
kv = torch.kthvalue(u, k=n // 2, dim=0)
print("kthvalue", kv.values.round(decimals=4).tolist(), kv.indices.tolist())
print("median even", u[:4, 0].median().item() == u[:4, 0].sort().values[1].item(),
      round(torch.quantile(u[:, 0], 0.5).item(), 4))
print("quantile", torch.quantile(u, torch.tensor([0.1, 0.9]), dim=0, interpolation="nearest").shape,
      torch.quantile(u[:, 1], torch.tensor([0.25, 0.75]), interpolation="midpoint").round(decimals=4).tolist())
with_nan = u.clone()
with_nan[0, 0] = float("nan")
print("nanmedian", round(with_nan[:, 0].nanmedian().item(), 4), with_nan[:, 0].median().item(),
      torch.nanquantile(with_nan[:, 0], 0.5).round(decimals=4).item())
D = torch.cdist(u, u, p=1)
print("cdist p=1", D.shape, round(D[0, 1].item(), 4), torch.allclose(D, D.T), D.diagonal().abs().max().item())
Dinf = torch.cdist(u[:3], u[3:5], p=float("inf"))
print("cdist inf", Dinf.round(decimals=4).tolist())
print("pdist", torch.pdist(u[:4]).round(decimals=4).tolist())
fl = torch.flatten(torch.stack([torch.zeros(2, 3), torch.ones(2, 3)]), start_dim=1)
print("flatten", fl.shape, torch.median(torch.tensor([[1.0, 5.0, 3.0, 2.0]]), dim=1, keepdim=True))

try:
    torch.cdist(u, torch.randn(4, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.kthvalue(u, 11, dim=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.quantile(u, 1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cdist(u, u, p=-1)
except Exception as e:
    print(type(e).__name__, e)
