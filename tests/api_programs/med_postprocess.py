"""Segmentation post-processing without scipy: binary morphology (dilation/erosion/opening/closing) by max_pool3d,
connected-component labelling by iterative max-pooling of voxel ids, keeping the largest component with
unique(return_counts), hole filling by flood from the border, and a test-time-augmentation vote with mode/argmax."""

import torch
import torch.nn.functional as F

mask = torch.zeros(1, 1, 6, 9, 9, dtype=torch.bool)
mask[0, 0, 1:5, 1:5, 1:5] = True
mask[0, 0, 2:4, 2:4, 2:4] = False  # a cavity
mask[0, 0, 1:3, 6:8, 6:8] = True
mask[0, 0, 5, 0, 8] = True
print("voxels", mask.sum().item(), mask.dtype)


def dilate(m, k=3):
    return F.max_pool3d(m.float(), k, stride=1, padding=k // 2) > 0


def erode(m, k=3):
    return -F.max_pool3d(-m.float(), k, stride=1, padding=k // 2) > 0


def erode_border(m, k=3):
    padded = F.pad(m.float(), [k // 2] * 6, mode="replicate")
    return -F.max_pool3d(-padded, k, stride=1) > 0


print(
    "dilate",
    dilate(mask).sum().item(),
    "erode",
    erode(mask).sum().item(),
    "erode replicate",
    erode_border(mask).sum().item(),
)
print("open", dilate(erode(mask)).sum().item(), "close", erode(dilate(mask)).sum().item())
aniso = F.max_pool3d(mask.float(), (1, 3, 3), stride=1, padding=(0, 1, 1))
print("in-plane dilate", aniso.sum().item(), aniso.dtype)
boundary = mask & ~erode(mask)
print("boundary", boundary.sum().item(), torch.logical_and(mask, torch.logical_not(erode(mask))).equal(boundary))


def connected_components(m, max_iter=100):
    ids = torch.arange(1, m.numel() + 1, dtype=torch.float32).view(m.shape)
    lab = torch.where(m, ids, torch.zeros(()))
    for it in range(max_iter):
        nxt = F.max_pool3d(lab, 3, stride=1, padding=1) * m
        if torch.equal(nxt, lab):
            break
        lab = nxt
    return lab.long(), it


cc, iters = connected_components(mask)
vals, counts = torch.unique(cc[cc > 0], return_counts=True)
print("components", vals.numel(), sorted(counts.tolist()), "iterations", iters)
relabel = torch.zeros_like(cc)
for new, v in enumerate(vals.tolist(), 1):
    relabel[cc == v] = new
print("relabelled", torch.bincount(relabel.flatten()).tolist())
_, inverse = torch.unique(cc, sorted=True, return_inverse=True)
print("unique inverse", inverse.shape, inverse.max().item(), inverse.dtype)
largest = cc == vals[counts.argmax()]
print("largest", largest.sum().item())
keep = torch.isin(cc, vals[counts >= 8])
print(
    "min size filter", keep.sum().item(), torch.isin(torch.tensor([0, 3, 5]), torch.tensor([3]), invert=True).tolist()
)

bg = ~largest
seed = torch.zeros_like(bg)
seed[..., 0, :, :] = seed[..., -1, :, :] = True
seed[..., :, 0, :] = seed[..., :, -1, :] = True
seed[..., :, :, 0] = seed[..., :, :, -1] = True
outside = seed & bg
for _ in range(50):
    grown = (F.max_pool3d(outside.float(), 3, 1, 1) > 0) & bg
    if torch.equal(grown, outside):
        break
    outside = grown
filled = ~outside
print("filled", filled.sum().item(), "holes", (filled & ~largest).sum().item())

torch.manual_seed(0)
logits = torch.randn(4, 3, 2, 3, 3)
votes = logits.argmax(1)
maj, _ = torch.mode(votes, dim=0)
print("mode vote", maj.flatten().tolist())
mean_prob = logits.softmax(1).mean(0)
print("mean prob argmax", mean_prob.argmax(0).flatten().tolist())
cnt = F.one_hot(votes, 3).sum(0)
print("vote counts", cnt.shape, cnt.max(-1).values.flatten().tolist())
idx_pool = F.max_pool3d(logits[:, :1], 2, stride=2, return_indices=True, ceil_mode=True)
print("indices", idx_pool[1].shape, idx_pool[1].flatten()[:4].tolist())
print("adaptive max", F.adaptive_max_pool3d(mask.float(), (2, 3, 3)).flatten().tolist())
print("bool pool", F.max_pool3d(mask[0].to(torch.uint8), 3, 1, 1).sum().item())
for bad in [
    lambda: F.max_pool3d(mask.float(), 3, stride=1, padding=2),
    lambda: F.max_pool3d(mask.float(), 0),
    lambda: F.max_pool3d(mask.float()[0, 0, 0], 3),
    lambda: F.max_pool3d(mask, 3, 1, 1),
    lambda: torch.mode(votes, dim=5),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
