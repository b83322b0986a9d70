"""Segmentation losses on (N, C, H, W) logits as semantic-segmentation repos write them: cross_entropy with
ignore_index, class weights, label_smoothing and their combinations under every reduction, nll_loss on
log_softmax, soft (probability) targets, OHEM (online hard example mining) by sorting per-pixel losses, BCE with
pos_weight over one_hot targets, soft Dice and Lovasz-style sorted errors, auxiliary-head loss weighting, and
gradients into the logits."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

N, C, H, W = 2, 4, 5, 6
logits = torch.randn(N, C, H, W, requires_grad=True)
target = torch.randint(0, C, (N, H, W))
target[0, 0, :3] = 255
target[1, 4, :] = 255
weight = torch.tensor([0.5, 1.0, 2.0, 1.5])
print("target\n", target[0])
counts = torch.bincount(target[target != 255], minlength=C)
print("ignored", (target == 255).sum().item(), "class counts", counts.tolist())

for reduction in ("mean", "sum", "none"):
    loss = F.cross_entropy(logits, target, ignore_index=255, reduction=reduction)
    print(reduction, tuple(loss.shape), round(loss.sum().item(), 4))
for kw in ({"weight": weight}, {"label_smoothing": 0.1}, {"weight": weight, "label_smoothing": 0.1}):
    vals = [round(F.cross_entropy(logits, target, ignore_index=255, reduction=r, **kw).sum().item(), 4)
            for r in ("mean", "sum", "none")]
    print(sorted(kw), vals)

# mean with ignore and weights = sum(w_y * l) / sum(w_y over valid pixels)
valid = target != 255
t_safe = target.masked_fill(~valid, 0)
logp = F.log_softmax(logits, dim=1)
picked = -logp.gather(1, t_safe.unsqueeze(1)).squeeze(1)
w_px = weight[t_safe] * valid
manual = (picked * w_px).sum() / w_px.sum()
print("manual weighted mean", round(manual.item(), 4),
      round(F.nll_loss(logp, target, weight=weight, ignore_index=255).item(), 4))
crit = nn.CrossEntropyLoss(weight=weight, ignore_index=255, label_smoothing=0.05)
print(crit, round(crit(logits, target).item(), 4))

# soft targets (probabilities) with label smoothing on (N, C, H, W)
soft = F.one_hot(t_safe, C).permute(0, 3, 1, 2).float()
soft = soft * 0.8 + 0.2 / C
print("soft target ce", round(F.cross_entropy(logits, soft).item(), 4),
      round(F.cross_entropy(logits, soft, label_smoothing=0.1).item(), 4),
      round(F.cross_entropy(logits, soft, weight=weight).item(), 4))

# OHEM: keep pixels whose loss is above a threshold, at least min_kept of them
pix = F.cross_entropy(logits, target, ignore_index=255, reduction="none").flatten()
pix_valid = pix[valid.flatten()]
sorted_loss, order = pix_valid.sort(descending=True)
min_kept = 20
thresh = max(sorted_loss[min_kept].item(), 0.7)
hard = sorted_loss[sorted_loss > thresh]
print("ohem", len(pix_valid), len(hard), round(thresh, 4), round(hard.mean().item(), 4))
prob = F.softmax(logits, 1).gather(1, t_safe[:, None]).squeeze(1)[valid]
kth = prob.kthvalue(min_kept).values
print("ohem by prob kthvalue", round(kth.item(), 4), (prob <= max(kth.item(), 0.3)).sum().item())

# BCE with pos_weight over one_hot targets, channels first
oh = F.one_hot(t_safe, num_classes=C).permute(0, 3, 1, 2).float()
pos_weight = torch.tensor([1.0, 2.0, 3.0, 4.0]).view(C, 1, 1)
bce = F.binary_cross_entropy_with_logits(logits, oh, pos_weight=pos_weight, reduction="none")
print("bce pw", tuple(bce.shape), round(bce.mean().item(), 4), round((bce * valid[:, None]).sum().item(), 4))
bce_mod = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(bce_mod, round(bce_mod(logits, oh).item(), 4))
print("one_hot inferred", F.one_hot(torch.tensor([[0, 2], [1, 1]])).shape)
try:
    F.one_hot(torch.tensor([0, 5]), 3)
except RuntimeError as e:
    print("RuntimeError:", e)


def soft_dice(logits, target, valid, eps=1.0):
    p = logits.softmax(1) * valid[:, None]
    t = F.one_hot(target, logits.shape[1]).permute(0, 3, 1, 2).to(p.dtype) * valid[:, None]
    inter = (p * t).sum((0, 2, 3))
    denom = p.sum((0, 2, 3)) + t.sum((0, 2, 3))
    return 1 - ((2 * inter + eps) / (denom + eps)).mean()


def lovasz_grad(gt_sorted):
    gts = gt_sorted.sum()
    inter = gts - gt_sorted.cumsum(0)
    union = gts + (1 - gt_sorted).cumsum(0)
    jac = 1.0 - inter / union
    jac[1:] = jac[1:] - jac[:-1].clone()
    return jac


def lovasz_softmax(probs, labels):
    losses = []
    for c in range(probs.shape[1]):
        fg = (labels == c).float()
        if fg.sum() == 0:
            continue
        errors = (fg - probs[:, c]).abs()
        errors_sorted, perm = torch.sort(errors, 0, descending=True)
        losses.append(torch.dot(errors_sorted, lovasz_grad(fg[perm])))
    return torch.stack(losses).mean()


dice = soft_dice(logits, t_safe, valid)
probs_flat = logits.softmax(1).permute(0, 2, 3, 1).reshape(-1, C)[valid.flatten()]
lov = lovasz_softmax(probs_flat, target[valid])
print("dice", round(dice.item(), 4), "lovasz", round(lov.item(), 4))

aux = torch.randn(N, C, H // 2, W // 2, requires_grad=True)
aux_up = F.interpolate(aux, size=(H, W), mode="bilinear", align_corners=False)
total = F.cross_entropy(logits, target, weight=weight, ignore_index=255) + 0.4 * F.cross_entropy(
    aux_up, target, ignore_index=255) + dice + lov
total.backward()
print("total", round(total.item(), 4))
print("grad logits [0,:,0,3]", logits.grad[0, :, 0, 3], "ignored px grad from ce only?", logits.grad[0, :, 0, 0])
print("aux grad sum", round(aux.grad.sum().item(), 4), "abs", round(aux.grad.abs().sum().item(), 4))
print("grad col sums ~0", logits.grad.sum(1).abs().max().item() < 1e-6)
