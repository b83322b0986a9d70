"""torchvision.transforms.v2 functional ops re-implemented on tensors: resize through interpolate (bilinear/bicubic
with antialias, nearest-exact, uint8 round trips), center and random crops with a numpy RNG, resized crops, pad in
constant/reflect/replicate/circular modes, normalize, flips, rotate through affine_grid, to_dtype with scaling,
erasing, five-crop, a Compose pipeline with reprs, and the errors torchvision users hit."""

import math

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(5)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def resize(img, size, interpolation="bilinear", antialias=True):
    h, w = img.shape[-2:]
    if isinstance(size, int):
        short, long = (h, w) if h <= w else (w, h)
        new_short, new_long = size, int(size * long / short)
        size = (new_short, new_long) if h <= w else (new_long, new_short)
    dtype = img.dtype
    x = img if img.is_floating_point() else img.float()
    squeeze = x.dim() == 3
    x = x.unsqueeze(0) if squeeze else x
    kw = {"align_corners": False, "antialias": antialias} if interpolation in ("bilinear", "bicubic") else {}
    out = F.interpolate(x, size=list(size), mode=interpolation, **kw)
    out = out.squeeze(0) if squeeze else out
    if dtype == torch.uint8:
        out = out.round_() if interpolation != "nearest" else out
        out = out.clamp_(0, 255).to(dtype)
    return out


def center_crop(img, output_size):
    h, w = img.shape[-2:]
    th, tw = output_size
    if th > h or tw > w:
        pad = [(tw - w) // 2 if tw > w else 0, (tw - w + 1) // 2 if tw > w else 0,
               (th - h) // 2 if th > h else 0, (th - h + 1) // 2 if th > h else 0]
        img = F.pad(img, pad, value=0.0)
        h, w = img.shape[-2:]
    top, left = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
    return img[..., top:top + th, left:left + tw]


def random_resized_crop_params(h, w, scale, ratio, gen):
    area = h * w
    log_ratio = np.log(ratio)
    for _ in range(10):
        target = area * gen.uniform(*scale)
        aspect = math.exp(gen.uniform(*log_ratio))
        cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            return int(gen.integers(0, h - ch + 1)), int(gen.integers(0, w - cw + 1)), ch, cw
    return 0, 0, h, w


def pad(img, padding, fill=0.0, padding_mode="constant"):
    if isinstance(padding, int):
        padding = [padding] * 4
    elif len(padding) == 2:
        padding = [padding[0], padding[0], padding[1], padding[1]]
    left, top, right, bottom = padding
    need = img.dim() < 4
    x = img.unsqueeze(0) if need else img
    if padding_mode == "symmetric":
        x = torch.cat([x[..., :, :left].flip(-1), x, x[..., :, x.shape[-1] - right:].flip(-1)], -1)
        x = torch.cat([x[..., :top, :].flip(-2), x, x[..., x.shape[-2] - bottom:, :].flip(-2)], -2)
    elif padding_mode == "constant":
        x = F.pad(x, [left, right, top, bottom], mode="constant", value=fill)
    else:
        x = F.pad(x if x.is_floating_point() else x.float(), [left, right, top, bottom], mode=padding_mode).to(x.dtype)
    return x.squeeze(0) if need else x


def normalize(img, mean, std, inplace=False):
    if not img.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {img.dtype}.")
    mean = torch.as_tensor(mean, dtype=img.dtype).view(-1, 1, 1)
    std = torch.as_tensor(std, dtype=img.dtype).view(-1, 1, 1)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {img.dtype}, leading to division by zero.")
    return img.sub_(mean).div_(std) if inplace else (img - mean) / std


def rotate(img, angle, expand=False, fill=0.0):
    a = math.radians(angle)
    theta = torch.tensor([[math.cos(a), math.sin(a), 0.0], [-math.sin(a), math.cos(a), 0.0]], dtype=img.dtype)
    x = img.unsqueeze(0)
    grid = F.affine_grid(theta.unsqueeze(0), list(x.shape), align_corners=False)
    mask = torch.ones_like(x[:, :1])
    out = F.grid_sample(torch.cat([x, mask], 1), grid, mode="nearest", padding_mode="zeros", align_corners=False)
    img_out, m = out[:, :-1], out[:, -1:]
    return (img_out * m + (1.0 - m) * fill).squeeze(0)


def to_dtype(img, dtype, scale=True):
    if not scale:
        return img.to(dtype)
    if img.is_floating_point() and not dtype.is_floating_point:
        return img.mul(torch.iinfo(dtype).max + 1.0 - 1e-3).to(dtype)
    if not img.is_floating_point() and dtype.is_floating_point:
        return img.to(dtype).div_(torch.iinfo(img.dtype).max)
    return img.to(dtype)


img = torch.from_numpy(rng.random((3, 10, 14))).float()
u8 = torch.from_numpy(rng.integers(0, 256, (3, 10, 14), dtype=np.uint8))
for mode, aa in [("bilinear", True), ("bilinear", False), ("bicubic", True), ("nearest", False),
                 ("nearest-exact", False)]:
    o = resize(img, (5, 7), mode, aa)
    print("resize", mode, aa, tuple(o.shape), r(o[0, 0]))
print("resize int", tuple(resize(img, 6).shape), tuple(resize(img.transpose(1, 2), 6).shape))
up = resize(img, (15, 21), "bicubic", True)
print("upsample bicubic", r(up[1, 2]), r(up.min()), r(up.max()))
ru = resize(u8, (5, 7))
print("resize uint8", ru.dtype, ru[0, 0].tolist(), resize(u8, (20, 28), "nearest")[0, 0, :6].tolist())
print("center crop", tuple(center_crop(img, (4, 6)).shape), r(center_crop(img, (4, 6))[0, 0]),
      tuple(center_crop(img, (12, 15)).shape), r(center_crop(img, (12, 15))[0, :, 0], 12))
gen = np.random.default_rng(0)
for _ in range(3):
    t, l, h, w = random_resized_crop_params(10, 14, (0.08, 1.0), (3 / 4, 4 / 3), gen)
    crop = resize(img[:, t:t + h, l:l + w], (8, 8))
    print("rrc", (t, l, h, w), tuple(crop.shape), r(crop.mean()))
small = torch.arange(12.0).view(1, 3, 4)
for m in ["constant", "reflect", "replicate", "circular", "symmetric"]:
    p = pad(small, [2, 1, 1, 2], fill=-1.0, padding_mode=m)
    print("pad", m, tuple(p.shape), p[0, 0].tolist(), p[0, :, 0].tolist())
print("pad uint8 reflect", pad(u8[:1, :3, :3], 1, padding_mode="reflect")[0, 0].tolist(), pad(u8, 1).dtype)
mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
n = normalize(img, mean, std)
print("normalize", r(n.mean(dim=(1, 2))), r(n.std(dim=(1, 2))))
c = img.clone()
ret = normalize(c, mean, std, inplace=True)
print("inplace", ret.data_ptr() == c.data_ptr(), torch.allclose(c, n))
print("flips", torch.equal(img.flip(-1), img[..., torch.arange(13, -1, -1)]),
      torch.equal(torch.fliplr(img[0]), img[0].flip(1)),
      torch.equal(torch.flipud(img[0]), img[0].flip(0)))
rot = rotate(img, 90.0, fill=0.5)
print("rotate 90", r(rot[0, 3]), r(rotate(img, 30.0, fill=1.0)[1, 0]))
print("rot90", torch.rot90(small, 1, [1, 2])[0].tolist(), torch.rot90(small, -1, [1, 2]).shape)
f8 = to_dtype(u8, torch.float32)
print("to_dtype", f8.dtype, r(f8[0, 0, :4]), to_dtype(f8, torch.uint8)[0, 0, :4].tolist(),
      to_dtype(u8, torch.float16, False).dtype)
er = img.clone()
er[:, 2:5, 3:7] = torch.from_numpy(rng.standard_normal((3, 3, 4))).float()
print("erase", r(er[0, 3, 2:8]), r((er != img).float().mean()))
tl, tr_, bl, br = img[..., :4, :4], img[..., :4, -4:], img[..., -4:, :4], img[..., -4:, -4:]
five = torch.stack([tl, tr_, bl, br, center_crop(img, (4, 4))])
print("five crop", tuple(five.shape), r(five.mean(dim=(1, 2, 3))))


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self):
        return self.__class__.__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class Lambda:
    def __init__(self, fn, name):
        self.fn, self.name = fn, name

    def __call__(self, x):
        return self.fn(x)

    def __repr__(self):
        return self.name


