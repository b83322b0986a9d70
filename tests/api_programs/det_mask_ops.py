"""Instance-mask utilities as Mask R-CNN, SOLO and Mask2Former code writes them: masks_to_boxes with any/argmax,
pairwise mask IoU by a matmul of flattened masks, Dice, F.interpolate of logits and of uint8/bool label masks
(nearest, nearest-exact, bilinear, align_corners, area), pasting RoI masks into the image with grid_sample,
run-length encoding with diff/nonzero and its decoding with repeat_interleave, mask NMS, and connected components
by iterated max-pooling."""

import torch
import torch.nn.functional as F

torch.manual_seed(5)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

H, W = 12, 14
yy, xx = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
centers = torch.tensor([[3.0, 4.0], [8.0, 9.0], [4.0, 5.0], [9.0, 2.0]])
radii = torch.tensor([2.5, 3.0, 2.0, 1.5])
masks = ((yy[None] - centers[:, 0, None, None]) ** 2 + (xx[None] - centers[:, 1, None, None]) ** 2) <= \
    radii[:, None, None] ** 2
print("masks", masks.shape, masks.dtype, masks.sum((1, 2)).tolist())


def masks_to_boxes(m):
    if m.numel() == 0:
        return torch.zeros((0, 4), dtype=torch.float)
    out = torch.zeros((m.shape[0], 4), dtype=torch.float)
    for i, mask in enumerate(m):
        y, x = torch.where(mask != 0)
        out[i] = torch.tensor([torch.min(x), torch.min(y), torch.max(x), torch.max(y)], dtype=torch.float)
    return out


def masks_to_boxes_vec(m):
    rows, cols = m.any(2), m.any(1)
    y1 = rows.int().argmax(1)
    y2 = m.shape[1] - 1 - rows.flip(1).int().argmax(1)
    x1 = cols.int().argmax(1)
    x2 = m.shape[2] - 1 - cols.flip(1).int().argmax(1)
    return torch.stack([x1, y1, x2, y2], 1).float()


b1, b2 = masks_to_boxes(masks), masks_to_boxes_vec(masks)
print("boxes\n", b1, torch.equal(b1, b2))
print("empty", masks_to_boxes(torch.zeros(0, 3, 3)).shape)


def mask_iou(a, b):
    a, b = a.flatten(1).float(), b.flatten(1).float()
    inter = a @ b.T
    union = a.sum(1)[:, None] + b.sum(1)[None] - inter
    return inter / union.clamp(min=1)


miou = mask_iou(masks, masks)
print("mask iou\n", miou)
print("logical_and check", (masks[0] & masks[2]).sum().item(), (masks[0] | masks[2]).sum().item(),
      torch.logical_xor(masks[0], masks[2]).sum().item())
dice = 2 * (masks[0].float() * masks[2]).sum() / (masks[0].sum() + masks[2].sum())
print("dice 0-2", round(dice.item(), 4))

# mask NMS: sort by score, drop masks overlapping a kept one above 0.5
scores = torch.tensor([0.7, 0.9, 0.8, 0.3])
order = scores.argsort(descending=True)
iou_sorted = mask_iou(masks[order], masks[order]).triu(1)
keep = iou_sorted.max(0).values <= 0.5
print("mask nms keep", order[keep].tolist())

# resizing: logits bilinear, labels nearest, bool must go through a numeric dtype
logits = torch.randn(1, 2, 6, 7)
for kw in ({"mode": "bilinear", "align_corners": False}, {"mode": "bilinear", "align_corners": True},
           {"mode": "bicubic", "align_corners": False}, {"mode": "nearest"}, {"mode": "nearest-exact"}):
    up = F.interpolate(logits, size=(H, W), **kw)
    print(kw, tuple(up.shape), round(up.mean().item(), 4), up[0, 0, 0, :4])
print("area down", F.interpolate(masks[None].float(), size=(6, 7), mode="area")[0, 1, 3])
labels = masks.int().argmax(0).to(torch.uint8)
lab_up = F.interpolate(labels[None, None], scale_factor=1.5, mode="nearest")
print("uint8 nearest", lab_up.dtype, tuple(lab_up.shape), torch.bincount(lab_up.flatten().long()).tolist())
lab_dn = F.interpolate(labels[None, None].float(), size=(5, 5), mode="nearest-exact").long()
print("nearest-exact labels\n", lab_dn[0, 0])
try:
    F.interpolate(masks[None], size=(6, 7), mode="nearest")
except RuntimeError as e:
    print("bool interpolate:", type(e).__name__, str(e).splitlines()[0])
thr = F.interpolate(masks[None].float(), size=(24, 28), mode="bilinear", align_corners=False) > 0.5
print("upsampled bool", thr.dtype, thr.sum((2, 3)).tolist())

# paste 7x7 RoI mask probabilities into the image with grid_sample
roi = torch.rand(1, 1, 7, 7)
box = torch.tensor([3.0, 2.0, 10.0, 9.0])
gx = (torch.arange(W, dtype=torch.float32) + 0.5 - box[0]) / (box[2] - box[0]) * 2 - 1
gy = (torch.arange(H, dtype=torch.float32) + 0.5 - box[1]) / (box[3] - box[1]) * 2 - 1
grid = torch.stack(torch.meshgrid(gx, gy, indexing="xy"), dim=-1)[None]
print("paste grid", tuple(grid.shape), grid[0, 0, 0], grid[0, -1, -1])
pasted = F.grid_sample(roi, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
print("pasted", tuple(pasted.shape), round(pasted.sum().item(), 4), (pasted[0, 0] > 0.5).sum().item())
print("pasted row 5", pasted[0, 0, 5])


# run-length encoding (column-major as COCO) and decoding
def rle_encode(m):
    flat = m.T.flatten().to(torch.int8)
    padded = torch.cat([torch.zeros(1, dtype=torch.int8), flat, torch.zeros(1, dtype=torch.int8)])
    change = torch.nonzero(padded[1:] != padded[:-1]).flatten()
    runs = torch.diff(change, prepend=torch.zeros(1, dtype=change.dtype))
    return runs


def rle_decode(runs, shape):
    vals = torch.arange(len(runs)) % 2
    flat = torch.repeat_interleave(vals, runs)
    flat = torch.cat([flat, flat.new_zeros(shape[0] * shape[1] - len(flat))])
    return flat.view(shape[1], shape[0]).T.bool()


runs = rle_encode(masks[1])
print("rle", runs.tolist()[:10], "len", len(runs), runs.sum().item())
print("rle roundtrip", torch.equal(rle_decode(runs, (H, W)), masks[1]))

# connected components: label each foreground pixel with its index, propagate the max over 3x3
fg = masks[0] | masks[1] | masks[3]
lab = torch.where(fg, torch.arange(1, H * W + 1, dtype=torch.float32).view(H, W), torch.zeros(H, W))
for it in range(30):
    new = F.max_pool2d(lab[None, None], 3, stride=1, padding=1)[0, 0] * fg
    if torch.equal(new, lab):
        break
    lab = new
ids, inv, cnt = torch.unique(lab[fg], return_inverse=True, return_counts=True)
print("components", len(ids), "sizes", cnt.tolist(), "iters", it)
comp_map = torch.zeros(H, W, dtype=torch.long)
comp_map[fg] = inv + 1
print(comp_map)
