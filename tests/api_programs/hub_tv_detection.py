"""torchvision detection pieces written inline: FeaturePyramidNetwork with inner/layer blocks, nearest upsampling
to the lateral's size and LastLevelMaxPool, AnchorGenerator cell anchors (torch.round of scaled ratios) laid on
meshgrid shifts, BoxCoder encode/decode with the log(1000/16) clamp, box_iou, a greedy batched_nms by coordinate
offsets, the Matcher with allow_low_quality_matches, BalancedPositiveNegativeSampler with randperm, and an RPN-style
head trained for a few steps with smooth_l1_loss(beta=1/9) and BCE."""

import math
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class FeaturePyramidNetwork(nn.Module):
    def __init__(self, in_channels_list, out_channels, extra_blocks=None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            self.inner_blocks.append(nn.Conv2d(in_channels, out_channels, 1))
            self.layer_blocks.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                nn.init.constant_(m.bias, 0)
        self.extra_blocks = extra_blocks

    def forward(self, x):
        names = list(x.keys())
        x = list(x.values())
        last_inner = self.inner_blocks[-1](x[-1])
        results = [self.layer_blocks[-1](last_inner)]
        for idx in range(len(x) - 2, -1, -1):
            inner_lateral = self.inner_blocks[idx](x[idx])
            feat_shape = inner_lateral.shape[-2:]
            inner_top_down = F.interpolate(last_inner, size=feat_shape, mode="nearest")
            last_inner = inner_lateral + inner_top_down
            results.insert(0, self.layer_blocks[idx](last_inner))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, x, names)
        return OrderedDict([(k, v) for k, v in zip(names, results)])


class LastLevelMaxPool(nn.Module):
    def forward(self, x, y, names):
        names.append("pool")
        x.append(F.max_pool2d(x[-1], 1, 2, 0))
        return x, names


class AnchorGenerator(nn.Module):
    def __init__(self, sizes=((16,), (32,)), aspect_ratios=((0.5, 1.0, 2.0),) * 2):
        super().__init__()
        self.cell_anchors = [self.generate_anchors(s, a) for s, a in zip(sizes, aspect_ratios)]

    @staticmethod
    def generate_anchors(scales, aspect_ratios, dtype=torch.float32):
        scales = torch.as_tensor(scales, dtype=dtype)
        aspect_ratios = torch.as_tensor(aspect_ratios, dtype=dtype)
        h_ratios = torch.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        base_anchors = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
        return base_anchors.round()

    def num_anchors_per_location(self):
        return [c.shape[0] for c in self.cell_anchors]

    def forward(self, image_size, feature_maps):
        anchors = []
        for fmap, base in zip(feature_maps, self.cell_anchors):
            gh, gw = fmap.shape[-2:]
            sh, sw = image_size[0] // gh, image_size[1] // gw
            shifts_x = torch.arange(0, gw, dtype=torch.int32) * sw
            shifts_y = torch.arange(0, gh, dtype=torch.int32) * sh
            shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
        return torch.cat(anchors)


class BoxCoder:
    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights, self.bbox_xform_clip = weights, bbox_xform_clip

    def encode(self, reference_boxes, proposals):
        wx, wy, ww, wh = self.weights
        ex_widths = proposals[:, 2] - proposals[:, 0]
        ex_heights = proposals[:, 3] - proposals[:, 1]
        ex_ctr_x = proposals[:, 0] + 0.5 * ex_widths
        ex_ctr_y = proposals[:, 1] + 0.5 * ex_heights
        gt_widths = reference_boxes[:, 2] - reference_boxes[:, 0]
        gt_heights = reference_boxes[:, 3] - reference_boxes[:, 1]
        gt_ctr_x = reference_boxes[:, 0] + 0.5 * gt_widths
        gt_ctr_y = reference_boxes[:, 1] + 0.5 * gt_heights
        return torch.stack((wx * (gt_ctr_x - ex_ctr_x) / ex_widths, wy * (gt_ctr_y - ex_ctr_y) / ex_heights,
                            ww * torch.log(gt_widths / ex_widths), wh * torch.log(gt_heights / ex_heights)), dim=1)

    def decode(self, rel_codes, boxes):
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx, dy = rel_codes[:, 0::4] / wx, rel_codes[:, 1::4] / wy
        dw = torch.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]
        c_to_c_h = torch.tensor(0.5, dtype=pred_ctr_y.dtype) * pred_h
        c_to_c_w = torch.tensor(0.5, dtype=pred_ctr_x.dtype) * pred_w
        return torch.stack((pred_ctr_x - c_to_c_w, pred_ctr_y - c_to_c_h, pred_ctr_x + c_to_c_w,
                            pred_ctr_y + c_to_c_h), dim=2).flatten(1)


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area1[:, None] + area2 - inter)


def nms(boxes, scores, iou_threshold):
    order = scores.argsort(descending=True)
    keep = []
    suppressed = torch.zeros(len(boxes), dtype=torch.bool)
    ious = box_iou(boxes, boxes)
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= ious[i] > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


def batched_nms(boxes, scores, idxs, iou_threshold):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, iou_threshold)


