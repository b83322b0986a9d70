"""Semantic and panoptic segmentation metrics as evaluation scripts write them: a confusion matrix from
bincount(num_classes * gt + pred) with an ignore label, IoU/Dice/accuracy per class with nan-aware means
(nanmean), frequency-weighted IoU, a streaming metric class accumulating over batches, panoptic label maps
(category * divisor + instance) decoded with unique(return_inverse=True, return_counts=True), the
segment-matching step of Panoptic Quality (IoU > 0.5 between segment pairs, void handling) with SQ/RQ/PQ per class,
and boundary-F score via max-pooling dilation."""

import torch
import torch.nn.functional as F

torch.manual_seed(8)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

NUM_CLASSES, IGNORE = 4, 255


def confusion(pred, gt, n=NUM_CLASSES, ignore=IGNORE):
    m = gt != ignore
    return torch.bincount(n * gt[m] + pred[m], minlength=n * n).reshape(n, n)


def scores(cm):
    cm = cm.double()
    tp = cm.diag()
    iou = tp / (cm.sum(0) + cm.sum(1) - tp)
    dice = 2 * tp / (cm.sum(0) + cm.sum(1))
    acc = tp / cm.sum(1)
    freq = cm.sum(1) / cm.sum()
    return {"pixel_acc": (tp.sum() / cm.sum()).item(), "mAcc": acc.nanmean().item(), "mIoU": iou.nanmean().item(),
            "fwIoU": (freq[freq > 0] * iou[freq > 0]).sum().item(), "iou": iou, "dice": dice}


gt = torch.randint(0, NUM_CLASSES - 1, (2, 8, 10))
gt[:, :2, :3] = IGNORE
pred = torch.where(torch.rand(2, 8, 10) < 0.7, gt.clamp(max=NUM_CLASSES - 1), torch.randint(0, NUM_CLASSES, (2, 8, 10)))
pred[pred == IGNORE] = 0
cm = confusion(pred, gt)
print("confusion\n", cm)
s = scores(cm)
for k in ("pixel_acc", "mAcc", "mIoU", "fwIoU"):
    print(k, round(s[k], 4))
print("iou", s["iou"], "\ndice", s["dice"])
print("nan class kept as nan", torch.isnan(s["iou"]).tolist())
print("nansum", round(s["iou"].nansum().item(), 4), "nan_to_num mean", round(s["iou"].nan_to_num(0.0).mean().item(), 4))


class StreamingMIoU:
    def __init__(self, n):
        self.n = n
        self.cm = torch.zeros(n, n, dtype=torch.int64)

    def update(self, logits, target):
        p = logits.argmax(1)
        self.cm += confusion(p, target, self.n)

    def compute(self):
        return scores(self.cm)["mIoU"]

    def reset(self):
        self.cm.zero_()


metric = StreamingMIoU(NUM_CLASSES)
for b in range(3):
    logits = torch.randn(2, NUM_CLASSES, 8, 10) + 2.0 * F.one_hot(gt.clamp(max=NUM_CLASSES - 1), NUM_CLASSES).permute(
        0, 3, 1, 2)
    metric.update(logits, gt)
    print(f"batch {b} running mIoU {metric.compute():.4f} total px {metric.cm.sum().item()}")
metric.reset()
print("after reset", metric.cm.sum().item())

# panoptic maps: id = category * 1000 + instance; stuff classes (0, 1) have instance 0
DIV = 1000
sem_gt = torch.zeros(12, 12, dtype=torch.long)
sem_gt[:, 6:] = 1
inst_gt = torch.zeros(12, 12, dtype=torch.long)
sem_gt[2:6, 2:6], inst_gt[2:6, 2:6] = 2, 1
sem_gt[7:11, 7:10], inst_gt[7:11, 7:10] = 2, 2
sem_gt[1:4, 8:11], inst_gt[1:4, 8:11] = 3, 1
pan_gt = sem_gt * DIV + inst_gt
pan_gt[0, :4] = -1  # void
pan_pred = pan_gt.clone()
pan_pred[2:6, 2:4] = 0
pan_pred[6:11, 7:10] = 2 * DIV + 5
pan_pred[1:4, 8:11] = 3 * DIV + 7
pan_pred[9:12, 0:3] = 3 * DIV + 8
pan_pred[0, :4] = 0

