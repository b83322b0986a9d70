"""Segmentation and detection losses with their metrics as mmseg/torchvision/smp write them: sigmoid focal loss
(torchvision's), softmax focal loss with gather, soft dice and Tversky with smoothing, Lovasz-style sorted IoU
gradient, cross entropy with ignore_index, class weights and label smoothing on (N, C, H, W) logits, OHEM
pixel selection by topk, confusion matrix via bincount, per-class IoU/Dice/accuracy with NaN for absent classes,
nanmean mIoU, and a boundary mask by max-pool erosion."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return round(x.item(), 4)


def rl(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


def softmax_focal(logits, target, gamma=2.0, ignore_index=255):
    valid = target != ignore_index
    t = target.clone()
    t[~valid] = 0
    logp = F.log_softmax(logits, dim=1).gather(1, t.unsqueeze(1)).squeeze(1)
    loss = -((1 - logp.exp()) ** gamma) * logp
    return (loss * valid).sum() / valid.sum().clamp(min=1)


def dice_loss(logits, target, num_classes, smooth=1.0, eps=1e-7):
    probs = logits.softmax(dim=1)
    onehot = F.one_hot(target, num_classes).permute(0, 3, 1, 2).to(probs.dtype)
    dims = (0, 2, 3)
    inter = (probs * onehot).sum(dims)
    card = (probs + onehot).sum(dims)
    dice = (2 * inter + smooth) / (card + smooth).clamp_min(eps)
    return 1 - dice.mean(), dice


def tversky(logits, target, alpha=0.3, beta=0.7, smooth=1.0):
    p = torch.sigmoid(logits)
    tp = (p * target).sum()
    fp = (p * (1 - target)).sum()
    fn = ((1 - p) * target).sum()
    return 1 - (tp + smooth) / (tp + alpha * fp + beta * fn + smooth)


def lovasz_grad(gt_sorted):
    gts = gt_sorted.sum()
    intersection = gts - gt_sorted.float().cumsum(0)
    union = gts + (1 - gt_sorted).float().cumsum(0)
    jaccard = 1.0 - intersection / union
    jaccard[1:] = jaccard[1:] - jaccard[:-1]
    return jaccard


def lovasz_hinge_flat(logits, labels):
    signs = 2.0 * labels.float() - 1.0
    errors = 1.0 - logits * signs
    errors_sorted, perm = torch.sort(errors, dim=0, descending=True)
    grad = lovasz_grad(labels[perm])
    return torch.dot(F.relu(errors_sorted), grad)


N, C, H, W = 2, 4, 6, 6
logits = torch.randn(N, C, H, W, requires_grad=True)
target = torch.randint(0, C, (N, H, W))
target[0, :2, :2] = 255
print("target counts", torch.bincount(target[target != 255].flatten(), minlength=C).tolist())

ce = F.cross_entropy(logits, target, ignore_index=255)
ce_w = F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5, 1.0]), ignore_index=255)
ce_ls = F.cross_entropy(logits, target, ignore_index=255, label_smoothing=0.1)
ce_none = F.cross_entropy(logits, target, ignore_index=255, reduction="none")
print("ce", r(ce), "weighted", r(ce_w), "smoothed", r(ce_ls), "none", tuple(ce_none.shape), r(ce_none[0, 0, 0]))

k = int(0.3 * (target != 255).sum())
hard = ce_none.flatten().topk(k).values
print("ohem", k, r(hard.mean()), r(hard.min()))

bin_logits = torch.randn(3, 5, requires_grad=True)
bin_t = (torch.rand(3, 5) > 0.6).float()
fl = sigmoid_focal_loss(bin_logits, bin_t, reduction="mean")
print("sigmoid focal", r(fl), r(sigmoid_focal_loss(bin_logits, bin_t, alpha=-1, reduction="sum")),
      rl(sigmoid_focal_loss(bin_logits, bin_t)[0]))
fl.backward()
print("focal grad", rl(bin_logits.grad[0]))
print("gamma 0 == bce", torch.allclose(sigmoid_focal_loss(bin_logits, bin_t, alpha=-1, gamma=0, reduction="mean"),
                                       F.binary_cross_entropy_with_logits(bin_logits, bin_t)))
pw = F.binary_cross_entropy_with_logits(bin_logits, bin_t, pos_weight=torch.full((5,), 3.0))
print("pos_weight bce", r(pw))

sf = softmax_focal(logits, target)
dl, per_class = dice_loss(logits, target.clamp(max=C - 1), C)
tv = tversky(logits[:, 1], (target == 1).float())
print("softmax focal", r(sf), "dice", r(dl), rl(per_class), "tversky", r(tv))
total = ce + sf + dl + tv
total.backward()
print("seg grad", rl(logits.grad[0, :, 3, 3]), r(logits.grad.abs().sum()))

lv_logits = torch.randn(12, requires_grad=True)
lv_labels = (torch.rand(12) > 0.5).long()
lv = lovasz_hinge_flat(lv_logits, lv_labels)
lv.backward()
print("lovasz", r(lv), rl(lv_logits.grad))

pred = logits.detach().argmax(dim=1)


def confusion(pred, target, num_classes, ignore_index=255):
    mask = target != ignore_index
    idx = num_classes * target[mask] + pred[mask]
    return torch.bincount(idx, minlength=num_classes ** 2).reshape(num_classes, num_classes)


cm = confusion(pred, target, C)
print(cm)
tp = cm.diag().float()
iou = tp / (cm.sum(0) + cm.sum(1) - cm.diag()).float()
dice = 2 * tp / (cm.sum(0) + cm.sum(1)).float()
acc = tp / cm.sum(1).float()
print("iou", rl(iou), "miou", r(iou.nanmean()))
print("dice", rl(dice), "class acc", rl(acc), "pixel acc", r(tp.sum() / cm.sum()))

cm_abs = confusion(torch.zeros(2, 3, dtype=torch.long), torch.tensor([[0, 0, 1], [1, 255, 0]]), 3)
iou_abs = cm_abs.diag() / (cm_abs.sum(0) + cm_abs.sum(1) - cm_abs.diag())
print("absent class", iou_abs.tolist(), "nanmean", r(iou_abs.nanmean()), "mean", iou_abs.mean().item())
freq = cm.sum(1).float() / cm.sum()
print("fwiou", r((freq[freq > 0] * iou[freq > 0]).sum()))
stream = torch.zeros(C, C, dtype=torch.long)
for b in range(N):
    stream += confusion(pred[b], target[b], C)
print("streaming equal", torch.equal(stream, cm))

mask = (target == 1).float().unsqueeze(1)
eroded = -F.max_pool2d(-mask, 3, stride=1, padding=1)
boundary = (mask - eroded).squeeze(1)
print("boundary px", int(boundary.sum().item()), boundary[1, 2].tolist())
dilated = F.max_pool2d(mask, 3, stride=1, padding=1)
print("dilated px", int(dilated.sum().item()))
