"""Classification evaluation written by hand: confusion matrix by bincount, macro/micro P/R/F1, ROC-AUC and average
precision by sorting, top-k accuracy, ECE with bucketize, Brier score, NLL, mAP, and the errors of common slips."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(7)
C, N = 4, 40
logits = torch.from_numpy(rng.standard_normal((N, C)).astype(np.float32) * 1.5)
target = torch.from_numpy(rng.integers(0, C, N)).long()
logits[torch.arange(N), target] += 1.0  # a better-than-chance classifier
probs = logits.softmax(dim=-1)
pred = probs.argmax(dim=1)


def r(x, k=8):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def confusion(t, p, num_classes):
    idx = t * num_classes + p
    return torch.bincount(idx, minlength=num_classes**2).reshape(num_classes, num_classes)


cm = confusion(target, pred, C)
print("cm", cm.dtype, cm.tolist(), cm.sum().item())
tp = cm.diag()
fp = cm.sum(0) - tp
fn = cm.sum(1) - tp
prec = tp / (tp + fp).clamp(min=1)
rec = tp / (tp + fn).clamp(min=1)
f1 = torch.where(prec + rec > 0, 2 * prec * rec / (prec + rec), torch.zeros_like(prec))
print("prec", prec.dtype, r(prec), "rec", r(rec), "f1", r(f1))
print("macro", round(prec.mean().item(), 4), round(rec.mean().item(), 4), round(f1.mean().item(), 4))
micro = tp.sum().float() / cm.sum()
print("micro", round(micro.item(), 4), "acc", (pred == target).float().mean().item())
print("balanced_acc", round(rec.mean().item(), 4), "support", cm.sum(1).tolist())

# top-k accuracy
for k in (1, 2, 3):
    topk = logits.topk(k, dim=1).indices
    hit = (topk == target.unsqueeze(1)).any(dim=1)
    print(f"top{k}", topk.shape, hit.dtype, round(hit.float().mean().item(), 4))
_, top2 = logits.topk(2, 1, True, True)
correct = top2.t().eq(target.view(1, -1).expand_as(top2.t()))
print("topk_ref_style", [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / N).item() for k in (1, 2)])


def roc_auc(scores, labels):
    order = torch.argsort(scores, descending=True, stable=True)
    lab = labels[order].float()
    tps = torch.cumsum(lab, 0)
    fps = torch.cumsum(1 - lab, 0)
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return torch.trapezoid(tpr, fpr), tpr, fpr


def average_precision(scores, labels):
    order = scores.argsort(descending=True)
    lab = labels[order].float()
    tps = lab.cumsum(0)
    precision = tps / torch.arange(1, len(lab) + 1, dtype=torch.float32)
    return (precision * lab).sum() / lab.sum().clamp(min=1)


aps, aucs = [], []
for c in range(C):
    auc, tpr, fpr = roc_auc(probs[:, c], target == c)
    ap = average_precision(probs[:, c], target == c)
    aucs.append(auc)
    aps.append(ap)
print("auc", r(torch.stack(aucs)), "tpr_shape", tpr.shape, fpr.dtype)
print("ap", r(torch.stack(aps)), "mAP", round(torch.stack(aps).mean().item(), 4))
one_hot = F.one_hot(target, C)
print("one_hot", one_hot.dtype, one_hot.sum(0).tolist())

# calibration: expected calibration error with bucketize over confidence bins
conf, pred2 = probs.max(dim=1)
acc = pred2.eq(target)
bins = torch.linspace(0, 1, 11)
bin_ids = torch.bucketize(conf, bins[1:-1], right=False)
print("bin_ids", bin_ids.dtype, bin_ids[:10].tolist())
counts = torch.bincount(bin_ids, minlength=10)
conf_sum = torch.zeros(10).scatter_add_(0, bin_ids, conf)
acc_sum = torch.zeros(10).index_add_(0, bin_ids, acc.float())
nonempty = counts > 0
gap = (conf_sum[nonempty] / counts[nonempty] - acc_sum[nonempty] / counts[nonempty]).abs()
ece = (counts[nonempty].float() / N * gap).sum()
print("ece", round(ece.item(), 4), "counts", counts.tolist())
mce = gap.max()
print("mce", round(mce.item(), 4))
ids32 = torch.bucketize(conf, bins, out_int32=True)
print("int32", ids32.dtype, ids32[:6].tolist(), torch.searchsorted(bins, conf[:4], side="right").tolist())

brier = ((probs - one_hot.float()) ** 2).sum(dim=1).mean()
nll = F.nll_loss(torch.log(probs), target)
ce = F.cross_entropy(logits, target, reduction="none")
print("brier", round(brier.item(), 4), "nll", round(nll.item(), 4), "ce", round(ce.mean().item(), 4))
print("ppl", round(torch.exp(ce.mean()).item(), 4), "ce_sum", round(ce.sum().item(), 4), ce.dtype)
print("entropy", round(torch.special.entr(probs).sum(1).mean().item(), 4))

# multi-label mAP with ignored (-1) labels
ml_scores = torch.from_numpy(rng.random((12, 3)).astype(np.float32))
ml_labels = torch.from_numpy(rng.integers(-1, 2, (12, 3)))
valid = ml_labels >= 0
maps = []
for c in range(3):
    m = valid[:, c]
    maps.append(average_precision(ml_scores[m, c], ml_labels[m, c]))
print("ml_ap", r(torch.stack(maps)), valid.sum(0).tolist(), ml_labels.dtype)

# typical mistakes
for name, fn in [
    ("bincount_neg", lambda: torch.bincount(torch.tensor([0, -1, 2]))),
    ("bincount_float", lambda: torch.bincount(torch.tensor([0.0, 1.0]))),
    ("bincount_2d", lambda: torch.bincount(torch.zeros(2, 2, dtype=torch.long))),
    ("bincount_weights", lambda: torch.bincount(torch.tensor([0, 1]), weights=torch.ones(3))),
    ("bincount_minlength", lambda: torch.bincount(torch.tensor([0, 1]), minlength=-1)),
    ("one_hot_float", lambda: F.one_hot(torch.tensor([0.0, 1.0]), 3)),
    ("one_hot_big", lambda: F.one_hot(torch.tensor([0, 5]), 3)),
    ("topk_big", lambda: logits.topk(9, dim=1)),
    ("nll_target_float", lambda: F.nll_loss(probs.log(), target.float())),
    ("ce_target_range", lambda: F.cross_entropy(logits, torch.full((N,), C))),
]:
    try:
        out = fn()
        print(name, "ok", out.tolist() if out.numel() < 10 else out.shape)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
print("bucketize_unsorted", torch.bucketize(torch.tensor([0.5, 2.5]), torch.tensor([3.0, 1.0, 2.0])).tolist())
empty = torch.tensor([], dtype=torch.long)
print("bincount_empty", torch.bincount(empty).tolist(), torch.bincount(empty, minlength=3).dtype)
two = torch.tensor([0, 2])
wf, wi = torch.tensor([0.5, 1.5]), torch.tensor([1, 2])
print("bincount_w_dtype", torch.bincount(two, weights=wf).dtype, torch.bincount(two, weights=wi).dtype)
