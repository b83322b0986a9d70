"""Streaming metric accumulators kept as module buffers, segmentation IoU/Dice, BLEU-style n-gram counts with unfold
and unique, bootstrap confidence intervals from numpy-drawn indices, and Welch's t-test written by hand."""

import math

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(3)


class RunningConfusion(nn.Module):
    """Accumulates a confusion matrix across batches; the matrix is saved, the scratch count is not."""

    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.register_buffer("mat", torch.zeros(num_classes, num_classes, dtype=torch.int64))
        self.register_buffer("seen", torch.tensor(0), persistent=False)

    @torch.no_grad()
    def update(self, pred, target):
        k = (target >= 0) & (target < self.num_classes)
        inds = self.num_classes * target[k].to(torch.int64) + pred[k]
        self.mat += torch.bincount(inds, minlength=self.num_classes**2).reshape(self.mat.shape)
        self.seen += k.sum()

    def compute(self):
        h = self.mat.float()
        acc_global = torch.diag(h).sum() / h.sum()
        acc = torch.diag(h) / h.sum(1)
        iu = torch.diag(h) / (h.sum(1) + h.sum(0) - torch.diag(h))
        return acc_global, acc, iu

    def reset(self):
        self.mat.zero_()
        self.seen.zero_()


class RunningMoments(nn.Module):
    """Welford running mean/variance in float64 buffers."""

    def __init__(self, dim):
        super().__init__()
        self.register_buffer("n", torch.zeros((), dtype=torch.float64))
        self.register_buffer("mean", torch.zeros(dim, dtype=torch.float64))
        self.register_buffer("m2", torch.zeros(dim, dtype=torch.float64))

    def forward(self, x):
        for row in x.double():
            self.n += 1
            delta = row - self.mean
            self.mean += delta / self.n
            self.m2 += delta * (row - self.mean)
        return self.m2 / (self.n - 1)


seg = RunningConfusion(3)
print(seg, sorted(seg.state_dict().keys()), [n for n, _ in seg.named_buffers()])
for step in range(3):
    t = torch.from_numpy(rng.integers(-1, 3, (2, 5, 5)))
    p = torch.from_numpy(rng.integers(0, 3, (2, 5, 5)))
    p = torch.where(torch.from_numpy(rng.random((2, 5, 5)) < 0.5), t.clamp(min=0), p)
    seg.update(p.flatten(), t.flatten())
g, a, iu = seg.compute()
print("seg", round(g.item(), 4), np.round(a.numpy(), 4).tolist(), np.round(iu.numpy(), 4).tolist())
print("mIoU", round(iu.mean().item(), 4), "seen", seg.seen.item(), seg.seen.dtype, seg.mat.dtype)
sd = seg.state_dict()
fresh = RunningConfusion(3)
print("load", fresh.load_state_dict(sd), torch.equal(fresh.mat, seg.mat), fresh.seen.item())
seg.reset()
print("reset", seg.mat.sum().item(), seg.seen.item(), sd["mat"].sum().item())
seg.half()
print("half keeps ints", seg.mat.dtype, seg.seen.dtype)

rm = RunningMoments(3)
x = torch.from_numpy(rng.standard_normal((20, 3)).astype(np.float32) * 2 + 1)
var = rm(x)
print("welford", np.round(var.numpy(), 4).tolist(), np.round(x.double().var(0).numpy(), 4).tolist(), rm.n.item())
print("moments", rm.mean.dtype, rm.float().mean.dtype, sorted(rm.state_dict()))

# IoU / Dice on soft and hard masks
logits = torch.from_numpy(rng.standard_normal((2, 1, 6, 6)).astype(np.float32))
gt = torch.from_numpy((rng.random((2, 1, 6, 6)) > 0.5).astype(np.float32))
logits.requires_grad_(True)
probs = torch.sigmoid(logits)
inter = (probs * gt).sum(dim=(1, 2, 3))
union = probs.sum(dim=(1, 2, 3)) + gt.sum(dim=(1, 2, 3))
dice = (2 * inter + 1.0) / (union + 1.0)
soft_loss = 1 - dice.mean()
soft_loss.backward()
print("dice", np.round(dice.detach().numpy(), 4).tolist(), round(logits.grad.abs().sum().item(), 4))
hard = probs.detach() > 0.5
gtb = gt.bool()
iou = (hard & gtb).sum((1, 2, 3)).float() / (hard | gtb).sum((1, 2, 3)).float()
print("iou", np.round(iou.numpy(), 4).tolist(), (hard & gtb).dtype, (hard ^ gtb).sum().item(), (~hard).sum().item())


