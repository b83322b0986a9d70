"""The mistakes registration code makes and what PyTorch answers: (x, y) vs (z, y, x) grid order, voxel displacements
not normalised, align_corners mismatches between affine_grid and grid_sample, in-place writes into a grid that
autograd saved, an identity grid built with the wrong meshgrid indexing, and dtype/shape slips."""

import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
img = torch.zeros(1, 1, 4, 6)
img[0, 0, 1, 4] = 1.0
ident = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])

# 1. align_corners mismatch: identity affine no longer reproduces the image
for ag in (False, True):
    for gs in (False, True):
        out = F.grid_sample(img, F.affine_grid(ident, img.shape, align_corners=ag), align_corners=gs)
        print("align", ag, gs, torch.allclose(out, img), round(out.max().item(), 4), out.nonzero().tolist()[:2])

# 2. grid last dim is (x, y): a translation along y written in the x slot
theta = ident.clone()
theta[0, 1, 2] = 0.5  # shift y
good = F.grid_sample(img, F.affine_grid(theta, img.shape, align_corners=False), align_corners=False)
bad = F.grid_sample(img, F.affine_grid(theta, img.shape, align_corners=False).flip(-1), align_corners=False)
print("xy order", good.nonzero().tolist(), bad.nonzero().tolist())

# 3. meshgrid indexing: "xy" swaps the first two dims
ys, xs = torch.arange(4.0), torch.arange(6.0)
gy_ij, gx_ij = torch.meshgrid(ys, xs, indexing="ij")
gx_xy, gy_xy = torch.meshgrid(xs, ys, indexing="xy")
print("meshgrid", gy_ij.shape, gx_xy.shape, torch.equal(gx_ij, gx_xy), torch.equal(gy_ij, gy_xy))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.meshgrid(ys, xs)
print("meshgrid warning", len(w), str(w[0].message)[:80] if w else None)
print(torch.meshgrid(ys[:2], xs[:3], indexing="xy")[0])

# 4. voxel displacements fed to grid_sample without normalisation
disp_vox = torch.zeros(1, 4, 6, 2)
disp_vox[..., 0] = 1.0  # one voxel to the right
base = torch.stack([gx_ij / 5 * 2 - 1, gy_ij / 3 * 2 - 1], -1)[None]
raw = F.grid_sample(img, base + disp_vox, align_corners=True)
norm = F.grid_sample(img, base + disp_vox * torch.tensor([2 / 5, 2 / 3]), align_corners=True)
print("unnormalised", raw.nonzero().tolist(), "normalised", norm.nonzero().tolist())

# 5. in-place edits of a grid saved for backward
g = F.affine_grid(ident.clone().requires_grad_(True), img.shape, align_corners=False)
x = img.clone().requires_grad_(True)
out = F.grid_sample(x, g, align_corners=False)
g[..., 0] += 0.1
try:
    out.sum().backward()
except RuntimeError as e:
    print("inplace", str(e)[:150])
print("version", g._version)
leaf = torch.zeros(1, 2, 2, 2, requires_grad=True)
try:
    leaf[..., 0] = 1.0
except RuntimeError as e:
    print("leaf", e)
with torch.no_grad():
    leaf[..., 0] = 1.0
print("no_grad write", leaf.requires_grad, leaf.grad_fn, leaf._version)

# 6. dtype and shape slips
cases = [
    lambda: F.grid_sample(img, base.double(), align_corners=True),
    lambda: F.grid_sample(img.double(), base, align_corners=True),
    lambda: F.grid_sample(img, base.permute(0, 3, 1, 2), align_corners=True),
    lambda: F.grid_sample(img[0], base, align_corners=True),
    lambda: F.affine_grid(ident, img.shape[1:], align_corners=False),
    lambda: F.affine_grid(ident.view(2, 3), img.shape, align_corners=False),
    lambda: F.affine_grid(torch.eye(3)[None], img.shape, align_corners=False),
    lambda: F.affine_grid(ident, (1, 1, 4, 6, 2), align_corners=False),
    lambda: F.grid_sample(img, base, mode="linear", align_corners=True),
    lambda: F.grid_sample(img, base, align_corners="yes"),
    lambda: F.affine_grid(ident, [1, 1, 4.0, 6], align_corners=False),
    lambda: torch.meshgrid(ys, xs, indexing="yx"),
    lambda: torch.meshgrid(ys.view(2, 2), xs, indexing="ij"),
    lambda: torch.meshgrid(ys, xs.long(), indexing="ij"),
    lambda: torch.meshgrid(),
    lambda: F.grid_sample(img.expand(2, 1, 4, 6), base, align_corners=True),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", tuple(r.shape) if isinstance(r, torch.Tensor) else [tuple(t.shape) for t in r])
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0].split(" but got:")[0][:200])

# 7. gradient of grid_sample is zero with nearest: the grid learns nothing
th = ident.clone().requires_grad_(True)
F.grid_sample(
    torch.rand(1, 1, 4, 6), F.affine_grid(th, img.shape, align_corners=False), mode="nearest", align_corners=False
).sum().backward()
print("nearest theta grad", th.grad.abs().sum().item())
th.grad = None
F.grid_sample(
    torch.rand(1, 1, 4, 6),
    F.affine_grid(th, img.shape, align_corners=False),
    padding_mode="border",
    align_corners=False,
).sum().backward()
print("bilinear theta grad", th.grad.abs().sum().item() > 0, th.grad.round(decimals=4))
