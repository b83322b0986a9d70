"""Part-segmentation evaluation as ShapeNetPart/S3DIS code writes it: a confusion matrix by bincount of
n * gt + pred, per-class IoU with nanmean over absent classes, per-shape mIoU restricted to the category's parts,
class weights from inverse log frequency, cross-entropy with weights and ignore_index, a focal loss, overall and
mean accuracy, masked predictions with the category mask filled by -inf, and the printed tensors."""

import torch

F = torch.nn.functional

torch.manual_seed(0)
seg_classes = {"Airplane": [0, 1, 2, 3], "Mug": [4, 5], "Table": [6, 7, 8]}
part_to_cat = torch.zeros(9, dtype=torch.long)
for ci, parts in enumerate(seg_classes.values()):
    part_to_cat[parts] = ci
n_parts, B, N = 9, 4, 32
cats = torch.tensor([0, 1, 2, 0])
cat_mask = torch.zeros(len(seg_classes), n_parts, dtype=torch.bool)
for ci, parts in enumerate(seg_classes.values()):
    cat_mask[ci, parts] = True
print(cat_mask.int())
gt = torch.stack([torch.tensor(seg_classes[list(seg_classes)[c]])[torch.randint(0,
    len(seg_classes[list(seg_classes)[c]]), (N,))]
                  for c in cats.tolist()])
logits = torch.randn(B, n_parts, N) + 2.0 * F.one_hot(gt, n_parts).permute(0, 2, 1)
masked = logits.masked_fill(~cat_mask[cats].unsqueeze(-1), float("-inf"))
pred = masked.argmax(1)
print("pred in category", bool((part_to_cat[pred] == cats[:, None]).all()))
print("gt row", gt[1, :10])


def confusion(pred, gt, n, ignore=-1):
    keep = gt != ignore
    return torch.bincount(n * gt[keep] + pred[keep], minlength=n * n).reshape(n, n)


gt_ign = gt.clone()
gt_ign[:, :2] = -1
cm = confusion(pred.flatten(), gt_ign.flatten(), n_parts)
print("confusion", cm.shape, cm.dtype, cm.sum().item(), cm.diag().tolist())
tp = cm.diag().float()
iou = tp / (cm.sum(0) + cm.sum(1) - cm.diag()).float()
print("iou", iou.round(decimals=4))
print("miou nanmean", round(torch.nanmean(iou).item(), 4), "nan count", torch.isnan(iou).sum().item())
acc = tp.sum() / cm.sum()
cls_acc = tp / cm.sum(1).float()
print("oa", round(acc.item(), 4), "macc", round(cls_acc.nanmean().item(), 4),
    cls_acc.nan_to_num(nan=-1.0).round(decimals=2).tolist())

shape_ious = []
for b in range(B):
    parts = seg_classes[list(seg_classes)[cats[b]]]
    ious = []
    for p in parts:
        inter = ((pred[b] == p) & (gt[b] == p)).sum()
        union = ((pred[b] == p) | (gt[b] == p)).sum()
        ious.append(torch.where(union == 0, torch.tensor(1.0), inter / union.clamp_min(1)))
    shape_ious.append(torch.stack(ious).mean())
shape_ious = torch.stack(shape_ious)
print("shape iou", shape_ious.round(decimals=4).tolist())
cat_iou = torch.zeros(3).index_add_(0, cats, shape_ious) / torch.bincount(cats, minlength=3)
print("class avg", cat_iou.round(decimals=4).tolist(), "instance avg", round(shape_ious.mean().item(), 4))

freq = torch.bincount(gt.flatten(), minlength=n_parts).float()
freq = freq / freq.sum()
w = 1 / torch.log(1.2 + freq)
print("weights", w.round(decimals=4).tolist())
ce = F.cross_entropy(logits, gt_ign, weight=w, ignore_index=-1)
ce_sum = F.cross_entropy(logits, gt_ign, weight=w, ignore_index=-1, reduction="sum")
ce_none = F.cross_entropy(logits, gt_ign, ignore_index=-1, reduction="none")
print("ce", round(ce.item(), 4), round(ce_sum.item(), 4), ce_none.shape, ce_none[:, :3].round(decimals=4).tolist())
print("nll", round(F.nll_loss(F.log_softmax(logits, 1), gt_ign, weight=w, ignore_index=-1).item(), 4))


def focal(logits, target, gamma=2.0, alpha=None, ignore=-1):
    logp = F.log_softmax(logits, 1)
    valid = target != ignore
    t = target.clamp_min(0)
    logpt = logp.gather(1, t.unsqueeze(1)).squeeze(1)
    loss = -((1 - logpt.exp()) ** gamma) * logpt
    if alpha is not None:
        loss = loss * alpha[t]
    return loss[valid].mean()


lg = logits.clone().requires_grad_()
fl = focal(lg, gt_ign, alpha=w)
fl.backward()
print("focal", round(fl.item(), 4), fl.grad_fn.name(), round(lg.grad.abs().sum().item(), 4), lg.grad[:, :,
    :2].abs().sum().item())
print("ls", round(F.cross_entropy(logits, gt, label_smoothing=0.1).item(), 4))
for call in [lambda: F.cross_entropy(logits, gt_ign, weight=w[:5]),
             lambda: F.cross_entropy(logits, gt.float()),
             lambda: F.cross_entropy(logits, gt_ign),
             lambda: torch.bincount(gt.flatten(), minlength=-1),
             lambda: F.one_hot(gt_ign, n_parts)]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
