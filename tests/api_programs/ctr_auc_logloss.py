"""Offline CTR metrics by hand: AUC via argsort/cumsum with tie-averaged ranks, gAUC per user, logloss, NE, RIG."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)

labels = torch.tensor([1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1], dtype=torch.float32)
scores = torch.tensor([0.9, 0.3, 0.3, 0.6, 0.3, 0.1, 0.8, 0.2, 0.7, 0.3, 0.05, 0.95])
users = torch.tensor([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3])


def auc_rank(y, s):
    """Mann-Whitney U with average ranks for ties."""
    order = torch.argsort(s)
    s_sorted = s[order]
    ranks = torch.empty_like(s)
    ranks[order] = torch.arange(1, len(s) + 1, dtype=s.dtype)
    uniq, inv, counts = torch.unique(s_sorted, return_inverse=True, return_counts=True)
    ends = torch.cumsum(counts, 0).to(s.dtype)
    avg = ends - (counts.to(s.dtype) - 1) / 2
    ranks[order] = avg[inv]
    n_pos = y.sum()
    n_neg = len(y) - n_pos
    return ((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


def auc_trapz(y, s):
    """ROC curve from a descending sort, then the trapezoid rule (ties grouped on distinct thresholds)."""
    desc, order = torch.sort(s, descending=True, stable=True)
    y = y[order]
    distinct = torch.nonzero(torch.diff(desc), as_tuple=False).squeeze(1)
    thr_idx = torch.cat([distinct, torch.tensor([len(y) - 1])])
    tps = torch.cumsum(y, 0)[thr_idx]
    fps = (1 + thr_idx).to(y.dtype) - tps
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return torch.trapezoid(tpr, fpr).item(), fpr, tpr


print("auc rank", round(auc_rank(labels, scores), 4))
a, fpr, tpr = auc_trapz(labels, scores)
print("auc trapz", round(a, 4))
print("fpr", fpr.round(decimals=4).tolist())
print("tpr", tpr.round(decimals=4).tolist())
print(
    "trapz alias",
    round(torch.trapz(tpr, fpr).item(), 4),
    "cumulative",
    torch.cumulative_trapezoid(tpr, fpr)[-3:].round(decimals=4).tolist(),
)

# pairwise AUC (O(n^2)) as a check, counting ties as one half
diff = scores[labels == 1].unsqueeze(1) - scores[labels == 0].unsqueeze(0)
pair_auc = ((diff > 0).float() + 0.5 * (diff == 0).float()).mean()
print("pairwise", round(pair_auc.item(), 4))

# group AUC weighted by impressions, skipping users with one class
g_num, g_den = 0.0, 0.0
for u in torch.unique(users).tolist():
    m = users == u
    yu = labels[m]
    if yu.min() == yu.max():
        print("skip user", u)
        continue
    g_num += auc_rank(yu, scores[m]) * m.sum().item()
    g_den += m.sum().item()
print("gauc", round(g_num / g_den, 4))

# logloss with clipping, against the library losses
eps = 1e-7
p = scores.clamp(eps, 1 - eps)
ll = -(labels * torch.log(p) + (1 - labels) * torch.log1p(-p)).mean()
print("logloss", round(ll.item(), 4), round(F.binary_cross_entropy(scores, labels).item(), 4))
logits = torch.logit(scores, eps=eps)
print("from logits", round(F.binary_cross_entropy_with_logits(logits, labels).item(), 4))
print(
    "logit at 0/1",
    torch.logit(torch.tensor([0.0, 1.0]), eps=1e-6).round(decimals=4).tolist(),
    torch.logit(torch.tensor([0.0, 1.0])).tolist(),
)
print(
    "bce reductions",
    F.binary_cross_entropy(scores, labels, reduction="sum").round(decimals=4).item(),
    F.binary_cross_entropy(scores, labels, reduction="none")[:4].round(decimals=4).tolist(),
)

# normalized entropy: logloss divided by the entropy of the base rate
ctr = labels.mean()
base = -(ctr * torch.log(ctr) + (1 - ctr) * torch.log(1 - ctr))
print("ctr", round(ctr.item(), 4), "NE", round((ll / base).item(), 4), "RIG", round((1 - ll / base).item(), 4))
print(
    "xlogy form",
    round((-(torch.xlogy(ctr, ctr) + torch.xlogy(1 - ctr, 1 - ctr))).item(), 4),
    torch.xlogy(torch.tensor(0.0), torch.tensor(0.0)).item(),
)
print("special.xlog1py", round(torch.special.xlog1py(labels, -p).sum().item(), 4))

# top-k precision and the calibration ratio
k = 4
topk = torch.topk(scores, k)
print("topk idx", topk.indices.tolist(), "precision@4", labels[topk.indices].mean().item())
print("calibration sum(p)/sum(y)", round((scores.sum() / labels.sum()).item(), 4))
print("BCE of a perfect-ish model", round(F.binary_cross_entropy(labels.clamp(0.01, 0.99), labels).item(), 4))
print("log(2) baseline", round(math.log(2), 4))

# argsort with stable ties and descending
tied = torch.tensor([0.3, 0.1, 0.3, 0.3, 0.2])
print(
    "argsort stable",
    torch.argsort(tied, stable=True).tolist(),
    torch.argsort(tied, descending=True, stable=True).tolist(),
)
print("sort stable desc", torch.sort(tied, descending=True, stable=True).indices.tolist())
try:
    F.binary_cross_entropy(scores, labels[:-1])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.binary_cross_entropy(scores * 2, labels)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.trapezoid(tpr, fpr[:-1])
except Exception as e:
    print(type(e).__name__, e)
