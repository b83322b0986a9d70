"""Tensor augmentation without torchvision (crops by slicing, flips, color jitter, antialiased resize, mixup/cutmix,
roll) and object-detection utilities (box IoU, greedy NMS, anchors via meshgrid, focal loss, smooth L1, one_hot)."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


# ---- augmentation
img = torch.from_numpy(rng.uniform(0, 1, (2, 3, 12, 16)).astype(np.float32))
mean = torch.tensor([0.485, 0.456, 0.406])
std = torch.tensor([0.229, 0.224, 0.225])
norm = (img - mean[:, None, None]) / std[:, None, None]
print("norm", tuple(norm.shape), r(norm.mean(dim=(0, 2, 3))), r(norm.std(dim=(0, 2, 3))))
top, left = int(rng.integers(0, 4)), int(rng.integers(0, 8))
crop = img[..., top:top + 8, left:left + 8]
print("crop", tuple(crop.shape), crop.is_contiguous(), r(crop.sum(dim=(-1, -2))))
flipped = torch.flip(crop, dims=[-1])
print("hflip", torch.equal(flipped[..., 0], crop[..., -1]), r(flipped[0, 0, 0]), r(crop[0, 0].fliplr()[0]))
vf = crop.flip(-2)
print("vflip", torch.allclose(vf.flip(-2), crop))
b, c, s = 1.2, 0.8, 0.5
jit = crop * b
m = jit.mean(dim=(-3, -2, -1), keepdim=True)
jit = (jit - m) * c + m
gray = (0.299 * jit[:, 0] + 0.587 * jit[:, 1] + 0.114 * jit[:, 2]).unsqueeze(1)
jit = (jit * s + gray * (1 - s)).clamp_(0.0, 1.0)
print("jitter", r(jit.mean(dim=(1, 2, 3))), r(gray.amax(dim=(2, 3))))
small = F.interpolate(img, size=(6, 8), mode="bilinear", align_corners=False, antialias=True)
print("antialias", tuple(small.shape), r(small[0, 0, 0]))
small2 = F.interpolate(img, scale_factor=0.5, mode="bicubic", align_corners=False, antialias=True)
print("bicubic aa", tuple(small2.shape), r(small2[1, 2, 1]))
big = F.interpolate(img, scale_factor=1.5, mode="nearest-exact")
print("nearest-exact", tuple(big.shape), r(big[0, 0, 1]))
rolled = torch.roll(img, shifts=(2, -3), dims=(2, 3))
print("roll", torch.equal(rolled[:, :, 2, 0], img[:, :, 0, 3]), r(torch.roll(torch.arange(6), 2)))
lam = float(rng.beta(0.4, 0.4))
beta = torch.distributions.Beta(torch.tensor([0.4]), torch.tensor([0.4]))
print("beta", r(beta.mean), r(beta.log_prob(torch.tensor([lam]))), beta.batch_shape, beta.event_shape)
perm = torch.from_numpy(rng.permutation(2))
labels = torch.tensor([1, 3])
y = F.one_hot(labels, num_classes=5).float()
mixed = lam * img + (1 - lam) * img[perm]
ymix = lam * y + (1 - lam) * y[perm]
print("mixup", round(lam, 4), r(mixed.mean()), r(ymix[0], 5))
H, W = img.shape[-2:]
cut = np.sqrt(1.0 - lam)
ch, cw = int(H * cut), int(W * cut)
cy, cx = int(rng.integers(H)), int(rng.integers(W))
y1, y2 = np.clip(cy - ch // 2, 0, H), np.clip(cy + ch // 2, 0, H)
x1, x2 = np.clip(cx - cw // 2, 0, W), np.clip(cx + cw // 2, 0, W)
cm = img.clone()
cm[:, :, y1:y2, x1:x2] = img[perm, :, y1:y2, x1:x2]
lam_adj = 1 - ((x2 - x1) * (y2 - y1) / (H * W))
print("cutmix", (int(y1), int(y2), int(x1), int(x2)), round(float(lam_adj), 4), r(cm.sum()))

# ---- detection
def box_area(b):
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (box_area(a)[:, None] + box_area(b) - inter)


def nms(boxes, scores, thr):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= thr]
    return torch.tensor(keep, dtype=torch.long)


xy = torch.from_numpy(rng.uniform(0, 20, (8, 2)).astype(np.float32))
wh = torch.from_numpy(rng.uniform(4, 12, (8, 2)).astype(np.float32))
boxes = torch.cat([xy, xy + wh], dim=1)
scores = torch.from_numpy(rng.uniform(0, 1, 8).astype(np.float32))
iou = box_iou(boxes, boxes)
print("iou", tuple(iou.shape), r(iou.diagonal()), r(iou[0]))
keep = nms(boxes, scores, 0.3)
print("nms keep", keep.tolist(), r(scores[keep]))
mask = scores > 0.5
print("mask", mask.sum().item(), boxes[mask].shape, torch.nonzero(mask).squeeze(1).tolist())
print("topk", r(scores.topk(3).values), scores.topk(3).indices.tolist())

stride, sizes, ratios = 8, torch.tensor([16.0, 32.0]), torch.tensor([0.5, 1.0, 2.0])
hr = torch.sqrt(ratios)
ws = (sizes[None, :] / hr[:, None]).reshape(-1)
hs = (sizes[None, :] * hr[:, None]).reshape(-1)
base = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
sy, sx = torch.meshgrid(torch.arange(3) * stride, torch.arange(4) * stride, indexing="ij")
shifts = torch.stack([sx.reshape(-1), sy.reshape(-1), sx.reshape(-1), sy.reshape(-1)], dim=1).float()
anchors = (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)
print("anchors", tuple(anchors.shape), r(anchors[0], 4), r(anchors[-1], 4), r(base.round(), 8))
match = box_iou(anchors, boxes)
best, idx = match.max(dim=1)
print("match", r(best.topk(4).values, 4), idx.bincount(minlength=8).tolist())
gt_cls = torch.from_numpy(rng.integers(0, 4, 8))
cls_t = F.one_hot(gt_cls[idx], 4).float() * (best >= 0.3).float()[:, None]
logits = T(anchors.shape[0], 4)


def focal(x, t, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(x)
    ce = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    p_t = p * t + (1 - p) * (1 - t)
    loss = ce * (1 - p_t) ** gamma
    a_t = alpha * t + (1 - alpha) * (1 - t)
    return (a_t * loss).sum() / max(1.0, t.sum().item())


print("focal", r(focal(logits, cls_t)), int(cls_t.sum().item()))
pred = T(8, 4)
tgt = T(8, 4)
print("smooth_l1", r(F.smooth_l1_loss(pred, tgt, beta=1.0 / 9)),
      r(F.smooth_l1_loss(pred, tgt, reduction="sum", beta=0.5)),
      r(F.huber_loss(pred, tgt, delta=0.5)), r(F.l1_loss(pred, tgt)))
print("one_hot", F.one_hot(torch.tensor([[0, 2], [1, 1]])).shape, F.one_hot(torch.tensor([0, 2])).tolist())
try:
    F.one_hot(torch.tensor([0, 5]), num_classes=3)
except RuntimeError as e:
    print("RuntimeError", e)
print("where", r(torch.where(iou > 0.1, iou, torch.zeros_like(iou)).sum(dim=1)))
cxcy = (boxes[:, :2] + boxes[:, 2:]) / 2
print("cxcywh", r(torch.cat([cxcy, boxes[:, 2:] - boxes[:, :2]], -1)[0], 4), r(boxes.unbind(-1)[2][:3]))
