"""Detection evaluation as COCO/VOC evaluators write it in torch: greedy matching of score-sorted detections to
ground truth per class with crowd-free IoU thresholds, true/false positive flags, precision/recall by cumsum,
the monotone precision envelope with cummax over a flip, VOC-07 11-point and all-point (trapezoid) AP, COCO's
101-point interpolation through searchsorted, AP over IoU thresholds 0.5:0.95, AR@k with topk per image, and
size-bucketed recall by bucketize."""

import torch

torch.manual_seed(6)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(2)
    area = lambda x: (x[:, 2:] - x[:, :2]).prod(1)  # noqa: E731
    return inter / (area(a)[:, None] + area(b) - inter)


def make_image(n_gt, n_det, num_classes=3):
    xy = torch.rand(n_gt, 2) * 80
    gt = torch.cat([xy, xy + torch.rand(n_gt, 2) * 30 + 8], 1)
    gl = torch.randint(0, num_classes, (n_gt,))
    src = torch.randint(0, n_gt, (n_det,))
    det = gt[src] + torch.randn(n_det, 4) * 4
    det[:, 2:] = torch.maximum(det[:, 2:], det[:, :2] + 1)
    dl = torch.where(torch.rand(n_det) < 0.85, gl[src], torch.randint(0, num_classes, (n_det,)))
    ds = torch.rand(n_det)
    return gt, gl, det, dl, ds


images = [make_image(g, d) for g, d in [(4, 7), (3, 5), (5, 9), (2, 4)]]
print("gts", [len(im[0]) for im in images], "dets", [len(im[2]) for im in images])


def match_class(cls, thr):
    scores, tps, n_gt = [], [], 0
    for gt, gl, det, dl, ds in images:
        g = gt[gl == cls]
        d, s = det[dl == cls], ds[dl == cls]
        n_gt += len(g)
        order = s.argsort(descending=True, stable=True)
        d, s = d[order], s[order]
        tp = torch.zeros(len(d), dtype=torch.bool)
        if len(g) and len(d):
            iou = box_iou(d, g)
            taken = torch.zeros(len(g), dtype=torch.bool)
            for i in range(len(d)):
                cand = iou[i].masked_fill(taken, -1.0)
                best, j = cand.max(0)
                if best >= thr:
                    tp[i] = True
                    taken[j] = True
        scores.append(s)
        tps.append(tp)
    scores, tps = torch.cat(scores), torch.cat(tps)
    order = scores.argsort(descending=True, stable=True)
    return scores[order], tps[order], n_gt


def pr_curve(tps, n_gt):
    tp_c = tps.float().cumsum(0)
    fp_c = (~tps).float().cumsum(0)
    recall = tp_c / max(n_gt, 1)
    precision = tp_c / (tp_c + fp_c).clamp(min=torch.finfo(torch.float32).eps)
    return precision, recall


def envelope(p):
    return p.flip(0).cummax(0).values.flip(0)


def ap_voc07(p, r):
    ap = torch.tensor(0.0)
    for t in torch.linspace(0, 1, 11):
        m = r >= t
        ap = ap + (p[m].max() if m.any() else torch.tensor(0.0)) / 11
    return ap


def ap_all_points(p, r):
    mrec = torch.cat([torch.tensor([0.0]), r, torch.tensor([1.0])])
    mpre = envelope(torch.cat([torch.tensor([1.0]), p, torch.tensor([0.0])]))
    idx = torch.where(mrec[1:] != mrec[:-1])[0]
    return ((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]).sum()


def ap_coco(p, r):
    rec_thrs = torch.linspace(0, 1, 101)
    q = torch.zeros(101)
    pe = envelope(p)
    inds = torch.searchsorted(r, rec_thrs, side="left")
    valid = inds < len(pe)
    q[valid] = pe[inds[valid]]
    return q.mean(), q


for cls in range(3):
    s, tp, n_gt = match_class(cls, 0.5)
    p, r = pr_curve(tp, n_gt)
    print(f"class {cls}: n_gt {n_gt} dets {len(s)} tp {tp.int().tolist()}")
    print("  precision", p, "\n  recall", r)
    print("  envelope", envelope(p))
    coco, q = ap_coco(p, r)
    trap = torch.trapezoid(envelope(p), r) if len(r) > 1 else torch.tensor(0.0)
    print(f"  voc07 {ap_voc07(p, r).item():.4f} all-points {ap_all_points(p, r).item():.4f}"
          f" coco101 {coco.item():.4f} trapezoid {trap.item():.4f}")
    print("  q[::20]", q[::20])

thrs = torch.arange(0.5, 0.96, 0.05)
print("iou thrs", thrs.round(decimals=2).tolist())
ap_table = torch.zeros(len(thrs), 3)
for ti, t in enumerate(thrs.tolist()):
    for cls in range(3):
        _, tp, n_gt = match_class(cls, t)
        p, r = pr_curve(tp, n_gt)
        ap_table[ti, cls] = ap_coco(p, r)[0]
print("AP table (thr x class)\n", ap_table)
print("mAP@[.5:.95]", round(ap_table.mean().item(), 4), "AP50", round(ap_table[0].mean().item(), 4),
      "AP75", round(ap_table[5].mean().item(), 4))
print("per-class", ap_table.mean(0))

# AR@k: the best-k detections per image (any class), recall averaged over thresholds
for k in (1, 3, 10):
    recalls = []
    for t in thrs.tolist():
        hit, total = 0, 0
        for gt, gl, det, dl, ds in images:
            top = ds.topk(min(k, len(ds))).indices
            iou = box_iou(gt, det[top])
            hit += (iou.max(1).values >= t).sum().item()
            total += len(gt)
        recalls.append(hit / total)
    print(f"AR@{k}", round(sum(recalls) / len(recalls), 4))

# recall by area bucket (small/medium/large as COCO: 32^2, 96^2, scaled down here)
all_gt = torch.cat([im[0] for im in images])
areas = (all_gt[:, 2:] - all_gt[:, :2]).prod(1)
bounds = torch.tensor([16.0 ** 2, 30.0 ** 2])
bucket = torch.bucketize(areas, bounds)
print("areas", areas.round().tolist())
print("buckets", bucket.tolist(), "right=True", torch.bucketize(areas, bounds, right=True).tolist())
hits = torch.cat([box_iou(im[0], im[2]).max(1).values >= 0.5 for im in images])
print("recall by bucket", [round(hits[bucket == b].float().mean().item(), 4) if (bucket == b).any() else None
                           for b in range(3)])
print("cumulative_trapezoid", torch.cumulative_trapezoid(torch.tensor([1.0, 0.8, 0.8, 0.5]), dx=0.25))
print("trapezoid dx", torch.trapezoid(torch.tensor([[1.0, 0.5, 0.0], [1.0, 1.0, 1.0]]), dx=0.5, dim=1))
