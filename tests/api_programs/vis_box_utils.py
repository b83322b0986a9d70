"""torchvision.ops.boxes written with torch ops: format conversions, clip/remove_small, _upcast of half and int
boxes, box_iou/GIoU/DIoU/CIoU matrices, an NMS loop with ties, a matrix-form NMS, batched_nms by the offset
trick, and the edge cases torchvision guards (empty inputs, degenerate boxes)."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def _upcast(t):
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    return t if t.dtype in (torch.int32, torch.int64) else t.int()


def box_cxcywh_to_xyxy(b):
    cx, cy, w, h = b.unbind(-1)
    return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)


def box_xyxy_to_cxcywh(b):
    x0, y0, x1, y1 = b.unbind(-1)
    return torch.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], dim=-1)


def box_xywh_to_xyxy(b):
    x, y, w, h = b.unbind(-1)
    return torch.stack([x, y, x + w, y + h], dim=-1)


def box_area(b):
    b = _upcast(b)
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def clip_boxes_to_image(b, size):
    h, w = size
    x = b[..., 0::2].clamp(min=0, max=w)
    y = b[..., 1::2].clamp(min=0, max=h)
    return torch.stack((x, y), dim=b.dim()).reshape(b.shape)


def remove_small_boxes(b, min_size):
    ws, hs = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    return torch.where(keep)[0]


def _inter_union(a, b):
    area1, area2 = box_area(a), box_area(b)
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = _upcast(rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter, area1[:, None] + area2 - inter


def box_iou(a, b):
    inter, union = _inter_union(a, b)
    return inter / union


def generalized_box_iou(a, b):
    inter, union = _inter_union(a, b)
    iou = inter / union
    lti = torch.min(a[:, None, :2], b[:, :2])
    rbi = torch.max(a[:, None, 2:], b[:, 2:])
    whi = _upcast(rbi - lti).clamp(min=0)
    area = whi[:, :, 0] * whi[:, :, 1]
    return iou - (area - union) / area


def complete_box_iou(a, b, eps=1e-7):
    a, b = _upcast(a), _upcast(b)
    inter, union = _inter_union(a, b)
    iou = inter / union
    lti = torch.min(a[:, None, :2], b[:, :2])
    rbi = torch.max(a[:, None, 2:], b[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    diag = (whi[:, :, 0] ** 2) + (whi[:, :, 1] ** 2) + eps
    xa, ya = (a[:, 0] + a[:, 2]) / 2, (a[:, 1] + a[:, 3]) / 2
    xb, yb = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    cdist = (xa[:, None] - xb[None, :]) ** 2 + (ya[:, None] - yb[None, :]) ** 2
    diou = iou - cdist / diag
    wa, ha = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    wb, hb = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    v = (4 / (math.pi ** 2)) * torch.pow(torch.atan(wa / ha)[:, None] - torch.atan(wb / hb), 2)
    with torch.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou, diou - alpha * v


def nms(boxes, scores, thr):
    order = scores.argsort(descending=True, stable=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= thr]
    return torch.tensor(keep, dtype=torch.int64)


def matrix_nms(boxes, scores, thr):
    order = scores.sort(descending=True, stable=True).indices
    iou = box_iou(boxes[order], boxes[order]).triu(diagonal=1)
    suppressed = torch.zeros(len(order), dtype=torch.bool)
    for i in range(len(order)):
        if not suppressed[i]:
            suppressed |= iou[i] > thr
    return order[~suppressed]


def batched_nms(boxes, scores, idxs, thr):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, thr)


cxcywh = torch.tensor([[10.0, 10.0, 4.0, 6.0], [12.0, 11.0, 4.0, 6.0], [30.0, 5.0, 10.0, 2.0]])
xyxy = box_cxcywh_to_xyxy(cxcywh)
print("xyxy", xyxy)
print("round trip", torch.allclose(box_xyxy_to_cxcywh(xyxy), cxcywh))
print("xywh", box_xywh_to_xyxy(torch.tensor([[1, 2, 3, 4], [0, 0, 5, 5]])))
print("area", box_area(xyxy), box_area(xyxy).dtype)

half = xyxy.half()
print("half area", box_area(half).dtype, box_area(half))
ints = torch.tensor([[0, 0, 4, 4], [2, 2, 6, 6]], dtype=torch.int16)
print("int16 area", box_area(ints).dtype, box_area(ints).tolist())
print("int iou", box_iou(ints, ints))

big = torch.tensor([[-5.0, -3.0, 50.0, 20.0], [5.0, 6.0, 5.5, 40.0], [1.0, 1.0, 9.0, 9.0]])
clipped = clip_boxes_to_image(big, (16, 32))
print("clipped", clipped)
print("keep small", remove_small_boxes(clipped, 1.0).tolist())
print("batched clip", clip_boxes_to_image(big.expand(2, 3, 4), (16, 32)).shape)

xy = torch.rand(6, 2) * 20
wh = torch.rand(6, 2) * 10 + 1
boxes = torch.cat([xy, xy + wh], dim=1)
print("boxes", boxes)
iou = box_iou(boxes, boxes)
print("iou diag", iou.diagonal())
print("iou row0", iou[0])
giou = generalized_box_iou(boxes, boxes[:3])
print("giou", giou)
print("giou range", round(giou.min().item(), 4), round(giou.max().item(), 4))
diou, ciou = complete_box_iou(boxes[:4], boxes[2:])
print("diou", diou)
print("ciou", ciou)

pred = boxes[:3].clone().requires_grad_(True)
target = boxes[3:].clone()
loss = (1 - complete_box_iou(pred, target)[1].diagonal()).mean()
loss.backward()
print("ciou loss", round(loss.item(), 4))
print("ciou grad", pred.grad)

scores = torch.tensor([0.9, 0.8, 0.8, 0.7, 0.95, 0.3])
cluster = torch.tensor([[0.0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [20, 20, 30, 30],
                        [21, 21, 30, 30], [50, 50, 51, 51]])
print("nms 0.5", nms(cluster, scores, 0.5).tolist())
print("nms 0.9", nms(cluster, scores, 0.9).tolist())
print("matrix nms", matrix_nms(cluster, scores, 0.5).tolist())
labels = torch.tensor([0, 1, 0, 1, 1, 0])
print("batched", batched_nms(cluster, scores, labels, 0.5).tolist())
print("empty", batched_nms(torch.empty(0, 4), torch.empty(0), torch.empty(0, dtype=torch.int64), 0.5))

degenerate = torch.tensor([[1.0, 1.0, 1.0, 5.0], [0.0, 0.0, 2.0, 2.0]])
print("degenerate iou", box_iou(degenerate, degenerate))
print("valid", ((degenerate[:, 2:] > degenerate[:, :2]).all(dim=1)).tolist())
e = box_iou(torch.zeros(0, 4), boxes)
print("empty iou", e.shape, e.dtype)

rnd_scores = torch.rand(40)
rxy = torch.rand(40, 2) * 50
rboxes = torch.cat([rxy, rxy + torch.rand(40, 2) * 20 + 2], 1)
cls = torch.randint(0, 3, (40,))
kept = batched_nms(rboxes, rnd_scores, cls, 0.3)
print("random kept", kept.tolist())
print("kept per class", torch.bincount(cls[kept], minlength=3).tolist())
topk = rnd_scores[kept].topk(5)
print("top5", topk.values, topk.indices.tolist())
