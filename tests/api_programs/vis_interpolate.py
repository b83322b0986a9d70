"""F.interpolate as vision code calls it: every mode on 1-D/2-D/3-D inputs, size vs scale_factor with and without
recompute_scale_factor, align_corners, antialias=True downsampling (bilinear and bicubic), nearest vs nearest-exact
index rounding, area as adaptive average pooling, nn.Upsample reprs, uint8 images, channels_last inputs,
gradients, and the errors of conflicting arguments."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def s(t, n=8):
    return [round(v, 4) for v in t.detach().flatten()[:n].tolist()]


line = torch.arange(5, dtype=torch.float32).view(1, 1, 5)
for mode in ("nearest", "nearest-exact", "linear"):
    for size in (3, 7, 12):
        kw = {} if mode.startswith("nearest") else {"align_corners": False}
        print(mode, size, s(F.interpolate(line, size=size, mode=mode, **kw), 12))
print("linear ac", s(F.interpolate(line, size=7, mode="linear", align_corners=True), 12))

img = torch.arange(1, 17, dtype=torch.float32).view(1, 1, 4, 4)
for mode in ("nearest", "nearest-exact", "bilinear", "bicubic", "area"):
    kw = {"align_corners": False} if mode in ("bilinear", "bicubic") else {}
    up = F.interpolate(img, scale_factor=1.5, mode=mode, **kw)
    down = F.interpolate(img, size=(3, 2), mode=mode, **kw)
    print(mode, tuple(up.shape), s(up[0, 0, 1], 6), "down", s(down, 6))

x = torch.randn(2, 3, 9, 11)
for sf, rec in ((0.4, None), (0.4, True), (1.7, None), (1.7, True), ((0.5, 1.3), False)):
    y = F.interpolate(x, scale_factor=sf, mode="bilinear", align_corners=False, recompute_scale_factor=rec)
    yn = F.interpolate(x, scale_factor=sf, mode="nearest", recompute_scale_factor=rec)
    print("sf", sf, rec, tuple(y.shape), round(y.sum().item(), 4), round(yn.sum().item(), 4),
          round(y[1, 2, -1, -1].item(), 4))

for mode in ("bilinear", "bicubic"):
    for aa in (False, True):
        for ac in (False, True):
            y = F.interpolate(x, size=(4, 5), mode=mode, align_corners=ac, antialias=aa)
            print("aa", mode, aa, ac, round(y.mean().item(), 4), s(y[0, 0, 0], 5))
print("aa up", s(F.interpolate(img, size=(6, 7), mode="bilinear", antialias=True), 7))
print("aa scale", s(F.interpolate(x, scale_factor=0.3, mode="bicubic", antialias=True)[0, 1], 6))

vol = torch.randn(1, 2, 3, 4, 5)
for mode in ("nearest", "trilinear", "area", "nearest-exact"):
    kw = {"align_corners": True} if mode == "trilinear" else {}
    y = F.interpolate(vol, size=(5, 3, 4), mode=mode, **kw)
    print("3d", mode, tuple(y.shape), round(y.sum().item(), 4), s(y[0, 1, 2, 1], 4))

area = F.interpolate(x, size=(4, 5), mode="area")
print("area == adaptive", torch.allclose(area, F.adaptive_avg_pool2d(x, (4, 5))))

u8 = torch.randint(0, 256, (1, 3, 5, 6), dtype=torch.uint8)
for mode in ("nearest", "bilinear", "bicubic"):
    kw = {} if mode == "nearest" else {"align_corners": False}
    try:
        y = F.interpolate(u8, size=(7, 4), mode=mode, **kw)
        print("uint8", mode, y.dtype, y[0, 0].tolist())
    except RuntimeError as e:
        print("uint8", mode, "RuntimeError", str(e).splitlines()[0])
aa8 = F.interpolate(u8, size=(3, 3), mode="bilinear", antialias=True)
print("uint8 aa", aa8.dtype, aa8[0, 1].tolist())

cl = x.to(memory_format=torch.channels_last)
for mode in ("nearest", "bilinear", "bicubic"):
    kw = {} if mode == "nearest" else {"align_corners": False}
    y = F.interpolate(cl, scale_factor=2, mode=mode, **kw)
    print("channels_last", mode, y.stride(), y.is_contiguous(memory_format=torch.channels_last),
          torch.allclose(y, F.interpolate(x, scale_factor=2, mode=mode, **kw), atol=1e-5))

g = torch.randn(1, 2, 3, 4, requires_grad=True)
for mode in ("nearest", "nearest-exact", "bilinear", "bicubic", "area"):
    g.grad = None
    kw = {"align_corners": True} if mode in ("bilinear", "bicubic") else {}
    out = F.interpolate(g, size=(5, 7), mode=mode, **kw)
    (out * torch.linspace(-1, 1, 70).view(1, 2, 5, 7)).sum().backward()
    print("grad", mode, type(out.grad_fn).__name__, s(g.grad[0, 1], 6))
g.grad = None
F.interpolate(g, size=(2, 3), mode="bilinear", antialias=True).square().sum().backward()
print("grad aa", s(g.grad, 8))

ups = [nn.Upsample(scale_factor=2), nn.Upsample(size=(5, 5), mode="bilinear", align_corners=True),
       nn.Upsample(scale_factor=(2.0, 3.0), mode="nearest-exact"), nn.UpsamplingNearest2d(scale_factor=2),
       nn.UpsamplingBilinear2d(size=6)]
for m in ups:
    print(m, tuple(m(img).shape))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.UpsamplingBilinear2d(scale_factor=2)(img)
    print("warnings", [str(x.message)[:40] for x in w])

for fn in (
    lambda: F.interpolate(img, size=3, scale_factor=2),
    lambda: F.interpolate(img),
    lambda: F.interpolate(img, size=(2, 2, 2)),
    lambda: F.interpolate(img, scale_factor=2, mode="linear"),
    lambda: F.interpolate(img, scale_factor=2, mode="nearest", align_corners=True),
    lambda: F.interpolate(img, scale_factor=2, mode="cubic"),
    lambda: F.interpolate(img, scale_factor=2, mode="area", antialias=True),
):
    try:
        fn()
    except (ValueError, NotImplementedError, RuntimeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
