"""Pairwise and aligned IoU-family metrics as YOLO and DETR code writes them: box_iou through broadcasting with
clamp(min=0), GIoU/DIoU/CIoU (atan of aspect ratios, the no_grad alpha), elementwise variants for matched pairs,
their losses with reductions and gradients into predicted boxes, eps handling of degenerate boxes, float64 checks
against the pairwise form's diagonal, and cdist-based center distances."""

import math

import torch

torch.manual_seed(1)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def rand_boxes(n, dtype=torch.float32):
    xy = torch.rand(n, 2, dtype=dtype) * 10
    wh = torch.rand(n, 2, dtype=dtype) * 6 + 0.5
    return torch.cat([xy, xy + wh], -1)


def area(b):
    return (b[..., 2] - b[..., 0]).clamp(min=0) * (b[..., 3] - b[..., 1]).clamp(min=0)


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh.prod(-1)
    union = area(a)[:, None] + area(b)[None] - inter
    return inter / union, union


def generalized_box_iou(a, b):
    iou, union = box_iou(a, b)
    lt = torch.min(a[:, None, :2], b[:, :2])
    rb = torch.max(a[:, None, 2:], b[:, 2:])
    hull = (rb - lt).clamp(min=0).prod(-1)
    return iou - (hull - union) / hull


def bbox_iou(b1, b2, giou=False, diou=False, ciou=False, eps=1e-7):
    """Aligned IoU of matched pairs (YOLOv5's bbox_iou, xyxy)."""
    (b1_x1, b1_y1, b1_x2, b1_y2), (b2_x1, b2_y1, b2_x2, b2_y2) = b1.chunk(4, -1), b2.chunk(4, -1)
    w1, h1 = b1_x2 - b1_x1, (b1_y2 - b1_y1).clamp(eps)
    w2, h2 = b2_x2 - b2_x1, (b2_y2 - b2_y1).clamp(eps)
    inter = (b1_x2.minimum(b2_x2) - b1_x1.maximum(b2_x1)).clamp(0) * \
            (b1_y2.minimum(b2_y2) - b1_y1.maximum(b2_y1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    if giou or diou or ciou:
        cw = b1_x2.maximum(b2_x2) - b1_x1.minimum(b2_x1)
        ch = b1_y2.maximum(b2_y2) - b1_y1.minimum(b2_y1)
        if ciou or diou:
            c2 = cw.pow(2) + ch.pow(2) + eps
            rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2).pow(2) + (b2_y1 + b2_y2 - b1_y1 - b1_y2).pow(2)) / 4
            if ciou:
                v = (4 / math.pi ** 2) * (torch.atan(w2 / h2) - torch.atan(w1 / h1)).pow(2)
                with torch.no_grad():
                    alpha = v / (v - iou + (1 + eps))
                return iou - (rho2 / c2 + v * alpha)
            return iou - rho2 / c2
        c_area = cw * ch + eps
        return iou - (c_area - union) / c_area
    return iou


a, b = rand_boxes(5), rand_boxes(4)
iou, union = box_iou(a, b)
print("iou\n", iou)
print("union row0", union[0])
g = generalized_box_iou(a, b)
print("giou\n", g)
print("giou <= iou", bool((g <= iou + 1e-6).all()), "range", round(g.min().item(), 4), round(g.max().item(), 4))
best, idx = iou.max(dim=1)
print("best per a", best, idx)
vals, cols = iou.topk(2, dim=0)
print("top2 per b", vals, cols)
print("self iou diag", torch.diagonal(box_iou(a, a)[0]))

# aligned against the diagonal of the pairwise matrix, in float64
a64, b64 = rand_boxes(6, torch.float64), rand_boxes(6, torch.float64)
diag = torch.diagonal(box_iou(a64, b64)[0])
al = bbox_iou(a64, b64, eps=0).squeeze(-1)
print("aligned==diag", torch.allclose(diag, al), al.dtype)
gd = torch.diagonal(generalized_box_iou(a64, b64))
print("aligned giou==diag", torch.allclose(gd, bbox_iou(a64, b64, giou=True, eps=0).squeeze(-1)))

pred = (b64.float() + torch.randn(6, 4) * 0.3).requires_grad_()
target = b64.float()
for name, kw in [("iou", {}), ("giou", {"giou": True}), ("diou", {"diou": True}), ("ciou", {"ciou": True})]:
    val = bbox_iou(pred, target, **kw)
    loss = (1.0 - val).mean()
    (grad,) = torch.autograd.grad(loss, pred)
    print(f"{name:5s} val {[round(v, 4) for v in val.squeeze(-1).tolist()]} loss {loss.item():.4f}",
          "grad", grad[0], "fn", type(val.grad_fn).__name__)

# degenerate: zero-area boxes keep losses finite thanks to eps
z = torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 2.0, 2.0]])
zt = torch.tensor([[1.0, 1.0, 1.0, 1.0], [4.0, 4.0, 5.0, 5.0]])
for kw in ({}, {"giou": True}, {"diou": True}, {"ciou": True}):
    v = bbox_iou(z, zt, **kw).squeeze(-1)
    print("degenerate", kw, v, torch.isfinite(v).all().item())
nan_iou, _ = box_iou(z, zt)
print("pairwise without eps", nan_iou, torch.nan_to_num(nan_iou, nan=0.0))

# broadcasting a (B, N, 1, 4) with (B, 1, M, 4)
A = rand_boxes(6).view(2, 3, 4)
B = rand_boxes(4).view(2, 2, 4)
bi = bbox_iou(A[:, :, None], B[:, None], diou=True).squeeze(-1)
print("batched diou", tuple(bi.shape), bi)

# centre distances with cdist and an IoU-weighted cost matrix
ca = (a[:, :2] + a[:, 2:]) / 2
cb = (b[:, :2] + b[:, 2:]) / 2
d = torch.cdist(ca, cb)
print("cdist", d)
cost = d / d.max() - g
print("cost argmin", cost.argmin(1).tolist(), "col min", cost.min(0).values)
print("l1 cdist", torch.cdist(a, b, p=1)[0])
