"""2-D Ising model Monte Carlo driven by a numpy RNG: checkerboard Metropolis sweeps with neighbour sums by torch.roll
and by a circular conv2d stencil, energy and magnetization observables, Binder cumulant, histograms (histc,
histogram, bincount), cluster sizes by union-find on int tensors, and the statistics a physicist prints: mode,
median, kthvalue, nanmean, quantile, logsumexp reweighting and blocking error bars."""

import math

import numpy as np
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
L = 12
rng = np.random.default_rng(5)
spins = torch.from_numpy(rng.choice([-1, 1], size=(L, L)).astype(np.int8))
print("spins", spins.shape, spins.dtype, "sum", int(spins.sum()), spins.sum().dtype)


def neighbours_roll(s):
    return s.roll(1, 0) + s.roll(-1, 0) + s.roll(1, 1) + s.roll(-1, 1)


stencil = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]).view(1, 1, 3, 3)


def neighbours_conv(s):
    x = F.pad(s.float()[None, None], (1, 1, 1, 1), mode="circular")
    return F.conv2d(x, stencil)[0, 0]


nr = neighbours_roll(spins.to(torch.int32))
nc = neighbours_conv(spins)
print("roll vs conv", torch.equal(nr.float(), nc), nr.dtype, nc.dtype, nr[0, :5].tolist())


def energy(s):
    s = s.to(torch.float64)
    return -(s * (s.roll(1, 0) + s.roll(1, 1))).sum() / s.numel()


checker = (torch.arange(L)[:, None] + torch.arange(L)[None, :]) % 2 == 0
print("checkerboard", checker.dtype, int(checker.sum()), checker[:2, :4].tolist())


def sweep(s, beta, rs):
    for colour in (checker, ~checker):
        nb = neighbours_roll(s.to(torch.int32))
        dE = 2 * s.to(torch.int32) * nb
        u = torch.from_numpy(rs.random((L, L)))
        flip = colour & ((dE <= 0) | (u < torch.exp(-beta * dE.double())))
        s = torch.where(flip, -s, s)
    return s


results = {}
for beta in (0.2, 0.44, 0.7):
    rs = np.random.default_rng(int(beta * 100))
    s = spins.clone()
    es, ms = [], []
    for t in range(120):
        s = sweep(s, beta, rs)
        if t >= 40:
            es.append(energy(s))
            ms.append(s.double().mean())
    E = torch.stack(es)
    M = torch.stack(ms)
    m2, m4 = (M**2).mean(), (M**4).mean()
    binder = 1 - m4 / (3 * m2**2)
    results[beta] = (E, M, s)
    print(f"beta {beta}: <E> {E.mean().item():.3f} <|M|> {M.abs().mean().item():.3f} binder {binder.item():.3f}")
    print("  C_v", round((beta**2 * L * L * E.var()).item(), 3), "chi", round((beta * L * L * M.abs().var()).item(), 3))

E, M, s_cold = results[0.7]
print("cold state magnetized", bool(M.abs().mean() > 0.8), s_cold.dtype)

# histograms of the energy per site
E_hot = results[0.2][0]
h = torch.histc(E_hot.float(), bins=8, min=-1.0, max=0.0)
print("histc", h.tolist(), h.dtype, "total", int(h.sum()))
hist, edges = torch.histogram(E_hot, bins=5)
print("histogram", hist.tolist(), "edges", np.round(edges.numpy(), 3).tolist())
hist_d, edges_d = torch.histogram(E_hot, bins=torch.tensor([-1.0, -0.5, -0.25, 0.0], dtype=torch.float64), density=True)
print("density", np.round(hist_d.numpy(), 3).tolist(), "integrates", round((hist_d * edges_d.diff()).sum().item(), 4))
levels = ((E_hot * L * L).round().long() + 2 * L * L) // 4
bc = torch.bincount(levels - levels.min())
print("bincount", bc.shape, bc.dtype, "nonzero", int((bc > 0).sum()), "argmax", int(bc.argmax()))
wts = torch.bincount(levels - levels.min(), weights=torch.ones_like(E_hot) * 0.5, minlength=40)
print("weighted bincount", wts.shape, wts.dtype, wts.sum().item())

# order statistics
vals, idx = torch.mode(levels)
print("mode", int(vals), "median", round(E_hot.median().item(), 4), "nanmedian", round(E_hot.nanmedian().item(), 4))
kv = torch.kthvalue(E_hot, 5)
print("kthvalue", round(kv.values.item(), 4), "index ok", bool(E_hot[kv.indices] == kv.values))
print(
    "quantiles", np.round(torch.quantile(E_hot, torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)).numpy(), 4).tolist()
)
print(
    "quantile nearest",
    round(torch.quantile(E_hot, 0.25, interpolation="nearest").item(), 4),
    "midpoint",
    round(torch.quantile(E_hot, 0.25, interpolation="midpoint").item(), 4),
)
E_nan = E_hot.clone()
E_nan[::7] = float("nan")
print(
    "nanmean", round(E_nan.nanmean().item(), 4), "mean", E_nan.mean().item(), "nansum", round(E_nan.nansum().item(), 3)
)
print("nanquantile", round(torch.nanquantile(E_nan, 0.5).item(), 4))
m_row, i_row = torch.median(results[0.44][2].float(), dim=1)
print("median rows", m_row.tolist()[:6], i_row.dtype)


# blocking analysis of the error bar
def blocked_error(x, block):
    nb = x.numel() // block
    means = x[: nb * block].view(nb, block).mean(1)
    return (means.std() / math.sqrt(nb)).item()


M44 = results[0.44][1].abs()
print("blocking errors", [round(blocked_error(M44, b), 4) for b in (1, 2, 4, 8)])

# single-histogram reweighting to a nearby temperature with logsumexp
E0, M0, _ = results[0.44]
dbeta = 0.02
logw = -dbeta * E0 * L * L
w = torch.exp(logw - torch.logsumexp(logw, 0))
print("reweighted <E>", round((w * E0).sum().item(), 4), "weights", round(w.sum().item(), 6), w.dtype)

# clusters of up spins by label propagation on an int64 label grid
up = results[0.44][2] > 0
labels = torch.where(up, torch.arange(L * L).view(L, L), torch.full((L, L), -1))
for _ in range(L * L):
    nb_max = torch.stack([labels.roll(sh, d) for sh in (1, -1) for d in (0, 1)]).amax(0)
    new = torch.where(up, torch.maximum(labels, nb_max), labels)
    if torch.equal(new, labels):
        break
    labels = new
uniq, counts = torch.unique(labels[up], return_counts=True)
print("clusters", uniq.numel(), "largest", int(counts.max()), "sizes sum", int(counts.sum()) == int(up.sum()))
sizes_sorted, _ = counts.sort(descending=True)
print("top sizes", sizes_sorted[:4].tolist(), counts.dtype)

# typical mistakes
try:
    torch.histc(torch.arange(5), bins=3)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([1, -1]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.quantile(E_hot, 1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.kthvalue(E_hot, 1000)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([[1, 2]]))
except Exception as e:
    print(type(e).__name__, e)
