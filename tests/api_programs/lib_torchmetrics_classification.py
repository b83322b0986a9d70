"""torchmetrics-style classification metrics re-implemented: input formatting (probabilities vs logits detected by
range, sigmoid/softmax, ignore_index masking), stat scores by bincount, multiclass/multilabel accuracy, precision,
recall, F-beta with micro/macro/weighted/none averaging and zero_division, confusion matrices with normalize modes,
binned and exact AUROC/average precision with precision-recall curves (unique_consecutive, cumsum, trapezoid),
calibration error, Matthews correlation, Cohen's kappa, and the validation errors of misuse."""

import numpy as np
import torch

rng = np.random.default_rng(29)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def _safe_divide(num, denom, zero_division=0.0):
    num = num if num.is_floating_point() else num.float()
    denom = denom if denom.is_floating_point() else denom.float()
    return torch.where(denom != 0, num / denom, torch.tensor(zero_division, dtype=num.dtype))


def format_preds(preds, num_classes=None, multilabel=False):
    if preds.is_floating_point():
        if not torch.all((preds >= 0) & (preds <= 1)):
            preds = preds.sigmoid() if multilabel else preds.softmax(1)
    return preds


def multiclass_stat_scores(preds, target, num_classes, ignore_index=None):
    if preds.is_floating_point():
        preds = format_preds(preds).argmax(1)
    if preds.shape != target.shape:
        raise ValueError("The `preds` and `target` should have the same shape,"
                         f" got `preds` with shape={preds.shape} and `target` with shape={target.shape}.")
    if ignore_index is not None:
        keep = target != ignore_index
        preds, target = preds[keep], target[keep]
    unique = target.unique()
    if unique.numel() and (unique.max() >= num_classes or unique.min() < 0):
        raise RuntimeError(f"Detected more unique values in `target` than `num_classes`. Expected only {num_classes}"
                           f" but found {unique.numel()} in `target`.")
    cm = torch.bincount(target.flatten() * num_classes + preds.flatten(), minlength=num_classes ** 2)
    cm = cm.reshape(num_classes, num_classes)
    tp = cm.diag()
    fp = cm.sum(0) - tp
    fn = cm.sum(1) - tp
    tn = cm.sum() - (fp + fn + tp)
    return tp, fp, tn, fn, cm


def reduce_scores(num, denom, weights, average, zero_division=0.0):
    if average == "micro":
        return _safe_divide(num.sum(), denom.sum(), zero_division)
    score = _safe_divide(num, denom, zero_division)
    if average == "macro":
        return score.mean()
    if average == "weighted":
        return (score * weights / weights.sum()).sum()
    return score


