"""Non-maximum suppression written by hand, the ways detection repos do it: greedy NMS over a stable descending
argsort with a keep mask, the while-loop form with torch.where on the IoU row, batched NMS by per-class loops, by
the coordinate-offset trick and by torch.unique over class ids, matrix NMS (triu of the IoU matrix), Gaussian and
linear soft-NMS with score decay, per-class top-k before NMS with a score threshold, max_det truncation, and the
empty/one-box edge cases."""

import torch

torch.manual_seed(2)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b - inter)


def nms_mask(boxes, scores, thr):
    order = torch.argsort(scores, descending=True, stable=True)
    iou = box_iou(boxes[order], boxes[order])
    keep = torch.ones(len(order), dtype=torch.bool)
    for i in range(len(order)):
        if keep[i]:
            suppress = iou[i] > thr
            suppress[: i + 1] = False
            keep &= ~suppress
    return order[keep]


def nms_loop(boxes, scores, thr):
    _, order = scores.sort(descending=True, stable=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][torch.where(ious <= thr)[0]]
    return torch.tensor(keep, dtype=torch.long)


def batched_nms_offset(boxes, scores, idxs, thr):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    return nms_mask(boxes + offsets[:, None], scores, thr)


def batched_nms_unique(boxes, scores, idxs, thr):
    keep_mask = torch.zeros_like(scores, dtype=torch.bool)
    for class_id in torch.unique(idxs):
        curr = torch.where(idxs == class_id)[0]
        keep_mask[curr[nms_mask(boxes[curr], scores[curr], thr)]] = True
    keep = torch.where(keep_mask)[0]
    return keep[scores[keep].sort(descending=True)[1]]


def matrix_nms(boxes, scores, sigma=0.5, kernel="gaussian"):
    order = scores.argsort(descending=True)
    s = scores[order]
    iou = box_iou(boxes[order], boxes[order]).triu(diagonal=1)
    comp = iou.max(0).values.expand(len(s), len(s)).T
    if kernel == "gaussian":
        decay = torch.exp(-(iou ** 2 - comp ** 2) / sigma).min(0).values
    else:
        decay = ((1 - iou) / (1 - comp)).min(0).values
    return order, s * decay


def soft_nms(boxes, scores, sigma=0.5, thr=0.001, method="gaussian", iou_thr=0.3):
    scores = scores.clone()
    idx = torch.arange(len(scores))
    keep = []
    while idx.numel() > 0:
        m = scores[idx].argmax()
        best = idx[m]
        keep.append((best.item(), round(scores[best].item(), 4)))
        idx = torch.cat([idx[:m], idx[m + 1:]])
        if idx.numel() == 0:
            break
        ious = box_iou(boxes[best][None], boxes[idx])[0]
        if method == "gaussian":
            scores[idx] *= torch.exp(-(ious * ious) / sigma)
        else:
            scores[idx] *= torch.where(ious > iou_thr, 1 - ious, torch.ones_like(ious))
        idx = idx[scores[idx] > thr]
    return keep


centers = torch.tensor([[10.0, 10.0], [12.0, 11.0], [30.0, 30.0], [31.0, 29.0], [11.0, 9.0], [50.0, 10.0]])
wh = torch.tensor([[8.0, 8.0], [8.0, 9.0], [10.0, 10.0], [9.0, 11.0], [7.0, 7.0], [6.0, 6.0]])
boxes = torch.cat([centers - wh / 2, centers + wh / 2], 1)
scores = torch.tensor([0.9, 0.75, 0.8, 0.8, 0.6, 0.3])
labels = torch.tensor([0, 0, 1, 1, 1, 0])
print("iou\n", box_iou(boxes, boxes))
for thr in (0.3, 0.5, 0.7):
    a, b = nms_mask(boxes, scores, thr), nms_loop(boxes, scores, thr)
    print(f"thr {thr}: mask {a.tolist()} loop {b.tolist()} equal {torch.equal(a, b)}")
print("stable ties", torch.argsort(scores, descending=True, stable=True).tolist())
print("batched offset", batched_nms_offset(boxes, scores, labels, 0.5).tolist())
print("batched unique", batched_nms_unique(boxes, scores, labels, 0.5).tolist())
print("batched with offset class 1 only", batched_nms_offset(boxes, scores, torch.ones(6, dtype=torch.long), 0.5))

order, decayed = matrix_nms(boxes, scores)
print("matrix nms gaussian", order.tolist(), decayed)
_, lin = matrix_nms(boxes, scores, kernel="linear")
print("matrix nms linear", lin)
print("soft-nms gaussian", soft_nms(boxes, scores))
print("soft-nms linear", soft_nms(boxes, scores, method="linear"))

# a dense detector head: (N, num_classes) scores -> per-class top-k -> NMS -> max_det
num_anchors, num_classes = 40, 3
xy = torch.rand(num_anchors, 2) * 40
raw = torch.cat([xy, xy + torch.rand(num_anchors, 2) * 15 + 5], 1)
logits = torch.randn(num_anchors, num_classes) * 2
probs = logits.sigmoid()
score_thresh, topk_candidates, max_det = 0.5, 10, 8
flat = probs.flatten()
keep_idxs = flat > score_thresh
cand_scores = flat[keep_idxs]
topk_idxs = torch.where(keep_idxs)[0]
num_topk = min(topk_candidates, topk_idxs.size(0))
cand_scores, idxs = cand_scores.topk(num_topk)
topk_idxs = topk_idxs[idxs]
anchor_idxs = torch.div(topk_idxs, num_classes, rounding_mode="floor")
cls = topk_idxs % num_classes
print("candidates", num_topk, anchor_idxs.tolist(), cls.tolist())
print("cand scores", cand_scores)
kept = batched_nms_offset(raw[anchor_idxs], cand_scores, cls, 0.4)[:max_det]
print("kept", kept.tolist(), "boxes\n", raw[anchor_idxs][kept])
print("labels", cls[kept].tolist(), "scores", cand_scores[kept])

# per-image loop over a batch with different counts, padded to max_det with -1
batch_scores = torch.rand(3, 12)
batch_boxes = raw[:12].expand(3, 12, 4)
out = torch.full((3, 4), -1, dtype=torch.long)
for i in range(3):
    k = nms_mask(batch_boxes[i], batch_scores[i], 0.3)[:4]
    out[i, : k.numel()] = k
print("padded keeps\n", out)

# edge cases
empty = torch.zeros((0, 4))
print("empty", nms_mask(empty, torch.zeros(0), 0.5), batched_nms_offset(empty, torch.zeros(0), torch.zeros(0), 0.5))
print("one", nms_loop(boxes[:1], scores[:1], 0.5).tolist())
print("all identical", nms_mask(boxes[[0, 0, 0]], torch.tensor([0.5, 0.7, 0.7]), 0.5).tolist())