def ngrams(seq, n):
    grams = seq.unfold(0, n, 1)
    uniq, counts = torch.unique(grams, dim=0, return_counts=True)
    return {tuple(u.tolist()): c.item() for u, c in zip(uniq, counts)}


def bleu(cand, ref, max_n=3):
    logs = []
    for n in range(1, max_n + 1):
        c, rf = ngrams(cand, n), ngrams(ref, n)
        clipped = sum(min(v, rf.get(k, 0)) for k, v in c.items())
        logs.append(math.log(max(clipped, 1e-9) / max(len(cand) - n + 1, 1)))
    bp = min(1.0, math.exp(1 - len(ref) / len(cand)))
    return bp * math.exp(sum(logs) / max_n)


cand = torch.tensor([1, 2, 3, 4, 2, 3, 5])
ref = torch.tensor([1, 2, 3, 5, 2, 3, 4, 6])
print("unfold", cand.unfold(0, 3, 1).shape, cand.unfold(0, 2, 2).tolist())
print("ngrams2", sorted(ngrams(cand, 2).items()))
print("bleu", round(bleu(cand, ref), 4), round(bleu(ref, ref), 4))
u, inv, cnt = torch.unique(cand.unfold(0, 2, 1), dim=0, return_inverse=True, return_counts=True)
print("unique_dim", u.tolist(), inv.tolist(), cnt.tolist())
uc = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 1, 3, 3]), return_counts=True)
print("unique_consecutive", uc[0].tolist(), uc[1].tolist())

# bootstrap CI of accuracy difference between two models on the same examples
correct_a = torch.from_numpy(rng.random(60) < 0.72)
correct_b = torch.from_numpy(rng.random(60) < 0.60)
idx = torch.from_numpy(rng.integers(0, 60, (200, 60)))
acc_a = correct_a[idx].float().mean(1)
acc_b = correct_b[idx].float().mean(1)
diff = acc_a - acc_b
lo, hi = torch.quantile(diff, torch.tensor([0.025, 0.975]))
print("boot", idx.dtype, acc_a.shape, round(diff.mean().item(), 4), round(lo.item(), 4), round(hi.item(), 4))
print("boot_p", round((diff <= 0).float().mean().item(), 4), round(diff.std().item(), 4))
kth = torch.kthvalue(diff, 5).values
print("kth", round(kth.item(), 4), round(diff.sort().values[4].item(), 4))


def welch(a, b):
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(unbiased=True), b.var(correction=1)
    na, nb = a.numel(), b.numel()
    t = (ma - mb) / torch.sqrt(va / na + vb / nb)
    dof = (va / na + vb / nb) ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    return t, dof


s1 = torch.from_numpy(rng.normal(0.8, 0.05, 10))
s2 = torch.from_numpy(rng.normal(0.76, 0.08, 12))
t, dof = welch(s1, s2)
print("welch", t.dtype, round(t.item(), 4), round(dof.item(), 4))
d = s1[:10] - s2[:10]
tp = d.mean() / (d.std() / math.sqrt(10))
print("paired", round(tp.item(), 4), round(torch.special.ndtr(-tp.abs()).item() * 2, 4))
sm = torch.std_mean(s1, correction=0)
print("std_mean", round(sm[0].item(), 4), round(sm[1].item(), 4), torch.var_mean(s2, dim=0, keepdim=True)[0].shape)
for name, fn in [
    ("quantile_int", lambda: torch.quantile(correct_a[idx].sum(1), 0.5)),
    ("quantile_q_range", lambda: torch.quantile(diff, 1.5)),
    ("unfold_big", lambda: cand.unfold(0, 9, 1)),
    ("var_int", lambda: torch.tensor([1, 2, 3]).var()),
    ("buffer_name", lambda: seg.register_buffer("a.b", torch.zeros(1))),
    ("where_numpy_cond", lambda: torch.where(np.array([True, False]), cand[:2], cand[2:4])),
    ("buffer_type", lambda: seg.register_buffer("bad", [1, 2])),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
