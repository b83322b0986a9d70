"""A detector's postprocessing and its printed outputs, as torchvision's RoIHeads/GeneralizedRCNNTransform write
them: softmax class scores, per-class box decoding to (N, num_classes, 4), clip to image, drop background by
flattening labels with view/expand_as, score threshold, remove_small_boxes, batched NMS, detections_per_img, and
the rescale back to original image sizes; the list of dicts is printed whole with default print options (so the
automatic scientific notation of mixed magnitudes is exercised), then as a COCO-style json list."""

import json

import torch
import torch.nn.functional as F

torch.manual_seed(12)


def decode(deltas, boxes, weights=(10.0, 10.0, 5.0, 5.0)):
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    cx = boxes[:, 0] + 0.5 * w
    cy = boxes[:, 1] + 0.5 * h
    dx, dy = deltas[:, 0::4] / weights[0], deltas[:, 1::4] / weights[1]
    dw = (deltas[:, 2::4] / weights[2]).clamp(max=4.135166556742356)
    dh = (deltas[:, 3::4] / weights[3]).clamp(max=4.135166556742356)
    pcx, pcy = dx * w[:, None] + cx[:, None], dy * h[:, None] + cy[:, None]
    pw, ph = dw.exp() * w[:, None], dh.exp() * h[:, None]
    return torch.stack((pcx - pw / 2, pcy - ph / 2, pcx + pw / 2, pcy + ph / 2), dim=2).flatten(1)


def clip(boxes, size):
    h, w = size
    x = boxes[..., 0::2].clamp(min=0, max=w)
    y = boxes[..., 1::2].clamp(min=0, max=h)
    return torch.stack((x, y), dim=boxes.dim()).reshape(boxes.shape)


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(2)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b) - inter)


def batched_nms(boxes, scores, labels, thr):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    offs = labels.to(boxes) * (boxes.max() + 1)
    b = boxes + offs[:, None]
    order = scores.argsort(descending=True)
    iou = box_iou(b[order], b[order])
    keep = torch.ones(len(order), dtype=torch.bool)
    for i in range(len(order)):
        if keep[i]:
            keep[i + 1:] &= iou[i, i + 1:] <= thr
    return order[keep]


def postprocess(class_logits, box_regression, proposals, image_shapes, score_thresh=0.05, nms_thresh=0.5,
                detections_per_img=5, min_size=1e-2):
    num_classes = class_logits.shape[-1]
    boxes_per_image = [p.shape[0] for p in proposals]
    pred_boxes = decode(box_regression, torch.cat(proposals)).reshape(-1, num_classes, 4)
    pred_scores = F.softmax(class_logits, -1)
    results = []
    for boxes, scores, image_shape in zip(pred_boxes.split(boxes_per_image, 0), pred_scores.split(boxes_per_image, 0),
                                          image_shapes):
        boxes = clip(boxes, image_shape)
        labels = torch.arange(num_classes).view(1, -1).expand_as(scores)
        boxes, scores, labels = boxes[:, 1:], scores[:, 1:], labels[:, 1:]
        boxes, scores, labels = boxes.reshape(-1, 4), scores.reshape(-1), labels.reshape(-1)
        inds = torch.where(scores > score_thresh)[0]
        boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
        ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        keep = torch.where((ws >= min_size) & (hs >= min_size))[0]
        boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
        keep = batched_nms(boxes, scores, labels, nms_thresh)[:detections_per_img]
        results.append({"boxes": boxes[keep], "labels": labels[keep], "scores": scores[keep]})
    return results


def resize_boxes(boxes, original_size, new_size):
    ratios = [torch.tensor(s, dtype=torch.float32) / torch.tensor(s_orig, dtype=torch.float32)
              for s, s_orig in zip(new_size, original_size)]
    ratio_height, ratio_width = ratios
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return torch.stack((xmin * ratio_width, ymin * ratio_height, xmax * ratio_width, ymax * ratio_height), dim=1)


num_classes = 4
image_shapes = [(120, 160), (96, 128)]
original_sizes = [(480, 640), (300, 400)]
proposals = []
for h, w in image_shapes:
    xy = torch.rand(6, 2) * torch.tensor([w * 0.7, h * 0.7])
    proposals.append(torch.cat([xy, xy + torch.rand(6, 2) * 40 + 5], 1))
class_logits = torch.randn(12, num_classes) * 2
box_regression = torch.randn(12, num_classes * 4)
with torch.no_grad():
    dets = postprocess(class_logits, box_regression, proposals, image_shapes)
print([{k: tuple(v.shape) for k, v in d.items()} for d in dets])
for d, im_s, o_im_s in zip(dets, image_shapes, original_sizes):
    d["boxes"] = resize_boxes(d["boxes"], im_s, o_im_s)
print(dets[0])
print(dets[1]["boxes"])
print(dets[1]["scores"], dets[1]["labels"])

# mixed magnitudes print in scientific notation by default
tiny = torch.tensor([1.5e-5, 0.25, 3.0])
print(tiny)
print(torch.tensor([1e-9, 5e5]))
print(torch.cat([dets[0]["scores"][:2], torch.tensor([2e-6])]))
print(torch.tensor([[1234.5678, 0.0001], [3.0, 100000.0]]))
print(torch.tensor([0.1, 1e8]))
print(dets[0]["boxes"].round(), dets[0]["boxes"].int())
print(torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64))
print({"boxes": torch.zeros((0, 4)), "labels": torch.zeros((0,), dtype=torch.int64)})

coco = []
for img_id, d in enumerate(dets):
    xywh = torch.cat([d["boxes"][:, :2], d["boxes"][:, 2:] - d["boxes"][:, :2]], 1)
    for b, s, lab in zip(xywh.tolist(), d["scores"].tolist(), d["labels"].tolist()):
        coco.append({"image_id": img_id, "category_id": lab, "bbox": [round(v, 4) for v in b],
                     "score": round(s, 4)})
print(json.dumps(coco[:3]))
print("num detections", len(coco), "per image", [len(d["scores"]) for d in dets])
print("labels hist", torch.bincount(torch.cat([d["labels"] for d in dets]), minlength=num_classes).tolist())
