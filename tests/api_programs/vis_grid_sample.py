"""Spatial-transformer sampling as detection and registration code calls it: F.affine_grid for 2-D and 3-D thetas
under both align_corners, F.grid_sample over every mode x padding_mode x align_corners (bicubic included), the
gradients with respect to the input and the grid, out-of-range grids, and the warnings/errors of bad arguments."""

import math
import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def s(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


img = torch.arange(1, 21, dtype=torch.float32).view(1, 1, 4, 5)
theta_id = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
for ac in (False, True):
    grid = F.affine_grid(theta_id, (1, 1, 4, 5), align_corners=ac)
    print("grid", ac, grid.shape, s(grid[0, 0]), s(grid[0, -1, -1]))
    out = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=ac)
    print("identity exact", ac, torch.allclose(out, img, atol=1e-5))

ang = math.radians(30)
theta = torch.tensor([[[math.cos(ang), -math.sin(ang), 0.2], [math.sin(ang), math.cos(ang), -0.1]],
                      [[1.3, 0.0, 0.0], [0.0, 0.7, 0.5]]])
x = torch.randn(2, 3, 6, 7)
for ac in (False, True):
    grid = F.affine_grid(theta, (2, 3, 5, 4), align_corners=ac)
    print("theta grid", ac, s(grid[1, 2]), s(grid[0, 4, 3]))
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            y = F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac)
            print(f"{mode:8s} {pad:10s} {int(ac)} sum={y.sum().item():.4f} "
                  f"c0={y[0, 0, 0, :3].tolist()[0]:.4f} last={y[1, 2, -1, -1].item():.4f}")

far = torch.tensor([[[[-1.7, -1.2], [1.4, 0.3], [2.9, -3.1], [0.0, 0.0]]]])
ramp = torch.linspace(0, 1, 16).view(1, 1, 4, 4)
for pad in ("zeros", "border", "reflection"):
    for ac in (False, True):
        print("far", pad, ac, s(F.grid_sample(ramp, far, padding_mode=pad, align_corners=ac)))
print("far bicubic", s(F.grid_sample(ramp, far, mode="bicubic", padding_mode="border", align_corners=False)))

inp = torch.randn(1, 2, 5, 5, requires_grad=True)
g = (torch.rand(1, 3, 3, 2) * 2.2 - 1.1).requires_grad_(True)
for mode in ("bilinear", "bicubic", "nearest"):
    inp.grad = None
    g.grad = None
    out = F.grid_sample(inp, g, mode=mode, padding_mode="border", align_corners=False)
    (out * torch.arange(18.0).view(1, 2, 3, 3)).sum().backward()
    print(mode, "grad_fn", type(out.grad_fn).__name__)
    print(mode, "dinput", s(inp.grad[0, 1, 2]), "dgrid", s(g.grad[0, 1]))

theta_req = theta[:1].clone().requires_grad_(True)
grid = F.affine_grid(theta_req, (1, 3, 4, 4), align_corners=False)
loss = F.grid_sample(x[:1], grid, align_corners=False).pow(2).mean()
loss.backward()
print("stn loss", round(loss.item(), 4), "dtheta", s(theta_req.grad))

vol = torch.arange(2 * 3 * 4, dtype=torch.float32).view(1, 1, 2, 3, 4)
theta3 = torch.tensor([[[0.9, 0.1, 0.0, 0.05], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.1, -0.1]]])
for ac in (False, True):
    g3 = F.affine_grid(theta3, (1, 1, 2, 3, 4), align_corners=ac)
    v = F.grid_sample(vol, g3, mode="bilinear", align_corners=ac)
    vn = F.grid_sample(vol, g3, mode="nearest", padding_mode="border", align_corners=ac)
    print("3d", ac, g3.shape, v.shape, s(v[0, 0, 1, 2]), s(vn[0, 0, 0, 1]))

d = torch.randn(1, 1, 3, 3).double()
gd = torch.tensor([[[[0.25, -0.5]]]], dtype=torch.float64)
print("double", F.grid_sample(d, gd, align_corners=True).dtype,
      round(F.grid_sample(d, gd, align_corners=True).item(), 4))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    F.affine_grid(theta_id, (1, 1, 2, 2))
    F.grid_sample(img, F.affine_grid(theta_id, (1, 1, 2, 2), align_corners=False))
    print("warnings", len(w), [type(x.message).__name__ for x in w])

for fn in (
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 3), align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(2, 2, 2, 2), align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2), mode="area", align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2), padding_mode="wrap", align_corners=False),
    lambda: F.affine_grid(torch.zeros(1, 3, 3), (1, 1, 4, 4), align_corners=False),
    lambda: F.affine_grid(theta_id, (2, 1, 4, 4), align_corners=False),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2, dtype=torch.float64), align_corners=False),
    lambda: F.grid_sample(img.double(), torch.zeros(1, 2, 2, 2), align_corners=True),
):
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
