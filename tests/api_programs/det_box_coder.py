"""Box regression as two-stage and DETR-style detectors write it: a BoxCoder with (wx, wy, ww, wh) weights encoding
log-space deltas and decoding with the log(1000/16) clamp, float64 round trips, what zero-width boxes do to log
(-inf) and how the clamp keeps exp finite, smooth_l1 with beta=1/9 against huber with delta, balanced L1 (Libra
R-CNN), L1+GIoU on normalized cxcywh boxes, a seeded BalancedPositiveNegativeSampler (randperm), DETR's cost
matrix split per image with .split(sizes), and a tiny box-regression training loop."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(10)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

BBOX_XFORM_CLIP = math.log(1000.0 / 16)


class BoxCoder:
    def __init__(self, weights, bbox_xform_clip=BBOX_XFORM_CLIP):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, gt, proposals):
        wx, wy, ww, wh = self.weights
        pw = proposals[:, 2] - proposals[:, 0]
        ph = proposals[:, 3] - proposals[:, 1]
        px = proposals[:, 0] + 0.5 * pw
        py = proposals[:, 1] + 0.5 * ph
        gw = gt[:, 2] - gt[:, 0]
        gh = gt[:, 3] - gt[:, 1]
        gx = gt[:, 0] + 0.5 * gw
        gy = gt[:, 1] + 0.5 * gh
        return torch.stack((wx * (gx - px) / pw, wy * (gy - py) / ph, ww * torch.log(gw / pw),
                            wh * torch.log(gh / ph)), dim=1)

    def decode(self, rel_codes, boxes):
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = torch.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pcx = dx * widths[:, None] + ctr_x[:, None]
        pcy = dy * heights[:, None] + ctr_y[:, None]
        pw = torch.exp(dw) * widths[:, None]
        ph = torch.exp(dh) * heights[:, None]
        c_to_c_h = torch.tensor(0.5, dtype=pcy.dtype) * ph
        c_to_c_w = torch.tensor(0.5, dtype=pcx.dtype) * pw
        return torch.stack((pcx - c_to_c_w, pcy - c_to_c_h, pcx + c_to_c_w, pcy + c_to_c_h), dim=2).flatten(1)


def rand_boxes(n, dtype=torch.float32):
    xy = torch.rand(n, 2, dtype=dtype) * 50
    return torch.cat([xy, xy + torch.rand(n, 2, dtype=dtype) * 30 + 2], 1)


coder = BoxCoder((10.0, 10.0, 5.0, 5.0))
props, gts = rand_boxes(5), rand_boxes(5)
codes = coder.encode(gts, props)
print("codes\n", codes)
dec = coder.decode(codes, props)
print("decoded == gt", torch.allclose(dec, gts, atol=1e-4), "max err < 1e-3", (dec - gts).abs().max().item() < 1e-3)
p64, g64 = props.double(), gts.double()
err64 = (coder.decode(coder.encode(g64, p64), p64) - g64).abs().max().item()
print("float64 roundtrip < 1e-12", err64 < 1e-12, coder.encode(g64, p64).dtype)
multi = coder.decode(torch.cat([codes, codes * 0.5], 1), props)
print("two-class decode", tuple(multi.shape), multi[0])

# degenerate gt: zero width -> log(0) = -inf in the code; huge predicted deltas are clamped in decode
bad_gt = gts.clone()
bad_gt[0, 2] = bad_gt[0, 0]
bad = coder.encode(bad_gt, props)
print("zero-width code", bad[0], torch.isinf(bad).any().item(), torch.isfinite(bad).all(1).tolist())
huge = torch.tensor([[0.0, 0.0, 200.0, -200.0]])
out = coder.decode(huge, props[:1])
print("clamped decode", out, "clip", round(BBOX_XFORM_CLIP, 4), "finite", torch.isfinite(out).all().item())
unclamped = BoxCoder((10.0, 10.0, 5.0, 5.0), bbox_xform_clip=float("inf")).decode(huge * 5, props[:1])
print("no clamp", unclamped, torch.finfo(torch.float32).max > 1e38)

# regression losses
pred = codes + torch.randn_like(codes) * 0.3
diff = (pred - codes).abs()
for beta in (1.0 / 9, 0.5, 1.0):
    sl1 = F.smooth_l1_loss(pred, codes, beta=beta, reduction="sum")
    manual = torch.where(diff < beta, 0.5 * diff ** 2 / beta, diff - 0.5 * beta).sum()
    hub = F.huber_loss(pred, codes, delta=beta, reduction="sum")
    print(f"beta {beta:.4f}: smooth_l1 {sl1.item():.4f} manual {manual.item():.4f} huber {hub.item():.4f} "
          f"huber/beta {(hub / beta).item():.4f}")
print("l1 == smooth_l1(beta=0)", torch.allclose(F.l1_loss(pred, codes), F.smooth_l1_loss(pred, codes, beta=0.0)))


def balanced_l1(pred, target, beta=1.0, alpha=0.5, gamma=1.5):
    d = (pred - target).abs()
    b = math.e ** (gamma / alpha) - 1
    return torch.where(d < beta, alpha / b * (b * d + 1) * torch.log(b * d / beta + 1) - alpha * d,
                       gamma * d + gamma / b - alpha * beta)


print("balanced l1", balanced_l1(pred, codes).mean(1))


# DETR: normalized cxcywh predictions, L1 + GIoU cost, split per image
def cxcywh_to_xyxy(b):
    cx, cy, w, h = b.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)


def giou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt, rb = torch.max(a[:, None, :2], b[:, :2]), torch.min(a[:, None, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    union = area_a[:, None] + area_b - inter
    lt2, rb2 = torch.min(a[:, None, :2], b[:, :2]), torch.max(a[:, None, 2:], b[:, 2:])
    hull = (rb2 - lt2).clamp(min=0).prod(-1)
    return inter / union - (hull - union) / hull


bs, nq = 2, 6
pred_boxes = torch.rand(bs, nq, 4) * 0.5 + 0.25
pred_logits = torch.randn(bs, nq, 4)
sizes = [2, 3]
tgt_boxes = torch.rand(sum(sizes), 4) * 0.4 + 0.3
tgt_ids = torch.tensor([1, 0, 2, 2, 1])
out_prob = pred_logits.flatten(0, 1).softmax(-1)
cost = 5 * torch.cdist(pred_boxes.flatten(0, 1), tgt_boxes, p=1) - out_prob[:, tgt_ids] \
    - 2 * giou(cxcywh_to_xyxy(pred_boxes.flatten(0, 1)), cxcywh_to_xyxy(tgt_boxes))
cost = cost.view(bs, nq, -1)
for i, c in enumerate(cost.split(sizes, -1)):
    ci = c[i].clone()
    rows, cols = [], []
    for _ in range(ci.shape[1]):  # greedy stand-in for the Hungarian solver
        r, k = divmod(int(ci.argmin()), ci.shape[1])
        rows.append(r)
        cols.append(k)
        ci[r, :] = float("inf")
        ci[:, k] = float("inf")
    order = torch.tensor(cols).argsort()
    print(f"image {i}: cost {tuple(c[i].shape)} queries {torch.tensor(rows)[order].tolist()} targets "
          f"{torch.tensor(cols)[order].tolist()}")


# balanced sampling of anchor labels (1 fg, 0 bg, -1 ignore)
def sample(labels, batch_size=8, positive_fraction=0.25):
    positive = torch.where(labels >= 1)[0]
    negative = torch.where(labels == 0)[0]
    num_pos = min(positive.numel(), int(batch_size * positive_fraction))
    num_neg = min(negative.numel(), batch_size - num_pos)
    perm1 = torch.randperm(positive.numel())[:num_pos]
    perm2 = torch.randperm(negative.numel())[:num_neg]
    pos_mask = torch.zeros_like(labels, dtype=torch.uint8)
    neg_mask = torch.zeros_like(labels, dtype=torch.uint8)
    pos_mask[positive[perm1]] = 1
    neg_mask[negative[perm2]] = 1
    return pos_mask, neg_mask


labels = torch.tensor([1, 0, 0, -1, 1, 0, 0, 0, 2, 0, 0, -1, 0, 1, 0, 0])
pm, nm = sample(labels)
print("sampled pos", pm.nonzero().flatten().tolist(), "neg", nm.nonzero().flatten().tolist(), pm.dtype)

# regress deltas for fixed proposals with a linear head
feats = torch.randn(5, 8)
head = torch.nn.Linear(8, 4)
opt = torch.optim.Adam(head.parameters(), lr=0.05)
for step in range(5):
    deltas = head(feats)
    loss = F.smooth_l1_loss(deltas, codes, beta=1.0 / 9, reduction="sum") / codes.shape[0]
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
with torch.no_grad():
    boxes = coder.decode(head(feats), props)
print("decoded after training\n", boxes, "\nIoU with gt", torch.diagonal(giou(boxes, gts)))
