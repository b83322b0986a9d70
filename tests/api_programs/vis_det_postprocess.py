"""Detection post-processing and evaluation as YOLO/COCO-style code writes it: decoding a YOLO head (sigmoid,
grid offsets by meshgrid, anchor scaling), confidence filtering with nonzero/where, per-class candidates with
multi-label expansion, batched NMS by class offsets, max_det with topk, letterbox un-scaling with clamp_, and
COCO-style AP: matching by IoU thresholds, precision envelopes by flip/cummax, 101-point interpolation by
searchsorted, and mAP@[.5:.95] over thresholds from torch.linspace."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def rl(t, n=8):
    return [round(v, 4) for v in t.flatten()[:n].tolist()]


def xywh2xyxy(x):
    y = x.clone()
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def box_iou(a, b):
    (a1, a2), (b1, b2) = a.unsqueeze(1).chunk(2, 2), b.unsqueeze(0).chunk(2, 2)
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp(0).prod(2)
    return inter / ((a2 - a1).prod(2) + (b2 - b1).prod(2) - inter + 1e-7)


def nms(boxes, scores, thr):
    order = scores.argsort(descending=True)
    keep = []
    suppressed = torch.zeros(len(order), dtype=torch.bool)
    iou = box_iou(boxes[order], boxes[order])
    for i in range(len(order)):
        if suppressed[i]:
            continue
        keep.append(order[i])
        suppressed |= iou[i] > thr
    return torch.stack(keep) if keep else torch.empty(0, dtype=torch.long)


na, nc, stride = 3, 4, 8
anchors = torch.tensor([[10.0, 13.0], [16.0, 30.0], [33.0, 23.0]])
ny, nx = 4, 5
head = torch.randn(2, na * (5 + nc), ny, nx)
p = head.view(2, na, 5 + nc, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
print("head", tuple(p.shape), p.stride())
yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
anchor_grid = anchors.view(1, na, 1, 1, 2)
y = p.sigmoid()
xy = (y[..., 0:2] * 2 - 0.5 + grid) * stride
wh = (y[..., 2:4] * 2) ** 2 * anchor_grid
pred = torch.cat((xy, wh, y[..., 4:]), -1).view(2, -1, 5 + nc)
print("decoded", tuple(pred.shape), rl(pred[0, 0]), rl(pred[1, -1]))

conf_thres, iou_thres, max_det = 0.3, 0.45, 10
output = []
for xi, x in enumerate(pred):
    x = x[x[..., 4] > conf_thres]
    x = x.clone()
    x[:, 5:] *= x[:, 4:5]
    box = xywh2xyxy(x[:, :4])
    i, j = (x[:, 5:] > conf_thres).nonzero(as_tuple=False).T
    det = torch.cat((box[i], x[i, j + 5, None], j[:, None].float()), 1)
    print("image", xi, "candidates", x.shape[0], "multi-label", det.shape[0])
    c = det[:, 5:6] * 4096
    keep = nms(det[:, :4] + c, det[:, 4], iou_thres)
    if keep.shape[0] > max_det:
        keep = keep[:max_det]
    out = det[keep]
    print("  kept", keep.tolist(), "classes", out[:, 5].long().tolist())
    output.append(out)
print("first det", rl(output[0][0], 6))

gain = 0.5
pad = (4.0, 2.0)
dets = output[0].clone()
dets[:, [0, 2]] -= pad[0]
dets[:, [1, 3]] -= pad[1]
dets[:, :4] /= gain
dets[:, 0].clamp_(0, 60)
dets[:, 1].clamp_(0, 40)
dets[:, 2].clamp_(0, 60)
dets[:, 3].clamp_(0, 40)
print("unscaled", rl(dets[:, :4], 8))

torch.manual_seed(1)
n_gt = 6
gt_xy = torch.rand(n_gt, 2) * 40
gt = torch.cat([gt_xy, gt_xy + torch.rand(n_gt, 2) * 15 + 5], 1)
gt_cls = torch.randint(0, 2, (n_gt,))
n_pred = 12
jitter = torch.randn(n_pred, 4) * 2.0
src = torch.randint(0, n_gt, (n_pred,))
pboxes = gt[src] + jitter
pboxes[-3:] = torch.rand(3, 4).sort(dim=1).values * 50
pscores = torch.rand(n_pred)
pcls = gt_cls[src].clone()
pcls[::5] = 1 - pcls[::5]
iouv = torch.linspace(0.5, 0.95, 10)
print("iou thresholds", rl(iouv, 10))


def match_predictions(pred_classes, true_classes, iou):
    correct = torch.zeros(pred_classes.shape[0], iouv.numel(), dtype=torch.bool)
    correct_class = true_classes[:, None] == pred_classes
    iou = iou * correct_class
    for k, thr in enumerate(iouv.tolist()):
        matches = torch.nonzero(iou >= thr)
        if matches.shape[0]:
            vals = iou[matches[:, 0], matches[:, 1]]
            order = vals.argsort(descending=True)
            matches = matches[order]
            seen_p, seen_t, keep = set(), set(), []
            for t_i, p_i in matches.tolist():
                if p_i not in seen_p and t_i not in seen_t:
                    seen_p.add(p_i)
                    seen_t.add(t_i)
                    keep.append(p_i)
            correct[keep, k] = True
    return correct


tp = match_predictions(pcls, gt_cls, box_iou(gt, pboxes))
print("tp per threshold", tp.sum(0).tolist())


def compute_ap(recall, precision):
    mrec = torch.cat([torch.tensor([0.0]), recall, torch.tensor([1.0])])
    mpre = torch.cat([torch.tensor([1.0]), precision, torch.tensor([0.0])])
    mpre = torch.flip(torch.cummax(torch.flip(mpre, [0]), 0).values, [0])
    x = torch.linspace(0, 1, 101)
    idx = torch.searchsorted(mrec, x, right=False).clamp(max=mrec.numel() - 1)
    q = mpre[idx]
    return torch.trapezoid(q, x).item(), mpre


order = torch.argsort(-pscores, stable=True)
tp_s, conf_s, cls_s = tp[order], pscores[order], pcls[order]
aps = torch.zeros(2, iouv.numel())
for c in range(2):
    m = cls_s == c
    n_l = int((gt_cls == c).sum())
    if m.sum() == 0 or n_l == 0:
        continue
    fpc = (~tp_s[m]).float().cumsum(0)
    tpc = tp_s[m].float().cumsum(0)
    recall = tpc / (n_l + 1e-16)
    precision = tpc / (tpc + fpc)
    for k in range(iouv.numel()):
        aps[c, k], env = compute_ap(recall[:, k], precision[:, k])
    print("class", c, "recall@.5", rl(recall[:, 0], 6), "precision@.5", rl(precision[:, 0], 6))
    print("  envelope", rl(env, 8))
print("AP50", rl(aps[:, 0], 2), "AP75", rl(aps[:, 5], 2), "mAP", round(aps.mean().item(), 4))
print("per-threshold mAP", rl(aps.mean(0), 10))
