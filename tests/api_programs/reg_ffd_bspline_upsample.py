"""Free-form deformation: a coarse B-spline control grid upsampled to a dense displacement with F.interpolate
(trilinear/bicubic/area/nearest-exact, scale_factor vs size, recompute_scale_factor, antialias) and with a cubic
B-spline kernel through conv_transpose3d, as FFD registration code does, and the errors those calls raise."""

import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
ctrl = torch.randn(1, 3, 3, 4, 5)

for sf in (2, 2.5, (1.5, 2.0, 2.7)):
    for rec in (None, False, True):
        up = F.interpolate(ctrl, scale_factor=sf, mode="trilinear", align_corners=False, recompute_scale_factor=rec)
        print("tri", sf, rec, tuple(up.shape), round(up.mean().item(), 4), round(up[0, 1, 2, 3, 4].item(), 4))
for ac in (True, False):
    up = F.interpolate(ctrl, size=(7, 9, 11), mode="trilinear", align_corners=ac)
    print("size", ac, round(up.abs().sum().item(), 3), up[0, 0, :, 4, 5].round(decimals=4).tolist())

img2 = torch.randn(2, 2, 7, 9)
for mode in ("bilinear", "bicubic"):
    for aa in (False, True):
        for sz in ((3, 4), (5, 13), (14, 4)):
            o = F.interpolate(img2, size=sz, mode=mode, align_corners=False, antialias=aa)
            print(mode, aa, sz, round(o.abs().sum().item(), 3), o[1, 0, 1].round(decimals=4).tolist())
    o = F.interpolate(img2, scale_factor=0.37, mode=mode, antialias=True)
    o2 = F.interpolate(img2, scale_factor=0.37, mode=mode, antialias=True, recompute_scale_factor=True)
    print("aa sf", tuple(o.shape), round(o.sum().item(), 4), round(o2.sum().item(), 4))
for mode in ("nearest", "nearest-exact", "area"):
    o = F.interpolate(ctrl, scale_factor=(1.7, 0.6, 1.3), mode=mode)
    print(mode, tuple(o.shape), round(o.sum().item(), 4), o[0, 2, -1, -1].round(decimals=4).tolist())
print(
    "bicubic ac", F.interpolate(img2, scale_factor=1.5, mode="bicubic", align_corners=True)[0, 0, 0].round(decimals=4)
)
print("clamp?", F.interpolate(torch.tensor([[[[0.0, 1.0], [1.0, 0.0]]]]), size=(2, 5), mode="bicubic")[0, 0, 0])

u8 = (torch.arange(36, dtype=torch.uint8) * 7).view(1, 1, 6, 6)
print("uint8", F.interpolate(u8, size=(4, 4), mode="bilinear", antialias=True, align_corners=False)[0, 0])
print("uint8 near", F.interpolate(u8, scale_factor=0.5, mode="nearest")[0, 0].dtype)
h = F.interpolate(ctrl.half(), scale_factor=2, mode="trilinear")
print("half", h.dtype, round(h.float().sum().item(), 1))


# cubic B-spline kernel upsampling (the FFD evaluation via transposed convolution)
def bspline_kernel(stride):
    t = torch.arange(-2 * stride + 1, 2 * stride, dtype=torch.float64) / stride
    a = t.abs()
    k = torch.where(a < 1, 2 / 3 - a**2 + a**3 / 2, torch.where(a < 2, (2 - a) ** 3 / 6, torch.zeros_like(a)))
    return k


k1 = bspline_kernel(2)
print("kernel", k1.shape, round(k1.sum().item(), 4), k1.round(decimals=4).tolist())
k3 = torch.einsum("i,j,k->ijk", k1, k1, k1)[None, None].expand(3, 1, -1, -1, -1).contiguous()
dense = F.conv_transpose3d(ctrl.double(), k3, stride=2, padding=3, groups=3)
print("ffd", tuple(dense.shape), round(dense.abs().mean().item(), 4), dense.is_contiguous())
dense2 = F.conv_transpose3d(ctrl.double(), k3, stride=2, padding=3, groups=3, output_padding=1)
print("ffd op", tuple(dense2.shape), torch.allclose(dense2[..., :-1, :-1, :-1], dense))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    F.interpolate(img2, scale_factor=2, mode="bilinear")
    F.interpolate(img2, scale_factor=2, mode="nearest", recompute_scale_factor=False)
    F.upsample(img2, scale_factor=2)
    F.upsample_bilinear(img2, scale_factor=2)
print("warnings", [str(x.message)[:70] for x in w])

cases = [
    lambda: F.interpolate(ctrl, scale_factor=2, mode="bicubic"),
    lambda: F.interpolate(ctrl, scale_factor=2, mode="trilinear", antialias=True),
    lambda: F.interpolate(ctrl, size=(4, 4), mode="trilinear"),
    lambda: F.interpolate(ctrl, size=(4, 4, 4), scale_factor=2, mode="trilinear"),
    lambda: F.interpolate(ctrl, mode="trilinear"),
    lambda: F.interpolate(ctrl, scale_factor=(2, 2), mode="trilinear"),
    lambda: F.interpolate(ctrl, scale_factor=2, mode="nearest", align_corners=True),
    lambda: F.interpolate(ctrl, size=(4, 4, 4), recompute_scale_factor=True),
    lambda: F.interpolate(img2, scale_factor=2, mode="linear"),
    lambda: F.interpolate(img2, scale_factor=2, mode="cubic"),
    lambda: F.interpolate(img2, scale_factor=0.01, mode="bilinear"),
    lambda: F.interpolate(img2, scale_factor=-1.0, mode="bilinear"),
    lambda: F.interpolate(img2, size=(0, 3), mode="bilinear"),
    lambda: F.interpolate(img2.long(), scale_factor=2, mode="bilinear"),
    lambda: F.interpolate(img2, scale_factor=2, mode="nearest", antialias=True),
    lambda: F.interpolate(img2[0, 0], scale_factor=2, mode="bilinear"),
    lambda: F.interpolate(img2, size=torch.Size([3, 3]), mode="area"),
    lambda: F.interpolate(img2, size=[3.0, 3.0], mode="area"),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", tuple(r.shape), r.dtype)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:160])

x = ctrl.clone().requires_grad_(True)
for mode in ("trilinear", "nearest", "nearest-exact", "area"):
    x.grad = None
    F.interpolate(x, scale_factor=(2, 1.5, 0.8), mode=mode).pow(2).sum().backward()
    print("grad", mode, round(x.grad.abs().sum().item(), 3), x.grad[0, 0, 0, 0].round(decimals=4).tolist())
y = img2.clone().requires_grad_(True)
F.interpolate(y, size=(3, 5), mode="bicubic", antialias=True).pow(2).sum().backward()
print("aa grad", round(y.grad.abs().sum().item(), 3), y.grad[0, 0, 0, :4].round(decimals=4).tolist())
