"""Class-weighted voxel cross entropy as segmentation trainers configure it: inverse-frequency and median-frequency
weights from bincount, ignore_index for unlabeled voxels, label smoothing, probability (soft) targets, the
reductions and their grad_fn names, nll_loss on log-probabilities, and the same losses in bfloat16/float16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
C = 4
logits = torch.randn(2, C, 4, 6, 6) * 2
target = torch.randint(0, C, (2, 4, 6, 6))
target[:, :, :2, :2] = 255  # unlabeled corner
target[1, 3] = 0
labeled = target[target != 255]
freq = torch.bincount(labeled, minlength=C).float()
print("class counts", freq.tolist(), "unlabeled", (target == 255).sum().item())
inv = freq.sum() / (C * freq)
med = freq.median() / freq
log_w = 1.0 / torch.log(1.02 + freq / freq.sum())
for name, w in (("inverse", inv), ("median", med), ("enet", log_w)):
    print(name, w.round(decimals=4).tolist())

x = logits.clone().requires_grad_()
for red in ("mean", "sum", "none"):
    for ls in (0.0, 0.1):
        loss = F.cross_entropy(x, target, weight=inv, ignore_index=255, reduction=red, label_smoothing=ls)
        shown = loss.sum() if red == "none" else loss
        print("ce", red, ls, tuple(loss.shape), round(shown.item(), 4), loss.grad_fn.name())
crit = nn.CrossEntropyLoss(weight=inv, ignore_index=255, label_smoothing=0.05)
print(crit, crit.weight.tolist() == inv.tolist())
loss = crit(x, target)
loss.backward()
print("grad at ignored", x.grad[:, :, :, :2, :2].abs().sum().item(), "elsewhere", round(x.grad.abs().sum().item(), 4))
print("buffers", [n for n, _ in crit.named_buffers()], crit.state_dict()["weight"].shape)

logp = F.log_softmax(logits, dim=1)
nll = F.nll_loss(logp, target, weight=med, ignore_index=255)
print(
    "nll",
    round(nll.item(), 4),
    "equals ce",
    torch.allclose(nll, F.cross_entropy(logits, target, weight=med, ignore_index=255)),
)
per_voxel = F.nll_loss(logp, target, ignore_index=255, reduction="none")
print("per voxel", tuple(per_voxel.shape), per_voxel[0, 0, :2, :3].round(decimals=4).tolist())
hard = per_voxel.flatten().topk(20).values.mean()
print("ohem top-20", round(hard.item(), 4))

soft = F.one_hot(target.clamp(max=C - 1), C).permute(0, 4, 1, 2, 3).float()
soft = soft * 0.9 + 0.1 / C
print(
    "soft ce",
    round(F.cross_entropy(logits, soft).item(), 4),
    round(F.cross_entropy(logits, soft, weight=inv).item(), 4),
    round(F.cross_entropy(logits, soft, reduction="sum", label_smoothing=0.2).item(), 3),
)
print("soft none", tuple(F.cross_entropy(logits, soft, reduction="none").shape))

for dt in (torch.bfloat16, torch.float16):
    lo = logits.to(dt)
    w = inv.to(dt)
    print(
        dt,
        F.cross_entropy(lo, target, ignore_index=255).item(),
        F.cross_entropy(lo, target, ignore_index=255, reduction="sum").item(),
        F.cross_entropy(lo, target, weight=w, ignore_index=255).item(),
        F.cross_entropy(lo, target, ignore_index=255, label_smoothing=0.1).item(),
        F.nll_loss(F.log_softmax(lo, 1), target, ignore_index=255, reduction="sum").item(),
    )
    print(
        "  fp32 round trip",
        round(F.cross_entropy(lo.float(), target, ignore_index=255).item(), 4),
        F.cross_entropy(lo, target, ignore_index=255, reduction="none").dtype,
    )

for bad in [
    lambda: F.cross_entropy(logits, target, weight=inv[:3], ignore_index=255),
    lambda: F.cross_entropy(logits, soft, weight=inv[:3]),
    lambda: F.cross_entropy(logits[:, :, 0, 0, 0], target[:, 0, 0, 0].clamp(max=3), weight=inv[:3]),
    lambda: F.cross_entropy(logits, target),
    lambda: F.cross_entropy(logits, target[:, :2], ignore_index=255),
    lambda: F.cross_entropy(logits, target.float()),
    lambda: F.cross_entropy(logits, soft, ignore_index=1),
    lambda: F.cross_entropy(logits, target, label_smoothing=1.5),
    lambda: F.nll_loss(logp, target.to(torch.uint8), ignore_index=255),
    lambda: F.cross_entropy(logits, target, weight=inv.double(), ignore_index=255),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
print(
    "weight (4, 1) accepted", round(F.cross_entropy(logits, target, weight=inv.view(4, 1), ignore_index=255).item(), 4)
)
