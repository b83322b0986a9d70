"""Box format utilities as detection libraries write them: xyxy/xywh/cxcywh conversions over batched (..., 4)
tensors through unbind/stack, split and cat, the generic box_convert dispatcher with its errors, box_area over
float, half, int and empty inputs, clipping with per-image sizes, normalisation to [0, 1], flips and scaling,
rounding to integer pixel boxes, and validity masks for degenerate boxes."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def xyxy_to_xywh(b):
    x1, y1, x2, y2 = b.unbind(-1)
    return torch.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)


def xywh_to_xyxy(b):
    x, y, w, h = b.unbind(-1)
    return torch.stack((x, y, x + w, y + h), dim=-1)


def xyxy_to_cxcywh(b):
    xy1, xy2 = b.split(2, dim=-1)
    return torch.cat(((xy1 + xy2) / 2, xy2 - xy1), dim=-1)


def cxcywh_to_xyxy(b):
    c, wh = b[..., :2], b[..., 2:]
    return torch.cat((c - 0.5 * wh, c + 0.5 * wh), dim=-1)


_TO_XYXY = {"xyxy": lambda b: b.clone(), "xywh": xywh_to_xyxy, "cxcywh": cxcywh_to_xyxy}
_FROM_XYXY = {"xyxy": lambda b: b.clone(), "xywh": xyxy_to_xywh, "cxcywh": xyxy_to_cxcywh}


def box_convert(boxes, in_fmt, out_fmt):
    allowed = ("xyxy", "xywh", "cxcywh")
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    return _FROM_XYXY[out_fmt](_TO_XYXY[in_fmt](boxes))


def box_area(b):
    return (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])


def random_boxes(n, size=100.0):
    xy = torch.rand(n, 2) * size * 0.7
    wh = torch.rand(n, 2) * size * 0.3 + 1
    return torch.cat([xy, xy + wh], dim=1)


boxes = random_boxes(6)
print("xyxy\n", boxes)
for fmt in ("xywh", "cxcywh"):
    conv = box_convert(boxes, "xyxy", fmt)
    back = box_convert(conv, fmt, "xyxy")
    print(fmt, conv[:2], "roundtrip max err", f"{(back - boxes).abs().max().item():.6f}")
print("cxcywh->xywh", box_convert(box_convert(boxes, "xyxy", "cxcywh"), "cxcywh", "xywh")[:2])
try:
    box_convert(boxes, "xyxy", "yxyx")
except ValueError as e:
    print("ValueError:", e)

# batched (B, N, 4): the same functions work over leading dims
batch = torch.stack([boxes, boxes.flip(0)])
cx = xyxy_to_cxcywh(batch)
print("batched", tuple(cx.shape), cx[1, 0], torch.equal(cx[0], cx[1].flip(0)))
print("area", box_area(boxes))
print("area batched", box_area(batch.double()).sum(-1))

# dtypes: half boxes upcast before area, int boxes keep integer area
half = boxes.half()
print("half area", box_area(half).dtype, box_area(half.float()).sum().item() > 0)
ib = boxes.round().to(torch.int64)
print("int boxes", ib[:3].tolist(), box_area(ib).dtype, box_area(ib).tolist())
i32 = ib.int()
print("int32 area", box_area(i32).dtype, (box_area(i32) == box_area(ib)).all().item())
print("int cxcywh", xyxy_to_cxcywh(ib)[:2], xyxy_to_cxcywh(ib).dtype)
print("int floor_divide center", ((ib[:, :2] + ib[:, 2:]) // 2)[:3].tolist())

# empty
empty = torch.zeros((0, 4))
print("empty", box_convert(empty, "xyxy", "cxcywh").shape, box_area(empty), box_area(empty).sum().item())

# clipping with per-image sizes (H, W) and normalization
sizes = torch.tensor([[60, 80], [90, 50]])
clipped = []
for b, (h, w) in zip(batch, sizes.tolist()):
    x = b[:, 0::2].clamp(min=0, max=w)
    y = b[:, 1::2].clamp(min=0, max=h)
    clipped.append(torch.stack((x, y), dim=2).reshape(b.shape))
clipped = torch.stack(clipped)
print("clipped", clipped[:, :2])
scale = sizes.flip(-1).repeat(1, 2).unsqueeze(1).float()
print("scale", scale.squeeze(1))
norm = clipped / scale
print("normalized in [0,1]", bool(((norm >= 0) & (norm <= 1)).all()), norm[1, :2])
print("denormalized equal", torch.allclose(norm * scale, clipped))

# clamp with tensor bounds (torch>=1.13)
lo = torch.zeros(4)
hi = torch.tensor([80.0, 60.0, 80.0, 60.0])
print("tensor clamp", torch.clamp(boxes, lo, hi)[:2])
print("min/max maximum", torch.minimum(torch.maximum(boxes, lo), hi).equal(torch.clamp(boxes, lo, hi)))

# horizontal flip in an image of width 100 and resize by (sx, sy)
W = 100
flipped = boxes.clone()
flipped[:, [0, 2]] = W - boxes[:, [2, 0]]
print("hflip", flipped[:2], torch.allclose(box_area(flipped), box_area(boxes)))
ratios = torch.tensor([0.5, 2.0])
resized = boxes * ratios.repeat(2)
print("resized", resized[:2], (box_area(resized) / box_area(boxes)).tolist()[:2])

# degenerate boxes and validity masks
weird = torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 5.0, 9.0], [3.0, 4.0, 1.0, 8.0], [2.0, 2.0, 2.0, 2.0]])
wh = weird[:, 2:] - weird[:, :2]
valid = (wh > 0).all(dim=1)
print("valid", valid.tolist(), "nonzero", valid.nonzero().flatten().tolist(), torch.where(~valid)[0].tolist())
degenerate = (weird[:, 2:] <= weird[:, :2]).any(dim=1)
print("first degenerate", degenerate.nonzero()[0].item() if degenerate.any() else None)
print("min size keep", torch.where((wh >= 2).all(1))[0].tolist())

# pixel snapping: floor the top-left, ceil the bottom-right
snapped = torch.cat([boxes[:, :2].floor(), boxes[:, 2:].ceil()], 1).long()
print("snapped", snapped[:3].tolist(), snapped.dtype)
print("aspect", (wh[:, 0] / wh[:, 1].clamp(min=1e-6)).tolist())
print("diag", torch.linalg.vector_norm(boxes[:, 2:] - boxes[:, :2], dim=1))
print("union box", torch.cat([boxes[:, :2].amin(0), boxes[:, 2:].amax(0)]))
