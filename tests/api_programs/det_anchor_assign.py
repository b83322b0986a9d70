"""Anchor generation and label assignment as RetinaNet, FCOS, ATSS and YOLOX code does it: cell anchors from
scales and ratios, shifts by meshgrid with indexing='ij' and 'xy', repeat_interleave and cartesian_prod layouts,
FCOS points with strides per level and ltrb regression targets with size ranges, ATSS's per-level top-k by center
distance with the mean+std IoU threshold, and YOLOX SimOTA dynamic-k matching with cost matrices."""

import torch

torch.manual_seed(3)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def cell_anchors(sizes, ratios):
    sizes = torch.as_tensor(sizes, dtype=torch.float32)
    ratios = torch.as_tensor(ratios, dtype=torch.float32)
    hr = ratios.sqrt()
    ws = (sizes[None, :] / hr[:, None]).reshape(-1)
    hs = (sizes[None, :] * hr[:, None]).reshape(-1)
    return torch.stack([-ws, -hs, ws, hs], 1) / 2


def grid(h, w, stride, offset=0.5, indexing="ij"):
    ys = (torch.arange(h, dtype=torch.float32) + offset) * stride
    xs = (torch.arange(w, dtype=torch.float32) + offset) * stride
    if indexing == "ij":
        yy, xx = torch.meshgrid(ys, xs, indexing="ij")
    else:
        xx, yy = torch.meshgrid(xs, ys, indexing="xy")
    return torch.stack([xx.reshape(-1), yy.reshape(-1)], 1)


base = cell_anchors([32, 64], [0.5, 1.0, 2.0])
print("cell anchors\n", base)
pts_ij, pts_xy = grid(2, 3, 8), grid(2, 3, 8, indexing="xy")
print("ij == xy grids", torch.equal(pts_ij, pts_xy), pts_ij.tolist())
xx_xy, yy_xy = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")
print("xy meshgrid shape", tuple(xx_xy.shape), xx_xy.tolist(), yy_xy.tolist())
anchors = (pts_ij.repeat(1, 2)[:, None, :] + base[None]).reshape(-1, 4)
print("anchors", tuple(anchors.shape), anchors[:7])
alt = pts_ij.repeat_interleave(len(base), dim=0).repeat(1, 2) + base.repeat(len(pts_ij), 1)
print("repeat_interleave layout equal", torch.equal(alt, anchors))
cp = torch.cartesian_prod(torch.arange(2), torch.arange(3))
print("cartesian_prod", cp.tolist())
counts = torch.tensor([3, 1, 2])
print("repeat_interleave counts", torch.repeat_interleave(torch.tensor([7, 8, 9]), counts).tolist(),
      torch.repeat_interleave(counts).tolist())

# FCOS targets: points over two levels, ltrb distances, size ranges, min-area assignment
strides = [8, 16]
levels = [grid(4, 4, 8), grid(2, 2, 16)]
points = torch.cat(levels)
level_ids = torch.cat([torch.full((len(p),), i) for i, p in enumerate(levels)])
ranges = torch.tensor([[0.0, 12.0], [12.0, float("inf")]])[level_ids]
print("points", tuple(points.shape), "levels", torch.bincount(level_ids).tolist(), ranges[-1])
gt = torch.tensor([[2.0, 2.0, 14.0, 12.0], [10.0, 6.0, 32.0, 30.0], [20.0, 20.0, 26.0, 28.0]])
gt_labels = torch.tensor([1, 0, 2])
x, y = points[:, 0, None], points[:, 1, None]
ltrb = torch.stack([x - gt[:, 0], y - gt[:, 1], gt[:, 2] - x, gt[:, 3] - y], dim=2)
inside = ltrb.min(dim=2).values > 0
max_reg = ltrb.max(dim=2).values
in_range = (max_reg >= ranges[:, [0]]) & (max_reg <= ranges[:, [1]])
gt_area = ((gt[:, 2] - gt[:, 0]) * (gt[:, 3] - gt[:, 1]))[None].repeat(len(points), 1)
gt_area[~inside] = float("inf")
gt_area[~in_range] = float("inf")
min_area, min_idx = gt_area.min(dim=1)
labels = gt_labels[min_idx].clone()
labels[min_area == float("inf")] = 3
print("fcos labels", labels.tolist())
pos = labels != 3
reg = ltrb[torch.arange(len(points)), min_idx][pos]
print("fcos reg targets\n", reg / torch.tensor(strides)[level_ids[pos]][:, None])
lr, tb = reg[:, [0, 2]], reg[:, [1, 3]]
centerness = ((lr.min(-1).values / lr.max(-1).values) * (tb.min(-1).values / tb.max(-1).values)).sqrt()
print("centerness", centerness)


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(2)
    aa = (a[:, 2:] - a[:, :2]).prod(1)
    ab = (b[:, 2:] - b[:, :2]).prod(1)
    return inter / (aa[:, None] + ab - inter)


