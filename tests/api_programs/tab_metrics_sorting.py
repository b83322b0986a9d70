"""Binary and multiclass metrics for a tabular classifier: ROC-AUC by sorting, PR-AUC, calibration,
confusion matrices."""

import torch

torch.manual_seed(0)
scores = torch.tensor([0.9, 0.8, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.4, 0.3, 0.2, 0.1])
labels = torch.tensor([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0])


def roc_auc_rank(s, y):
    """Mann-Whitney U with average ranks for ties."""
    order = torch.argsort(s)
    ranks = torch.empty_like(s)
    ranks[order] = torch.arange(1, len(s) + 1, dtype=s.dtype)
    uniq, inv, counts = torch.unique(s, return_inverse=True, return_counts=True)
    rank_sum = torch.zeros_like(uniq).index_add_(0, inv, ranks)
    ranks = (rank_sum / counts)[inv]
    n1 = y.sum()
    n0 = len(y) - n1
    return (ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)


def roc_curve(s, y):
    desc = torch.argsort(s, descending=True, stable=True)
    s, y = s[desc], y[desc].float()
    distinct = torch.where(torch.diff(s) != 0)[0]
    idx = torch.cat([distinct, torch.tensor([len(y) - 1])])
    tps = torch.cumsum(y, 0)[idx]
    fps = 1 + idx - tps
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return fpr, tpr, s[idx]


print("auc rank", round(roc_auc_rank(scores, labels).item(), 4))
fpr, tpr, thr = roc_curve(scores, labels)
print("fpr", fpr.round(decimals=4).tolist())
print("tpr", tpr.round(decimals=4).tolist())
print("thr", thr.tolist())
print("auc trapz", round(torch.trapezoid(tpr, fpr).item(), 4), round(torch.trapz(tpr, x=fpr).item(), 4))
print("cumtrapz", torch.cumulative_trapezoid(tpr, fpr)[-3:].round(decimals=4).tolist())
# precision-recall
desc = torch.argsort(scores, descending=True, stable=True)
tp = torch.cumsum(labels[desc], 0)
prec = tp / torch.arange(1, 13)
rec = tp / labels.sum()
ap = ((rec - torch.cat([torch.zeros(1), rec[:-1]])) * prec).sum()
print("AP", round(ap.item(), 4), prec.dtype, tp.dtype)
best = torch.argmax(2 * prec * rec / (prec + rec))
print("best f1 at", best.item(), round(scores[desc][best].item(), 4))

# calibration: expected calibration error with bucketize
edges = torch.linspace(0, 1, 6)
bins = torch.bucketize(scores, edges[1:-1])
bins_r = torch.bucketize(scores, edges[1:-1], right=True)
print("bins", bins.tolist(), bins_r.tolist(), bins.dtype)
print("bins int32", torch.bucketize(scores, edges, out_int32=True).dtype)
cnt = torch.bincount(bins, minlength=5)
conf = torch.zeros(5).scatter_add_(0, bins, scores) / cnt.clamp(min=1)
acc = torch.zeros(5).scatter_add_(0, bins, labels.float()) / cnt.clamp(min=1)
print("ece", round(((cnt / len(scores)) * (conf - acc).abs()).sum().item(), 4), cnt.tolist())
print("histc", torch.histc(scores, bins=5, min=0, max=1).tolist(), torch.histc(scores, bins=4).tolist())
h = torch.histogram(scores, bins=4, range=(0.0, 1.0), weight=labels.float())
print("histogram", h.hist.tolist(), h.bin_edges.tolist())
print(
    "searchsorted",
    torch.searchsorted(edges, scores, side="right")[:5].tolist(),
    torch.searchsorted(edges, torch.tensor([0.2, 0.5]), right=False).tolist(),
)
unsorted = torch.tensor([0.5, 0.1, 0.9, 0.3])
print("sorter", torch.searchsorted(unsorted, torch.tensor([0.2, 0.95]), sorter=torch.argsort(unsorted)).tolist())

# multiclass confusion matrix with bincount
pred = torch.tensor([0, 2, 1, 1, 0, 2, 2, 1, 0, 0])
true = torch.tensor([0, 1, 1, 1, 0, 2, 0, 1, 2, 0])
K = 3
cm = torch.bincount(true * K + pred, minlength=K * K).reshape(K, K)
print("cm", cm.tolist())
tp = cm.diag().float()
precision = tp / cm.sum(0).clamp(min=1)
recall = tp / cm.sum(1).clamp(min=1)
f1 = torch.nan_to_num(2 * precision * recall / (precision + recall))
print("macro f1", round(f1.mean().item(), 4), "micro", round((tp.sum() / cm.sum()).item(), 4))
w = cm.sum(1) / cm.sum()
print("weighted f1", round((f1 * w).sum().item(), 4))
n = cm.sum()
c = tp.sum()
s_ = cm.sum(1).float()
p_ = cm.sum(0).float()
mcc = (c * n - (s_ * p_).sum()) / torch.sqrt((n**2 - (p_**2).sum()) * (n**2 - (s_**2).sum()))
print("mcc", round(mcc.item(), 4))
kappa_po = c / n
kappa_pe = (s_ * p_).sum() / n**2
print("kappa", round(((kappa_po - kappa_pe) / (1 - kappa_pe)).item(), 4))
print(
    "bincount weights",
    torch.bincount(true, weights=torch.linspace(0, 1, 10)).round(decimals=4).tolist(),
    torch.bincount(true, weights=torch.ones(10, dtype=torch.float64)).dtype,
)
print(
    "bincount empty",
    torch.bincount(torch.tensor([], dtype=torch.long)).tolist(),
    torch.bincount(torch.tensor([], dtype=torch.long), minlength=2).tolist(),
)
for name, fn in [
    ("bincount neg", lambda: torch.bincount(torch.tensor([-1, 0]))),
    ("bincount 2d", lambda: torch.bincount(cm)),
    ("bincount float", lambda: torch.bincount(scores)),
    ("histc int", lambda: torch.histc(torch.arange(4), bins=2)),
    ("bucketize 2d bounds", lambda: torch.bucketize(scores, edges.view(2, 3))),
    ("searchsorted side", lambda: torch.searchsorted(edges, scores, side="left", right=True)),
    ("histc bins", lambda: torch.histc(scores, bins=0)),
    ("histc nan scores", lambda: torch.histc(torch.cat([scores, torch.tensor([float("nan")])]), bins=5)),
]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
