"""Monocular-depth view synthesis through F.grid_sample's corners: half/bfloat16 and float64 inputs, non-contiguous
and channels_last images, NaN/inf grids, exact-integer and half-pixel sample positions, nearest rounding ties,
5-D volumes with every padding mode, empty batches, gradients with respect to image and grid, and bad arguments."""

import torch

F = torch.nn.functional
torch.manual_seed(0)


def s(t):
    return [round(v, 4) for v in t.detach().float().flatten().tolist()]


img = torch.arange(1.0, 17.0).view(1, 1, 4, 4)
# nearest ties: positions exactly half way between pixels round half to even
tie = torch.tensor([[[[-0.75, -0.75], [-0.25, -0.25], [0.25, 0.25], [0.75, 0.75], [-1.0, 1.0], [1.0, -1.0]]]])
for ac in (False, True):
    print("nearest ties", ac, s(F.grid_sample(img, tie, mode="nearest", align_corners=ac)))
    print("bilinear ties", ac, s(F.grid_sample(img, tie, mode="bilinear", align_corners=ac)))
    print("bicubic ties", ac, s(F.grid_sample(img, tie, mode="bicubic", align_corners=ac)))

bad = torch.tensor([[[[float("nan"), 0.0], [float("inf"), 0.0], [0.0, -float("inf")], [0.1, 0.2]]]])
for pad in ("zeros", "border", "reflection"):
    out = F.grid_sample(img, bad, padding_mode=pad, align_corners=False)
    print("nan grid", pad, [v if v == v else "nan" for v in s(out)])

x = torch.randn(2, 3, 5, 6)
grid = torch.rand(2, 4, 3, 2) * 2.4 - 1.2
ref = F.grid_sample(x, grid, align_corners=False)
xt = x.transpose(2, 3).contiguous().transpose(2, 3)
xc = x.contiguous(memory_format=torch.channels_last)
gt = grid.transpose(1, 2).contiguous().transpose(1, 2)
print("strided input same", torch.allclose(F.grid_sample(xt, grid, align_corners=False), ref, atol=1e-6))
out_cl = F.grid_sample(xc, gt, align_corners=False)
print("channels_last same", torch.allclose(out_cl, ref, atol=1e-6), out_cl.is_contiguous())
print("strided sliced", s(F.grid_sample(x[:, ::2], grid[:, :, ::2], align_corners=True).sum(dim=(2, 3))))

for dt in (torch.float64, torch.float16, torch.bfloat16):
    o = F.grid_sample(x.to(dt), grid.to(dt), align_corners=True)
    print("dtype", dt, o.dtype, round(o.float().sum().item(), 1))

vol = torch.randn(1, 2, 3, 4, 5)
g3 = torch.rand(1, 2, 3, 2, 3) * 2.6 - 1.3
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            o = F.grid_sample(vol, g3, mode=mode, padding_mode=pad, align_corners=ac)
            print("vol", mode, pad, ac, tuple(o.shape), round(o.sum().item(), 4), round(o[0, 1, 1, 2, 1].item(), 4))

empty = F.grid_sample(torch.randn(0, 3, 4, 4), torch.zeros(0, 2, 2, 2), align_corners=False)
print("empty batch", tuple(empty.shape))
zero_out = F.grid_sample(torch.randn(1, 3, 4, 4), torch.zeros(1, 0, 5, 2), align_corners=False)
print("empty grid", tuple(zero_out.shape))

inp = torch.randn(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
g = (torch.rand(1, 3, 2, 2, dtype=torch.float64) * 2.4 - 1.2).requires_grad_(True)
for mode in ("bilinear", "bicubic", "nearest"):
    for pad in ("zeros", "reflection"):
        inp.grad, g.grad = None, None
        o = F.grid_sample(inp, g, mode=mode, padding_mode=pad, align_corners=True)
        (o**2).sum().backward()
        print("grad", mode, pad, s(inp.grad.sum(dim=1)), s(g.grad))

vg = g3.clone().requires_grad_(True)
vv = vol.clone().requires_grad_(True)
F.grid_sample(vv, vg, padding_mode="border", align_corners=False).sin().sum().backward()
print("vol grads", round(vv.grad.sum().item(), 4), s(vg.grad[0, 1, 2]))

only_grid = torch.zeros(1, 1, 1, 2, requires_grad=True)
o = F.grid_sample(img, only_grid, align_corners=True)
o.backward()
print("grid-only grad", o.grad_fn.name(), s(only_grid.grad))

cases = [
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 3)),
    lambda: F.grid_sample(img, torch.zeros(2, 2, 2, 2)),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2), mode="area"),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2), padding_mode="wrap"),
    lambda: F.grid_sample(vol, torch.zeros(1, 2, 2, 2, 3), mode="bicubic"),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2, dtype=torch.float64)),
    lambda: F.grid_sample(img[0], torch.zeros(1, 2, 2)),
    lambda: F.grid_sample(img, torch.zeros(1, 2, 2, 2, 3)),
]
for fn in cases:
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
