"""MRI reconstruction basics: centred orthonormal FFTs over the last two dims with fftshift/ifftshift, Cartesian
undersampling masks with a fully sampled centre, zero-filled and root-sum-of-squares coil combination, coil
sensitivities with SENSE-style combination, a data-consistency step, complex views and their gradients, and SSIM/PSNR
of the reconstruction."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
H, W, C = 16, 12, 4
yy, xx = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
img = ((xx / 0.7) ** 2 + (yy / 0.9) ** 2 < 1).float() * 0.8 + ((xx - 0.2) ** 2 + yy**2 < 0.1).float() * 0.5
phase = torch.exp(1j * 0.3 * xx)
x = img * phase
print("image", x.dtype, tuple(x.shape), round(x.abs().sum().item(), 4))
centres = torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]])
sens = torch.stack(
    [
        torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 2.0) * torch.exp(torch.tensor(0.5j * k))
        for k, (cy, cx) in enumerate(centres.tolist())
    ]
)
rss_norm = torch.sqrt((sens.abs() ** 2).sum(0, keepdim=True))
sens = sens / rss_norm
print("sens", sens.dtype, tuple(sens.shape), round((sens.abs() ** 2).sum(0).mean().item(), 4))


def fft2c(t):
    return torch.fft.fftshift(torch.fft.fft2(torch.fft.ifftshift(t, dim=(-2, -1)), norm="ortho"), dim=(-2, -1))


def ifft2c(k):
    return torch.fft.fftshift(torch.fft.ifft2(torch.fft.ifftshift(k, dim=(-2, -1)), norm="ortho"), dim=(-2, -1))


coil_imgs = sens * x
kspace = fft2c(coil_imgs)
print("kspace", kspace.dtype, round(kspace.abs().pow(2).sum().item(), 3), round(coil_imgs.abs().pow(2).sum().item(), 3))
print("round trip", torch.allclose(ifft2c(kspace), coil_imgs, atol=1e-5))
g = torch.Generator().manual_seed(1)
mask = torch.rand(W, generator=g) < 0.35
mask[W // 2 - 2 : W // 2 + 2] = True
print("mask", mask.int().tolist(), "acceleration", round(W / mask.sum().item(), 3))
under = kspace * mask.view(1, 1, W)
zf = ifft2c(under)
rss = torch.sqrt((zf.abs() ** 2).sum(0))
sense = (sens.conj() * zf).sum(0)
print("rss", tuple(rss.shape), round(rss.sum().item(), 4), "sense", round(sense.abs().sum().item(), 4))


def dc(pred_k, meas, m, lam=None):
    if lam is None:
        return torch.where(m, meas, pred_k)
    return (1 - m.float()) * pred_k + m.float() * (pred_k + lam * meas) / (1 + lam)


est = sense.clone()
for it in range(5):
    k = fft2c(sens * est)
    k = dc(k, under, mask.view(1, 1, W))
    est = (sens.conj() * ifft2c(k)).sum(0)
    est = torch.complex(est.real.clamp(min=-1, max=1), est.imag)
err0 = (sense.abs() - img).pow(2).mean().sqrt().item()
err1 = (est.abs() - img).pow(2).mean().sqrt().item()
print("dc iterations", round(err0, 4), round(err1, 4), err1 <= err0 + 1e-6)
print("soft dc", round(dc(kspace, under, mask.view(1, 1, W), lam=0.5).abs().sum().item(), 3))

v = torch.view_as_real(est)
print("view_as_real", tuple(v.shape), v.dtype, torch.view_as_complex(v.contiguous()).dtype)
print("polar", round(torch.polar(est.abs(), est.angle()).sub(est).abs().max().item(), 5), est.angle().dtype)
z = x.clone().requires_grad_()
loss = (fft2c(sens * z) * mask).abs().pow(2).sum()
loss.backward()
print("complex grad", z.grad.dtype, round(z.grad.abs().sum().item(), 3), loss.grad_fn.name())
rr = img.clone().requires_grad_()
(torch.fft.rfft2(rr, norm="forward").abs() ** 2).sum().backward()
print("rfft2 grad", tuple(torch.fft.rfft2(img).shape), round(rr.grad.sum().item(), 4))
print("fftfreq", torch.fft.fftshift(torch.fft.fftfreq(6, d=0.5)).tolist(), torch.fft.rfftfreq(6).tolist())


def psnr(a, b, data_range=None):
    dr = b.max() if data_range is None else data_range
    return 10 * torch.log10(dr**2 / F.mse_loss(a, b))


def ssim(a, b, win=5, k1=0.01, k2=0.03, dr=1.0):
    a, b = a[None, None], b[None, None]
    w = torch.ones(1, 1, win, win) / win**2
    mu_a, mu_b = F.conv2d(a, w), F.conv2d(b, w)
    saa = F.conv2d(a * a, w) - mu_a**2
    sbb = F.conv2d(b * b, w) - mu_b**2
    sab = F.conv2d(a * b, w) - mu_a * mu_b
    c1, c2 = (k1 * dr) ** 2, (k2 * dr) ** 2
    s = ((2 * mu_a * mu_b + c1) * (2 * sab + c2)) / ((mu_a**2 + mu_b**2 + c1) * (saa + sbb + c2))
    return s.mean()


print("psnr", round(psnr(rss, img).item(), 3), round(psnr(est.abs(), img, 1.0).item(), 3))
print("ssim", round(ssim(rss / rss.max(), img / img.max()).item(), 4), round(ssim(img, img).item(), 4))
print("nmse", round(((est.abs() - img).norm() ** 2 / img.norm() ** 2).item(), 4), math.isfinite(psnr(img, img).item()))
for bad in [
    lambda: torch.fft.fft2(x, dim=(0, 0)),
    lambda: torch.fft.fft2(x, norm="unitary"),
    lambda: torch.view_as_real(img),
    lambda: torch.view_as_complex(torch.randn(3, 3)),
    lambda: torch.fft.ifftshift(x, dim=3),
    lambda: x.clamp(0, 1),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
