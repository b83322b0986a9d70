"""kornia-style color conversions written inline: rgb<->hsv (max/argmax/gather/fmod), rgb<->hls, YUV and YCbCr by
einsum with a matrix, sRGB gamma <-> linear, XYZ and CIE Lab (cube roots via where), grayscale, hue/saturation/gamma
adjustments, round-trip errors on uint8 and float16 inputs, gradients through the conversions, and shape errors."""

import math

import numpy as np
import torch

rng = np.random.default_rng(3)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def _check(image):
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(image)}")
    if image.dim() < 3 or image.shape[-3] != 3:
        raise ValueError(f"Input size must have a shape of (*, 3, H, W). Got {image.shape}")


def rgb_to_hsv(image, eps=1e-8):
    _check(image)
    maxc, max_idx = image.max(-3)
    minc = image.min(-3)[0]
    v = maxc
    deltac = maxc - minc
    s = deltac / (v + eps)
    deltac = torch.where(deltac == 0, torch.ones_like(deltac), deltac)
    rc, gc, bc = torch.unbind(maxc.unsqueeze(-3) - image, dim=-3)
    h1, h2, h3 = bc - gc, 2.0 * deltac + rc - bc, 4.0 * deltac + gc - rc
    h = torch.stack((h1, h2, h3), dim=-3) / deltac.unsqueeze(-3)
    h = torch.gather(h, dim=-3, index=max_idx.unsqueeze(-3)).squeeze(-3)
    h = (h / 6.0) % 1.0
    return torch.stack((2 * math.pi * h, s, v), dim=-3)


def hsv_to_rgb(image):
    _check(image)
    h = image[..., 0, :, :] / (2 * math.pi)
    s, v = image[..., 1, :, :], image[..., 2, :, :]
    hi = torch.floor(h * 6) % 6
    f = ((h * 6) % 6) - hi
    one = torch.tensor(1.0, dtype=image.dtype)
    p, q, t = v * (one - s), v * (one - f * s), v * (one - (one - f) * s)
    hi = hi.long()
    indices = torch.stack([hi, hi + 6, hi + 12], dim=-3)
    out = torch.stack((v, q, p, p, t, v, t, v, v, q, p, p, p, p, t, v, v, q), dim=-3)
    return torch.gather(out, -3, indices)


def rgb_to_hls(image, eps=1e-8):
    _check(image)
    maxc, imax = image.max(-3)
    minc = image.min(-3)[0]
    l = (maxc + minc) / 2
    d = maxc - minc
    s = torch.where(l < 0.5, d / (maxc + minc + eps), d / (2 - maxc - minc + eps))
    r_, g_, b_ = image.unbind(-3)
    hr, hg, hb = (g_ - b_) / (d + eps), 2 + (b_ - r_) / (d + eps), 4 + (r_ - g_) / (d + eps)
    h = torch.stack([hr, hg, hb], -3).gather(-3, imax.unsqueeze(-3)).squeeze(-3)
    h = torch.remainder(h * 60, 360) * (d > 0)
    return torch.stack([torch.deg2rad(h), l, s], -3)


YUV = torch.tensor([[0.299, 0.587, 0.114], [-0.147, -0.289, 0.436], [0.615, -0.515, -0.100]])
YCBCR_DELTA = 0.5


def rgb_to_yuv(image):
    return torch.einsum("ij,...jhw->...ihw", YUV.to(image.dtype), image)


def yuv_to_rgb(image):
    return torch.einsum("ij,...jhw->...ihw", torch.linalg.inv(YUV.double()).to(image.dtype), image)


def rgb_to_ycbcr(image):
    r_, g_, b_ = image.unbind(-3)
    y = 0.299 * r_ + 0.587 * g_ + 0.114 * b_
    return torch.stack([y, (b_ - y) * 0.564 + YCBCR_DELTA, (r_ - y) * 0.713 + YCBCR_DELTA], -3)


def srgb_to_linear(image):
    return torch.where(image > 0.04045, torch.pow((image + 0.055) / 1.055, 2.4), image / 12.92)


def linear_to_srgb(image):
    threshold = 0.0031308
    return torch.where(image > threshold, 1.055 * torch.pow(image.clamp(min=threshold), 1 / 2.4) - 0.055,
                       12.92 * image)


XYZ = torch.tensor([[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169], [0.019334, 0.119193, 0.950227]])


def rgb_to_lab(image):
    lin = srgb_to_linear(image)
    xyz = torch.einsum("ij,bjhw->bihw", XYZ.to(image.dtype), lin)
    xyz_ref_white = torch.tensor([0.95047, 1.0, 1.08883], dtype=image.dtype)[..., None, None]
    xyz_norm = xyz / xyz_ref_white
    threshold = 0.008856
    power = torch.pow(xyz_norm.clamp(min=threshold), 1 / 3.0)
    scale = 7.787 * xyz_norm + 4.0 / 29.0
    f = torch.where(xyz_norm > threshold, power, scale)
    x, y, z = f.unbind(-3)
    return torch.stack([(116.0 * y) - 16.0, 500.0 * (x - y), 200.0 * (y - z)], -3)


