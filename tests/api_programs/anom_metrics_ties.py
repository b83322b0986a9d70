"""Detection metrics as OOD benchmarks compute them without sklearn: AUROC/AUPR by a stable descending sort,
cumsum of hits and distinct-threshold indices (ties collapsed with diff/unique_consecutive), FPR at 95% TPR via
searchsorted, trapezoid areas, the rank-based Mann-Whitney AUROC with average tie ranks, and their edge cases."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)


def binary_clf_curve(scores, labels):
    order = torch.argsort(scores, descending=True, stable=True)
    s, y = scores[order], labels[order].to(torch.float64)
    distinct = torch.where(s.diff() != 0)[0]
    thr_idx = torch.cat([distinct, torch.tensor([y.numel() - 1])])
    tps = torch.cumsum(y, dim=0)[thr_idx]
    fps = 1 + thr_idx - tps
    return fps, tps, s[thr_idx]


def roc(scores, labels):
    fps, tps, thr = binary_clf_curve(scores, labels)
    fps = torch.cat([torch.zeros(1, dtype=fps.dtype), fps])
    tps = torch.cat([torch.zeros(1, dtype=tps.dtype), tps])
    return fps / fps[-1], tps / tps[-1], thr


def auroc(scores, labels):
    fpr, tpr, _ = roc(scores, labels)
    return torch.trapezoid(tpr, fpr)


def aupr(scores, labels):
    fps, tps, _ = binary_clf_curve(scores, labels)
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    precision = torch.cat([precision.flip(0), torch.ones(1, dtype=precision.dtype)])
    recall = torch.cat([recall.flip(0), torch.zeros(1, dtype=recall.dtype)])
    return -torch.sum(torch.diff(recall) * precision[:-1])


def fpr_at_95(scores, labels, level=0.95):
    fpr, tpr, _ = roc(scores, labels)
    i = torch.searchsorted(tpr, torch.tensor(level, dtype=tpr.dtype))
    return fpr[i]


def rank_auroc(scores, labels):
    order = scores.argsort(stable=True)
    ranks = torch.empty_like(scores, dtype=torch.float64)
    ranks[order] = torch.arange(1, scores.numel() + 1, dtype=torch.float64)
    uniq, inv, counts = torch.unique(scores, return_inverse=True, return_counts=True)
    sums = torch.zeros(uniq.numel(), dtype=torch.float64).index_add_(0, inv, ranks)
    ranks = (sums / counts)[inv]
    n1 = labels.sum()
    n0 = labels.numel() - n1
    return (ranks[labels.bool()].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)


scores = torch.tensor([0.9, 0.8, 0.8, 0.7, 0.7, 0.7, 0.4, 0.3, 0.3, 0.1])
labels = torch.tensor([1, 1, 0, 1, 0, 0, 1, 0, 0, 0])
fps, tps, thr = binary_clf_curve(scores, labels)
print("curve", fps.tolist(), tps.tolist(), thr)
fpr, tpr, _ = roc(scores, labels)
print("fpr", fpr, "\ntpr", tpr)
print("auroc", auroc(scores, labels).item(), rank_auroc(scores, labels).item())
print("aupr", round(aupr(scores, labels).item(), 6), "fpr95", fpr_at_95(scores, labels).item())

torch.manual_seed(0)
s_in = torch.randn(200).round(decimals=1)
s_out = (torch.randn(150) + 1.2).round(decimals=1)
sc = torch.cat([s_out, s_in])
lb = torch.cat([torch.ones(150), torch.zeros(200)]).long()
print(
    "big",
    round(auroc(sc, lb).item(), 6),
    round(rank_auroc(sc, lb).item(), 6),
    round(aupr(sc, lb).item(), 6),
    round(fpr_at_95(sc, lb).item(), 6),
)
print(
    "trapz",
    torch.trapz(torch.tensor([0.0, 1.0, 4.0]), torch.tensor([0.0, 1.0, 3.0])),
    torch.trapezoid(torch.tensor([[1.0, 2.0], [3.0, 5.0]]), dx=0.5, dim=0),
    torch.trapezoid(torch.tensor([1, 2, 3])),
    torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 4.0])),
)
print("trapz empty", torch.trapezoid(torch.tensor([])), torch.trapezoid(torch.tensor([2.0])))

# sorting with ties: stable vs default, descending
t = torch.tensor([3, 1, 2, 3, 1, 2])
print(torch.sort(t, stable=True, descending=True), torch.argsort(t, dim=0, stable=True))
print(torch.sort(torch.tensor([2.0, float("nan"), -float("inf"), 1.0]), descending=True))
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 3, 1]), return_inverse=True, return_counts=True))
print(torch.unique(torch.tensor([3.0, 1.0, float("nan"), 1.0, float("nan")]), return_counts=True))
print(torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True))
srt = torch.tensor([0.1, 0.3, 0.3, 0.5])
print(
    torch.searchsorted(srt, torch.tensor([0.3, 0.0, 0.6])),
    torch.searchsorted(srt, torch.tensor([0.3]), right=True),
    torch.searchsorted(srt, torch.tensor([0.3]), side="right", out_int32=True),
)
uns = torch.tensor([0.5, 0.1, 0.3, 0.3])
print(torch.searchsorted(uns, torch.tensor([0.2, 0.4]), sorter=uns.argsort()))
print(torch.bucketize(torch.tensor([0.3, 0.7]), srt), torch.bucketize(torch.tensor([0.3]), srt, right=True))
print(torch.searchsorted(srt, 0.3), torch.searchsorted(torch.tensor([[1, 3], [2, 4]]), torch.tensor([[2], [2]])))
cs = torch.tensor([1, 0, 1, 1], dtype=torch.uint8).cumsum(0)
print(
    cs,
    cs.dtype,
    torch.tensor([True, True, False]).cumsum(0).dtype,
    torch.cumsum(torch.tensor([1, 2]), 0, dtype=torch.float16),
)
print(
    torch.diff(torch.tensor([1, 4, 9]), prepend=torch.tensor([0]), append=torch.tensor([10, 11])),
    torch.diff(torch.tensor([[1, 2], [4, 8]]), n=2, dim=1),
    torch.diff(torch.tensor([True, False, False])),
)
# degenerate inputs
print("one class", auroc(torch.tensor([0.1, 0.2]), torch.tensor([1, 1])))
print("all tied", auroc(torch.tensor([0.5, 0.5, 0.5, 0.5]), torch.tensor([1, 0, 1, 0])).item())
for bad in [
    lambda: torch.searchsorted(uns, torch.tensor([0.2]), side="left", right=True),
    lambda: torch.searchsorted(srt, torch.tensor([1])),
    lambda: torch.searchsorted(srt.view(2, 2), torch.tensor([0.1])),
    lambda: torch.trapezoid(torch.ones(3), torch.ones(2)),
    lambda: torch.diff(torch.tensor(1.0)),
    lambda: torch.argsort(torch.tensor([1, 2]), stable=None),
]:
    try:
        print(bad())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
