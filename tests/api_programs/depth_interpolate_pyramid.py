"""Depth-decoder resampling: F.interpolate over every mode (nearest, nearest-exact, bilinear, bicubic, area,
trilinear, linear) with align_corners, antialias, scale_factor tuples and recompute_scale_factor, uint8 and float64
inputs, gradients through antialiased downsampling, pixel_shuffle/unshuffle with extra batch dims, Upsample reprs
and the errors of bad combinations."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten().tolist()[:n]]


img = torch.rand(1, 2, 7, 9)
for mode in ("nearest", "nearest-exact", "area"):
    for size in ((3, 4), (11, 13), (7, 20)):
        o = F.interpolate(img, size=size, mode=mode)
        print(mode, size, round(o.sum().item(), 4), s(o[0, 1, -1], 4))
for mode in ("bilinear", "bicubic"):
    for ac in (False, True):
        for aa in (False, True):
            for size in ((3, 4), (12, 5)):
                o = F.interpolate(img, size=size, mode=mode, align_corners=ac, antialias=aa)
                print(mode, ac, aa, size, round(o.sum().item(), 4), s(o[0, 0, 1], 3))

for sf, rec in (((0.5, 0.75), None), ((0.5, 0.75), True), (1.7, False), (1.7, True), (2, None)):
    o = F.interpolate(img, scale_factor=sf, mode="bilinear", recompute_scale_factor=rec, align_corners=False)
    n = F.interpolate(img, scale_factor=sf, mode="nearest", recompute_scale_factor=rec)
    print("scale", sf, rec, tuple(o.shape), round(o.sum().item(), 4), round(n.sum().item(), 4))

u8 = (torch.rand(1, 3, 6, 6) * 255).to(torch.uint8)
for mode, kw in (
    ("nearest", {}),
    ("bilinear", {"align_corners": False}),
    ("bilinear", {"antialias": True}),
    ("bicubic", {"antialias": True}),
    ("nearest-exact", {}),
):
    o = F.interpolate(u8, size=(4, 5), mode=mode, **kw)
    print("uint8", mode, kw, o.dtype, o[0, 1, 1].tolist())

vol = torch.rand(1, 1, 3, 4, 5, dtype=torch.float64)
for mode in ("nearest", "trilinear", "area", "nearest-exact"):
    o = F.interpolate(vol, scale_factor=(2, 1.5, 0.6), mode=mode)
    print("3d", mode, tuple(o.shape), o.dtype, round(o.sum().item(), 4))
seq = torch.arange(6.0).view(1, 1, 6)
print(
    "linear",
    s(F.interpolate(seq, size=4, mode="linear", align_corners=True), 4),
    s(F.interpolate(seq, scale_factor=0.5, mode="linear"), 3),
    s(F.interpolate(seq, size=3, mode="area"), 3),
)

x = torch.rand(1, 1, 8, 8, requires_grad=True)
for mode in ("bilinear", "bicubic"):
    x.grad = None
    F.interpolate(x, size=(3, 5), mode=mode, antialias=True, align_corners=False).pow(2).sum().backward()
    print("aa grad", mode, round(x.grad.sum().item(), 4), s(x.grad[0, 0, 0], 4))
x.grad = None
o = F.interpolate(x, scale_factor=1.5, mode="nearest-exact")
o.sum().backward()
print("nearest-exact grad", o.grad_fn.name(), s(x.grad[0, 0, 0], 8))
x.grad = None
o = F.interpolate(x, size=(5, 3), mode="area")
o.sum().backward()
print("area grad", o.grad_fn.name(), s(x.grad[0, 0, 0], 8))

feat = torch.arange(2 * 8 * 2 * 3, dtype=torch.float32).view(2, 8, 2, 3)
ps = F.pixel_shuffle(feat, 2)
print("pixel_shuffle", tuple(ps.shape), s(ps[0, 0, 0], 6), torch.equal(F.pixel_unshuffle(ps, 2), feat))
batched = torch.randn(3, 2, 4, 2, 2)
print(
    "batch dims", tuple(F.pixel_shuffle(batched, 2).shape), tuple(nn.PixelUnshuffle(2)(torch.randn(5, 1, 4, 6)).shape)
)
print(nn.PixelShuffle(3), nn.PixelUnshuffle(2))
print(
    nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True),
    nn.Upsample(size=(4, 5)),
    nn.UpsamplingBilinear2d(scale_factor=2),
    nn.UpsamplingNearest2d(size=3),
)
aligned = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=True)
print("UpsamplingBilinear2d aligns", torch.allclose(nn.UpsamplingBilinear2d(scale_factor=2)(img), aligned))

bad = [
    lambda: F.interpolate(img, size=(3, 4), mode="nearest", align_corners=True),
    lambda: F.interpolate(img, size=(3, 4), scale_factor=2),
    lambda: F.interpolate(img),
    lambda: F.interpolate(img, size=(3, 4, 5)),
    lambda: F.interpolate(img, size=3, mode="trilinear"),
    lambda: F.interpolate(img, size=(3, 4), mode="nearest", antialias=True),
    lambda: F.interpolate(img, size=(3, 4), mode="cubic"),
    lambda: F.pixel_shuffle(torch.randn(1, 6, 2, 2), 2),
    lambda: F.pixel_unshuffle(torch.randn(1, 1, 5, 4), 2),
    lambda: F.interpolate(u8, size=(4, 4), mode="area"),
]
for fn in bad:
    try:
        out = fn()
        print("no error", tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, e)
