"""A 2-D spatial transformer as registration code writes it: affine_grid + grid_sample over every mode,
padding_mode and align_corners, gradients to the image and the grid, float64/float16 inputs and their errors."""

import warnings

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4)
torch.manual_seed(0)
img = torch.arange(20.0).view(1, 1, 4, 5) / 10
theta = torch.tensor([[[0.9, -0.2, 0.15], [0.25, 1.1, -0.3]]])

for ac in (False, True):
    grid = F.affine_grid(theta, (1, 1, 3, 4), align_corners=ac)
    print("grid", ac, grid.shape, grid.stride(), grid[0, 0].tolist() == grid[0, 0].tolist())
    print(grid[0, :, 1].round(decimals=4))
    for mode in ("bilinear", "nearest", "bicubic"):
        for pm in ("zeros", "border", "reflection"):
            out = F.grid_sample(img, grid * 1.4, mode=mode, padding_mode=pm, align_corners=ac)
            print(mode, pm, ac, out.flatten().round(decimals=4).tolist())

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    g = F.affine_grid(theta, (1, 1, 3, 4))
    o = F.grid_sample(img, g)
print("warnings", len(w), [str(x.message)[:60] for x in w], [x.category.__name__ for x in w])

# gradients through both inputs
x = img.clone().double().requires_grad_(True)
th = theta.clone().double().requires_grad_(True)
for mode in ("bilinear", "bicubic", "nearest"):
    x.grad = None
    th.grad = None
    g = F.affine_grid(th, (1, 1, 3, 4), align_corners=False)
    out = F.grid_sample(x, g, mode=mode, padding_mode="reflection", align_corners=False)
    (out * torch.linspace(-1, 1, 12, dtype=torch.float64).view(1, 1, 3, 4)).sum().backward()
    print(mode, out.dtype, out.grad_fn.name(), x.grad.flatten().round(decimals=4).tolist())
    print(" theta grad", th.grad.round(decimals=4).tolist())

# dtypes
for dt in (torch.float16, torch.bfloat16, torch.float64):
    o = F.grid_sample(img.to(dt), F.affine_grid(theta.to(dt), (1, 1, 2, 2), align_corners=True), align_corners=True)
    print(dt, o.dtype, o.flatten().float().round(decimals=2).tolist())

cases = [
    lambda: F.grid_sample(img, F.affine_grid(theta, (1, 1, 3, 4), align_corners=False).double(), align_corners=False),
    lambda: F.grid_sample(img.long(), F.affine_grid(theta, (1, 1, 3, 4), align_corners=False), align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(1, 3, 4, 3), align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(2, 3, 4, 2), align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(1, 3, 4, 2), mode="trilinear", align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(1, 3, 4, 2), padding_mode="circular", align_corners=False),
    lambda: F.grid_sample(img[0], torch.zeros(1, 3, 4, 2), align_corners=False),
    lambda: F.affine_grid(theta[0], (1, 1, 3, 4), align_corners=False),
    lambda: F.affine_grid(theta, (1, 1, 3), align_corners=False),
    lambda: F.affine_grid(theta, (2, 1, 3, 4), align_corners=False),
    lambda: F.affine_grid(torch.zeros(1, 3, 4), (1, 1, 3, 4), align_corners=False),
    lambda: F.affine_grid(theta.long(), (1, 1, 3, 4), align_corners=False),
    lambda: F.affine_grid(theta, (1, 1, 1, 4), align_corners=True),
    lambda: F.grid_sample(torch.zeros(1, 1, 0, 5), torch.zeros(1, 3, 4, 2), align_corners=False),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", tuple(r.shape), r.dtype)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:150])

# empty batch / empty output
print(F.grid_sample(torch.zeros(0, 2, 4, 5), torch.zeros(0, 3, 4, 2), align_corners=False).shape)
print(F.grid_sample(img, torch.zeros(1, 0, 4, 2), align_corners=False).shape)
try:
    F.affine_grid(torch.zeros(0, 2, 3), (0, 1, 3, 4), align_corners=False)
except ValueError as e:
    print("ValueError", e)
# non-finite grid
g = torch.tensor([[[[float("nan"), 0.0], [float("inf"), 0.0], [-float("inf"), 0.5], [0.0, 1e3]]]])
for mode in ("bilinear", "nearest", "bicubic"):
    for pm in ("zeros", "border", "reflection"):
        print(mode, pm, F.grid_sample(img, g, mode=mode, padding_mode=pm, align_corners=False).flatten().tolist())
# channels_last / strided inputs
xt = img.expand(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
o = F.grid_sample(xt, F.affine_grid(theta.expand(2, 2, 3), (2, 3, 3, 4), align_corners=False), align_corners=False)
print(o.shape, o.stride(), o.is_contiguous(), o.is_contiguous(memory_format=torch.channels_last))
gt = F.affine_grid(theta, (1, 1, 4, 3), align_corners=False).transpose(1, 2)
print(gt.is_contiguous(), F.grid_sample(img, gt, align_corners=False).flatten().round(decimals=4).tolist())