class Matcher:
    BELOW_LOW_THRESHOLD, BETWEEN_THRESHOLDS = -1, -2

    def __init__(self, high_threshold, low_threshold, allow_low_quality_matches=False):
        self.high_threshold, self.low_threshold = high_threshold, low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix):
        if match_quality_matrix.numel() == 0:
            raise ValueError("No ground-truth boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        all_matches = matches.clone() if self.allow_low_quality_matches else None
        below = matched_vals < self.low_threshold
        between = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below] = self.BELOW_LOW_THRESHOLD
        matches[between] = self.BETWEEN_THRESHOLDS
        if self.allow_low_quality_matches:
            highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
            gt_pred_pairs = torch.where(match_quality_matrix == highest_quality_foreach_gt[:, None])
            pred_inds_to_update = gt_pred_pairs[1]
            matches[pred_inds_to_update] = all_matches[pred_inds_to_update]
        return matches


def sample_pos_neg(labels, batch_size_per_image=16, positive_fraction=0.25):
    positive = torch.where(labels >= 1)[0]
    negative = torch.where(labels == 0)[0]
    num_pos = min(positive.numel(), int(batch_size_per_image * positive_fraction))
    num_neg = min(negative.numel(), batch_size_per_image - num_pos)
    perm1 = torch.randperm(positive.numel())[:num_pos]
    perm2 = torch.randperm(negative.numel())[:num_neg]
    pos_mask = torch.zeros_like(labels, dtype=torch.uint8)
    neg_mask = torch.zeros_like(labels, dtype=torch.uint8)
    pos_mask[positive[perm1]] = 1
    neg_mask[negative[perm2]] = 1
    return pos_mask, neg_mask


backbone = OrderedDict([("c3", torch.randn(1, 8, 8, 8)), ("c4", torch.randn(1, 16, 4, 4))])
fpn = FeaturePyramidNetwork([8, 16], 12, extra_blocks=LastLevelMaxPool())
print(fpn.inner_blocks, "params", sum(p.numel() for p in fpn.parameters()))
feats = fpn(backbone)
print("fpn", [(k, tuple(v.shape)) for k, v in feats.items()])

ag = AnchorGenerator()
print("cell anchors", ag.cell_anchors[0].tolist(), ag.num_anchors_per_location())
anchors = ag((32, 32), list(feats.values())[:2])
print("anchors", anchors.shape, anchors.dtype, anchors[:4].tolist())

gt = torch.tensor([[2.0, 3.0, 14.0, 12.0], [18.0, 16.0, 30.0, 31.0]])
coder = BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
iou = box_iou(gt, anchors)
print("iou", iou.shape, iou.max(1))
matcher = Matcher(0.5, 0.3, allow_low_quality_matches=True)
matches = matcher(iou)
print("matches", torch.bincount(matches + 2).tolist(), (matches >= 0).nonzero().flatten().tolist())
strict = Matcher(0.5, 0.3)(iou)
print("strict positives", (strict >= 0).sum().item())
try:
    matcher(torch.zeros(0, 5))
except ValueError as e:
    print("ValueError:", e)

labels = (matches >= 0).to(torch.float32)
labels[matches == Matcher.BETWEEN_THRESHOLDS] = -1.0
pos_mask, neg_mask = sample_pos_neg(labels)
print("sampled", pos_mask.sum().item(), neg_mask.sum().item(), pos_mask.dtype)
matched_gt = gt[matches.clamp(min=0)]
targets = coder.encode(matched_gt, anchors.float())
print("encoded", targets[(matches >= 0)][:2])
decoded = coder.decode(targets, anchors.float())
print("roundtrip", torch.allclose(decoded[matches >= 0], matched_gt[matches >= 0], atol=1e-4))
print("clamped decode", coder.decode(torch.tensor([[0.0, 0.0, 10.0, 10.0]]), torch.tensor([[0.0, 0.0, 2.0, 2.0]])))

boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [20, 20, 30, 30]], dtype=torch.float32)
scores = torch.tensor([0.9, 0.8, 0.7, 0.6])
cls = torch.tensor([0, 0, 1, 1])
print("nms", nms(boxes, scores, 0.5).tolist(), "batched", batched_nms(boxes, scores, cls, 0.5).tolist())
print("empty", batched_nms(torch.zeros(0, 4), torch.zeros(0), torch.zeros(0, dtype=torch.long), 0.5))

A = ag.num_anchors_per_location()[0]
head = nn.ModuleDict({"conv": nn.Conv2d(12, 12, 3, padding=1), "cls_logits": nn.Conv2d(12, A, 1),
                      "bbox_pred": nn.Conv2d(12, A * 4, 1)})
for layer in head.values():
    nn.init.normal_(layer.weight, std=0.01)
    nn.init.constant_(layer.bias, 0)
opt = torch.optim.SGD(list(head.parameters()) + list(fpn.parameters()), lr=0.02, momentum=0.9, weight_decay=1e-4)
sampled = (pos_mask | neg_mask).bool()
for step in range(4):
    feats = fpn(backbone)
    objs, deltas = [], []
    for f in list(feats.values())[:2]:
        t = F.relu(head["conv"](f))
        objs.append(head["cls_logits"](t).permute(0, 2, 3, 1).reshape(-1))
        deltas.append(head["bbox_pred"](t).view(1, A, 4, *t.shape[-2:]).permute(0, 3, 4, 1, 2).reshape(-1, 4))
    obj, delta = torch.cat(objs), torch.cat(deltas)
    pos = pos_mask.bool()
    box_loss = F.smooth_l1_loss(delta[pos], targets[pos], beta=1 / 9, reduction="sum") / sampled.sum()
    obj_loss = F.binary_cross_entropy_with_logits(obj[sampled], labels[sampled].clamp(min=0))
    loss = obj_loss + box_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} obj {obj_loss.item():.4f} box {box_loss.item():.4f}")
