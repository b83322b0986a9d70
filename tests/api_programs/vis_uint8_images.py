"""uint8 image arithmetic as torchvision.transforms.v2.functional and data loaders write it: to_dtype with scale
(float <-> uint8 <-> int16/int32), clamp/round/to(torch.uint8) conversions and their truncation, uint8 overflow
wrap-around, integer floor division and true division promotion, posterize/solarize/invert/equalize by
bincount, grayscale with integer weights, adjust_brightness/contrast/saturation blends, RGB<->HSV round trips,
and normalize/denormalize of a batch."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

img = torch.randint(0, 256, (3, 4, 5), dtype=torch.uint8)
print(img[0])
print("dtype", img.dtype, img.element_size(), img.is_floating_point(), img.dtype.is_signed)

f = img.float() / 255
print("to float", f.dtype, round(f.mean().item(), 4), round(f.max().item(), 4))
back = (f * 255).round().to(torch.uint8)
print("round trip", torch.equal(back, img))
trunc = (f * 255 - 0.3).to(torch.uint8)
print("truncates", (img.int() - trunc.int()).unique().tolist())
print("mul(255) + 0.5 clamp", (f.mul(255).add_(0.5).clamp_(0, 255).to(torch.uint8) == img).all().item())

vals = torch.tensor([-3.7, -0.5, 0.49, 0.5, 1.5, 2.5, 254.5, 255.4, 300.0])
print("round half even", vals.round().tolist())
print("clamp then cast", vals.clamp(0, 255).round().to(torch.uint8).tolist())
lo_t, hi_t = torch.tensor(50), torch.tensor(200)
print("clamp by 0-dim bounds", img[0, 0].clamp(lo_t, hi_t).tolist(), img.clamp(lo_t, hi_t).dtype,
      img[0, 0].clamp(max=torch.tensor(300)).tolist(), img.clamp(torch.tensor([10] * 5)).dtype)
print("trunc cast", vals.clamp(0, 255).to(torch.uint8).tolist())
print("int cast of negatives", vals.to(torch.int32).tolist())

a = torch.tensor([250, 10, 128], dtype=torch.uint8)
b = torch.tensor([10, 20, 128], dtype=torch.uint8)
print("wrap add", (a + b).tolist(), "wrap sub", (b - a).tolist(), "mul", (a * 2).tolist())
print("promote int", (a.int() + b).tolist(), (a + b.to(torch.int16)).dtype)
print("add python int", (a + 300).dtype, (a + 300).tolist())
print("true div", (a / 3).dtype, (a / 3).tolist()[:2])
print("floor div", (a // 3).tolist(), torch.div(a, 3, rounding_mode="floor").dtype,
      torch.div(a, 3, rounding_mode="trunc").tolist())
print("float mul", (a * 0.5).dtype, (a * 0.5).tolist())
print("mean needs float", a.float().mean().item(), a.sum().dtype, a.sum().item())
neg = torch.tensor([-7, 7, -8], dtype=torch.int32)
print("int floor div", (neg // 2).tolist(), torch.div(neg, 2, rounding_mode="trunc").tolist(), (neg % 3).tolist())
print("fmod", torch.fmod(neg, 3).tolist(), "remainder", torch.remainder(neg, -3).tolist())


def to_dtype(image, dtype, scale=True):
    if not scale or image.dtype == dtype:
        return image.to(dtype)
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        eps = 1e-3
        max_value = float(torch.iinfo(dtype).max)
        return image.mul(max_value + 1.0 - eps).to(dtype)
    num_in = torch.iinfo(image.dtype).bits
    if dtype.is_floating_point:
        return image.to(dtype).mul_(1.0 / (2 ** num_in - 1))
    num_out = torch.iinfo(dtype).bits
    if num_in > num_out:
        return image.bitwise_right_shift(num_in - num_out).to(dtype)
    return image.to(dtype).bitwise_left_shift_(num_out - num_in)


print("iinfo", torch.iinfo(torch.uint8), torch.iinfo(torch.int16).max, torch.finfo(torch.float16).eps)
print("u8->f32", to_dtype(img[:, 0, :2], torch.float32).flatten().tolist()[:3])
print("f32->u8", to_dtype(torch.tensor([0.0, 0.5, 0.999, 1.0]), torch.uint8).tolist())
print("u8->i16", to_dtype(img[0, 0], torch.int16).tolist())
print("i32->u8", to_dtype(torch.tensor([2 ** 31 - 1, 2 ** 24, 0], dtype=torch.int32), torch.uint8).tolist())

print("invert", (255 - img[0, 0]).tolist(), torch.bitwise_not(img[0, 0]).tolist())
mask = -int(2 ** (8 - 3))
print("posterize", (img[0, 0] & mask).tolist())
print("solarize", torch.where(img[0, 0] >= 128, 255 - img[0, 0], img[0, 0]).tolist())
r, g, bch = img.unbind(0)
gray_f = (0.2989 * r + 0.587 * g + 0.114 * bch)
print("grayscale float", gray_f.dtype, gray_f[0].tolist())
gray_u8 = gray_f.to(torch.uint8)
print("grayscale u8", gray_u8[0].tolist())
gray_int = ((r.int() * 19595 + g.int() * 38470 + bch.int() * 7471 + 32768) >> 16).to(torch.uint8)
print("grayscale fixed point", gray_int[0].tolist())


def blend(img1, img2, ratio):
    bound = 1.0 if img1.is_floating_point() else 255.0
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


print("brightness", blend(img, torch.zeros_like(img), 1.7)[0, 0].tolist())
mean = gray_f.mean(dim=(-2, -1), keepdim=True)
print("contrast", blend(img, mean, 0.6)[1, 1].tolist())
print("saturation", blend(img, gray_u8.unsqueeze(0), 0.3)[2, 2].tolist())


def hist_equalize(ch):
    hist = torch.bincount(ch.flatten(), minlength=256)
    nonzero = hist[hist != 0]
    step = torch.div(nonzero[:-1].sum(), 255, rounding_mode="floor")
    if step == 0:
        return ch
    lut = torch.div(torch.cumsum(hist, 0) + torch.div(step, 2, rounding_mode="floor"), step,
                    rounding_mode="floor")
    lut = torch.nn.functional.pad(lut, [1, 0])[:-1].clamp(0, 255)
    return lut[ch.long()].to(torch.uint8)


big = torch.randint(40, 120, (16, 16), dtype=torch.uint8)
eq = hist_equalize(big)
print("equalize", big.min().item(), big.max().item(), "->", eq.min().item(), eq.max().item(),
      eq[0, :8].tolist())


def rgb_to_hsv(x):
    r, g, b = x.unbind(0)
    maxc, _ = x.max(dim=0)
    minc = x.min(dim=0).values
    eqc = maxc == minc
    cr = maxc - minc
    ones = torch.ones_like(maxc)
    s = cr / torch.where(eqc, ones, maxc)
    cr_divisor = torch.where(eqc, ones, cr)
    rc = (maxc - r) / cr_divisor
    gc = (maxc - g) / cr_divisor
    bc = (maxc - b) / cr_divisor
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = torch.fmod((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return torch.stack((h, s, maxc))


def hsv_to_rgb(x):
    h, s, v = x.unbind(0)
    i = torch.floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.to(dtype=torch.int32)
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(0) == torch.arange(6, dtype=torch.int32).view(-1, 1, 1)
    a1 = torch.stack((v, q, p, p, t, v))
    a2 = torch.stack((t, v, v, q, p, p))
    a3 = torch.stack((p, p, t, v, v, q))
    a4 = torch.stack((a1, a2, a3))
    return torch.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=x.dtype), a4)


hsv = rgb_to_hsv(f)
print("hsv", hsv[:, 0, 0].tolist() if False else [round(v, 4) for v in hsv[:, 1, 2].tolist()])
hue_shift = hsv.clone()
hue_shift[0] = (hue_shift[0] + 0.25) % 1.0
rgb = hsv_to_rgb(hue_shift)
print("hue shifted", [round(v, 4) for v in rgb[:, 1, 2].tolist()])
print("hsv round trip", torch.allclose(hsv_to_rgb(hsv), f, atol=1e-5))
print("u8 after hue", (rgb * 255).round().to(torch.uint8)[:, 0, 0].tolist())

batch = torch.randint(0, 256, (2, 3, 4, 4), dtype=torch.uint8)
mean_ = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
std_ = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
norm = (batch.float() / 255 - mean_) / std_
print("normalized", [round(v, 4) for v in norm.mean(dim=(0, 2, 3)).tolist()],
      [round(v, 4) for v in norm.std(dim=(0, 2, 3)).tolist()])
den = ((norm * std_ + mean_) * 255).round().clamp(0, 255).byte()
print("denormalized exact", torch.equal(den, batch), den.dtype)
print("hwc numpy view", batch[0].permute(1, 2, 0).contiguous().numpy().shape,
      batch[0].permute(1, 2, 0).numpy().strides)
