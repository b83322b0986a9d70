"""Boundary-aware segmentation losses: soft boundaries by max_pool2d morphology (dilation minus erosion),
boundary F1 with tolerance, a chamfer-style distance transform by iterated min-pooling, the signed-distance
boundary loss of Kervadec et al., soft skeletons for clDice, and weight maps that emphasise borders in a
cross entropy with reduction='none'."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


def dilate(x, k=3):
    return F.max_pool2d(x, k, stride=1, padding=k // 2)


def erode(x, k=3):
    return -F.max_pool2d(-x, k, stride=1, padding=k // 2)


def boundary(x, k=3):
    return dilate(x, k) - erode(x, k)


def distance(mask, iters=20):
    inf = 1e4
    d = torch.where(mask > 0.5, torch.zeros_like(mask), torch.full_like(mask, inf))
    for _ in range(iters):
        d = torch.minimum(d, -F.max_pool2d(-d, 3, 1, 1) + 1)
    return d


def soft_skeleton(x, iters=5):
    def open_(y):
        return dilate(erode(y))

    skel = F.relu(x - open_(x))
    for _ in range(iters):
        x = erode(x)
        delta = F.relu(x - open_(x))
        skel = skel + F.relu(delta - skel * delta)
    return skel


gt = torch.zeros(2, 1, 16, 16)
gt[0, 0, 3:12, 4:10] = 1
gt[1, 0, 2:6, 2:14] = 1
gt[1, 0, 9:14, 5:8] = 1
logits = torch.randn(2, 1, 16, 16) + (gt * 2 - 1) * 1.5
logits.requires_grad_(True)
prob = logits.sigmoid()

gb, pb = boundary(gt), boundary(prob)
print("gt boundary px", gb.sum((1, 2, 3)).tolist(), "soft", pb.sum((1, 2, 3)).round(decimals=4).tolist())
tol = 2
pred_b = boundary((prob > 0.5).float())
prec = (pred_b * dilate(gb, 2 * tol + 1)).sum() / pred_b.sum().clamp_min(1)
rec = (gb * dilate(pred_b, 2 * tol + 1)).sum() / gb.sum().clamp_min(1)
print("boundary P/R/F", r(prec), r(rec), r(2 * prec * rec / (prec + rec)))

d_in = distance(1 - gt)
d_out = distance(gt)
sdf = d_out - d_in
print("sdf row", sdf[0, 0, 7].tolist())
print("sdf range", sdf.min().item(), sdf.max().item(), sdf.dtype)
bl = (prob * sdf).mean()
bl.backward()
print("boundary loss", r(bl), r(logits.grad.abs().sum()))
logits.grad = None
prob = logits.sigmoid()

sk_p, sk_g = soft_skeleton(prob), soft_skeleton(gt)
tprec = ((sk_p * gt).sum() + 1) / (sk_p.sum() + 1)
tsens = ((sk_g * prob).sum() + 1) / (sk_g.sum() + 1)
cl = 1 - 2 * tprec * tsens / (tprec + tsens)
cl.backward()
print("clDice", r(cl), r(sk_g.sum()), r(logits.grad.abs().sum()))
logits.grad = None
prob = logits.sigmoid()

target = gt.squeeze(1).long()
two = torch.cat([-logits, logits], 1)
w = 1 + 4 * torch.exp(-((d_in + d_out - 1).clamp_min(0).squeeze(1) ** 2) / (2 * 2.0**2))
ce = F.cross_entropy(two, target, reduction="none")
wce = (ce * w).sum() / w.sum()
wce.backward()
print("weighted ce", r(wce), r(w.max()), r(w.min()), r(logits.grad.abs().sum()), ce.grad_fn.name())
hd_like = torch.cat(
    [(d_out * (prob > 0.5).float()).amax((1, 2, 3)), (d_in * (1 - (prob > 0.5).float())).amax((1, 2, 3))]
)
print("max distances", hd_like.tolist())
print(
    "morphology ints",
    F.max_pool2d(gt, 3, 1, 1, dilation=2).sum().item(),
    F.max_pool2d(gt, (1, 5), 1, (0, 2)).sum().item(),
)
print("lp pool", r(F.lp_pool2d(prob, 2.0, 3, stride=1).sum()), F.lp_pool2d(prob, 1, 2).shape)

for bad in [
    lambda: F.max_pool2d(gt, 3, 1, 1, dilation=0),
    lambda: F.max_pool2d(gt.long(), 3, 1, 1).sum(),
    lambda: F.max_pool2d(gt, 4, 1, 3),
    lambda: torch.minimum(gt, torch.ones(3)),
    lambda: F.lp_pool2d(prob, 2.0, 20),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
