"""FFT-based convolution as long-convolution (Hyena/S4) and signal code writes it: linear convolution by zero-padded
rfft/irfft against F.conv1d with a flipped kernel, circular convolution, batched 2-D FFT convolution against
F.conv2d with circular padding, overlap-add, FFT cross-correlation with argmax lags, and gradients of each."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, k=6):
    return t.detach().double().flatten()[:k].round(decimals=4).tolist()


def fft_conv(u, k):
    L = u.shape[-1]
    n = 2 * L
    y = torch.fft.irfft(torch.fft.rfft(u, n=n) * torch.fft.rfft(k, n=n), n=n, norm="backward")[..., :L]
    return y


B, H, L = 2, 3, 16
u = torch.randn(B, H, L, requires_grad=True)
k = torch.randn(H, L, requires_grad=True) * torch.exp(-0.3 * torch.arange(L))
k = k.detach().requires_grad_(True)
y = fft_conv(u, k)
ref = F.conv1d(F.pad(u, (L - 1, 0)), k.flip(-1).unsqueeze(1), groups=H)
print("causal", tuple(y.shape), r(y), torch.allclose(y, ref, atol=1e-4))
(y * torch.linspace(-1, 1, L)).sum().backward()
gu, gk = u.grad.clone(), k.grad.clone()
u.grad = None
k.grad = None
(ref * torch.linspace(-1, 1, L)).sum().backward()
print("grads", torch.allclose(gu, u.grad, atol=1e-4), torch.allclose(gk, k.grad, atol=1e-4), r(gk))

D = torch.randn(H)
y_skip = fft_conv(u, k) + u * D.unsqueeze(-1)
print("hyena skip", r(y_skip), y_skip.grad_fn.name())

x = torch.arange(8.0)
h = torch.tensor([1.0, -1.0, 0.5, 0, 0, 0, 0, 0])
circ = torch.fft.ifft(torch.fft.fft(x) * torch.fft.fft(h)).real
ref_c = F.conv1d(F.pad(x.view(1, 1, -1), (7, 0), mode="circular"), h.flip(0).view(1, 1, -1)).flatten()
print("circular", circ.round(decimals=4).tolist(), torch.allclose(circ, ref_c, atol=1e-4))

img = torch.randn(2, 1, 8, 8, requires_grad=True)
ker = torch.randn(1, 1, 3, 3)
kp = torch.zeros(8, 8)
kp[:3, :3] = ker[0, 0]
kp = torch.roll(kp, shifts=(-1, -1), dims=(0, 1))
y2 = torch.fft.irfft2(torch.fft.rfft2(img) * torch.fft.rfft2(kp), s=(8, 8))
ref2 = F.conv2d(F.pad(img, (1, 1, 1, 1), mode="circular"), ker.flip(-1, -2))
print("fft2 conv", torch.allclose(y2, ref2, atol=1e-4), r(y2))
y2.pow(2).sum().backward()
print("fft2 grad", r(img.grad))

sig = torch.randn(40)
fir = torch.tensor([0.25, 0.5, 0.25])
block = 10
out = torch.zeros(40 + 2)
for s in range(0, 40, block):
    seg = sig[s : s + block]
    n = block + 2
    conv = torch.fft.irfft(torch.fft.rfft(seg, n=n) * torch.fft.rfft(fir, n=n), n=n)
    out[s : s + n] += conv
direct = F.conv1d(sig.view(1, 1, -1), fir.flip(0).view(1, 1, -1), padding=2).flatten()
print("overlap-add", torch.allclose(out, direct, atol=1e-5), r(out))

a = torch.randn(64)
b = torch.roll(a, 5) + 0.05 * torch.randn(64)
xc = torch.fft.irfft(torch.fft.rfft(b) * torch.fft.rfft(a).conj(), n=64)
print("xcorr lag", xc.argmax().item(), round(xc.max().item(), 4))
norm_x = torch.fft.irfft(
    torch.fft.rfft(b) * torch.fft.rfft(a).conj() / (torch.fft.rfft(b) * torch.fft.rfft(a).conj()).abs().clamp_min(1e-8),
    n=64,
)
print("phat lag", norm_x.argmax().item())
A = torch.fft.fft2(torch.randn(8, 8))
shifted = torch.fft.ifft2(
    A * torch.exp(-2j * torch.pi * (torch.fft.fftfreq(8)[:, None] * 2 + torch.fft.fftfreq(8)[None] * 3))
).real
R = torch.fft.fft2(shifted) * A.conj()
pc = torch.fft.ifft2(R / R.abs()).real
idx = pc.argmax()
print("phase corr", divmod(idx.item(), 8))

long = torch.randn(1, 4, 64, dtype=torch.float64, requires_grad=True)
kern = torch.randn(4, 64, dtype=torch.float64, requires_grad=True)
print(
    "gradcheck",
    torch.autograd.gradcheck(
        lambda a, b: fft_conv(a, b)[..., ::7],
        (long[..., :9].detach().requires_grad_(), kern[:, :9].detach().requires_grad_()),
    ),
)
yl = fft_conv(long, kern)
yl.sum().backward()
print("long", tuple(yl.shape), yl.dtype, round(long.grad.abs().sum().item(), 4))
try:
    torch.fft.rfft(u, n=8) * torch.fft.rfft(k, n=16)
except Exception as e:
    print(type(e).__name__, e)