ids_gt, inv_gt, cnt_gt = torch.unique(pan_gt, return_inverse=True, return_counts=True)
ids_pr, inv_pr, cnt_pr = torch.unique(pan_pred, return_inverse=True, return_counts=True)
print("gt segments", ids_gt.tolist(), cnt_gt.tolist())
print("pred segments", ids_pr.tolist(), cnt_pr.tolist())
print("inverse shape", tuple(inv_gt.shape), inv_gt.dtype, torch.equal(ids_gt[inv_gt], pan_gt))
print("categories", torch.div(ids_gt, DIV, rounding_mode="floor").tolist(), "instances", (ids_gt % DIV).tolist())

# intersections of every (gt, pred) segment pair in one bincount
pair = inv_gt.flatten() * len(ids_pr) + inv_pr.flatten()
inter = torch.bincount(pair, minlength=len(ids_gt) * len(ids_pr)).view(len(ids_gt), len(ids_pr))
print("intersections\n", inter)
void_col = inter[ids_gt == -1].squeeze(0) if (ids_gt == -1).any() else torch.zeros(len(ids_pr), dtype=torch.long)
union = cnt_gt[:, None] + cnt_pr[None, :] - inter - void_col[None, :]
iou = inter.double() / union.double()
same_cat = torch.div(ids_gt, DIV, rounding_mode="floor")[:, None] == torch.div(ids_pr, DIV, rounding_mode="floor")
iou = torch.where(same_cat & (ids_gt[:, None] >= 0), iou, torch.zeros_like(iou))
matched = iou > 0.5
print("matched pairs", matched.nonzero().tolist())
tp_iou = iou[matched]
cats = torch.div(ids_gt[matched.nonzero()[:, 0]], DIV, rounding_mode="floor")
valid_gt = ids_gt >= 0
fn_mask = valid_gt & ~matched.any(1)
fp_mask = ~matched.any(0)
# predictions mostly covering void are not false positives
fp_mask &= ~(void_col.double() / cnt_pr.double() > 0.5)
print("fn", ids_gt[fn_mask].tolist(), "fp", ids_pr[fp_mask].tolist())
for c in range(NUM_CLASSES):
    tp_c = (cats == c).sum().item()
    fn_c = (torch.div(ids_gt[fn_mask], DIV, rounding_mode="floor") == c).sum().item()
    fp_c = (torch.div(ids_pr[fp_mask], DIV, rounding_mode="floor") == c).sum().item()
    if tp_c + fn_c + fp_c == 0:
        print(f"class {c}: absent")
        continue
    sq = tp_iou[cats == c].sum().item() / tp_c if tp_c else 0.0
    rq = tp_c / (tp_c + 0.5 * fn_c + 0.5 * fp_c)
    print(f"class {c}: tp {tp_c} fn {fn_c} fp {fp_c} SQ {sq:.4f} RQ {rq:.4f} PQ {sq * rq:.4f}")

# boundary F-score with a dilation by max_pool2d
def boundary(mask):
    m = mask[None, None].float()
    eroded = -F.max_pool2d(-m, 3, stride=1, padding=1)
    return (m - eroded)[0, 0].bool()


bg, bp = boundary(sem_gt == 2), boundary(torch.div(pan_pred, DIV, rounding_mode="floor") == 2)
dil = lambda b: F.max_pool2d(b[None, None].float(), 3, stride=1, padding=1)[0, 0].bool()  # noqa: E731
prec = (bp & dil(bg)).sum() / bp.sum().clamp(min=1)
rec = (bg & dil(bp)).sum() / bg.sum().clamp(min=1)
print("boundary px", bg.sum().item(), bp.sum().item(), "P", round(prec.item(), 4), "R", round(rec.item(), 4),
      "F", round((2 * prec * rec / (prec + rec)).item(), 4))
