"""Segmentation and detection evaluation: per-class IoU with ignore_index through bincount, boundary F-score with
max_pool2d dilation, box IoU and greedy matching for VOC-style AP with 11-point and all-point interpolation, and
per-sample Fisher diagonals with torch.func.jacrev; prints values, dtypes and the errors of typical slips."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, jacrev, vmap

rng = np.random.default_rng(29)
C, IGN = 4, 255


def r(x, k=8):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


target = torch.from_numpy(rng.integers(0, C, (2, 8, 8))).to(torch.uint8)
target[:, :2, :2] = IGN
logits = torch.from_numpy(rng.standard_normal((2, C, 8, 8)).astype(np.float32))
logits += 2.0 * F.one_hot(target.long().clamp(max=C - 1), C).permute(0, 3, 1, 2).float()
pred = logits.argmax(1)
print("dtypes", target.dtype, pred.dtype, (target == IGN).sum().item())
keep = target != IGN
hist = torch.bincount(C * target[keep].long() + pred[keep], minlength=C * C).reshape(C, C)
iou = hist.diag() / (hist.sum(0) + hist.sum(1) - hist.diag())
print(
    "iou", r(iou), "miou", round(iou.nanmean().item(), 4), "pixacc", round((hist.diag().sum() / hist.sum()).item(), 4)
)
fw = hist.sum(1) / hist.sum()
print("fwiou", round((fw * iou).sum().item(), 4), fw.dtype)
loss = F.cross_entropy(logits, target.long(), ignore_index=IGN)
loss_w = F.cross_entropy(logits, target.long(), ignore_index=IGN, weight=torch.tensor([1.0, 2.0, 0.5, 1.0]))
print(
    "ce",
    round(loss.item(), 4),
    round(loss_w.item(), 4),
    F.cross_entropy(logits, target.long(), ignore_index=IGN, reduction="none").shape,
)
dice_inputs = logits.softmax(1)
oh = F.one_hot(torch.where(keep, target.long(), 0), C).permute(0, 3, 1, 2).float() * keep.unsqueeze(1)
inter = (dice_inputs * oh).sum((0, 2, 3))
dice = 2 * inter / (dice_inputs.mul(keep.unsqueeze(1)).sum((0, 2, 3)) + oh.sum((0, 2, 3)))
print("dice", r(dice))


# boundary F-score: boundaries by 3x3 max-pool minus min-pool, tolerance by dilation
def boundary(mask):
    m = mask.float().unsqueeze(1)
    dil = F.max_pool2d(m, 3, stride=1, padding=1)
    ero = -F.max_pool2d(-m, 3, stride=1, padding=1)
    return (dil - ero).squeeze(1) > 0


pb, gb = boundary(pred == 1), boundary(target == 1)
gb_d = F.max_pool2d(gb.float().unsqueeze(1), 3, 1, 1).squeeze(1).bool()
pb_d = F.max_pool2d(pb.float().unsqueeze(1), 3, 1, 1).squeeze(1).bool()
bp = (pb & gb_d).sum() / pb.sum().clamp(min=1)
br = (gb & pb_d).sum() / gb.sum().clamp(min=1)
print("bf", round(bp.item(), 4), round(br.item(), 4), round((2 * bp * br / (bp + br)).item(), 4), pb.dtype)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None] - inter)


gt = torch.tensor([[0.0, 0.0, 10.0, 10.0], [20.0, 20.0, 30.0, 35.0], [5.0, 30.0, 15.0, 40.0]])
xy = torch.from_numpy(rng.uniform(0, 30, (7, 2)).astype(np.float32))
wh = torch.from_numpy(rng.uniform(6, 14, (7, 2)).astype(np.float32))
dets = torch.cat([xy, xy + wh], 1)
dets[:3] = gt + torch.from_numpy(rng.normal(0, 1.0, (3, 4)).astype(np.float32))
scores = torch.from_numpy(rng.random(7).astype(np.float32))
ious = box_iou(dets, gt)
print("ious", ious.shape, r(ious.max(1).values, 7))
order = scores.argsort(descending=True)
matched = torch.zeros(len(gt), dtype=torch.bool)
tp = torch.zeros(len(dets))
for i in order.tolist():
    best, j = ious[i].max(0)
    if best >= 0.5 and not matched[j]:
        matched[j] = True
        tp[i] = 1
tp_c = tp[order].cumsum(0)
fp_c = (1 - tp[order]).cumsum(0)
rec = tp_c / len(gt)
prec = tp_c / (tp_c + fp_c)
print("pr", r(prec, 7), r(rec, 7))
ap11 = torch.stack(
    [prec[rec >= t].max() if (rec >= t).any() else torch.tensor(0.0) for t in torch.linspace(0, 1, 11)]
).mean()
mrec = torch.cat([torch.tensor([0.0]), rec, torch.tensor([1.0])])
mpre = torch.cat([torch.tensor([0.0]), prec, torch.tensor([0.0])])
mpre = torch.flip(torch.cummax(torch.flip(mpre, [0]), 0).values, [0])
idx = torch.nonzero(mrec[1:] != mrec[:-1]).squeeze(1)
ap_all = ((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]).sum()
print("ap", round(ap11.item(), 4), round(ap_all.item(), 4), idx.tolist(), matched.tolist())

# per-sample Fisher diagonal with jacrev over the log-likelihood of each sample
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32) * 0.5))
params = {k: v.detach() for k, v in net.named_parameters()}
xs = torch.from_numpy(rng.standard_normal((5, 3)).astype(np.float32))
ys = torch.from_numpy(rng.integers(0, 2, 5))


def logp(p, x, y):
    return -F.cross_entropy(functional_call(net, p, (x[None],)), y[None])


jac = vmap(jacrev(logp), in_dims=(None, 0, 0))(params, xs, ys)
fisher = {k: (v**2).mean(0) for k, v in jac.items()}
print("jacrev", {k: tuple(v.shape) for k, v in jac.items()})
print("fisher", r(fisher["2.weight"]), round(sum(v.sum() for v in fisher.values()).item(), 4))
emp = torch.autograd.grad(F.cross_entropy(net(xs), ys, reduction="sum"), list(net.parameters()))
print("batch_grad_sq_vs_fisher", round((emp[2] ** 2).sum().item(), 4), round(fisher["2.weight"].sum().item() * 5, 4))
for name, fn in [
    ("ce_uint8_target", lambda: F.cross_entropy(logits, target)),
    ("ce_ignore_default", lambda: F.cross_entropy(logits, target.long())),
    ("one_hot_neg", lambda: F.one_hot(torch.tensor([-1, 0]), 3)),
    ("bincount_uint8", lambda: torch.bincount(target[0, 2]).tolist()),
    ("max_pool_bool", lambda: F.max_pool2d(pb.unsqueeze(1), 3)),
    ("cummax_empty", lambda: torch.cummax(torch.tensor([]), 0).values.shape),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
