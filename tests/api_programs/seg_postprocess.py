"""Mask post-processing without scipy: connected components by iterative max_pool2d label propagation,
relabelling with torch.unique(return_inverse, return_counts), small-component removal, hole filling by
flood fill from the border, masks_to_boxes by min/max over where, and morphological open/close by pooling."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

mask = torch.zeros(1, 1, 10, 12, dtype=torch.bool)
mask[0, 0, 1:4, 1:4] = True
mask[0, 0, 6:9, 2:5] = True
mask[0, 0, 2:8, 8:11] = True
mask[0, 0, 4:6, 9] = False
mask[0, 0, 0, 11] = True
mask[0, 0, 9, 6] = True


def components(mask, iters=100):
    h, w = mask.shape[-2:]
    ids = torch.arange(1, h * w + 1, dtype=torch.float32).reshape(1, 1, h, w)
    lab = torch.where(mask, ids, torch.zeros(()))
    for i in range(iters):
        new = F.max_pool2d(lab, 3, stride=1, padding=1) * mask
        if torch.equal(new, lab):
            break
        lab = new
    return lab.long(), i


lab, steps = components(mask)
print("steps", steps)
vals, inv, counts = torch.unique(lab, return_inverse=True, return_counts=True)
print("unique", vals.tolist(), counts.tolist(), inv.shape, inv.dtype)
print(inv[0, 0].tolist())
keep = counts >= 3
keep[0] = False
cleaned = keep[inv]
print("kept pixels", int(cleaned.sum()), "components", int(keep.sum()))
u2, c2 = torch.unique(inv[cleaned], sorted=True, return_counts=True)
print("sizes", u2.tolist(), c2.tolist())
uc, ic, cc = torch.unique_consecutive(torch.tensor([3, 3, 1, 1, 1, 3, 2, 2]), return_inverse=True, return_counts=True)
print("unique_consecutive", uc.tolist(), ic.tolist(), cc.tolist())
rows = torch.tensor([[1, 2], [0, 1], [1, 2], [3, 0]])
ur, ir = torch.unique(rows, dim=0, return_inverse=True)
print("unique rows", ur.tolist(), ir.tolist())


def masks_to_boxes(masks):
    h, w = masks.shape[-2:]
    y = torch.arange(h, dtype=torch.float32)
    x = torch.arange(w, dtype=torch.float32)
    yy, xx = torch.meshgrid(y, x, indexing="ij")
    big = torch.tensor(1e8)
    xs = torch.where(masks, xx, big).flatten(1).min(-1).values
    ys = torch.where(masks, yy, big).flatten(1).min(-1).values
    xe = (masks * xx).flatten(1).max(-1).values
    ye = (masks * yy).flatten(1).max(-1).values
    return torch.stack([xs, ys, xe, ye], 1)


inst = torch.stack([inv[0, 0] == k for k in range(1, len(vals))])
print("boxes", masks_to_boxes(inst).tolist())
areas = inst.sum((1, 2))
print("areas", areas.tolist(), areas.dtype, torch.argsort(areas, descending=True, stable=True).tolist())
nz = inst[2].nonzero()
print(
    "nonzero box", nz.min(0).values.tolist(), nz.max(0).values.tolist(), inst[2].nonzero(as_tuple=True)[0][:3].tolist()
)
ys, xs = torch.where(inst[0])
print("where", ys.tolist()[:4], xs.tolist()[:4])

m = mask.float()
dil = F.max_pool2d(m, 3, 1, 1)
ero = -F.max_pool2d(-m, 3, 1, 1)
opened = F.max_pool2d(-F.max_pool2d(-m, 3, 1, 1), 3, 1, 1)
closed = -F.max_pool2d(-F.max_pool2d(m, 3, 1, 1), 3, 1, 1)
print("dil/ero/open/close", int(dil.sum()), int(ero.sum()), int(opened.sum()), int(closed.sum()))
edge = dil - ero
print("edge pixels", int(edge.sum()), edge.dtype)

bg = ~mask
seed = torch.zeros_like(m)
seed[..., 0, :] = 1
seed[..., -1, :] = 1
seed[..., :, 0] = 1
seed[..., :, -1] = 1
seed = seed * bg
for _ in range(50):
    grown = F.max_pool2d(seed, 3, 1, 1) * bg
    if torch.equal(grown, seed):
        break
    seed = grown
filled = mask | ~seed.bool()
print("holes filled", int(filled.sum() - mask.sum()))

score = torch.rand(1, 1, 10, 12)
pooled, idx = F.max_pool2d(score, 2, return_indices=True)
print("pool indices", idx[0, 0, 0].tolist(), F.max_unpool2d(pooled, idx, 2)[0, 0, 0].round(decimals=4).tolist())
bmask = mask.to(torch.uint8) * 255
print("uint8 mask", bmask.dtype, bmask.sum().item(), (bmask > 127).sum().item())

for bad in [
    lambda: F.max_pool2d(mask, 3, 1, 1),
    lambda: torch.unique(rows, dim=2),
    lambda: keep[inv.float()],
    lambda: torch.where(mask, 1.0),
    lambda: F.max_pool2d(m, 3, 1, padding=2),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
