"""torch.fft as spectral code uses it: norm modes, n= padding/cropping, multi-dim transforms, hermitian transforms."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

x = torch.randn(8)
print("x", x)
for norm in [None, "backward", "ortho", "forward"]:
    X = torch.fft.fft(x, norm=norm)
    back = torch.fft.ifft(X, norm=norm)
    print(f"fft norm={norm}", X.dtype, X[:3], f"roundtrip={(back.real - x).abs().max().item():.4f}")
    print("  energy ratio", round((X.abs() ** 2).sum().item() / (x**2).sum().item(), 4))

# n= pads with zeros or crops
print("fft n=12", torch.fft.fft(x, n=12).shape, torch.fft.fft(x, n=12)[:4])
print("fft n=5", torch.fft.fft(x, n=5))
print("rfft", torch.fft.rfft(x).shape, torch.fft.rfft(x))
print("rfft n=10", torch.fft.rfft(x, n=10).shape)
print("irfft default n", torch.fft.irfft(torch.fft.rfft(x)).shape, torch.fft.irfft(torch.fft.rfft(x)))
print("irfft odd n", torch.fft.irfft(torch.fft.rfft(x, n=9), n=9))
print("irfft ortho", torch.fft.irfft(torch.fft.rfft(x, norm="ortho"), n=8, norm="ortho"))

# hermitian transforms
h = torch.fft.ihfft(x)
print("ihfft", h.shape, h.dtype, h)
print("hfft(ihfft)", torch.fft.hfft(h, n=8))
print("hfft forward", torch.fft.hfft(h, n=8, norm="forward"))

# double precision
xd = x.double()
Xd = torch.fft.fft(xd)
print("double", Xd.dtype, torch.fft.rfft(xd).dtype, torch.fft.irfft(torch.fft.rfft(xd)).dtype)
print("ints promote", torch.fft.fft(torch.arange(4)).dtype, torch.fft.rfft(torch.arange(4)))

# 2-d and n-d
img = torch.randn(2, 6, 8)
F2 = torch.fft.fft2(img)
print("fft2", F2.shape, F2[0, 0, :3])
print("ifft2 roundtrip", round((torch.fft.ifft2(F2).real - img).abs().max().item(), 4))
print("fftn dims", torch.fft.fftn(img, dim=(1, 2)).allclose(F2))
print("fftn s=", torch.fft.fftn(img, s=(4, 4), dim=(-2, -1)).shape)
R = torch.fft.rfft2(img)
print("rfft2", R.shape, R[1, 2, :3])
print("irfft2", torch.fft.irfft2(R, s=img.shape[-2:]).sub(img).abs().max().item() < 1e-5)
Rn = torch.fft.rfftn(img, norm="ortho")
print("rfftn all dims", Rn.shape, round(Rn.abs().pow(2).sum().item(), 4))
print("irfftn", torch.fft.irfftn(Rn, s=img.shape, norm="ortho").sub(img).abs().max().item() < 1e-5)
print("fft along dim 1", torch.fft.fft(img, dim=1).shape, torch.fft.fft(img, dim=1)[0, :2, 0])

# frequency axes and shifts
print("fftfreq", torch.fft.fftfreq(8))
print("fftfreq d", torch.fft.fftfreq(5, d=0.1))
print("rfftfreq", torch.fft.rfftfreq(8, d=1 / 16))
print("fftfreq dtype", torch.fft.fftfreq(4, dtype=torch.float64).dtype)
f = torch.fft.fftfreq(8)
print("fftshift", torch.fft.fftshift(f))
print("ifftshift", torch.fft.ifftshift(torch.fft.fftshift(f)))
grid = torch.arange(12).reshape(3, 4)
print("fftshift 2d\n", torch.fft.fftshift(grid))
print("fftshift dim=1\n", torch.fft.fftshift(grid, dim=1))

# a tone's peak bin
fs, N = 64.0, 64
t = torch.arange(N) / fs
tone = torch.sin(2 * math.pi * 5 * t) + 0.5 * torch.sin(2 * math.pi * 12 * t)
spec = torch.fft.rfft(tone)
mag = spec.abs() / (N / 2)
freqs = torch.fft.rfftfreq(N, 1 / fs)
top = mag.topk(2)
print("peaks Hz", freqs[top.indices], top.values)
print("phase at 5Hz", round(spec[5].angle().item(), 4))

# Parseval and convolution theorem
a, b = torch.randn(16), torch.randn(16)
circ = torch.fft.ifft(torch.fft.fft(a) * torch.fft.fft(b)).real
idx = torch.arange(16)
direct = torch.stack([(a * b[(k - idx) % 16]).sum() for k in range(16)])
print("circular conv", circ[:4], round((circ - direct).abs().max().item(), 4))
print("parseval", round((a**2).sum().item(), 4), round((torch.fft.fft(a).abs() ** 2).sum().item() / 16, 4))

# complex input, out of place on non-contiguous
z = torch.randn(4, 6, dtype=torch.complex64)
print("complex fft", torch.fft.fft(z.t(), dim=0).shape, torch.fft.fft(z[:, ::2])[0])
print("fft of conj", torch.fft.fft(z.conj())[0, :2])

# errors
for fn in [
    lambda: torch.fft.fft(x, norm="bogus"),
    lambda: torch.fft.rfft(z),
    lambda: torch.fft.fft(x, n=0),
    lambda: torch.fft.fft(x, dim=3),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
