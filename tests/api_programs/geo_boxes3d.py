"""3-D bounding boxes as LiDAR-detection code writes them: axis-aligned boxes from point clouds with aminmax,
corners of yaw-rotated boxes through einsum, axis-aligned 3-D IoU and GIoU with broadcasting, bird's-eye
rotated-box overlap by polygon clipping, a 3-D NMS loop, box encoding/decoding with log sizes and sin/cos yaw,
points-in-box masks in the box frame, and per-box statistics via scatter_reduce."""

import math

import torch

torch.manual_seed(13)
torch.set_printoptions(precision=4, sci_mode=False)


def box_corners(boxes):
    """boxes (N, 7) = (x, y, z, l, w, h, yaw) -> corners (N, 8, 3)."""
    signs = torch.tensor(
        [[1, 1, 1], [1, -1, 1], [-1, -1, 1], [-1, 1, 1], [1, 1, -1], [1, -1, -1], [-1, -1, -1], [-1, 1, -1]],
        dtype=boxes.dtype,
    )
    local = signs[None] * boxes[:, None, 3:6] / 2
    c, s = torch.cos(boxes[:, 6]), torch.sin(boxes[:, 6])
    zero, one = torch.zeros_like(c), torch.ones_like(c)
    rot = torch.stack([c, -s, zero, s, c, zero, zero, zero, one], -1).view(-1, 3, 3)
    return torch.einsum("nij,nkj->nki", rot, local) + boxes[:, None, :3]


def aabb_iou(a, b):
    """a (N, 6), b (M, 6) as (xmin, ymin, zmin, xmax, ymax, zmax) -> IoU and GIoU (N, M)."""
    lo = torch.maximum(a[:, None, :3], b[None, :, :3])
    hi = torch.minimum(a[:, None, 3:], b[None, :, 3:])
    inter = (hi - lo).clamp(min=0).prod(-1)
    va = (a[:, 3:] - a[:, :3]).prod(-1)
    vb = (b[:, 3:] - b[:, :3]).prod(-1)
    union = va[:, None] + vb[None] - inter
    iou = inter / union
    enc = (torch.maximum(a[:, None, 3:], b[None, :, 3:]) - torch.minimum(a[:, None, :3], b[None, :, :3])).prod(-1)
    return iou, iou - (enc - union) / enc


def clip_polygon(subject, clip):
    """Sutherland-Hodgman clipping of a convex polygon (list of 2-vectors) by a counter-clockwise convex one."""
    out = subject
    for i in range(len(clip)):
        a, b = clip[i], clip[(i + 1) % len(clip)]
        inp, out = out, []
        if not inp:
            break

        def side(p):
            return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])

        for j in range(len(inp)):
            p, q = inp[j], inp[(j + 1) % len(inp)]
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append(p + t * (q - p))
    return out


def polygon_area(poly):
    if len(poly) < 3:
        return torch.tensor(0.0)
    P = torch.stack(poly)
    x, y = P[:, 0], P[:, 1]
    return 0.5 * (x * torch.roll(y, -1) - torch.roll(x, -1) * y).sum().abs()


def bev_iou(b1, b2):
    c1 = box_corners(b1[None])[0, :4, :2].flip(0)
    c2 = box_corners(b2[None])[0, :4, :2].flip(0)
    inter = polygon_area(clip_polygon(list(c1), list(c2)))
    return inter / (b1[3] * b1[4] + b2[3] * b2[4] - inter)


boxes = torch.tensor([
    [0.0, 0.0, 0.0, 4.0, 2.0, 1.5, 0.0],
    [0.5, 0.2, 0.0, 4.0, 2.0, 1.5, math.pi / 8],
    [10.0, 5.0, 0.5, 3.0, 1.8, 1.6, math.pi / 2],
    [0.2, -0.1, 0.1, 3.8, 2.1, 1.4, 0.05],
])
corners = box_corners(boxes)
print("corners", corners.shape, corners[0, :4])
print("centers back", torch.allclose(corners.mean(1), boxes[:, :3], atol=1e-6))
edge = (corners[:, 0] - corners[:, 3]).norm(dim=-1)
print("lengths", edge)

