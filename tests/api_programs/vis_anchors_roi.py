"""Two-stage detector pieces in plain torch, as torchvision's detection/_utils.py and ops write them: an
AnchorGenerator over FPN levels (cell anchors rounded, shifts by meshgrid), BoxCoder encode/decode with weights
and the log(1000/16) clamp, a Matcher with low-quality matches and BELOW/BETWEEN thresholds, a seeded
balanced positive/negative sampler (randperm), RoI max pooling by hand (quantized bins), RoIAlign by bilinear
sampling (sampling_ratio, aligned=True), MultiScaleRoIAlign's level mapping, and gradients into the features."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def rl(t, n=8):
    return [round(v, 4) for v in t.flatten()[:n].tolist()]


def cell_anchors(scales, aspect_ratios, dtype=torch.float32):
    scales = torch.as_tensor(scales, dtype=dtype)
    aspect_ratios = torch.as_tensor(aspect_ratios, dtype=dtype)
    h_ratios = torch.sqrt(aspect_ratios)
    w_ratios = 1 / h_ratios
    ws = (w_ratios[:, None] * scales[None, :]).view(-1)
    hs = (h_ratios[:, None] * scales[None, :]).view(-1)
    base = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
    return base.round()


def grid_anchors(grid_sizes, strides, cells):
    anchors = []
    for (gh, gw), (sh, sw), base in zip(grid_sizes, strides, cells):
        shifts_x = torch.arange(0, gw, dtype=torch.int32) * sw
        shifts_y = torch.arange(0, gh, dtype=torch.int32) * sh
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
        shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
        anchors.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
    return anchors


image_size = (64, 80)
feature_sizes = [(8, 10), (4, 5)]
strides = [(image_size[0] // h, image_size[1] // w) for h, w in feature_sizes]
cells = [cell_anchors((32,), (0.5, 1.0, 2.0)), cell_anchors((64,), (0.5, 1.0, 2.0))]
print("cell anchors", cells[0].tolist())
anchors = grid_anchors(feature_sizes, strides, cells)
print("anchors", [tuple(a.shape) for a in anchors], anchors[0].dtype, anchors[1][-1].tolist())
all_anchors = torch.cat(anchors)


class BoxCoder:
    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, ref, proposals):
        wx, wy, ww, wh = self.weights
        ex_w = proposals[:, 2] - proposals[:, 0]
        ex_h = proposals[:, 3] - proposals[:, 1]
        ex_cx = proposals[:, 0] + 0.5 * ex_w
        ex_cy = proposals[:, 1] + 0.5 * ex_h
        gt_w = ref[:, 2] - ref[:, 0]
        gt_h = ref[:, 3] - ref[:, 1]
        gt_cx = ref[:, 0] + 0.5 * gt_w
        gt_cy = ref[:, 1] + 0.5 * gt_h
        return torch.stack((wx * (gt_cx - ex_cx) / ex_w, wy * (gt_cy - ex_cy) / ex_h,
                            ww * torch.log(gt_w / ex_w), wh * torch.log(gt_h / ex_h)), dim=1)

    def decode(self, rel, boxes):
        boxes = boxes.to(rel.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx, dy = rel[:, 0::4] / wx, rel[:, 1::4] / wy
        dw = torch.clamp(rel[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel[:, 3::4] / wh, max=self.bbox_xform_clip)
        pcx = dx * widths[:, None] + ctr_x[:, None]
        pcy = dy * heights[:, None] + ctr_y[:, None]
        pw = torch.exp(dw) * widths[:, None]
        ph = torch.exp(dh) * heights[:, None]
        c_to_c_h = torch.tensor(0.5, dtype=pcy.dtype) * ph
        c_to_c_w = torch.tensor(0.5, dtype=pcx.dtype) * pw
        return torch.stack((pcx - c_to_c_w, pcy - c_to_c_h, pcx + c_to_c_w, pcy + c_to_c_h), dim=2).flatten(1)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b - inter)


gt = torch.tensor([[10.0, 8.0, 40.0, 30.0], [45.0, 20.0, 75.0, 60.0], [0.0, 40.0, 20.0, 62.0]])
coder = BoxCoder((10.0, 10.0, 5.0, 5.0))
iou = box_iou(gt, all_anchors)
print("iou", tuple(iou.shape), rl(iou.max(dim=1).values, 3), iou.max(dim=1).indices.tolist())

BELOW, BETWEEN = -1, -2


def match(quality, high=0.5, low=0.3, allow_low_quality=True):
    matched_vals, matches = quality.max(dim=0)
    all_matches = matches.clone()
    below = matched_vals < low
    between = (matched_vals >= low) & (matched_vals < high)
    matches[below] = BELOW
    matches[between] = BETWEEN
    if allow_low_quality:
        highest, _ = quality.max(dim=1)
        gt_pred_pairs = torch.where(quality == highest[:, None])
        upd = gt_pred_pairs[1]
        matches[upd] = all_matches[upd]
    return matches


m = match(iou)
print("matches", torch.bincount(m + 2).tolist(), "positives", torch.where(m >= 0)[0].tolist())
m_strict = match(iou, allow_low_quality=False)
print("strict positives", torch.where(m_strict >= 0)[0].tolist())

targets = coder.encode(gt[m.clamp(min=0)], all_anchors)
print("encoded", tuple(targets.shape), rl(targets[m >= 0][0], 4))
dec = coder.decode(targets, all_anchors)
print("decode(encode)", torch.allclose(dec[m >= 0], gt[m[m >= 0]], atol=1e-4))
big = coder.decode(torch.tensor([[0.0, 0.0, 100.0, -100.0]]), torch.tensor([[0.0, 0.0, 10.0, 10.0]]))
print("clamped decode", rl(big), round(math.log(1000.0 / 16), 4))
multi = coder.decode(torch.randn(2, 8), torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 25.0, 15.0]]))
print("class-specific", tuple(multi.shape), rl(multi, 8))

labels = (m >= 0).to(torch.int64)
labels[m == BETWEEN] = -1
positive = torch.where(labels >= 1)[0]
negative = torch.where(labels == 0)[0]
num_pos = min(positive.numel(), int(16 * 0.25))
num_neg = min(negative.numel(), 16 - num_pos)
perm1 = torch.randperm(positive.numel())[:num_pos]
perm2 = torch.randperm(negative.numel())[:num_neg]
print("sampled", positive[perm1].tolist(), negative[perm2].tolist())

feat = torch.arange(2 * 3 * 8 * 10, dtype=torch.float32).view(2, 3, 8, 10) / 10
rois = torch.tensor([[0, 1.0, 1.0, 6.0, 5.0], [1, 0.0, 2.0, 9.0, 7.0], [0, 3.2, 0.5, 4.9, 3.7]])


def roi_pool(x, rois, out_size, scale):
    ph, pw = out_size
    outs = []
    for b, x1, y1, x2, y2 in rois.tolist():
        x1, y1 = int(round(x1 * scale)), int(round(y1 * scale))
        x2, y2 = int(round(x2 * scale)), int(round(y2 * scale))
        rw, rh = max(x2 - x1 + 1, 1), max(y2 - y1 + 1, 1)
        bh, bw = rh / ph, rw / pw
        out = torch.zeros(x.shape[1], ph, pw)
        for i in range(ph):
            hs = min(max(int(math.floor(i * bh)) + y1, 0), x.shape[2])
            he = min(max(int(math.ceil((i + 1) * bh)) + y1, 0), x.shape[2])
            for j in range(pw):
                ws = min(max(int(math.floor(j * bw)) + x1, 0), x.shape[3])
                we = min(max(int(math.ceil((j + 1) * bw)) + x1, 0), x.shape[3])
                if he > hs and we > ws:
                    out[:, i, j] = x[int(b), :, hs:he, ws:we].amax(dim=(-2, -1))
        outs.append(out)
    return torch.stack(outs)


rp = roi_pool(feat, rois, (2, 2), 1.0)
print("roi_pool", tuple(rp.shape), rp[0, 0].tolist(), rp[2, 1].tolist())


def roi_align(x, rois, out_size, scale, sampling_ratio=2, aligned=True):
    ph, pw = out_size
    off = 0.5 if aligned else 0.0
    n, c, h, w = x.shape
    out = []
    for b, x1, y1, x2, y2 in rois.tolist():
        sx, sy, ex, ey = x1 * scale - off, y1 * scale - off, x2 * scale - off, y2 * scale - off
        rw, rh = ex - sx, ey - sy
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gy = torch.arange(ph * sampling_ratio, dtype=torch.float32)
        gx = torch.arange(pw * sampling_ratio, dtype=torch.float32)
        ys = sy + (gy + 0.5) * rh / (ph * sampling_ratio)
        xs = sx + (gx + 0.5) * rw / (pw * sampling_ratio)
        yy, xx = torch.meshgrid(ys, xs, indexing="ij")
        grid = torch.stack([(xx + 0.5) / w * 2 - 1, (yy + 0.5) / h * 2 - 1], dim=-1)[None]
        samp = F.grid_sample(x[int(b):int(b) + 1], grid, mode="bilinear", padding_mode="zeros",
                             align_corners=False)
        out.append(F.avg_pool2d(samp, sampling_ratio)[0])
    return torch.stack(out)


ra = roi_align(feat, rois, (2, 3), 0.5)
print("roi_align", tuple(ra.shape), rl(ra[0, 0], 6), rl(ra[2, 2], 6))
ra_old = roi_align(feat, rois, (2, 3), 0.5, aligned=False)
print("aligned=False", rl(ra_old[1, 0], 6))

fpn_rois = torch.tensor([[0.0, 0.0, 20.0, 20.0], [0.0, 0.0, 112.0, 112.0], [0.0, 0.0, 224.0, 224.0],
                         [0.0, 0.0, 500.0, 400.0]])
s = torch.sqrt((fpn_rois[:, 2] - fpn_rois[:, 0]) * (fpn_rois[:, 3] - fpn_rois[:, 1]))
lvl = torch.floor(4 + torch.log2(s / 224 + 1e-6))
print("levels", torch.clamp(lvl, min=2, max=5).to(torch.int64).tolist())

fg = feat.clone().requires_grad_(True)
pooled = roi_align(fg, rois[:2], (2, 2), 1.0)
pooled.pow(2).sum().backward()
print("feature grad", round(fg.grad.sum().item(), 4), int((fg.grad != 0).sum().item()), rl(fg.grad[0, 0, 1], 6))