def fbeta(tp, fp, fn, beta, average):
    b2 = beta ** 2
    if average == "micro":
        tp, fp, fn = tp.sum(), fp.sum(), fn.sum()
    s = _safe_divide((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
    if average == "macro":
        return s.mean()
    if average == "weighted":
        w = (tp + fn).float()
        return (s * w / w.sum()).sum()
    return s


def confusion_normalize(cm, normalize):
    cm = cm.float()
    if normalize == "true":
        cm = cm / cm.sum(-1, keepdim=True)
    elif normalize == "pred":
        cm = cm / cm.sum(-2, keepdim=True)
    elif normalize == "all":
        cm = cm / cm.sum()
    return torch.nan_to_num(cm, nan=0.0)


C = 4
logits = torch.from_numpy(rng.normal(size=(40, C))).float()
target = torch.from_numpy(rng.integers(0, C, 40))
logits[torch.arange(40), target] += torch.from_numpy(rng.random(40) * 2).float()
target[-3:] = -1
tp, fp, tn, fn, cm = multiclass_stat_scores(logits, target, C, ignore_index=-1)
print("stat scores", tp.tolist(), fp.tolist(), tn.tolist(), fn.tolist(), tp.dtype)
print("confusion", cm.tolist())
for norm in ["true", "pred", "all", None]:
    print("normalize", norm, r(confusion_normalize(cm, norm)[1], 4))
support = tp + fn
for avg in ["micro", "macro", "weighted", "none"]:
    acc = reduce_scores(tp, tp + fn, support, avg)
    prec = reduce_scores(tp, tp + fp, support, avg)
    f1 = fbeta(tp, fp, fn, 1.0, avg)
    f2 = fbeta(tp, fp, fn, 2.0, avg)
    print("avg", avg, r(acc, 4), r(prec, 4), r(f1, 4), r(f2, 4))
print("zero_division", r(_safe_divide(torch.tensor([0, 3]), torch.tensor([0, 4]), 1.0)))
mcc_num = tp.sum() * cm.sum() - (cm.sum(0) * cm.sum(1)).sum()
mcc = mcc_num / torch.sqrt((cm.sum() ** 2 - (cm.sum(0) ** 2).sum()).double() * (cm.sum() ** 2 - (cm.sum(1) ** 2).sum()))
p0 = cm.diag().sum() / cm.sum()
pe = (cm.sum(0) * cm.sum(1)).sum() / cm.sum() ** 2
print("mcc", r(mcc), mcc.dtype, "kappa", r((p0 - pe) / (1 - pe)))

ml_logits = torch.from_numpy(rng.normal(size=(30, 3))).float()
ml_target = (torch.from_numpy(rng.random((30, 3))) < torch.sigmoid(ml_logits).double()).long()
ml_preds = (format_preds(ml_logits, multilabel=True) > 0.5).long()
ml_tp = (ml_preds * ml_target).sum(0)
ml_fp = (ml_preds * (1 - ml_target)).sum(0)
ml_fn = ((1 - ml_preds) * ml_target).sum(0)
print("multilabel", ml_tp.tolist(), ml_fp.tolist(), ml_fn.tolist(), r(fbeta(ml_tp, ml_fp, ml_fn, 1.0, "macro")))
print("subset acc", r((ml_preds == ml_target).all(1).float().mean()),
      "hamming", r((ml_preds != ml_target).float().mean()))


def binary_clf_curve(preds, target):
    desc = torch.argsort(preds, descending=True, stable=True)
    preds, target = preds[desc], target[desc]
    distinct = torch.where(preds[1:] - preds[:-1])[0]
    thr_idx = torch.cat([distinct, torch.tensor([target.numel() - 1])])
    tps = torch.cumsum(target, dim=0)[thr_idx]
    fps = 1 + thr_idx - tps
    return fps, tps, preds[thr_idx]


def roc(preds, target):
    fps, tps, thr = binary_clf_curve(preds, target)
    tps = torch.cat([torch.zeros(1, dtype=tps.dtype), tps])
    fps = torch.cat([torch.zeros(1, dtype=fps.dtype), fps])
    thr = torch.cat([torch.ones(1, dtype=thr.dtype), thr])
    return fps / fps[-1], tps / tps[-1], thr


def binned_curve(preds, target, thresholds):
    pred_t = preds.unsqueeze(-1) >= thresholds
    tgt = target.unsqueeze(-1).bool()
    tps = (pred_t & tgt).sum(0)
    fps = (pred_t & ~tgt).sum(0)
    fns = (~pred_t & tgt).sum(0)
    return tps, fps, fns


scores = torch.sigmoid(torch.from_numpy(rng.normal(size=50))).float()
scores[5:10] = scores[0]
labels = (torch.from_numpy(rng.random(50)) < scores.double()).long()
fpr, tpr, thr = roc(scores, labels)
auroc = torch.trapezoid(tpr, fpr)
print("roc", tuple(fpr.shape), r(thr[:4]), r(auroc), auroc.dtype)
fps, tps, _ = binary_clf_curve(scores, labels)
precision = tps / (tps + fps)
recall = tps / labels.sum()
ap = torch.sum(torch.diff(recall, prepend=torch.zeros(1)) * precision)
print("AP", r(ap), r(precision[:4]), r(recall[:4]))
ths = torch.linspace(0, 1, 11)
btp, bfp, bfn = binned_curve(scores, labels, ths)
btpr = btp / (btp + bfn)
bfpr = bfp / labels.eq(0).sum()
print("binned", btp.tolist(), r(-torch.trapezoid(btpr, bfpr)), r(torch.trapz(btpr.flip(0), bfpr.flip(0))))
ranks = torch.empty(50)
ranks[scores.argsort()] = torch.arange(1, 51).float()
u_auc = (ranks[labels == 1].sum() - labels.sum() * (labels.sum() + 1) / 2) / (labels.sum() * (50 - labels.sum()))
print("mann-whitney", r(u_auc), "unique", torch.unique_consecutive(scores.sort().values).numel(),
      [x.tolist() for x in torch.unique(labels, return_counts=True)])

probs = torch.softmax(logits[:-3], 1)
conf, pred = probs.max(1)
acc = pred.eq(target[:-3]).float()
bins = torch.linspace(0, 1, 6)
idx = torch.bucketize(conf, bins[1:-1], right=True)
count = torch.zeros(5).scatter_add_(0, idx, torch.ones_like(conf))
conf_b = torch.zeros(5).scatter_add_(0, idx, conf) / count.clamp(min=1)
acc_b = torch.zeros(5).index_add_(0, idx, acc) / count.clamp(min=1)
ece = (count / count.sum() * (conf_b - acc_b).abs()).sum()
mce = torch.where(count > 0, (conf_b - acc_b).abs(), torch.zeros(5)).max()
print("calibration", count.tolist(), r(ece), r(mce), idx.dtype, torch.histc(conf, bins=5, min=0, max=1).tolist())

for fn in [lambda: multiclass_stat_scores(logits[:, :3].argmax(1), target[:39], C),
           lambda: multiclass_stat_scores(logits, torch.full((40,), 7), C),
           lambda: torch.bincount(torch.tensor([1, -1])), lambda: torch.bincount(torch.ones(2, 2).long()),
           lambda: torch.bincount(torch.tensor([0.5])), lambda: torch.trapezoid(tpr, fpr[:-1]),
           lambda: torch.bucketize(conf, bins.view(2, 3)), lambda: torch.histc(conf, bins=0),
           lambda: torch.unique_consecutive(scores, dim=3)]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:120])