mins, maxs = corners.aminmax(dim=1)
aabb = torch.cat([mins, maxs], -1)
print("aabb", aabb[1])
iou, giou = aabb_iou(aabb, aabb)
print("aabb iou", iou)
print("giou", giou)
print("diag ones", torch.allclose(iou.diagonal(), torch.ones(4)))

print("bev iou 0-1", round(bev_iou(boxes[0], boxes[1]).item(), 4))
print("bev iou 0-3", round(bev_iou(boxes[0], boxes[3]).item(), 4))
print("bev iou 0-2", round(bev_iou(boxes[0], boxes[2]).item(), 4))
print("bev self", round(bev_iou(boxes[1], boxes[1]).item(), 4))

# 3-D NMS over scored boxes
scores = torch.tensor([0.9, 0.75, 0.6, 0.8])
order = scores.argsort(descending=True)
keep = []
suppressed = torch.zeros(4, dtype=torch.bool)
for i in order.tolist():
    if suppressed[i]:
        continue
    keep.append(i)
    suppressed |= iou[i] > 0.5
print("nms keep", keep)

# box coding relative to anchors
anchors = torch.tensor([[0.0, 0.0, 0.0, 3.9, 1.6, 1.56, 0.0], [10.0, 5.0, 0.0, 3.9, 1.6, 1.56, math.pi / 2]])
gt = boxes[[0, 2]]
diag = torch.sqrt(anchors[:, 3] ** 2 + anchors[:, 4] ** 2)
deltas = torch.cat([
    (gt[:, :2] - anchors[:, :2]) / diag[:, None],
    ((gt[:, 2] - anchors[:, 2]) / anchors[:, 5])[:, None],
    torch.log(gt[:, 3:6] / anchors[:, 3:6]),
    torch.stack([torch.cos(gt[:, 6]) - torch.cos(anchors[:, 6]), torch.sin(gt[:, 6]) - torch.sin(anchors[:, 6])], -1),
], -1)
print("deltas", deltas.round(decimals=4) + 0.0)
dec_xy = deltas[:, :2] * diag[:, None] + anchors[:, :2]
dec_z = deltas[:, 2] * anchors[:, 5] + anchors[:, 2]
dec_size = torch.exp(deltas[:, 3:6]) * anchors[:, 3:6]
yaw = torch.atan2(deltas[:, 7] + torch.sin(anchors[:, 6]), deltas[:, 6] + torch.cos(anchors[:, 6]))
decoded = torch.cat([dec_xy, dec_z[:, None], dec_size, yaw[:, None]], -1)
print("decode round trip", torch.allclose(decoded, gt, atol=1e-5))

# points in boxes, in each box's frame
pts = torch.randn(300, 3) * torch.tensor([3.0, 2.0, 0.8])
rel = pts[:, None] - boxes[None, :, :3]
c, s = torch.cos(-boxes[:, 6]), torch.sin(-boxes[:, 6])
lx = rel[..., 0] * c - rel[..., 1] * s
ly = rel[..., 0] * s + rel[..., 1] * c
local = torch.stack([lx, ly, rel[..., 2]], -1)
inside = (local.abs() <= boxes[None, :, 3:6] / 2).all(-1)
print("points per box", inside.sum(0).tolist(), inside.dtype, inside.shape)
point_box = torch.where(inside.any(1), inside.float().argmax(1), -1)
print("assigned", torch.bincount(point_box + 1, minlength=5).tolist())
valid = point_box >= 0
top = torch.full((4,), float("-inf")).scatter_reduce(0, point_box[valid], pts[valid, 2], "amax")
mean_z = torch.zeros(4).scatter_reduce(0, point_box[valid], pts[valid, 2], "mean", include_self=False)
print("max z", top)
print("mean z", mean_z)
