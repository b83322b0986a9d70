"""Resizing as SR data pipelines do it: bicubic degradation with antialias (the "MATLAB-like" imresize of BasicSR
vs F.interpolate), Pillow-style Lanczos-3 (mode='lanczos', antialias=True), recompute_scale_factor with fractional
scales, area and nearest-exact modes, align_corners,
uint8 and float64 inputs, unbatched and 3-D/5-D inputs, gradients through each mode, and interpolate's errors."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
img = (torch.arange(1 * 2 * 9 * 11, dtype=torch.float32).reshape(1, 2, 9, 11) % 13) / 12.0
img = img + 0.1 * torch.sin(torch.arange(11.0))


def s(t):
    return round(t.double().sum().item(), 4), round(t.double().abs().max().item(), 4), tuple(t.shape)


for mode in ("bilinear", "bicubic"):
    for aa in (False, True):
        for sc in (0.5, 1 / 3, 0.37):
            out = F.interpolate(img, scale_factor=sc, mode=mode, antialias=aa, align_corners=False)
            print(mode, aa, round(sc, 3), s(out), out[0, 0, 0, :3].round(decimals=4).tolist())
        up = F.interpolate(img, scale_factor=2.5, mode=mode, antialias=aa)
        print(mode, aa, "up", s(up))

for size in ((4, 5), (3, 11), (20, 25)):
    lz = F.interpolate(img, size=size, mode="lanczos", antialias=True)
    print("lanczos", s(lz), lz[0, 1, 0, :3].round(decimals=4).tolist())
print("lanczos sf", s(F.interpolate(img, scale_factor=0.45, mode="lanczos", antialias=True)))

for rsf in (None, False, True):
    out = F.interpolate(img, scale_factor=(0.7, 1.3), mode="bilinear", recompute_scale_factor=rsf)
    print("rsf", rsf, s(out))
out = F.interpolate(img, scale_factor=1.55, mode="nearest", recompute_scale_factor=True)
print("nearest rsf", s(out))
out = F.interpolate(img, scale_factor=1.55, mode="nearest")
print("nearest", s(out))
print("nearest-exact", s(F.interpolate(img, size=(5, 7), mode="nearest-exact")))
print("area", s(F.interpolate(img, size=(4, 5), mode="area")), s(F.interpolate(img, scale_factor=0.5, mode="area")))
print("align", s(F.interpolate(img, size=(17, 21), mode="bilinear", align_corners=True)))
print("bicubic align", s(F.interpolate(img, size=(17, 21), mode="bicubic", align_corners=True)))
print("1d linear", s(F.interpolate(img[:, :, 0], scale_factor=0.6, mode="linear")))
print("3d trilinear", s(F.interpolate(img[:, None], size=(3, 4, 5), mode="trilinear")))
print("f64", F.interpolate(img.double(), scale_factor=0.5, mode="bicubic", antialias=True).dtype)

u8 = (img * 255).round().to(torch.uint8)
for mode, aa in (("bilinear", True), ("bicubic", True), ("lanczos", True), ("bilinear", False), ("nearest", False)):
    out = F.interpolate(u8, size=(5, 6), mode=mode, antialias=aa)
    print("uint8", mode, aa, out.dtype, out[0, 0].tolist()[0])

# bicubic overshoot: clamping after resize, as SR validation does
big = F.interpolate(img, scale_factor=4, mode="bicubic", align_corners=False)
print("overshoot", round(big.min().item(), 4), round(big.max().item(), 4), s(big.clamp(0, 1)))

# gradients
for mode, aa in (
    ("bilinear", True),
    ("bicubic", True),
    ("lanczos", True),
    ("bicubic", False),
    ("area", False),
    ("nearest", False),
):
    x = img.clone().requires_grad_(True)
    kw = {} if mode in ("area", "nearest") else {"antialias": aa}
    y = F.interpolate(x, size=(4, 6), mode=mode, **kw)
    (y * torch.linspace(0, 1, 24).reshape(4, 6)).sum().backward()
    print(
        "grad", mode, aa, type(y.grad_fn).__name__, round(x.grad.sum().item(), 4), round(x.grad.abs().max().item(), 4)
    )

up = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=False)
print(up, nn.Upsample(size=(3, 4)), nn.UpsamplingBilinear2d(scale_factor=2), nn.UpsamplingNearest2d(size=5))
print(s(nn.UpsamplingBilinear2d(scale_factor=2)(img)), s(nn.UpsamplingNearest2d(size=5)(img)))

for bad in [
    lambda: F.interpolate(img, scale_factor=0.5, mode="nearest", antialias=True),
    lambda: F.interpolate(img, size=(4, 4), scale_factor=2),
    lambda: F.interpolate(img, mode="bilinear"),
    lambda: F.interpolate(img, size=(4, 4), mode="linear"),
    lambda: F.interpolate(img, size=(4, 4), mode="nearest", align_corners=True),
    lambda: F.interpolate(img, size=(4, 4, 4)),
    lambda: F.interpolate(img, size=4, mode="bogus"),
    lambda: F.interpolate(img, scale_factor=(2, 2, 2)),
    lambda: F.interpolate(img, size=(4, 4), recompute_scale_factor=True),
    lambda: F.interpolate(img, size=(4, 4), mode="lanczos"),
    lambda: F.interpolate(img, size=(4, 4), mode="lanczos", antialias=True, align_corners=True),
    lambda: F.interpolate(img[0], size=4, mode="lanczos", antialias=True),
]:
    try:
        out = bad()
        print("ok", tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, e)

# effective scale stored by recompute: output floor(in*sf)
for sf in (0.3, 0.35, 1 / 3, 2.2):
    o = F.interpolate(torch.ones(1, 1, 10, 10), scale_factor=sf)
    print(sf if sf != 1 / 3 else "1/3", tuple(o.shape), math.floor(10 * sf))
