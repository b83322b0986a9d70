"""RoIAlign the way torchvision's pure-Python reference (`ops/roi_align.py::_roi_align`) writes it: per-roi
bilinear interpolation by advanced indexing with broadcast [:, None, None] index grids, adaptive sampling ratios
(ceil of roi size / output size), aligned=True half-pixel offsets, out-of-range masks and clamps; checked against a
grid_sample formulation and RoI max pooling by adaptive_max_pool2d, with gradients into the features, and
MultiScaleRoIAlign's LevelMapper (floor(k0 + log2(sqrt(area) / s0)) clamped) over an FPN."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(11)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def _bilinear_interpolate(input, roi_batch_ind, y, x, ymask, xmask):
    _, channels, height, width = input.size()
    y = y.clamp(min=0)
    x = x.clamp(min=0)
    y_low = y.int()
    x_low = x.int()
    y_high = torch.where(y_low >= height - 1, height - 1, y_low + 1)
    y_low = torch.where(y_low >= height - 1, height - 1, y_low)
    y = torch.where(y_low >= height - 1, y.to(input.dtype), y)
    x_high = torch.where(x_low >= width - 1, width - 1, x_low + 1)
    x_low = torch.where(x_low >= width - 1, width - 1, x_low)
    x = torch.where(x_low >= width - 1, x.to(input.dtype), x)
    ly = y - y_low
    lx = x - x_low
    hy = 1.0 - ly
    hx = 1.0 - lx

    def masked_index(y, x):
        y = torch.where(ymask[:, None, :], y, 0)
        x = torch.where(xmask[:, None, :], x, 0)
        return input[roi_batch_ind[:, None, None, None, None, None],
                     torch.arange(channels)[None, :, None, None, None, None],
                     y[:, None, :, None, :, None], x[:, None, None, :, None, :]]

    v1 = masked_index(y_low, x_low)
    v2 = masked_index(y_low, x_high)
    v3 = masked_index(y_high, x_low)
    v4 = masked_index(y_high, x_high)

    def outer_prod(y, x):
        return y[:, None, :, None, :, None] * x[:, None, None, :, None, :]

    return outer_prod(hy, hx) * v1 + outer_prod(hy, lx) * v2 + outer_prod(ly, hx) * v3 + outer_prod(ly, lx) * v4


def roi_align_ref(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
    orig_dtype = input.dtype
    _, _, height, width = input.size()
    ph = torch.arange(pooled_height)
    pw = torch.arange(pooled_width)
    roi_batch_ind = rois[:, 0].int()
    offset = 0.5 if aligned else 0.0
    roi_start_w = rois[:, 1] * spatial_scale - offset
    roi_start_h = rois[:, 2] * spatial_scale - offset
    roi_end_w = rois[:, 3] * spatial_scale - offset
    roi_end_h = rois[:, 4] * spatial_scale - offset
    roi_width = roi_end_w - roi_start_w
    roi_height = roi_end_h - roi_start_h
    if not aligned:
        roi_width = torch.clamp(roi_width, min=1.0)
        roi_height = torch.clamp(roi_height, min=1.0)
    bin_size_h = roi_height / pooled_height
    bin_size_w = roi_width / pooled_width
    exact_sampling = sampling_ratio > 0
    roi_bin_grid_h = sampling_ratio if exact_sampling else torch.ceil(roi_height / pooled_height)
    roi_bin_grid_w = sampling_ratio if exact_sampling else torch.ceil(roi_width / pooled_width)
    if exact_sampling:
        count = max(roi_bin_grid_h * roi_bin_grid_w, 1)
        iy = torch.arange(roi_bin_grid_h)
        ix = torch.arange(roi_bin_grid_w)
        ymask = None
        xmask = None
    else:
        count = torch.clamp(roi_bin_grid_h * roi_bin_grid_w, min=1)
        iy = torch.arange(height)
        ix = torch.arange(width)
        ymask = iy[None, :] < roi_bin_grid_h[:, None]
        xmask = ix[None, :] < roi_bin_grid_w[:, None]

    def from_K(t):
        return t[:, None, None]

    y = (from_K(roi_start_h) + ph[None, :, None] * from_K(bin_size_h)
         + (iy[None, None, :] + 0.5).to(input.dtype) * from_K(bin_size_h / roi_bin_grid_h))
    x = (from_K(roi_start_w) + pw[None, :, None] * from_K(bin_size_w)
         + (ix[None, None, :] + 0.5).to(input.dtype) * from_K(bin_size_w / roi_bin_grid_w))
    if ymask is None:
        ymask = torch.ones_like(y[:, 0, :], dtype=torch.bool)
        xmask = torch.ones_like(x[:, 0, :], dtype=torch.bool)
    val = _bilinear_interpolate(input, roi_batch_ind, y, x, ymask, xmask)
    if not exact_sampling:
        val = torch.where(ymask[:, None, None, None, :, None], val, 0)
        val = torch.where(xmask[:, None, None, None, None, :], val, 0)
    output = val.sum((-1, -2))
    if isinstance(count, torch.Tensor):
        output /= count[:, None, None, None]
    else:
        output /= count
    return output.to(orig_dtype)


def roi_align_grid(input, rois, scale, out_hw, s):
    n = rois.shape[0]
    x1, y1, x2, y2 = (rois[:, 1:] * scale - 0.5).unbind(1)
    H, W = input.shape[-2:]
    oh, ow = out_hw
    ty = (torch.arange(oh * s, dtype=input.dtype) + 0.5) / (oh * s)
    tx = (torch.arange(ow * s, dtype=input.dtype) + 0.5) / (ow * s)
    ys = y1[:, None] + ty[None] * (y2 - y1)[:, None]
    xs = x1[:, None] + tx[None] * (x2 - x1)[:, None]
    gy = (ys + 0.5) / H * 2 - 1
    gx = (xs + 0.5) / W * 2 - 1
    grid = torch.stack([gx[:, None, :].expand(n, oh * s, ow * s), gy[:, :, None].expand(n, oh * s, ow * s)], -1)
    feats = input[rois[:, 0].long()]
    samp = F.grid_sample(feats, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return F.avg_pool2d(samp, s)


feat = torch.randn(2, 3, 10, 12, requires_grad=True)
rois = torch.tensor([[0, 4.0, 4.0, 20.0, 16.0], [1, 0.0, 2.0, 9.0, 19.0], [0, 10.0, 6.0, 22.0, 18.0],
                     [1, 13.0, 1.0, 15.0, 3.0]])
ref = roi_align_ref(feat, rois, 0.5, 3, 3, 2, True)
print("ref", tuple(ref.shape), ref[0, 0])
grid_out = roi_align_grid(feat, rois, 0.5, (3, 3), 2)
print("grid_sample (border) matches ref", torch.allclose(ref, grid_out, atol=1e-5))
zeros_pad = F.grid_sample(feat[:1], torch.zeros(1, 1, 1, 2) - 1.05, padding_mode="zeros", align_corners=False)
print("zeros padding corner", zeros_pad.flatten(), "ref edge", feat[0, :, 0, 0])
adaptive = roi_align_ref(feat, rois, 0.5, 3, 3, -1, True)
print("adaptive sampling", adaptive[:, 0, 1, 1])
unaligned = roi_align_ref(feat, rois, 0.5, 2, 2, -1, False)
print("aligned=False adaptive", unaligned[:, 1].flatten(1))
(ref.square().sum() + adaptive.sum()).backward()
print("feat grad", round(feat.grad.abs().sum().item(), 4), feat.grad[0, 0, 2:5, 2:6])
print("grad nonzero px", (feat.grad.abs().sum(1) > 0).sum().tolist())

# RoI max pooling: quantize to the feature grid, then adaptive max pool per roi
pooled = []
for r in rois:
    b = int(r[0])
    x1, y1, x2, y2 = (r[1:] * 0.5).round().long().tolist()
    crop = feat[b:b + 1, :, y1:max(y2, y1) + 1, x1:max(x2, x1) + 1]
    pooled.append(F.adaptive_max_pool2d(crop, (2, 2), return_indices=False))
pooled = torch.cat(pooled)
print("roi pool", tuple(pooled.shape), pooled[:, 0].flatten(1))
_, idx = F.adaptive_max_pool2d(feat[:1, :1, 2:9, 2:11], (2, 2), return_indices=True)
print("argmax indices", idx.flatten().tolist())


# LevelMapper over P2-P5
def map_levels(boxes, k_min=2, k_max=5, canonical_scale=224, canonical_level=4, eps=1e-6):
    s = torch.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
    target = torch.floor(canonical_level + torch.log2(s / canonical_scale) + torch.tensor(eps, dtype=s.dtype))
    target = torch.clamp(target, min=k_min, max=k_max)
    return (target.to(torch.int64) - k_min).to(torch.int64)


scales = [2 ** -k for k in range(2, 6)]
print("scales", scales, "from shapes", [2 ** float(torch.tensor(s).log2().round()) for s in scales])
boxes = torch.tensor([[0.0, 0.0, 32.0, 32.0], [0.0, 0.0, 112.0, 112.0], [0.0, 0.0, 224.0, 224.0],
                      [10.0, 10.0, 500.0, 460.0], [0.0, 0.0, 1000.0, 900.0], [5.0, 5.0, 7.0, 9.0]])
levels = map_levels(boxes)
print("levels", levels.tolist(), "log2", torch.log2(torch.sqrt((boxes[:, 2:] - boxes[:, :2]).prod(1)) / 224))
fpn = [torch.randn(1, 2, 256 // 2 ** k, 256 // 2 ** k) for k in range(2, 6)]
rois5 = torch.cat([torch.zeros(len(boxes), 1), boxes.clamp(max=255.0)], 1)
result = torch.zeros(len(boxes), 2, 2, 2)
for lvl, (f, sc) in enumerate(zip(fpn, scales)):
    idx_in_level = torch.where(levels == lvl)[0]
    if idx_in_level.numel():
        result[idx_in_level] = roi_align_ref(f, rois5[idx_in_level], sc, 2, 2, 2, False).to(result.dtype)
    print(f"level {lvl}: shape {tuple(f.shape)} rois {idx_in_level.tolist()}")
print("multiscale", result[:, 0].flatten(1))
print("half input", roi_align_ref(feat.detach().double(), rois[:2].double(), 0.5, 2, 2, 1, True).dtype,
      math.isclose(roi_align_ref(feat.detach().double(), rois[:1].double(), 0.5, 2, 2, 1, True)[0, 0, 0, 0].item(),
                   roi_align_ref(feat.detach(), rois[:1], 0.5, 2, 2, 1, True)[0, 0, 0, 0].item(), abs_tol=1e-5))