# ATSS: top-k closest anchors per level, threshold at mean+std of their IoUs, centre inside the gt
level_anchors = [torch.cat([p - 8 * s / 8, p + 8 * s / 8], 1) for p, s in zip(levels, strides)]
all_anchors = torch.cat(level_anchors)
ious = box_iou(all_anchors, gt)
gt_c = (gt[:, :2] + gt[:, 2:]) / 2
dist = torch.cdist(points, gt_c)
k, cand, start = 3, [], 0
for la in level_anchors:
    end = start + len(la)
    _, idx = dist[start:end].topk(k, dim=0, largest=False)
    cand.append(idx + start)
    start = end
cand = torch.cat(cand, 0)
print("atss candidates\n", cand.T)
cand_ious = ious.gather(0, cand)
thr = cand_ious.mean(0) + cand_ious.std(0)
print("atss thr", thr, "std(correction=0)", cand_ious.std(0, correction=0))
is_pos = cand_ious >= thr[None]
cx = points[cand][..., 0]
cy = points[cand][..., 1]
inside_c = (cx > gt[:, 0]) & (cx < gt[:, 2]) & (cy > gt[:, 1]) & (cy < gt[:, 3])
is_pos &= inside_c
assigned = torch.full((len(all_anchors),), -1)
ious_pos = torch.full_like(ious, -1.0)
ious_pos.scatter_(0, cand, torch.where(is_pos, cand_ious, torch.full_like(cand_ious, -1.0)))
best, best_gt = ious_pos.max(1)
assigned[best > -1] = best_gt[best > -1]
print("atss assigned", assigned.tolist())

# SimOTA dynamic-k: k_i = clamp(sum of top-10 IoUs, min=1), lowest cost wins, conflicts to the cheaper gt
pred_boxes = all_anchors + torch.randn(len(all_anchors), 4) * 2
pair_iou = box_iou(gt, pred_boxes)
cls_cost = torch.rand(len(gt), len(all_anchors))
cost = cls_cost + 3.0 * -torch.log(pair_iou + 1e-8) + 1e5 * (~inside.T)
topk_ious, _ = torch.topk(pair_iou, min(10, pair_iou.size(1)), dim=1)
dynamic_ks = torch.clamp(topk_ious.sum(1).int(), min=1)
print("dynamic ks", dynamic_ks.tolist(), dynamic_ks.dtype)
matching = torch.zeros_like(cost)
for g in range(len(gt)):
    _, pos_idx = torch.topk(cost[g], k=dynamic_ks[g].item(), largest=False)
    matching[g][pos_idx] = 1.0
multi = matching.sum(0) > 1
print("conflicts", multi.sum().item())
if multi.any():
    _, cmin = cost[:, multi].min(0)
    matching[:, multi] *= 0.0
    matching[cmin, multi] = 1.0
fg = matching.sum(0) > 0
matched_gt = matching[:, fg].argmax(0)
print("simota fg", fg.nonzero().squeeze(1).tolist(), "gt", matched_gt.tolist())
print("matched ious", (matching * pair_iou).sum(0)[fg])