pipe = Compose([Lambda(lambda x: to_dtype(x, torch.float32), "ToDtype(float32, scale=True)"),
                Lambda(lambda x: resize(x, 8), "Resize(size=8, antialias=True)"),
                Lambda(lambda x: center_crop(x, (8, 8)), "CenterCrop(size=(8, 8))"),
                Lambda(lambda x: normalize(x, mean, std), "Normalize(mean=[0.485, 0.456, 0.406])")])
print(pipe)
batch = torch.stack([pipe(u8), pipe(u8.flip(-1))])
print("batch", tuple(batch.shape), batch.dtype, r(batch.mean(dim=(0, 2, 3))))

for fn in [lambda: normalize(u8, mean, std), lambda: normalize(img, mean, [0.2, 0.0, 0.1]),
           lambda: F.interpolate(img, size=(5, 7), mode="bilinear"),
           lambda: F.interpolate(img[None], size=(5, 7), mode="nearest", antialias=True),
           lambda: F.interpolate(img[None], size=(5, 7), scale_factor=2.0),
           lambda: F.interpolate(img[None], size=(5, 7), mode="linear"),
           lambda: F.pad(img[None], [12, 12, 0, 0], mode="reflect"), lambda: F.pad(img, [1, 1], mode="wrap"),
           lambda: F.interpolate(u8[None], size=(5, 7), mode="bilinear"), lambda: torch.rot90(img, 1, [1, 1])]:
    try:
        out = fn()
        print("ok", tuple(out.shape), out.dtype)
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:120])
