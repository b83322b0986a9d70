"""torchvision transforms.v2 functional ops written inline on uint8 and float images: to_dtype with scaling,
rgb_to_grayscale, _blend-based brightness/contrast/saturation, adjust_hue through rgb->hsv->rgb, posterize with
bitwise_and, solarize, autocontrast, equalize by per-channel histograms (bincount, cumsum, gather), sharpness with
a depthwise conv kept off the border, RandomResizedCrop.get_params with log-uniform ratios, resize with antialias,
TrivialAugmentWide sampling, and random erasing."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def to_dtype(image, dtype, scale=True):
    if not scale:
        return image.to(dtype)
    if image.is_floating_point() and not dtype.is_floating_point:
        return image.mul(torch.iinfo(dtype).max + 1.0 - 1e-3).to(dtype)
    if not image.is_floating_point() and dtype.is_floating_point:
        return image.to(dtype).div_(torch.iinfo(image.dtype).max)
    return image.to(dtype)


def _max_value(dtype):
    return 1.0 if dtype.is_floating_point else torch.iinfo(dtype).max


def _blend(image1, image2, ratio):
    ratio = float(ratio)
    fp = image1.is_floating_point()
    bound = _max_value(image1.dtype)
    output = image1.mul(ratio).add_(image2, alpha=(1.0 - ratio)).clamp_(0, bound)
    return output if fp else output.to(image1.dtype)


def rgb_to_grayscale(image, num_output_channels=1):
    r, g, b = image.unbind(dim=-3)
    l_img = r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114)
    if not image.is_floating_point():
        l_img = l_img.round_().to(image.dtype)
    l_img = l_img.unsqueeze(dim=-3)
    return l_img.expand(image.shape) if num_output_channels == 3 else l_img


def adjust_brightness(image, factor):
    return _blend(image, torch.zeros_like(image), factor)


def adjust_contrast(image, factor):
    grayscale = rgb_to_grayscale(image).to(torch.float32)
    mean = torch.mean(grayscale, dim=(-3, -2, -1), keepdim=True)
    return _blend(image, mean, factor)


def adjust_saturation(image, factor):
    return _blend(image, rgb_to_grayscale(image), factor)


def _rgb_to_hsv(image):
    r, g, _ = image.unbind(dim=-3)
    minc, maxc = torch.aminmax(image, dim=-3)
    eqc = maxc == minc
    channels_range = maxc - minc
    ones = torch.ones_like(maxc)
    s = channels_range / torch.where(eqc, ones, maxc)
    channels_range_divisor = torch.where(eqc, ones, channels_range).unsqueeze_(dim=-3)
    rc, gc, bc = ((maxc.unsqueeze(dim=-3) - image) / channels_range_divisor).unbind(dim=-3)
    mask_maxc_neq_r = maxc != r
    mask_maxc_eq_g = maxc == g
    hg = rc.add(2.0).sub_(bc).mul_(mask_maxc_eq_g & mask_maxc_neq_r)
    hr = bc.sub_(gc).mul_(~mask_maxc_neq_r)
    hb = gc.add_(4.0).sub_(rc).mul_(mask_maxc_neq_r.logical_and_(mask_maxc_eq_g.logical_not_()))
    h = hr.add_(hg).add_(hb)
    h = h.mul_(1.0 / 6.0).add_(1.0).fmod_(1.0)
    return torch.stack((h, s, maxc), dim=-3)


def _hsv_to_rgb(img):
    h, s, v = img.unbind(dim=-3)
    h6 = h.mul(6)
    i = torch.floor(h6)
    f = h6.sub_(i)
    i = i.to(dtype=torch.int32)
    sxf = s * f
    one_minus_s = 1.0 - s
    q = (1.0 - sxf).mul_(v).clamp_(0.0, 1.0)
    t = sxf.add_(one_minus_s).mul_(v).clamp_(0.0, 1.0)
    p = one_minus_s.mul_(v).clamp_(0.0, 1.0)
    i.remainder_(6)
    vpqt = torch.stack((v, p, q, t), dim=-3)
    select = torch.tensor([[0, 2, 1, 1, 3, 0], [3, 0, 0, 2, 1, 1], [1, 1, 3, 0, 0, 2]], dtype=torch.long)
    select = select[:, i]
    if select.ndim > 3:
        select = select.transpose(0, 1)
    return vpqt.gather(-3, select)


def adjust_hue(image, hue_factor):
    orig_dtype = image.dtype
    image = to_dtype(image, torch.float32)
    image = _rgb_to_hsv(image)
    h, s, v = image.unbind(dim=-3)
    h.add_(hue_factor).remainder_(1.0)
    image = _hsv_to_rgb(torch.stack((h, s, v), dim=-3))
    return to_dtype(image, orig_dtype)


def posterize(image, bits):
    mask = ((1 << bits) - 1) << (8 - bits)
    return image & mask


def solarize(image, threshold):
    return torch.where(image >= threshold, 255 - image if image.dtype == torch.uint8 else 1.0 - image, image)


def autocontrast(image):
    bound = _max_value(image.dtype)
    fp = image.is_floating_point()
    float_image = image if fp else image.to(torch.float32)
    minimum = float_image.amin(dim=(-2, -1), keepdim=True)
    maximum = float_image.amax(dim=(-2, -1), keepdim=True)
    eq_idxs = maximum == minimum
    inv_scale = maximum.sub_(minimum).mul_(1.0 / bound)
    minimum[eq_idxs] = 0.0
    inv_scale[eq_idxs] = 1.0
    diff = float_image.sub(minimum) if fp else float_image.sub_(minimum)
    return diff.div_(inv_scale).clamp_(0, bound).to(image.dtype)


def equalize(image):
    batch_shape = image.shape[:-2]
    flat = image.flatten(0, -3) if image.ndim > 2 else image[None]
    out = torch.empty_like(flat)
    for c in range(flat.shape[0]):
        ch = flat[c]
        hist = torch.bincount(ch.flatten().long(), minlength=256)
        nonzero = hist[hist != 0]
        step = torch.div(nonzero[:-1].sum(), 255, rounding_mode="floor") if nonzero.numel() > 1 else torch.tensor(0)
        if step == 0:
            out[c] = ch
            continue
        lut = torch.div(torch.cumsum(hist, 0) + torch.div(step, 2, rounding_mode="floor"), step,
                        rounding_mode="floor")
        lut = F.pad(lut, [1, 0])[:-1].clamp_(0, 255)
        out[c] = lut.gather(0, ch.flatten().long()).view_as(ch).to(torch.uint8)
    return out.view(*batch_shape, *image.shape[-2:])


def adjust_sharpness(image, factor):
    num_channels, height, width = image.shape[-3:]
    fp = image.is_floating_point()
    a, b = 1.0 / 13.0, 5.0 / 13.0
    kernel = torch.tensor([[a, a, a], [a, b, a], [a, a, a]]).expand(num_channels, 1, 3, 3)
    img = image.reshape(-1, num_channels, height, width)
    blurred = F.conv2d(img if fp else img.to(torch.float32), kernel, groups=num_channels)
    if not fp:
        blurred = blurred.round_()
    degenerate = img.clone().to(blurred.dtype)
    degenerate[..., 1:-1, 1:-1] = blurred
    return _blend(img, degenerate.to(img.dtype), factor).reshape(image.shape)


def rrc_get_params(height, width, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    area = height * width
    log_ratio = torch.log(torch.tensor(ratio))
    for _ in range(10):
        target_area = area * torch.empty(1).uniform_(scale[0], scale[1]).item()
        aspect_ratio = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        w = int(round(math.sqrt(target_area * aspect_ratio)))
        h = int(round(math.sqrt(target_area / aspect_ratio)))
        if 0 < w <= width and 0 < h <= height:
            i = torch.randint(0, height - h + 1, size=(1,)).item()
            j = torch.randint(0, width - w + 1, size=(1,)).item()
            return i, j, h, w
    return 0, 0, height, width


img_u8 = torch.randint(0, 256, (3, 6, 6), dtype=torch.uint8)
img_f = to_dtype(img_u8, torch.float32)
print("to_dtype", img_f.dtype, img_f[0, 0, :3], to_dtype(img_f, torch.uint8).equal(img_u8))
print("gray u8", rgb_to_grayscale(img_u8)[0, 0].tolist(), "gray3", rgb_to_grayscale(img_u8, 3).shape)
print("brightness", adjust_brightness(img_u8, 1.5)[0, 0].tolist(), adjust_brightness(img_f, 0.5)[0, 0, :3])
print("contrast", adjust_contrast(img_u8, 0.5)[1, 0].tolist())
print("saturation", adjust_saturation(img_f, 2.0)[2, 0, :3])
hsv = _rgb_to_hsv(img_f)
print("hsv roundtrip", torch.allclose(_hsv_to_rgb(hsv), img_f, atol=1e-5), hsv[:, 0, 0])
print("hue", adjust_hue(img_u8, 0.25)[:, 0, 0].tolist(), adjust_hue(img_f, -0.1)[:, 1, 1])
print("posterize", posterize(img_u8, 3)[0, 0].tolist(), "solarize", solarize(img_u8, 128)[0, 0].tolist())
low = (img_u8 // 4 + 60).to(torch.uint8)
print("autocontrast", autocontrast(low)[0, 0].tolist(), autocontrast(torch.full((1, 2, 2), 7, dtype=torch.uint8))
      .flatten().tolist())
eq = equalize(low)
print("equalize", eq[0, 0].tolist(), eq.dtype, "batched", equalize(low[None]).shape)
print("sharpness", adjust_sharpness(img_u8, 2.0)[0, 1].tolist(), adjust_sharpness(img_f, 0.0)[0, 1, :3])

torch.manual_seed(5)
print("rrc params", [rrc_get_params(32, 48) for _ in range(3)])
big = torch.rand(3, 32, 48)
i, j, h, w = rrc_get_params(32, 48)
crop = big[:, i:i + h, j:j + w]
aa = F.interpolate(crop[None], size=(8, 8), mode="bilinear", align_corners=False, antialias=True)[0]
plain = F.interpolate(crop[None], size=(8, 8), mode="bilinear", align_corners=False, antialias=False)[0]
print("resized", aa.shape, aa[0, 0, :4], "antialias smoother", aa.std().item() < plain.std().item())
u8_resized = F.interpolate(img_u8[None].float(), size=(4, 4), mode="bicubic", antialias=True).round().clamp(0, 255)
print("bicubic aa u8", u8_resized.to(torch.uint8)[0, 0].tolist())

ops = ["Identity", "Brightness", "Contrast", "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize"]
num_bins = 31
magnitudes = {"Brightness": torch.linspace(0.0, 0.99, num_bins), "Contrast": torch.linspace(0.0, 0.99, num_bins),
              "Sharpness": torch.linspace(0.0, 0.99, num_bins),
              "Posterize": 8 - (torch.arange(num_bins) / ((num_bins - 1) / 6)).round().int(),
              "Solarize": torch.linspace(255.0, 0.0, num_bins)}
torch.manual_seed(11)
out = img_u8  # uint8 blends: add(alpha=) rounds as PyTorch's fused multiply-add, or a pixel moves by one
for _ in range(4):
    op = ops[int(torch.randint(len(ops), ()))]
    mag = 0.0
    if op in magnitudes:
        mag = float(magnitudes[op][int(torch.randint(num_bins, ()))])
        if op in ("Brightness", "Contrast", "Sharpness") and torch.randint(2, ()):
            mag *= -1.0
    fn = {"Identity": lambda x, m: x, "Brightness": lambda x, m: adjust_brightness(x, 1.0 + m),
          "Contrast": lambda x, m: adjust_contrast(x, 1.0 + m), "Sharpness": lambda x, m: adjust_sharpness(x, 1.0 + m),
          "Posterize": lambda x, m: to_dtype(posterize(to_dtype(x, torch.uint8), int(m)), torch.float32),
          "Solarize": lambda x, m: solarize(x, m / 255.0),
          "AutoContrast": lambda x, m: autocontrast(x), "Equalize": lambda x, m: equalize(x)}[op]
    out = fn(out, mag)
    print(f"trivial {op} {mag:.4f} sum {out.sum().item():.3f}")

torch.manual_seed(2)
x = img_f.clone()
area = x.shape[-2] * x.shape[-1]
erase_area = area * torch.empty(1).uniform_(0.02, 0.33).item()
aspect = math.exp(torch.empty(1).uniform_(math.log(0.3), math.log(3.3)).item())
eh, ew = int(round(math.sqrt(erase_area * aspect))), int(round(math.sqrt(erase_area / aspect)))
ei = torch.randint(0, x.shape[-2] - eh + 1, size=(1,)).item()
ej = torch.randint(0, x.shape[-1] - ew + 1, size=(1,)).item()
x[..., ei:ei + eh, ej:ej + ew] = torch.empty((3, eh, ew), dtype=torch.float32).normal_()
print("erased", (ei, ej, eh, ew), round(x.mean().item(), 4), (x != img_f).sum().item())
