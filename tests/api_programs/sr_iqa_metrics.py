"""Image-quality metrics as restoration benchmarks compute them: PSNR on the Y channel with border cropping
(BasicSR's calculate_psnr), SSIM with a separable Gaussian window via grouped conv2d and with the 8x8 uniform window,
MS-SSIM with avg_pool2d downsampling, uint8 quantisation before the metric, float64 accumulation, and per-image
batch statistics with nan handling for identical images."""


import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
yy, xx = torch.meshgrid(torch.linspace(-1, 1, 48), torch.linspace(-1, 1, 48), indexing="ij")
base = torch.stack([0.5 + 0.4 * torch.sin(3 * xx + k) * torch.cos(2 * yy - k) for k in range(3)])
gt = torch.stack([base, base.flip(-1), base.transpose(-1, -2)]).clamp(0, 1)  # (3, 3, 48, 48)
noise = torch.randn(gt.shape, generator=torch.Generator().manual_seed(1))
restored = (gt + 0.05 * noise).clamp(0, 1)


def quantize(x):
    return (x * 255.0).round().clamp(0, 255) / 255.0


def rgb2y(x):
    w = torch.tensor([65.481, 128.553, 24.966], dtype=x.dtype) / 255.0
    return torch.einsum("bchw,c->bhw", x, w).unsqueeze(1) + 16.0 / 255.0


def psnr(a, b, crop=0, data_range=1.0):
    if crop:
        a, b = a[..., crop:-crop, crop:-crop], b[..., crop:-crop, crop:-crop]
    mse = (a.double() - b.double()).pow(2).mean(dim=(1, 2, 3))
    return 10 * torch.log10(data_range**2 / mse)


def gaussian_window(size=11, sigma=1.5, channels=1, dtype=torch.float32):
    g = torch.arange(size, dtype=dtype) - size // 2
    g = torch.exp(-(g**2) / (2 * sigma**2))
    g = g / g.sum()
    return (g[:, None] @ g[None, :]).expand(channels, 1, size, size).contiguous()


def ssim(a, b, win, data_range=1.0, full=False):
    c = a.shape[1]
    C1, C2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    mu_a = F.conv2d(a, win, groups=c)
    mu_b = F.conv2d(b, win, groups=c)
    s_aa = F.conv2d(a * a, win, groups=c) - mu_a**2
    s_bb = F.conv2d(b * b, win, groups=c) - mu_b**2
    s_ab = F.conv2d(a * b, win, groups=c) - mu_a * mu_b
    cs = (2 * s_ab + C2) / (s_aa + s_bb + C2)
    smap = (2 * mu_a * mu_b + C1) / (mu_a**2 + mu_b**2 + C1) * cs
    if full:
        return smap.flatten(1).mean(1), cs.flatten(1).mean(1)
    return smap.flatten(1).mean(1)


def ms_ssim(a, b, win, weights=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333)):
    w = torch.tensor(weights, dtype=a.dtype)
    vals = []
    for i in range(len(weights)):
        s, cs = ssim(a, b, win, full=True)
        vals.append(torch.relu(cs) if i < len(weights) - 1 else torch.relu(s))
        if i < len(weights) - 1:
            a = F.avg_pool2d(a, 2, ceil_mode=True, count_include_pad=False)
            b = F.avg_pool2d(b, 2, ceil_mode=True, count_include_pad=False)
    stack = torch.stack(vals, dim=0)
    return torch.prod(stack ** w[:, None], dim=0)


q_gt, q_rs = quantize(gt), quantize(restored)
print("psnr rgb", psnr(q_gt, q_rs).round(decimals=4).tolist())
print("psnr y crop4", psnr(rgb2y(q_gt), rgb2y(q_rs), crop=4).round(decimals=4).tolist())
print("psnr 255", psnr(q_gt * 255, q_rs * 255, data_range=255.0).round(decimals=4).tolist())
same = psnr(q_gt, q_gt)
print("identical", same.tolist(), torch.isinf(same).all().item(), same.dtype)
finite = torch.where(torch.isinf(same), torch.full_like(same, 100.0), same)
print("capped", finite.tolist())

win = gaussian_window(channels=3)
print("window", tuple(win.shape), round(win.sum().item(), 4), round(win[0, 0, 5, 5].item(), 4))
print("ssim", ssim(q_gt, q_rs, win).round(decimals=4).tolist())
print("ssim self", ssim(q_gt, q_gt, win).round(decimals=4).tolist())
print("ssim y", ssim(rgb2y(q_gt), rgb2y(q_rs), gaussian_window()).round(decimals=4).tolist())
uni = torch.full((3, 1, 8, 8), 1 / 64.0)
print("ssim uniform8", ssim(q_gt, q_rs, uni).round(decimals=4).tolist())
small = gaussian_window(size=5, channels=3)
print("ms-ssim", ms_ssim(q_gt, q_rs, small, weights=(0.0448, 0.2856, 0.3001, 0.3696)).round(decimals=4).tolist())
w64 = gaussian_window(channels=3, dtype=torch.float64)
print("ssim f64", ssim(q_gt.double(), q_rs.double(), w64).round(decimals=4).tolist())

# separable blur equals the 2-D window
g1 = win[0, 0].sum(1)
sep = F.conv2d(
    F.conv2d(q_gt, g1.view(1, 1, 11, 1).repeat(3, 1, 1, 1), groups=3), g1.view(1, 1, 1, 11).repeat(3, 1, 1, 1), groups=3
)
print("separable", torch.allclose(sep, F.conv2d(q_gt, win, groups=3), atol=1e-6))

# SSIM as a loss: gradient flows through grouped conv
x = restored.clone().requires_grad_(True)
loss = 1 - ssim(x, gt, win).mean()
loss.backward()
print("loss", round(loss.item(), 4), type(loss.grad_fn).__name__, round(x.grad.abs().sum().item(), 4))

# running average of metrics over a "dataset", skipping nan from constant images
flat = torch.full((1, 3, 16, 16), 0.5)
vals = torch.cat(
    [psnr(q_gt, q_rs), ssim(flat, flat, gaussian_window(channels=3)), torch.tensor([float("nan")], dtype=torch.float64)]
)
print(
    "nanmean", round(vals.nanmean().item(), 4), "nansum", round(vals.nansum().item(), 4), "isnan", vals.isnan().tolist()
)

for bad in [
    lambda: F.conv2d(q_gt, gaussian_window(channels=2), groups=3),
    lambda: F.conv2d(q_gt, win, groups=2),
    lambda: F.avg_pool2d(q_gt, 2, padding=2),
    lambda: ssim(q_gt, q_rs[:, :2], win),
]:
    try:
        print("ok", bad().shape)
    except Exception as e:
        print(type(e).__name__, e)
