"""Text-line preprocessing as OCR data pipelines write it: uint8 images to float with grayscale weights,
aspect-preserving resizes to a fixed height with F.interpolate (bilinear with and without align_corners,
antialias, area, nearest-exact), right padding to a common width with F.pad's constant/reflect/replicate/circular
modes, horizontal flips for right-to-left scripts, per-image normalisation, and the mode/shape errors."""

import torch

F = torch.nn.functional

torch.manual_seed(0)
imgs = [torch.randint(0, 256, (3, 10, w), dtype=torch.uint8) for w in (17, 31, 8)]
print([tuple(i.shape) for i in imgs], imgs[0].dtype)

weights = torch.tensor([0.299, 0.587, 0.114]).view(3, 1, 1)
gray = [(i.float() * weights).sum(0, keepdim=True) / 255.0 for i in imgs]
print("gray means", [round(g.mean().item(), 4) for g in gray])

H = 8
resized = []
for g in gray:
    w = max(1, round(g.shape[-1] * H / g.shape[-2]))
    for mode, kw in (
        ("bilinear", dict(align_corners=False)),
        ("bilinear", dict(align_corners=True)),
        ("bilinear", dict(align_corners=False, antialias=True)),
        ("bicubic", dict(align_corners=False)),
        ("area", {}),
        ("nearest-exact", {}),
        ("nearest", {}),
    ):
        r = F.interpolate(g[None], size=(H, w), mode=mode, **kw)
        print(g.shape[-1], "->", w, mode, kw, round(r.sum().item(), 4))
    resized.append(F.interpolate(g[None], size=(H, w), mode="bilinear", align_corners=False, antialias=True)[0])

sf = F.interpolate(gray[0][None], scale_factor=0.5, mode="bilinear", recompute_scale_factor=True)
sf2 = F.interpolate(gray[0][None], scale_factor=(0.8, 0.5), mode="nearest")
print("scale_factor", tuple(sf.shape), tuple(sf2.shape), round(sf.sum().item(), 4), round(sf2.sum().item(), 4))
u8 = F.interpolate(imgs[0][None], size=(5, 9), mode="bilinear", antialias=True, align_corners=False)
print("uint8 resize", u8.dtype, u8.sum().item())

max_w = max(r.shape[-1] for r in resized)
for mode in ("constant", "reflect", "replicate", "circular"):
    try:
        batch = torch.stack([F.pad(r, (0, max_w - r.shape[-1]), mode=mode) for r in resized])
        print(mode, tuple(batch.shape), round(batch.sum().item(), 4))
    except Exception as e:
        print(mode, type(e).__name__, e)
batch = torch.stack([F.pad(r, (0, max_w - r.shape[-1]), value=1.0) for r in resized])
print("white pad", round(batch.sum().item(), 4), batch[2, 0, 0, -3:].tolist())
print("pad 2-side", tuple(F.pad(batch, (2, 2, 1, 1), mode="replicate").shape))
print("neg pad crop", tuple(F.pad(batch, (-1, -2)).shape))

rtl = torch.flip(batch, dims=[-1])
print("flip", torch.equal(rtl.flip(-1), batch), round((rtl[..., 0] - batch[..., -1]).abs().max().item(), 4))
print("fliplr-like", torch.equal(batch[0, 0].fliplr(), batch[0, 0].flip(1)))
mean = batch.mean(dim=(1, 2, 3), keepdim=True)
std = batch.std(dim=(1, 2, 3), keepdim=True, unbiased=False)
norm = (batch - mean) / (std + 1e-6)
print(
    "normalised",
    norm.mean(dim=(1, 2, 3)).abs().max().item() < 1e-5,
    norm.std(dim=(1, 2, 3), correction=0).round(decimals=4).tolist(),
)
print("invert", round((1 - batch).clamp_(0, 1).sum().item(), 4))
binar = (batch > batch.mean()).to(torch.uint8) * 255
print("binarised", binar.dtype, binar.sum(dim=(1, 2, 3)).tolist())

for bad in (
    lambda: F.interpolate(gray[0][None], size=(4, 4), mode="linear"),
    lambda: F.interpolate(gray[0][None], size=(4, 4), mode="nearest", align_corners=True),
    lambda: F.pad(resized[0], (0, 40), mode="reflect"),
    lambda: F.interpolate(gray[0][None], size=4, scale_factor=2.0),
    lambda: F.interpolate(gray[0][None], size=(4, 4), mode="trilinear"),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
