"""A batched SimCLR/BYOL augmentation pipeline written with tensor ops on the CPU, as GPU-side
augmentation code does it: random resized crops through affine_grid + grid_sample with per-sample scale and
aspect ratio, horizontal flips by torch.where over torch.flip, colour jitter (brightness, contrast, saturation and
an RGB->HSV->RGB hue shift) applied in a random order from torch.randperm, random grayscale, a separable Gaussian
blur by grouped conv2d with reflect padding, solarization, and the errors of the ops involved."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

g = torch.Generator().manual_seed(0)
B, H, W = 4, 16, 16
imgs = torch.rand(B, 3, H, W, generator=g)


def random_resized_crop(x, out_size, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    n = x.shape[0]
    area = torch.empty(n).uniform_(scale[0], scale[1], generator=g)
    log_r = torch.empty(n).uniform_(math.log(ratio[0]), math.log(ratio[1]), generator=g)
    r = torch.exp(log_r)
    w = torch.sqrt(area * r).clamp(max=1.0)
    h = torch.sqrt(area / r).clamp(max=1.0)
    cx = (torch.rand(n, generator=g) * 2 - 1) * (1 - w)
    cy = (torch.rand(n, generator=g) * 2 - 1) * (1 - h)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 2] = w, cx
    theta[:, 1, 1], theta[:, 1, 2] = h, cy
    grid = F.affine_grid(theta, [n, x.shape[1], out_size, out_size], align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False), theta


def rgb_to_hsv(img):
    r, g_, b = img.unbind(1)
    maxc, _ = img.max(dim=1)
    minc = torch.amin(img, dim=1)
    eqc = maxc == minc
    cr = maxc - minc
    ones = torch.ones_like(maxc)
    s = cr / torch.where(eqc, ones, maxc)
    cr_divisor = torch.where(eqc, ones, cr)
    rc, gc, bc = (maxc - r) / cr_divisor, (maxc - g_) / cr_divisor, (maxc - b) / cr_divisor
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g_) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g_) & (maxc != r)) * (4.0 + gc - rc)
    h = torch.fmod((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return torch.stack((h, s, maxc), dim=1)


def hsv_to_rgb(img):
    h, s, v = img.unbind(1)
    i = torch.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.to(dtype=torch.int32)
    p = torch.clamp(v * (1.0 - s), 0.0, 1.0)
    q = torch.clamp(v * (1.0 - s * f), 0.0, 1.0)
    t = torch.clamp(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(dim=1) == torch.arange(6, dtype=torch.int32).view(-1, 1, 1)
    a1 = torch.stack((v, q, p, p, t, v), dim=1)
    a2 = torch.stack((t, v, v, q, p, p), dim=1)
    a3 = torch.stack((p, p, t, v, v, q), dim=1)
    a4 = torch.stack((a1, a2, a3), dim=1)
    return torch.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=img.dtype), a4)


def grayscale(x):
    return (0.299 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2]).unsqueeze(1)


def color_jitter(x, b=0.4, c=0.4, s=0.2, h=0.1):
    n = x.shape[0]
    fb = torch.empty(n, 1, 1, 1).uniform_(1 - b, 1 + b, generator=g)
    fc = torch.empty(n, 1, 1, 1).uniform_(1 - c, 1 + c, generator=g)
    fs = torch.empty(n, 1, 1, 1).uniform_(1 - s, 1 + s, generator=g)
    fh = torch.empty(n, 1, 1).uniform_(-h, h, generator=g)
    order = torch.randperm(4, generator=g).tolist()
    for o in order:
        if o == 0:
            x = (x * fb).clamp(0, 1)
        elif o == 1:
            m = grayscale(x).mean(dim=(-3, -2, -1), keepdim=True)
            x = (fc * x + (1 - fc) * m).clamp(0, 1)
        elif o == 2:
            x = (fs * x + (1 - fs) * grayscale(x)).clamp(0, 1)
        else:
            hsv = rgb_to_hsv(x)
            hsv[:, 0] = (hsv[:, 0] + fh) % 1.0
            x = hsv_to_rgb(hsv)
    return x, order


def gaussian_blur(x, sigma, k=5):
    ax = torch.arange(k, dtype=x.dtype) - k // 2
    kern = torch.exp(-(ax**2) / (2 * sigma**2))
    kern = kern / kern.sum()
    c = x.shape[1]
    x = F.pad(x, (k // 2, k // 2, k // 2, k // 2), mode="reflect")
    x = F.conv2d(x, kern.view(1, 1, 1, k).expand(c, 1, 1, k), groups=c)
    return F.conv2d(x, kern.view(1, 1, k, 1).repeat(c, 1, 1, 1), groups=c)


crops, theta = random_resized_crop(imgs, 8)
print("crop", crops.shape, theta[0].round(decimals=4).tolist(), round(crops.mean().item(), 4))
flip = torch.rand(B, generator=g) < 0.5
flipped = torch.where(flip[:, None, None, None], torch.flip(crops, dims=[3]), crops)
print("flip", flip.tolist(), torch.equal(flipped[flip], crops[flip].flip(-1)), crops.flip(-1).is_contiguous())
jit, order = color_jitter(flipped)
print("jitter", order, jit.shape, round(jit.sum().item(), 3), round(jit.min().item(), 4), round(jit.max().item(), 4))
hsv = rgb_to_hsv(imgs)
back = hsv_to_rgb(hsv)
print("hsv roundtrip", round((back - imgs).abs().max().item(), 4), hsv[0, :, 0, 0].round(decimals=4).tolist())
gray_p = torch.rand(B, generator=g) < 0.2
gray = torch.where(gray_p.view(-1, 1, 1, 1), grayscale(jit).expand(-1, 3, -1, -1), jit)
print("gray", gray_p.tolist(), grayscale(jit).expand(-1, 3, -1, -1).stride())
sigmas = torch.empty(B).uniform_(0.1, 2.0, generator=g)
blurred = torch.cat([gaussian_blur(gray[i : i + 1], s.item()) for i, s in enumerate(sigmas)])
print("blur", blurred.shape, round(blurred.std().item(), 4), round(gray.std().item(), 4))
sol = torch.where(blurred >= 0.5, 1.0 - blurred, blurred)
print("solarize", round(sol.max().item(), 4) <= 0.5, round(sol.sum().item(), 3))
mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
out = (sol - mean) / std
print("normalized", out.dtype, out.mean(dim=(0, 2, 3)).round(decimals=4).tolist())

# uint8 path: images as bytes, converted and back
u8 = (imgs * 255).round().to(torch.uint8)
print(
    "uint8",
    u8.dtype,
    u8[0, 0, 0, :4].tolist(),
    (u8.float() / 255).sub(imgs).abs().max().item() < 0.002,
    u8.flip(2).clamp(10, 200)[0, 0, 0, :3].tolist(),
    (255 - u8)[0, 0, 0, :2].tolist(),
)

for fn in [
    lambda: F.grid_sample(imgs, torch.zeros(4, 8, 8, 3), align_corners=False),
    lambda: F.affine_grid(torch.zeros(4, 3, 3), [4, 3, 8, 8], align_corners=False),
    lambda: F.pad(imgs, (16, 16, 0, 0), mode="reflect"),
    lambda: F.conv2d(imgs, torch.ones(3, 1, 3, 3), groups=2),
    lambda: torch.flip(imgs, dims=[4]),
    lambda: torch.randperm(4, generator=g, dtype=torch.float16).dtype,
]:
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__, e)
