"""Colour handling in restoration pipelines: BT.601 RGB<->YCbCr (MATLAB's rgb2ycbcr used for Y-PSNR) by matmul,
einsum and tensordot, studio vs full range, uint8 round trips with rounding and saturation, RGB<->HSV with
torch.where/remainder/atan2-free hue, sRGB gamma (linear <-> sRGB) with clamp, per-channel normalisation with
broadcasting, BGR flips, and the dtype and shape errors these conversions hit."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
g = torch.Generator().manual_seed(3)
img = torch.rand(2, 3, 5, 6, generator=g)
img[0, :, 0, 0] = torch.tensor([1.0, 1.0, 1.0])
img[0, :, 0, 1] = torch.tensor([0.0, 0.0, 0.0])
img[0, :, 0, 2] = torch.tensor([1.0, 0.0, 0.0])
img[0, :, 0, 3] = torch.tensor([0.2, 0.2, 0.2])

M = torch.tensor([[65.481, 128.553, 24.966], [-37.797, -74.203, 112.0], [112.0, -93.786, -18.214]]) / 255.0
OFF = torch.tensor([16.0, 128.0, 128.0]) / 255.0


def rgb2ycbcr(x):  # studio range, BasicSR's rgb2ycbcr(y_only=False)
    return torch.matmul(x.permute(0, 2, 3, 1), M.t()).permute(0, 3, 1, 2) + OFF.view(1, 3, 1, 1)


def rgb2ycbcr_einsum(x):
    return torch.einsum("ij,bjhw->bihw", M, x) + OFF[:, None, None]


def ycbcr2rgb(y):
    return torch.einsum("ij,bjhw->bihw", torch.linalg.inv(M), y - OFF[:, None, None])


ycc = rgb2ycbcr(img)
print("ycbcr", tuple(ycc.shape), ycc[0, :, 0, :4].round(decimals=4).tolist())
print("einsum same", torch.allclose(ycc, rgb2ycbcr_einsum(img), atol=1e-6))
print(
    "tensordot same",
    torch.allclose(ycc, torch.tensordot(img, M, dims=([1], [1])).permute(0, 3, 1, 2) + OFF.view(1, 3, 1, 1), atol=1e-6),
)
print("y range", round(ycc[:, 0].min().item(), 4), round(ycc[:, 0].max().item(), 4))
back = ycbcr2rgb(ycc)
print("roundtrip", round((back - img).abs().max().item(), 4))
inv = torch.linalg.inv(M)
print("inv", inv.round(decimals=4).tolist())

# full-range JPEG YCbCr in float64 through a 1x1 conv
W = torch.tensor([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]], dtype=torch.float64)
conv = nn.Conv2d(3, 3, 1).double()
with torch.no_grad():
    conv.weight.copy_(W[:, :, None, None])
    conv.bias.copy_(torch.tensor([0.0, 0.5, 0.5]))
jp = conv(img.double())
print("jpeg ycc", jp.dtype, jp[0, :, 0, :3].round(decimals=4).tolist())

# uint8 round trip: quantisation error bounded by half a level
u8 = (ycc * 255.0).round().clamp(0, 255).to(torch.uint8)
print("u8", u8.dtype, u8[0, :, 0, :4].tolist())
deq = u8.float() / 255.0
print("quant err", round((deq - ycc).abs().max().item() * 255, 4) <= 0.5)
print("half-even", torch.tensor([0.5, 1.5, 2.5, -0.5, 254.5]).round().tolist())
print("saturate", torch.tensor([-3.0, 255.6, 300.0]).clamp(0, 255).round().to(torch.uint8).tolist())
print("byte math", (u8[0, 0, 0, :3] + u8[0, 0, 0, :3]).tolist(), (u8[0, 0, 0, :3].int() * 2).tolist())
print("mean u8", u8.float().mean().round(decimals=4).item(), u8.sum().item(), u8.sum().dtype)


def rgb2hsv(x, eps=1e-8):
    r, g, b = x.unbind(1)
    maxc, argmax = x.max(1)
    minc = x.min(1).values
    v = maxc
    delta = maxc - minc
    s = torch.where(maxc > 0, delta / (maxc + eps), torch.zeros_like(maxc))
    rc, gc, bc = (maxc - r) / (delta + eps), (maxc - g) / (delta + eps), (maxc - b) / (delta + eps)
    h = torch.where(argmax == 0, bc - gc, torch.where(argmax == 1, 2.0 + rc - bc, 4.0 + gc - rc))
    h = torch.remainder(h / 6.0, 1.0)
    h = torch.where(delta > 0, h, torch.zeros_like(h))
    return torch.stack([h, s, v], 1)


def hsv2rgb(x):
    h, s, v = x.unbind(1)
    i = torch.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.long() % 6
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    table = torch.stack(
        [torch.stack(c, 1) for c in [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]], 0
    )
    return table.gather(0, i[None, :, None].expand(1, -1, 3, -1, -1)).squeeze(0)


hsv = rgb2hsv(img)
print("hsv", hsv[0, :, 0, :4].round(decimals=4).tolist())
print("hsv roundtrip", round((hsv2rgb(hsv) - img).abs().max().item(), 4))
shifted = hsv.clone()
shifted[:, 0] = torch.remainder(shifted[:, 0] + 0.5, 1.0)
print("hue shift", hsv2rgb(shifted)[0, :, 0, 2].round(decimals=4).tolist())


def srgb_to_linear(x):
    return torch.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055).pow(2.4))


def linear_to_srgb(x):
    x = x.clamp(min=0.0)
    return torch.where(x <= 0.0031308, 12.92 * x, 1.055 * x.clamp(min=0.0031308).pow(1 / 2.4) - 0.055)


lin = srgb_to_linear(img)
print("linear", lin[0, :, 0, :4].round(decimals=4).tolist(), round((linear_to_srgb(lin) - img).abs().max().item(), 4))
x = img.clone().requires_grad_(True)
linear_to_srgb(srgb_to_linear(x)).sum().backward()
print("gamma grad", round(x.grad.mean().item(), 4), torch.isfinite(x.grad).all().item())

mean = torch.tensor([0.4488, 0.4371, 0.4040]).view(1, 3, 1, 1)
norm = (img - mean) * 255.0
print("sub mean", round(norm.mean().item(), 4), tuple((norm / 255 + mean).shape))
bgr = img.flip(1)
print("bgr", torch.equal(bgr[:, 0], img[:, 2]), torch.equal(img[:, [2, 1, 0]], bgr))
gray = (img * torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)).sum(1, keepdim=True)
print("gray", tuple(gray.shape), round(gray.sum().item(), 4), tuple(gray.expand(-1, 3, -1, -1).shape))

for bad in [
    lambda: torch.matmul(img.permute(0, 2, 3, 1), M[:2].t()),
    lambda: torch.einsum("ij,bjhw->bihw", M, img[:, :2]),
    lambda: (u8 / 255).to(torch.uint8).sum() + torch.tensor([1.5]).to(torch.uint8),
    lambda: torch.remainder(u8, 0),
    lambda: torch.where(img > 0.5, img, 0).dtype,
    lambda: img.clamp(min=torch.zeros(3), max=1),
]:
    try:
        r = bad()
        print("ok", r if not isinstance(r, torch.Tensor) else tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)
