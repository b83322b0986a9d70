"""Streaming segmentation metrics: a confusion matrix by bincount(num_classes*t+p, minlength) with ignore masks,
per-class IoU/Dice/accuracy with nan for absent classes, torch.nanmean and nansum, frequency-weighted IoU, argmax
ties, per-image mIoU by batched bincount offsets, and the errors of bincount and argmax."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
C, IGN = 5, 255


class ConfMat:
    def __init__(self, n):
        self.n = n
        self.mat = torch.zeros(n, n, dtype=torch.int64)

    def update(self, target, pred):
        k = (target >= 0) & (target < self.n)
        inds = self.n * target[k].to(torch.int64) + pred[k]
        self.mat += torch.bincount(inds, minlength=self.n**2).reshape(self.n, self.n)

    def compute(self):
        h = self.mat.float()
        acc_global = torch.diag(h).sum() / h.sum()
        acc = torch.diag(h) / h.sum(1)
        iu = torch.diag(h) / (h.sum(1) + h.sum(0) - torch.diag(h))
        return acc_global, acc, iu


cm = ConfMat(C)
for step in range(3):
    logits = torch.randn(2, C, 8, 8)
    logits[:, 4] -= 10.0
    target = torch.randint(0, C - 1, (2, 8, 8))
    target[:, :1] = IGN
    cm.update(target.flatten(), logits.argmax(1).flatten())
acc_g, acc, iu = cm.compute()
print(cm.mat.tolist())
print("global acc", round(acc_g.item(), 4))
print("acc", acc.round(decimals=4).tolist())
print("iou", iu.round(decimals=4).tolist())
print("mIoU nanmean", round(torch.nanmean(iu).item(), 4), "mean", iu.mean().item())
print("nansum", round(iu.nansum().item(), 4), "isnan", iu.isnan().tolist())
freq = cm.mat.sum(1).float() / cm.mat.sum()
print("fwIoU", round((freq[freq > 0] * iu[freq > 0]).sum().item(), 4))
dice = 2 * torch.diag(cm.mat) / (cm.mat.sum(0) + cm.mat.sum(1))
print("dice", dice.dtype, dice.round(decimals=4).tolist())
print("nanmean dim", torch.nanmean(torch.stack([iu, iu.flip(0)]), dim=1).round(decimals=4).tolist())
print("nanmean keepdim", torch.stack([iu, iu]).nanmean(0, keepdim=True).shape)
print("nanmedian", round(iu.nanmedian().item(), 4), "nan_to_num", iu.nan_to_num(nan=-1.0).round(decimals=4).tolist())

pred = torch.randint(0, C, (3, 4, 4))
tgt = torch.randint(0, C, (3, 4, 4))
offs = torch.arange(3).view(3, 1, 1) * C * C
per_img = torch.bincount((offs + C * tgt + pred).flatten(), minlength=3 * C * C).view(3, C, C)
inter = per_img.diagonal(dim1=1, dim2=2)
union = per_img.sum(1) + per_img.sum(2) - inter
iou_img = inter / union
print("per-image IoU", iou_img.round(decimals=4).tolist())
print("per-image mIoU", iou_img.nanmean(1).round(decimals=4).tolist(), inter.dtype, iou_img.dtype)

w = torch.tensor([0.5, 1.0, 1.5, 2.0])
print(
    "weighted bincount",
    torch.bincount(torch.tensor([0, 1, 1, 3]), weights=w).tolist(),
    torch.bincount(torch.tensor([0, 1, 1, 3]), weights=w.double()).dtype,
)
print("empty bincount", torch.bincount(torch.tensor([], dtype=torch.long), minlength=3).tolist())
print("uint8 bincount", torch.bincount(torch.tensor([2, 2, 0], dtype=torch.uint8)).tolist())

ties = torch.tensor([[[1.0, 3.0], [2.0, 2.0]], [[3.0, 3.0], [2.0, 1.0]]])
print("argmax ties", ties.argmax(0).tolist(), ties.argmax(dim=0, keepdim=True).shape, ties.argmax().item())
print("max ties", torch.max(ties, 0).indices.tolist(), torch.max(ties, dim=0).values.tolist())
nanl = torch.tensor([[0.1, float("nan"), 0.3], [0.5, 0.2, 0.1]])
print("argmax nan", nanl.argmax(1).tolist(), nanl.max(1).values.tolist())
prob = torch.softmax(torch.randn(2, C, 3, 3), 1)
conf, lab = prob.max(1)
print("confidence", tuple(conf.shape), lab.dtype, round(conf.mean().item(), 4))
print("ECE-ish bins", torch.bucketize(conf.flatten(), torch.linspace(0, 1, 6)).bincount(minlength=7).tolist())

for bad in [
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(torch.tensor([[1, 2]])),
    lambda: torch.bincount(torch.tensor([1.0, 2.0])),
    lambda: torch.bincount(torch.tensor([0, 1]), weights=torch.ones(3)),
    lambda: torch.bincount(torch.tensor([0, 1]), minlength=-1),
    lambda: torch.empty(0, 3).argmax(0),
    lambda: torch.nanmean(torch.tensor([1, 2])),
    lambda: ConfMat(3).mat.__iadd__(torch.ones(3, 3)),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
