"""Binary-classifier evaluation: a precision-recall curve over distinct thresholds (unique_consecutive), F-beta at
the best threshold, AUROC from ranks, Platt scaling fit by Adam on logit(p), histogram-binning calibration with
histc/histogram, the Bayesian bootstrap with Dirichlet weights drawn by numpy, and log-loss with clamped probs."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(37)
n = 60
labels = torch.from_numpy(rng.random(n) < 0.4)
raw = torch.from_numpy(np.round(rng.normal(0, 1, n) + 1.2 * labels.numpy(), 1).astype(np.float32))
probs = torch.sigmoid(raw * 1.7)
print("inputs", labels.dtype, probs.dtype, labels.sum().item(), round(probs.mean().item(), 4))


def pr_curve(scores, y):
    desc = torch.argsort(scores, descending=True, stable=True)
    s, yy = scores[desc], y[desc].to(torch.int64)
    distinct = torch.nonzero(torch.diff(s)).squeeze(1)
    thr_idx = torch.cat([distinct, torch.tensor([len(yy) - 1])])
    tps = torch.cumsum(yy, 0)[thr_idx]
    fps = 1 + thr_idx - tps
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    return precision, recall, s[thr_idx], tps, fps


precision, recall, thresholds, tps, fps = pr_curve(probs, labels)
print("curve", precision.shape, tps.dtype, precision.dtype, torch.unique_consecutive(thresholds).shape)
print("prec", np.round(precision[:6].numpy(), 4).tolist(), "rec", np.round(recall[:6].numpy(), 4).tolist())
beta = 0.5
fbeta = (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
fbeta = torch.nan_to_num(fbeta, nan=0.0)
best = torch.argmax(fbeta)
print("f0.5", round(fbeta[best].item(), 4), "at", round(thresholds[best].item(), 4), best.item())
ap = torch.sum(torch.diff(recall, prepend=torch.zeros(1)) * precision)
print("ap", round(ap.item(), 4))

# AUROC through the Mann-Whitney statistic on average ranks
_, inv, counts = torch.unique(probs, return_inverse=True, return_counts=True)
first = torch.cumsum(counts, 0) - counts
avg_rank = (first + (counts + 1) / 2.0)[inv]
n_pos, n_neg = labels.sum(), (~labels).sum()
auc = (avg_rank[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
pairs = (probs[labels][:, None] > probs[~labels][None, :]).float() + 0.5 * (
    probs[labels][:, None] == probs[~labels][None, :]
).float()
print("auc", round(auc.item(), 4), round(pairs.mean().item(), 4), avg_rank.dtype, counts.max().item())

# Platt scaling on held-out half
logit = torch.logit(probs.clamp(1e-6, 1 - 1e-6))
a = torch.ones(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam([a, b], lr=0.05)
for it in range(150):
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(a * logit[:30] + b, labels[:30].float())
    loss.backward()
    opt.step()
print("platt", round(a.item(), 3), round(b.item(), 3), round(loss.item(), 4))
with torch.no_grad():
    cal = torch.sigmoid(a * logit[30:] + b)
    for name, p in (("raw", probs[30:]), ("platt", cal)):
        y = labels[30:].float()
        ll = F.binary_cross_entropy(p, y)
        brier = F.mse_loss(p, y)
        print(name, round(ll.item(), 4), round(brier.item(), 4))

# histogram binning
counts_all = torch.histc(probs, bins=5, min=0.0, max=1.0)
pos_counts = torch.histc(probs[labels], bins=5, min=0.0, max=1.0)
print("histc", counts_all.tolist(), pos_counts.tolist(), counts_all.dtype)
h = torch.histogram(probs.double(), bins=5, range=(0.0, 1.0), weight=labels.double())
print("histogram", h.hist.tolist(), np.round(h.bin_edges.numpy(), 4).tolist())
bin_rate = pos_counts / counts_all.clamp(min=1)
which = torch.clamp((probs * 5).long(), max=4)
binned = bin_rate[which]
print(
    "binned",
    np.round(binned[:8].numpy(), 4).tolist(),
    round(F.binary_cross_entropy(binned.clamp(1e-4, 1 - 1e-4), labels.float()).item(), 4),
)

# Bayesian bootstrap of accuracy at 0.5
correct = ((probs > 0.5) == labels).double()
w = torch.from_numpy(rng.dirichlet(np.ones(n), size=300))
boot = w @ correct
print(
    "bayes_boot",
    w.dtype,
    boot.shape,
    round(boot.mean().item(), 4),
    np.round(torch.quantile(boot, torch.tensor([0.05, 0.95], dtype=torch.float64)).numpy(), 4).tolist(),
)
print("weighted_mean", round(torch.sum(w[0] * correct).item(), 4), round(torch.dot(w[0], correct).item(), 4))
for name, fn in [
    ("bce_out_of_range", lambda: F.binary_cross_entropy(torch.tensor([1.2]), torch.tensor([1.0]))),
    ("bce_int_target", lambda: F.binary_cross_entropy(torch.tensor([0.2]), torch.tensor([1]))),
    ("bce_logits_shape", lambda: F.binary_cross_entropy_with_logits(torch.zeros(3), torch.zeros(2))),
    ("histc_int", lambda: torch.histc(torch.tensor([1, 2]), bins=2)),
    ("histc_range", lambda: torch.histc(probs, bins=3, min=1.0, max=0.0)),
    ("histogram_int", lambda: torch.histogram(torch.tensor([1, 2]), bins=2)),
    ("logit_eps", lambda: torch.logit(torch.tensor([0.0, 1.0]), eps=1e-3)),
    ("diff_bool", lambda: torch.diff(torch.tensor([True, False, False]))),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
