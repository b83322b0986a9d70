"""Mask2Former/PointRend point supervision: point_sample through grid_sample on [0, 1] coordinates (3-D grids
unsqueezed to 4-D), importance sampling of uncertain points with topk over oversampled candidates, sigmoid CE and
dice on sampled points, PointRend's subdivision step that scatter_s refined logits back into an upsampled coarse
mask, and mask-classification inference by einsum."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


def point_sample(inp, coords, **kw):
    add_dim = coords.dim() == 3
    if add_dim:
        coords = coords.unsqueeze(2)
    out = F.grid_sample(inp, 2.0 * coords - 1.0, **kw)
    return out.squeeze(3) if add_dim else out


def uncertain_points(logits, n, oversample=3.0, importance=0.75):
    b = logits.shape[0]
    k = int(n * oversample)
    cand = torch.rand(b, k, 2)
    vals = point_sample(logits, cand, align_corners=False)
    unc = -vals.abs()
    ni = int(importance * n)
    idx = torch.topk(unc[:, 0, :], k=ni, dim=1)[1]
    shift = k * torch.arange(b, dtype=torch.long)
    idx = idx + shift[:, None]
    chosen = cand.view(-1, 2)[idx.view(-1), :].view(b, ni, 2)
    return torch.cat([chosen, torch.rand(b, n - ni, 2)], 1)


pred_masks = torch.randn(3, 1, 8, 8, requires_grad=True)
tgt_masks = (torch.rand(3, 1, 32, 32) > 0.5).float()
with torch.no_grad():
    coords = uncertain_points(pred_masks, 12)
print("coords", tuple(coords.shape), bool(((coords >= 0) & (coords <= 1)).all()))
pl = point_sample(pred_masks, coords, align_corners=False).squeeze(1)
tl = point_sample(tgt_masks, coords, align_corners=False).squeeze(1)
print(
    "point logits",
    tuple(pl.shape),
    pl.grad_fn.name(),
    "labels in {0,1}",
    bool(((tl == 0) | (tl == 1) | ((tl > 0) & (tl < 1))).all()),
)
ce = F.binary_cross_entropy_with_logits(pl, tl, reduction="none").mean(1)
p = pl.sigmoid()
dice = 1 - (2 * (p * tl).sum(-1) + 1) / (p.sum(-1) + tl.sum(-1) + 1)
loss = (ce + dice).sum() / 3
loss.backward()
print("losses", ce.shape, r(loss), r(pred_masks.grad.abs().sum()))

grid = torch.tensor([[[0.0, 0.0], [1.0, 1.0], [0.5, 0.5]]])
img = torch.arange(16.0).view(1, 1, 4, 4)
print(
    "corners",
    point_sample(img, grid, align_corners=False).flatten().tolist(),
    point_sample(img, grid, align_corners=True).flatten().tolist(),
)
print("nearest", point_sample(img, grid, mode="nearest", align_corners=True).flatten().tolist())

coarse = torch.randn(2, 1, 7, 7)
fine_feat = torch.randn(2, 4, 28, 28)
head = nn.Conv1d(5, 1, 1)
x = coarse
for step in range(2):
    x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
    n, _, h, w = x.shape
    unc = -x.abs().view(n, h * w)
    npts = min(h * w, 20)
    idx = unc.topk(npts, dim=1)[1]
    step_h, step_w = 1.0 / h, 1.0 / w
    pc = torch.zeros(n, npts, 2)
    pc[:, :, 0] = step_w / 2.0 + (idx % w).float() * step_w
    pc[:, :, 1] = step_h / 2.0 + torch.div(idx, w, rounding_mode="floor").float() * step_h
    fine = point_sample(fine_feat, pc, align_corners=False)
    crs = point_sample(coarse, pc, align_corners=False)
    with torch.no_grad():
        refined = head(torch.cat([fine, crs], 1))
    x = x.reshape(n, 1, h * w).scatter_(2, idx.unsqueeze(1), refined).view(n, 1, h, w)
    print("subdivide", step, tuple(x.shape), idx[0, :4].tolist(), r(x.sum()))

q, c, hw = 5, 4, 6
cls_logits = torch.randn(2, q, c + 1)
mask_logits = torch.randn(2, q, hw, hw)
probs = cls_logits.softmax(-1)[..., :-1]
sem = torch.einsum("bqc,bqhw->bchw", probs, mask_logits.sigmoid())
print("semantic", tuple(sem.shape), r(sem.sum()), sem.argmax(1)[0, 0].tolist())
scores, labels = cls_logits.softmax(-1).max(-1)
keep = labels.ne(c) & (scores > 0.2)
print("kept queries", keep.sum(1).tolist(), labels[keep].tolist())
cur = scores[keep][:, None, None] * mask_logits[keep].sigmoid()
print("panoptic argmax", cur.argmax(0).flatten().bincount(minlength=int(keep.sum())).tolist())
print("einsum transposed", torch.einsum("qc,qhw->chw", probs[0], mask_logits[0]).shape)

for bad in [
    lambda: F.grid_sample(img, grid),
    lambda: torch.einsum("bqc,bqhw->bchw", probs, mask_logits[:, :4]),
    lambda: torch.zeros(2, 1, 4).scatter_(2, torch.tensor([[[0, 5]], [[1, 2]]]), torch.ones(2, 1, 2)),
    lambda: torch.zeros(2, 1, 4).scatter_(2, torch.tensor([[[0, 1]]]).float(), 1.0),
    lambda: unc.topk(100, dim=1).values.shape,
    lambda: unc.topk(1000, dim=1),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