def rgb_to_grayscale(image, weights=None):
    w = torch.tensor([0.299, 0.587, 0.114], dtype=torch.float32) if weights is None else weights
    if image.dtype == torch.uint8:
        return (image.float() * w.view(3, 1, 1)).sum(-3, keepdim=True).round().to(torch.uint8)
    return (image * w.to(image).view(3, 1, 1)).sum(-3, keepdim=True)


img = torch.from_numpy(rng.random((2, 3, 4, 5))).float()
img[0, :, 0, 0] = torch.tensor([0.5, 0.5, 0.5])
img[0, :, 0, 1] = torch.tensor([1.0, 0.0, 0.0])
hsv = rgb_to_hsv(img)
print("hsv", hsv.dtype, tuple(hsv.shape), r(hsv[0, :, 0, :3].T.flatten(), 9))
print("hsv roundtrip", r((hsv_to_rgb(hsv) - img).abs().max()), torch.allclose(hsv_to_rgb(hsv), img, atol=1e-5))
hls = rgb_to_hls(img)
print("hls", r(hls[1, :, 2, 3]), r(hls.amax(dim=(0, 2, 3))), r(hls.amin(dim=(0, 2, 3))))
yuv = rgb_to_yuv(img)
print("yuv", r(yuv[0, :, 1, 1]), r((yuv_to_rgb(yuv) - img).abs().max() < 1e-5))
ycc = rgb_to_ycbcr(img)
print("ycbcr", r(ycc[1, :, 0, 0]), r(ycc.mean(dim=(0, 2, 3))))
lin = srgb_to_linear(img)
print("linear", r(lin[0, 0, 1]), torch.allclose(linear_to_srgb(lin), img, atol=1e-5))
lab = rgb_to_lab(img)
print("lab", r(lab[0, :, 0, 0]), r(lab[0, :, 0, 1]), r(lab.std(dim=(0, 2, 3))))
print("gray", r(rgb_to_grayscale(img)[0, 0, 0]), rgb_to_grayscale(img).shape)

u8 = (img * 255).round().to(torch.uint8)
g8 = rgb_to_grayscale(u8)
print("gray uint8", g8.dtype, g8[0, 0, 0].tolist(), g8.float().mean().item())
half = img.half()
hh = rgb_to_hsv(half)
print("hsv half", hh.dtype, r(hh[0, :, 1, 1]), r((hsv_to_rgb(hh).float() - img).abs().max() < 2e-3))
dbl = img.double()
print("hsv double", rgb_to_hsv(dbl).dtype, r((hsv_to_rgb(rgb_to_hsv(dbl)) - dbl).abs().max() < 1e-12))


def adjust_saturation(image, factor):
    h, s, v = rgb_to_hsv(image).unbind(-3)
    return hsv_to_rgb(torch.stack([h, (s * factor).clamp(0, 1), v], -3))


def adjust_hue(image, factor):
    h, s, v = rgb_to_hsv(image).unbind(-3)
    return hsv_to_rgb(torch.stack([torch.fmod(h + factor + 2 * math.pi, 2 * math.pi), s, v], -3))


def adjust_gamma(image, gamma, gain=1.0):
    return torch.clamp(gain * image.pow(gamma), 0.0, 1.0)


print("saturation", r(adjust_saturation(img, 0.5)[1, :, 0, 0]), r(adjust_saturation(img, 0.0)[1, :, 0, 0]))
print("hue", r(adjust_hue(img, 0.5)[1, :, 0, 0]), r(adjust_hue(img, -math.pi)[1, :, 0, 0]))
print("gamma", r(adjust_gamma(img, 2.2, 1.2)[0, 1, 0]))
print("fmod vs remainder", torch.fmod(torch.tensor([-7.0, 7.0]), 3).tolist(),
      torch.remainder(torch.tensor([-7.0, 7.0]), 3).tolist(),
      torch.tensor([-7.0]).fmod(-3).tolist(), (torch.tensor([-7, 7]) % 3).tolist())

x = img.clone().requires_grad_()
loss = rgb_to_lab(x)[:, 0].mean() + rgb_to_hsv(x)[:, 1].mean() + rgb_to_yuv(x)[:, 2].pow(2).mean()
loss.backward()
print("loss", round(loss.item(), 4), "grad", r(x.grad[1, :, 1, 1]), bool(torch.isfinite(x.grad).all()))
gx = torch.tensor([[[[0.3]], [[0.3]], [[0.3]]]], requires_grad=True)
rgb_to_hsv(gx).sum().backward()
print("grey pixel grad", r(gx.grad), gx.grad.dtype)
sat = adjust_saturation(torch.tensor([[[[0.9]], [[0.2]], [[0.4]]]]), torch.tensor(1.5))
print("tensor factor", r(sat), sat.shape)

for fn in [lambda: rgb_to_hsv(img[:, :2]), lambda: rgb_to_hsv(img.numpy()), lambda: rgb_to_hsv(img[0, 0]),
           lambda: torch.einsum("ij,...jhw->...ihw", YUV, img[:, :2]),
           lambda: torch.gather(img, -3, torch.zeros(2, 1, 4, 5)),
           lambda: torch.where(img > 0.5, img, img.double()[:, :1, :2]),
           lambda: rgb_to_grayscale(u8, torch.tensor([0.3, 0.6])),
           lambda: torch.pow(u8, 0.5).dtype]:
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:120])
