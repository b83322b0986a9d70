"""Image restoration research code: an ESPCN super-resolver (PixelShuffle), an ASPP block (dilated convs), SSIM with a
Gaussian window (grouped conv2d), PSNR, total variation, an FFT frequency loss, a Laplacian pyramid, a PatchGAN
discriminator with an R1 gradient penalty (autograd.grad create_graph), and timm-style EMA with torch._foreach ops."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(m, scale=0.2):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * (scale if p.dim() > 1 else 0.01))
    return m


class ESPCN(nn.Module):
    def __init__(self, scale=2, c=3, f=8):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, f, 5, padding=2), nn.Tanh(), nn.Conv2d(f, f, 3, padding="same"),
                                  nn.Tanh(), nn.Conv2d(f, c * scale ** 2, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        base = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
        return (base + self.shuffle(self.body(x))).clamp(0, 1)


class ASPP(nn.Module):
    def __init__(self, c, out, rates=(1, 2, 3)):
        super().__init__()
        self.branches = nn.ModuleList(nn.Conv2d(c, out, 3 if r > 1 else 1, padding=r if r > 1 else 0, dilation=r,
                                                bias=False) for r in rates)
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, out, 1, bias=False))
        self.project = nn.Conv2d(out * (len(rates) + 1), out, 1)

    def forward(self, x):
        outs = [b(x) for b in self.branches]
        outs.append(F.interpolate(self.pool(x), size=x.shape[-2:], mode="bilinear", align_corners=False))
        return self.project(torch.cat(outs, dim=1))


def gaussian_window(size=5, sigma=1.5, channels=3):
    g = torch.arange(size, dtype=torch.float32) - size // 2
    g = torch.exp(-(g ** 2) / (2 * sigma ** 2))
    g = g / g.sum()
    w = torch.outer(g, g)
    return w.expand(channels, 1, size, size).contiguous()


def ssim(a, b, window, c1=0.01 ** 2, c2=0.03 ** 2):
    ch = a.shape[1]
    mu_a = F.conv2d(a, window, groups=ch)
    mu_b = F.conv2d(b, window, groups=ch)
    saa = F.conv2d(a * a, window, groups=ch) - mu_a.pow(2)
    sbb = F.conv2d(b * b, window, groups=ch) - mu_b.pow(2)
    sab = F.conv2d(a * b, window, groups=ch) - mu_a * mu_b
    m = ((2 * mu_a * mu_b + c1) * (2 * sab + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (saa + sbb + c2))
    return m.mean(dim=(1, 2, 3))


def psnr(a, b, max_val=1.0):
    mse = F.mse_loss(a, b, reduction="none").flatten(1).mean(1)
    return 10 * torch.log10(max_val ** 2 / mse)


def tv(x):
    return (x[..., 1:, :] - x[..., :-1, :]).abs().mean() + (x[..., :, 1:] - x[..., :, :-1]).abs().mean()


def fft_loss(a, b):
    fa, fb = torch.fft.rfft2(a, norm="ortho"), torch.fft.rfft2(b, norm="ortho")
    return (fa - fb).abs().mean()


hr = torch.from_numpy(rng.uniform(0, 1, (2, 3, 16, 16)).astype(np.float32))
lr = F.interpolate(hr, scale_factor=0.5, mode="bicubic", align_corners=False, antialias=True).clamp(0, 1)
print("lr", tuple(lr.shape), r(lr[0, 0, 0]))
net = init_(ESPCN())
sr = net(lr)
win = gaussian_window()
print("sr", tuple(sr.shape), r(sr[0, 0, 0]), "window", r(win[0, 0, 2], 5), round(win[0].sum().item(), 4))
print("ssim", r(ssim(sr, hr, win)), r(ssim(hr, hr, win)), "psnr", r(psnr(sr, hr)), "tv", round(tv(sr).item(), 4))
print("fft", round(fft_loss(sr, hr).item(), 4), tuple(torch.fft.rfft2(hr).shape), torch.fft.rfft2(hr).dtype)

pyr, cur = [], hr
for _ in range(2):
    down = F.avg_pool2d(cur, 2)
    up = F.interpolate(down, scale_factor=2, mode="nearest")
    pyr.append(cur - up)
    cur = down
pyr.append(cur)
recon = pyr[-1]
for lap in reversed(pyr[:-1]):
    recon = F.interpolate(recon, scale_factor=2, mode="nearest") + lap
print("pyramid", [tuple(p.shape[-2:]) for p in pyr], torch.allclose(recon, hr, atol=1e-6))

aspp = init_(ASPP(3, 4))
print("aspp", tuple(aspp(hr).shape), r(aspp(hr)[0, :, 3, 3]), [b.dilation for b in aspp.branches])

disc = init_(nn.Sequential(
    nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2, True),
    nn.utils.spectral_norm(nn.Conv2d(8, 8, 4, 2, 1)), nn.InstanceNorm2d(8), nn.LeakyReLU(0.2, True),
    nn.Conv2d(8, 1, 3, 1, 1)))
with torch.no_grad():  # the power iteration's start vectors, fixed (they are drawn from the RNG)
    disc[2].weight_u.copy_(F.normalize(T(8), dim=0))
    disc[2].weight_v.copy_(F.normalize(T(128), dim=0))
real = hr.clone().requires_grad_(True)
d_real = disc(real)
print("patchgan", tuple(d_real.shape))
(grad,) = torch.autograd.grad(d_real.sum(), real, create_graph=True)
r1 = grad.pow(2).reshape(grad.shape[0], -1).sum(1).mean()
d_fake = disc(sr.detach())
loss_d = F.softplus(-d_real).mean() + F.softplus(d_fake).mean() + 5.0 * r1
loss_d.backward()
print("r1", round(r1.item(), 4), "loss_d", round(loss_d.item(), 4), "grad", r(disc[0].weight.grad.flatten()[:4], 4))

opt = torch.optim.Adam(net.parameters(), lr=2e-3, betas=(0.9, 0.99), foreach=True)
ema = [p.detach().clone() for p in net.parameters()]
for step in range(4):
    opt.zero_grad()
    sr = net(lr)
    loss = F.l1_loss(sr, hr) + 0.1 * (1 - ssim(sr, hr, win).mean()) + 0.05 * fft_loss(sr, hr) + 0.01 * tv(sr)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(net.parameters(), 1.0, foreach=True)
    opt.step()
    with torch.no_grad():
        params = [p.detach() for p in net.parameters()]
        torch._foreach_mul_(ema, 0.9)
        torch._foreach_add_(ema, params, alpha=0.1)
    print("step", step, round(loss.item(), 4), round(norm.item(), 4), r(psnr(sr, hr)))
diff = torch._foreach_sub([p.detach() for p in net.parameters()], ema)
print("ema gap", round(sum(d.abs().sum().item() for d in diff), 4), len(diff))
norms = torch._foreach_norm(ema)
print("foreach_norm", r(torch.stack(norms), 4))
q = torch.quantile(hr.flatten(1), torch.tensor([0.01, 0.99]), dim=1)
print("quantile", tuple(q.shape), r(q[:, 0]), r(torch.kthvalue(hr.flatten(), 5).values))
norm01 = ((hr - q[0][:, None, None, None]) / (q[1] - q[0])[:, None, None, None]).clip(0, 1)
print("percentile norm", r(norm01.mean(dim=(1, 2, 3))), round(math.log10(4.0), 4))
