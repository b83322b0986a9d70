"""Hand-written statistical comparisons of two models: average ranks with ties, Spearman and Kendall correlations,
Mann-Whitney U, a permutation test with numpy-drawn signs, McNemar's table, corrcoef/cov, and the dtype rules
and errors met on the way (integer means, cumsum of bools, division modes)."""

import math

import numpy as np
import torch

rng = np.random.default_rng(17)


def r(x, k=8):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


def average_ranks(x):
    """1-based ranks, ties sharing their mean rank (scipy's rankdata 'average')."""
    sorted_x, order = torch.sort(x, stable=True)
    ranks = torch.empty_like(x, dtype=torch.float64)
    ranks[order] = torch.arange(1, len(x) + 1, dtype=torch.float64)
    uniq, inv, counts = torch.unique(sorted_x, return_inverse=True, return_counts=True)
    sums = torch.zeros(len(uniq), dtype=torch.float64).scatter_add_(0, inv, ranks[order])
    return (sums / counts)[torch.bucketize(x, uniq)]


a = torch.from_numpy(np.round(rng.normal(0.7, 0.1, 12), 2))
b = torch.from_numpy(np.round(a.numpy() * 0.5 + rng.normal(0.3, 0.05, 12), 2))
ra, rb = average_ranks(a), average_ranks(b)
print("ranks", r(ra, 12), ra.dtype)
print("argsort_argsort", (a.argsort().argsort() + 1).tolist())
spear = torch.corrcoef(torch.stack([ra, rb]))[0, 1]
print("spearman", round(spear.item(), 4), "pearson", round(torch.corrcoef(torch.stack([a, b]))[0, 1].item(), 4))
cov = torch.cov(torch.stack([a, b]), correction=1)
print("cov", r(cov), torch.cov(torch.stack([a, b]), correction=0, fweights=torch.arange(1, 13)).shape)
sign_a = torch.sign(a[:, None] - a[None, :])
sign_b = torch.sign(b[:, None] - b[None, :])
iu = torch.triu_indices(12, 12, offset=1)
conc = (sign_a * sign_b)[iu[0], iu[1]]
print("kendall_tau_a", round((conc.sum() / conc.numel()).item(), 4), iu.shape, iu.dtype)

# Mann-Whitney U between two groups of per-seed scores
g1 = torch.tensor([0.81, 0.79, 0.83, 0.80, 0.85, 0.79])
g2 = torch.tensor([0.78, 0.80, 0.77, 0.79, 0.76])
pooled = average_ranks(torch.cat([g1, g2]))
u1 = pooled[: len(g1)].sum() - len(g1) * (len(g1) + 1) / 2
mu = len(g1) * len(g2) / 2
sigma = math.sqrt(len(g1) * len(g2) * (len(g1) + len(g2) + 1) / 12)
z = (u1 - mu) / sigma
print("mwu", round(u1.item(), 4), round(z.item(), 4), round(2 * torch.special.ndtr(-z.abs()).item(), 4))
print("pooled", r(pooled, 11))

# paired permutation test with signs drawn by numpy
diff = torch.from_numpy(rng.normal(0.02, 0.03, 15).astype(np.float32))
signs = torch.from_numpy(rng.choice([-1.0, 1.0], size=(500, 15)).astype(np.float32))
null = (signs * diff).mean(1)
obs = diff.mean()
p_perm = ((null.abs() >= obs.abs()).sum() + 1) / (len(null) + 1)
print("perm", round(obs.item(), 4), round(p_perm.item(), 4), null.shape, p_perm.dtype)
print("null_q", r(torch.quantile(null, torch.tensor([0.05, 0.5, 0.95])), 3))

# McNemar on paired correctness
ca = torch.from_numpy(rng.random(80) < 0.75)
cb = torch.from_numpy(rng.random(80) < 0.65)
table = torch.bincount(ca.long() * 2 + cb.long(), minlength=4).reshape(2, 2)
b01, b10 = table[0, 1].item(), table[1, 0].item()
chi2 = (abs(b01 - b10) - 1) ** 2 / (b01 + b10)
print("mcnemar", table.tolist(), round(chi2, 4), round(math.erfc(math.sqrt(chi2 / 2)), 4))
print("agree", (ca == cb).sum().item(), (ca & cb).sum().dtype, (ca ^ cb).float().mean().item())

# dtype rules met when averaging integer counts
hits = (ca == cb).sum()
print("int_div", (hits / 80).dtype, torch.div(hits, 80, rounding_mode="floor").dtype, (hits // 7).item())
print(
    "true_div", torch.true_divide(torch.tensor([3, 4]), 2).tolist(), torch.tensor([7, -7]).div(2, rounding_mode="trunc")
)
print("cumsum_bool", ca[:6].cumsum(0).dtype, ca[:6].cumsum(0).tolist(), ca[:6].cumsum(0, dtype=torch.float32).dtype)
print("sum_bool", ca.sum().dtype, ca.float().mean().item(), ca.mean(dtype=torch.float64).item())
print("count_nonzero", torch.count_nonzero(table).item(), torch.count_nonzero(table, dim=0).tolist())
print("nanmean", torch.tensor([1.0, float("nan"), 3.0]).nanmean().item(), torch.tensor([float("nan")]).nanmean().item())
print("prod_int", torch.tensor([2, 3], dtype=torch.int32).prod().dtype, torch.tensor([True, True]).prod().dtype)
print("aminmax", torch.aminmax(a), torch.tensor([3, 1, 2]).max(dim=0))
for name, fn in [
    ("mean_int", lambda: hits.mean()),
    ("mean_bool", lambda: ca.mean()),
    ("corrcoef_3d", lambda: torch.corrcoef(torch.zeros(2, 2, 2))),
    ("cov_fweights_float", lambda: torch.cov(torch.stack([a, b]), fweights=torch.ones(12))),
    ("cov_aweights_neg", lambda: torch.cov(torch.stack([a, b]), aweights=-torch.ones(12))),
    ("div_mode", lambda: torch.div(hits, 3, rounding_mode="round")),
    ("triu_indices_neg", lambda: torch.triu_indices(-1, 3)),
    ("median_empty", lambda: torch.tensor([]).median()),
    ("topk_k_big", lambda: a.topk(13)),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
