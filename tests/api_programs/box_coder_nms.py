"""Detection heads in pure torch: box IoU/GIoU/DIoU with their losses and gradients, a BoxCoder (encode/decode with
weights and a log-clamped dw), a hand-written NMS loop, batched NMS by the coordinate-offset trick, per-level topk
with candidate thresholds, FPN level mapping with log2/floor/clamp, anchors by meshgrid, and empty-box edge cases."""

import math

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(5)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def rand_boxes(n, size=32.0):
    xy = rng.uniform(0, size * 0.7, (n, 2))
    wh = rng.uniform(2, size * 0.4, (n, 2))
    return torch.from_numpy(np.concatenate([xy, xy + wh], 1).astype(np.float32))


def box_area(b):
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def _inter_union(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = box_area(a)[:, None] + box_area(b) - inter
    return inter, union


def box_iou(a, b):
    inter, union = _inter_union(a, b)
    return inter / union


def generalized_box_iou(a, b):
    inter, union = _inter_union(a, b)
    iou = inter / union
    lti = torch.min(a[:, None, :2], b[:, :2])
    rbi = torch.max(a[:, None, 2:], b[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    areai = whi[..., 0] * whi[..., 1]
    return iou - (areai - union) / areai


def diou_loss(p, g, eps=1e-7):
    x1, y1, x2, y2 = p.unbind(dim=-1)
    x1g, y1g, x2g, y2g = g.unbind(dim=-1)
    inter, union = _inter_union(p, g)
    iou = torch.diagonal(inter / (union + eps))
    xc1, yc1 = torch.min(x1, x1g), torch.min(y1, y1g)
    xc2, yc2 = torch.max(x2, x2g), torch.max(y2, y2g)
    diag = (xc2 - xc1) ** 2 + (yc2 - yc1) ** 2 + eps
    cdist = ((x1 + x2 - x1g - x2g) / 2) ** 2 + ((y1 + y2 - y1g - y2g) / 2) ** 2
    return 1 - iou + cdist / diag


class BoxCoder:
    def __init__(self, weights=(10.0, 10.0, 5.0, 5.0), bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights, self.bbox_xform_clip = weights, bbox_xform_clip

    def encode(self, ref, proposals):
        wx, wy, ww, wh = self.weights
        pw, ph = proposals[:, 2] - proposals[:, 0], proposals[:, 3] - proposals[:, 1]
        px, py = proposals[:, 0] + 0.5 * pw, proposals[:, 1] + 0.5 * ph
        gw, gh = ref[:, 2] - ref[:, 0], ref[:, 3] - ref[:, 1]
        gx, gy = ref[:, 0] + 0.5 * gw, ref[:, 1] + 0.5 * gh
        return torch.stack((wx * (gx - px) / pw, wy * (gy - py) / ph, ww * torch.log(gw / pw),
                            wh * torch.log(gh / ph)), dim=1)

    def decode(self, codes, boxes):
        boxes = boxes.to(codes.dtype)
        w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        cx, cy = boxes[:, 0] + 0.5 * w, boxes[:, 1] + 0.5 * h
        wx, wy, ww, wh = self.weights
        dx, dy = codes[:, 0::4] / wx, codes[:, 1::4] / wy
        dw = torch.clamp(codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pcx, pcy = dx * w[:, None] + cx[:, None], dy * h[:, None] + cy[:, None]
        pw, ph = torch.exp(dw) * w[:, None], torch.exp(dh) * h[:, None]
        c_to_c_h = torch.tensor(0.5, dtype=pcy.dtype, device=ph.device) * ph
        c_to_c_w = torch.tensor(0.5, dtype=pcx.dtype, device=pw.device) * pw
        return torch.stack((pcx - c_to_c_w, pcy - c_to_c_h, pcx + c_to_c_w, pcy + c_to_c_h), dim=2).flatten(1)


def nms(boxes, scores, thr):
    order = scores.argsort(descending=True, stable=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        iou = box_iou(boxes[i][None], boxes[order[1:]])[0]
        order = order[1:][iou <= thr]
    return torch.stack(keep) if keep else torch.empty(0, dtype=torch.int64)


def batched_nms(boxes, scores, idxs, thr):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, thr)


a, b = rand_boxes(5), rand_boxes(4)
print("iou", r(box_iou(a, b), 8), "giou", r(generalized_box_iou(a, b), 8))
print("self giou", r(torch.diag(generalized_box_iou(a, a))), bool((generalized_box_iou(a, b) <= box_iou(a, b)).all()))
p = (b + torch.from_numpy(rng.normal(0, 2, (4, 4)).astype(np.float32))).requires_grad_()
loss = (1 - torch.diag(generalized_box_iou(p, b))).sum() + diou_loss(p, b).mean()
loss.backward()
print("giou/diou loss", round(loss.item(), 4), r(p.grad, 8))

coder = BoxCoder()
anchors_p = rand_boxes(6)
gt = rand_boxes(6)
codes = coder.encode(gt, anchors_p)
dec = coder.decode(codes, anchors_p)
print("encode", r(codes, 8), "roundtrip", torch.allclose(dec, gt, atol=1e-3), tuple(dec.shape))
big = codes.clone()
big[:, 2:] = 100.0
print("clip", r(coder.decode(big, anchors_p)[0]), round(coder.bbox_xform_clip, 4))
multi = coder.decode(torch.cat([codes, codes * 0], dim=1), anchors_p)
print("multi-class", tuple(multi.shape), torch.allclose(multi[:, 4:], anchors_p))

boxes = rand_boxes(12)
scores = torch.from_numpy(rng.uniform(size=12).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 3, 12))
keep = nms(boxes, scores, 0.3)
print("nms", keep.tolist(), r(scores[keep], 12))
bk = batched_nms(boxes, scores, labels, 0.3)
print("batched", bk.tolist(), labels[bk].tolist())
per_class = torch.cat([torch.nonzero(labels == c).flatten()[nms(boxes[labels == c], scores[labels == c], 0.3)]
                       for c in labels.unique()])
print("same as per-class", sorted(per_class.tolist()) == sorted(bk.tolist()))
print("empty", batched_nms(torch.empty(0, 4), torch.empty(0), torch.empty(0, dtype=torch.int64), 0.5),
      box_iou(torch.empty(0, 4), b).shape)

# per-level topk + thresholds (RetinaNet postprocess)
logits_per_level = [torch.from_numpy(rng.normal(size=(n, 3)).astype(np.float32)) for n in (16, 4, 1)]
all_s, all_i, all_l = [], [], []
for lvl, lg in enumerate(logits_per_level):
    s = torch.sigmoid(lg).flatten()
    keep_idxs = s > 0.3
    s = s[keep_idxs]
    topk_idxs = torch.where(keep_idxs)[0]
    num_topk = min(5, topk_idxs.size(0))
    s, idxs = s.topk(num_topk)
    topk_idxs = topk_idxs[idxs]
    anchor_idxs = torch.div(topk_idxs, 3, rounding_mode="floor")
    all_s.append(s)
    all_i.append(anchor_idxs)
    all_l.append(topk_idxs % 3)
    print("level", lvl, num_topk, r(s), anchor_idxs.tolist(), (topk_idxs % 3).tolist())
print("cat", r(torch.cat(all_s), 15), torch.cat(all_l).dtype)

# FPN level mapper
rois = rand_boxes(7, size=400.0)
s = torch.sqrt(box_area(rois))
lvls = torch.floor(4 + torch.log2(s / 224 + 1e-6))
lvls = torch.clamp(lvls, min=2, max=5)
print("levels", r(s, 7), (lvls.to(torch.int64) - 2).tolist(), lvls.dtype)
print("bucketize", torch.bucketize(s, torch.tensor([56.0, 112.0, 224.0])).tolist(),
      torch.searchsorted(torch.tensor([56.0, 112.0, 224.0]), s, right=True).tolist())

# anchors by meshgrid
sizes, ratios = torch.tensor([32.0, 64.0]), torch.tensor([0.5, 1.0, 2.0])
h_r = torch.sqrt(ratios)
w_r = 1 / h_r
ws = (w_r[:, None] * sizes[None, :]).view(-1)
hs = (h_r[:, None] * sizes[None, :]).view(-1)
base = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
base = base.round()
sy, sx = torch.meshgrid(torch.arange(0, 3, dtype=torch.int32) * 16, torch.arange(0, 2, dtype=torch.int32) * 16,
                        indexing="ij")
shifts = torch.stack((sx.reshape(-1), sy.reshape(-1), sx.reshape(-1), sy.reshape(-1)), dim=1)
anchors = (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)
print("anchors", tuple(anchors.shape), anchors.dtype, anchors[:3].tolist(), anchors[-1].tolist())
m = box_iou(anchors, rand_boxes(3, 48.0))
vals, matches = m.max(dim=0)
best = m.max(dim=1)
print("match", r(vals), matches.tolist(), (best.values > 0.4).sum().item(), best.indices[:6].tolist())
labels_a = torch.full((anchors.shape[0],), -1.0)
labels_a[best.values < 0.3] = 0.0
labels_a[matches] = 1.0
print("anchor labels", labels_a.tolist()[:12], int((labels_a == 1).sum()))
x = torch.from_numpy(rng.normal(size=(8,)).astype(np.float32))
t = (torch.arange(8) % 3 == 0).float()
print("focal-ish", round(F.binary_cross_entropy_with_logits(x, t, pos_weight=torch.tensor(2.0)).item(), 4),
      round(F.binary_cross_entropy_with_logits(x, t, weight=t + 0.5, reduction="sum").item(), 4))
try:
    box_iou(a, b[:, :3])
except (RuntimeError, IndexError) as e:
    print("iou err", type(e).__name__, e)
try:
    torch.tensor([1.0, 2.0]).topk(3)
except RuntimeError as e:
    print("topk err", type(e).__name__, e)
torch._assert(boxes.dim() == 2 and boxes.shape[-1] == 4, "boxes must be (N, 4)")
try:
    torch._assert(torch.isfinite(big).all() and big.shape[1] == 5, "codes must be (N, 5)")
except AssertionError as e:
    print("assert", type(e).__name__, e)
