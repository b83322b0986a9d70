"""Evaluation of 3-D segmentations as challenge scripts compute it: per-class confusion counts with logical ops,
sensitivity/specificity/precision/Dice/IoU with NaN for absent classes and nanmean, surface extraction by erosion,
Hausdorff and HD95 via cdist on voxel-spacing-scaled coordinates, average symmetric surface distance, volume
similarity, and a bincount confusion matrix with per-case aggregation."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
D, H, W = 6, 10, 10
spacing = torch.tensor([2.5, 0.7, 0.7])
z, y, x = torch.meshgrid(torch.arange(D), torch.arange(H), torch.arange(W), indexing="ij")
gt = torch.zeros(2, D, H, W, dtype=torch.long)
gt[0][((z - 3) ** 2 + (y - 5) ** 2 + (x - 5) ** 2) <= 9] = 1
gt[0][((z - 3) ** 2 + (y - 5) ** 2 + (x - 5) ** 2) <= 2] = 2
gt[1][(y > 2) & (y < 7) & (x > 1) & (x < 8)] = 1
pred = gt.clone()
pred[0][(y == 2) & (x == 5)] = 1
pred[0, 1:3, 4:6, 4:6] = 2
pred[1] = torch.roll(gt[1], shifts=(1, -1), dims=(1, 2))
pred[1, 0, 0, 0] = 2  # a false-positive class the reference lacks
print("volumes", [torch.bincount(t.flatten(), minlength=3).tolist() for t in (gt[0], pred[0], gt[1], pred[1])])


def counts(p, g):
    tp = torch.logical_and(p, g).sum().item()
    fp = torch.logical_and(p, torch.logical_not(g)).sum().item()
    fn = (~p & g).sum().item()
    tn = (~p & ~g).sum().item()
    return tp, fp, fn, tn


rows = []
for case in range(2):
    for c in (1, 2):
        p, g = pred[case] == c, gt[case] == c
        tp, fp, fn, tn = counts(p, g)
        sens = tp / (tp + fn) if tp + fn else float("nan")
        spec = tn / (tn + fp)
        dice = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else float("nan")
        iou = tp / (tp + fp + fn) if (tp + fp + fn) else float("nan")
        vs = 1 - abs(fn - fp) / (2 * tp + fp + fn)
        rows.append([dice, iou, sens, spec, vs])
        print("case", case, "class", c, (tp, fp, fn, tn), [round(v, 4) for v in (dice, iou, sens, spec, vs)])
table = torch.tensor(rows).view(2, 2, 5)
print("nan", torch.isnan(table).sum().item(), "nanmean per class", table.nanmean(dim=0).round(decimals=4).tolist())
print("mean with nan", table.mean(0)[1].round(decimals=4).tolist())


def surface(m):
    m = m[None, None].float()
    er = -F.max_pool3d(-F.pad(m, (1, 1, 1, 1, 1, 1), value=0.0), 3, stride=1)
    return (m - er)[0, 0] > 0


def distances(a, b):
    sa, sb = surface(a), surface(b)
    ca = sa.nonzero().float() * spacing
    cb = sb.nonzero().float() * spacing
    d = torch.cdist(ca, cb)
    return d.min(1).values, d.min(0).values


for case in range(2):
    dab, dba = distances(pred[case] > 0, gt[case] > 0)
    both = torch.cat([dab, dba])
    hd = max(dab.max().item(), dba.max().item())
    hd95 = torch.quantile(both, 0.95).item()
    assd = both.mean().item()
    print(
        "case",
        case,
        "surface",
        dab.numel(),
        dba.numel(),
        "HD",
        round(hd, 4),
        "HD95",
        round(hd95, 4),
        "ASSD",
        round(assd, 4),
    )
ca = (gt[0] > 0).nonzero().float()
print("cdist p", [round(torch.cdist(ca[:5], ca[-5:], p=p).sum().item(), 4) for p in (1.0, 2.0, math.inf)])
print(
    "cdist batched",
    torch.cdist(torch.randn(2, 5, 3), torch.randn(2, 4, 3)).shape,
    torch.cdist(torch.randn(5, 3), torch.randn(0, 3)).shape,
)
empty_d = torch.cdist(torch.randn(0, 3), torch.randn(4, 3))
print("empty surface", empty_d.shape, empty_d.numel())
try:
    empty_d.min(0)
    print("min over empty dim ok")
except Exception as e:
    print(type(e).__name__, e)
try:
    empty_d.amax()
except Exception as e:
    print(type(e).__name__, e)

k = 3
cm = torch.bincount(gt.flatten() * k + pred.flatten(), minlength=k * k).view(k, k)
print("confusion", cm.tolist())
tp = cm.diag()
print(
    "per-class recall",
    (tp / cm.sum(1)).round(decimals=4).tolist(),
    "precision",
    (tp / cm.sum(0).clamp(min=1)).round(decimals=4).tolist(),
)
print("accuracy", round((tp.sum() / cm.sum()).item(), 4), tp.dtype, (tp / cm.sum(1)).dtype)
kappa_po = tp.sum() / cm.sum()
kappa_pe = (cm.sum(0) * cm.sum(1)).sum() / cm.sum() ** 2
print("kappa", round(((kappa_po - kappa_pe) / (1 - kappa_pe)).item(), 4))
pw = (pred[1] > 0) ^ (gt[1] > 0)
print("xor", pw.sum().item(), torch.logical_xor(pred[1] > 0, gt[1] > 0).sum().item(), (pred[1] != gt[1]).sum().item())
print(
    "any/all", (pred == gt).all().item(), (pred == gt).all(dim=0).sum().item(), (pred != gt).any(dim=(1, 2, 3)).tolist()
)
for bad in [
    lambda: torch.cdist(ca, ca[:, :2]),
    lambda: torch.cdist(ca.long(), ca.long()),
    lambda: torch.bincount(gt),
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.logical_and(gt[0], gt[1, :2]),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
