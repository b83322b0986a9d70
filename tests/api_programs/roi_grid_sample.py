"""RoI feature extraction in pure torch: RoIAlign built from affine_grid + grid_sample (theta from boxes, both
align_corners), a sampling-ratio RoIAlign with bilinear gathers, RoIPool via adaptive_max_pool2d with indices, the
padding modes and bicubic/nearest sampling, gradients to the features and to theta, a multi-scale level assignment,
and grid_sample/affine_grid errors."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(13)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


feat = T(2, 3, 8, 10)
rois = torch.tensor([[0, 1.0, 1.0, 6.0, 5.0], [1, 0.5, 2.0, 9.0, 7.5], [0, 3.0, 0.0, 4.0, 7.0]])


def roi_theta(rois, H, W):
    x1, y1, x2, y2 = rois[:, 1], rois[:, 2], rois[:, 3], rois[:, 4]
    theta = torch.zeros(rois.shape[0], 2, 3)
    theta[:, 0, 0] = (x2 - x1) / W
    theta[:, 0, 2] = (x1 + x2) / W - 1
    theta[:, 1, 1] = (y2 - y1) / H
    theta[:, 1, 2] = (y1 + y2) / H - 1
    return theta


theta = roi_theta(rois, 8, 10)
print("theta", r(theta, 12))
for ac in (False, True):
    grid = F.affine_grid(theta, [3, 3, 4, 4], align_corners=ac)
    crops = F.grid_sample(feat[rois[:, 0].long()], grid, mode="bilinear", padding_mode="zeros", align_corners=ac)
    print("affine", ac, tuple(grid.shape), r(grid[0, 0], 4), r(crops[0, 0, 0]), r(crops.sum((2, 3)), 6))
grid = F.affine_grid(theta, [3, 3, 4, 4], align_corners=False)
src = feat[rois[:, 0].long()]
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        out = F.grid_sample(src, grid * 1.3, mode=mode, padding_mode=pad, align_corners=False)
        print("sample", mode, pad, r(out[1, 2, 3]), round(out.sum().item(), 4))


def bilinear(fm, y, x):
    H, W = fm.shape[-2:]
    valid = (y >= -1) & (y <= H) & (x >= -1) & (x <= W)
    y, x = y.clamp(min=0), x.clamp(min=0)
    y_low, x_low = y.floor().long().clamp(max=H - 1), x.floor().long().clamp(max=W - 1)
    y_high, x_high = (y_low + 1).clamp(max=H - 1), (x_low + 1).clamp(max=W - 1)
    y = torch.where(y_low >= H - 1, y_low.to(y.dtype), y)
    x = torch.where(x_low >= W - 1, x_low.to(x.dtype), x)
    ly, lx = y - y_low, x - x_low
    hy, hx = 1 - ly, 1 - lx
    v = (hy * hx * fm[:, y_low, x_low] + hy * lx * fm[:, y_low, x_high] + ly * hx * fm[:, y_high, x_low]
         + ly * lx * fm[:, y_high, x_high])
    return v * valid


def roi_align(feat, rois, out=(2, 2), scale=1.0, sampling_ratio=2, aligned=True):
    res = []
    off = 0.5 if aligned else 0.0
    for roi in rois:
        b = int(roi[0])
        x1, y1, x2, y2 = (roi[1:] * scale - off).unbind()
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = rw.clamp(min=1.0), rh.clamp(min=1.0)
        bh, bw = rh / out[0], rw / out[1]
        iy = torch.arange(out[0]).repeat_interleave(sampling_ratio)
        sy = torch.arange(sampling_ratio).repeat(out[0])
        ys = y1 + iy * bh + (sy + 0.5) * bh / sampling_ratio
        ix = torch.arange(out[1]).repeat_interleave(sampling_ratio)
        sx = torch.arange(sampling_ratio).repeat(out[1])
        xs = x1 + ix * bw + (sx + 0.5) * bw / sampling_ratio
        yy, xx = torch.meshgrid(ys, xs, indexing="ij")
        v = bilinear(feat[b], yy, xx)
        v = v.view(feat.shape[1], out[0], sampling_ratio, out[1], sampling_ratio).mean(dim=(2, 4))
        res.append(v)
    return torch.stack(res)


ra = roi_align(feat, rois)
rb = roi_align(feat, rois, aligned=False, sampling_ratio=1)
print("roi_align", tuple(ra.shape), r(ra[0, 0], 4), r(ra[1].sum((1, 2)), 3), r(rb[2, 1], 4))
fg = feat.clone().requires_grad_()
roi_align(fg, rois, out=(3, 3)).pow(2).sum().backward()
print("roi grad", round(fg.grad.abs().sum().item(), 4), int((fg.grad != 0).sum()), r(fg.grad[0, 0, 1], 10))

pooled, idx = [], []
for roi in rois:
    b, x1, y1, x2, y2 = roi[0].long(), *roi[1:].round().long().tolist()
    p, i = F.adaptive_max_pool2d(feat[b, :, y1:y2 + 1, x1:x2 + 1], (2, 2), return_indices=True)
    pooled.append(p)
    idx.append(i)
pooled = torch.stack(pooled)
print("roi_pool", tuple(pooled.shape), r(pooled[0, 0], 4), idx[0][0].tolist(), idx[2].dtype)

# gradients through grid_sample to the features and to theta (a spatial-transformer crop)
th = theta[:1].clone().requires_grad_()
fm = feat[:1].clone().requires_grad_()
g = F.affine_grid(th, [1, 3, 5, 5], align_corners=False)
o = F.grid_sample(fm, g, mode="bilinear", padding_mode="border", align_corners=False)
(o * torch.linspace(-1, 1, 5)).sum().backward()
print("theta grad", r(th.grad, 6), round(fm.grad.sum().item(), 4), g.grad_fn.name(), o.grad_fn.name())
gg = F.affine_grid(theta[:1], [1, 3, 5, 5], align_corners=True).requires_grad_()
F.grid_sample(feat[:1], gg, mode="bicubic", align_corners=True).sum().backward()
print("grid grad", tuple(gg.grad.shape), r(gg.grad[0, 2], 6))
ident = F.affine_grid(torch.eye(2, 3).unsqueeze(0), [1, 3, 8, 10], align_corners=True)
print("identity", torch.allclose(F.grid_sample(feat[:1], ident, align_corners=True), feat[:1], atol=1e-5))
g3 = F.affine_grid(torch.eye(3, 4).unsqueeze(0), [1, 1, 2, 3, 4], align_corners=False)
vol = torch.arange(24.0).view(1, 1, 2, 3, 4)
print("3d", tuple(g3.shape), torch.allclose(F.grid_sample(vol, g3, align_corners=False), vol))

# level assignment for multi-scale pooling
areas = (rois[:, 3] - rois[:, 1]) * (rois[:, 4] - rois[:, 2])
lvl = torch.clamp(torch.floor(4 + torch.log2(torch.sqrt(areas * 64) / 224 + 1e-6)), 2, 5).long()
print("levels", r(areas), lvl.tolist(), [torch.where(lvl == k)[0].tolist() for k in lvl.unique().tolist()])

try:
    F.grid_sample(feat, torch.zeros(2, 4, 4, 3), align_corners=False)
except RuntimeError as e:
    print("grid err", type(e).__name__, str(e)[:120])
try:
    F.affine_grid(torch.zeros(1, 3, 3), [1, 3, 4, 4], align_corners=False)
except ValueError as e:
    print("theta err", type(e).__name__, str(e)[:120])
try:
    F.grid_sample(feat, torch.zeros(2, 4, 4, 2), mode="area")
except ValueError as e:
    print("mode err", type(e).__name__, e)
try:
    F.grid_sample(feat, torch.zeros(3, 4, 4, 2), align_corners=False)
except RuntimeError as e:
    print("batch err", type(e).__name__, str(e)[:120])
try:
    F.grid_sample(torch.zeros(1, 1, 2, 2, 2), torch.zeros(1, 2, 2, 2, 3), mode="bicubic")
except RuntimeError as e:
    print("bicubic 3d err", type(e).__name__, str(e)[:120])
