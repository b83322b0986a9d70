"""Bootstrap confidence intervals for an ATE: resampling with seeded torch.Generators (randint, multinomial,
Poisson weights), percentile/basic/BCa intervals from torch.quantile over a 1-D q tensor, and their layouts."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
g = torch.Generator().manual_seed(7)
n = 120
x = torch.randn(n, generator=g, dtype=torch.float64)
t = torch.bernoulli(torch.sigmoid(x), generator=g)
y = 1.0 * t + x + torch.randn(n, generator=g, dtype=torch.float64)


def ate(y, t, w=None):
    w = torch.ones_like(y) if w is None else w
    return (w * t * y).sum() / (w * t).sum() - (w * (1 - t) * y).sum() / (w * (1 - t)).sum()


est = ate(y, t)
print("ate", round(est.item(), 4), g.initial_seed(), g.device)
B = 400
state = g.get_state()
idx = torch.randint(0, n, (B, n), generator=g)
boots = torch.stack([ate(y[i], t[i]) for i in idx])
g.set_state(state)
idx2 = torch.randint(0, n, (B, n), generator=g)
print("replay", torch.equal(idx, idx2), idx.dtype, idx.shape, state.dtype, state.shape)
yb, tb = y[idx], t[idx]
vec = (yb * tb).sum(1) / tb.sum(1) - (yb * (1 - tb)).sum(1) / (1 - tb).sum(1)
print("vectorised", torch.allclose(vec, boots), round(boots.std().item(), 4), round(boots.mean().item(), 4))

q = torch.tensor([0.025, 0.5, 0.975], dtype=torch.float64)
pct = torch.quantile(boots, q)
print("percentile", pct, pct.stride())
basic = 2 * est - pct.flip(0)
print("basic", basic)
for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print(mode, torch.quantile(boots, q, interpolation=mode).round(decimals=4).tolist())
# per-subgroup CIs along a dim: q moves to the front of a permuted result
grp = torch.stack([vec[:200], vec[200:]])
ci = torch.quantile(grp, q, dim=1)
print("grouped", ci.shape, ci.stride(), ci.is_contiguous())
print(ci.round(decimals=3))
ci_k = torch.quantile(grp, q, dim=1, keepdim=True)
print("keepdim", ci_k.shape, ci_k.stride())
try:
    ci.view(-1)
except RuntimeError as e:
    print("RuntimeError", str(e)[:60])
print("flat", ci.reshape(-1).shape, ci.T.is_contiguous(), ci.T.contiguous().stride())
lo, mid, hi = ci.unbind(0)
print("unbind", lo.stride(), (hi - lo).round(decimals=3))
nq = torch.nanquantile(torch.where(grp > 2, torch.nan, grp), q, dim=1)
print("nanquantile", nq.stride(), torch.isnan(nq).any().item())
out = torch.empty(3, 2, dtype=torch.float64)
torch.quantile(grp, q, dim=1, out=out)
print("out", out.stride(), torch.equal(out, ci))
print("scalar q", torch.quantile(grp, 0.5, dim=1).stride(), torch.quantile(grp, 0.5, dim=0, keepdim=True).shape)

# BCa interval: bias correction z0 and jackknife acceleration
normal = torch.distributions.Normal(torch.tensor(0.0, dtype=torch.float64), 1.0)
z0 = normal.icdf((boots < est).double().mean())
keep = ~torch.eye(n, dtype=torch.bool)
jack = torch.stack([ate(y[keep[i]], t[keep[i]]) for i in range(n)])
d = jack.mean() - jack
a = d.pow(3).sum() / (6 * d.pow(2).sum().pow(1.5))
zq = normal.icdf(torch.tensor([0.025, 0.975], dtype=torch.float64))
adj = normal.cdf(z0 + (z0 + zq) / (1 - a * (z0 + zq)))
print("z0", round(z0.item(), 4), "a", round(a.item(), 5), "adj", adj.round(decimals=4))
print("bca", torch.quantile(boots, adj).round(decimals=4))

# Bayesian bootstrap (Dirichlet weights) and Poisson bootstrap from the same generator
w = torch.empty(50, n, dtype=torch.float64).exponential_(generator=g)
w = w / w.sum(1, keepdim=True)
bb = torch.stack([ate(y, t, wi) for wi in w])
print("bayes", round(bb.mean().item(), 3), bb.shape)
pw = torch.poisson(torch.ones(50, n, dtype=torch.float64), generator=g)
pb = torch.stack([ate(y, t, wi) for wi in pw])
print("poisson", pw.dtype, pw.sum(1)[:4], round(pb.std().item(), 3))
mi = torch.multinomial(torch.ones(n), n, replacement=True, generator=g)
print("multinomial", mi.shape, mi.dtype, mi.unique().numel() < n)
print("quantile errors")
for bad in [
    lambda: torch.quantile(boots.float(), q),
    lambda: torch.quantile(boots, q.view(3, 1)),
    lambda: torch.quantile(boots, torch.tensor([0.5, 1.5], dtype=torch.float64)),
    lambda: torch.quantile(boots, 1.5),
    lambda: torch.quantile(boots[:0], 0.5),
    lambda: torch.quantile(boots.half(), 0.5),
    lambda: torch.quantile(boots, [0.1, 0.9]),
    lambda: torch.quantile(boots, 0.5, interpolation="cubic"),
    lambda: torch.quantile(grp, q, dim=2),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:90])
