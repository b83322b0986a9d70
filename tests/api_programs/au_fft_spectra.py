"""torch.fft as audio analysis uses it: rfft/irfft with n= (zero-padding and truncation) and every norm, fftfreq
and rfftfreq with d=, fftshift/ifftshift over dims, power spectral density with Parseval checks, zero-padded
interpolation of a peak, cepstra, fft-based convolution against conv1d, autocorrelation pitch estimation, and
dtype rules for half-spectra."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
SR = 8000

x = torch.randn(16)
for norm in [None, "backward", "ortho", "forward"]:
    X = torch.fft.rfft(x, norm=norm)
    back = torch.fft.irfft(X, n=16, norm=norm)
    print("norm", norm, tuple(X.shape), X.dtype, round(X.abs().sum().item(), 4), "round trip",
          torch.allclose(back, x, atol=1e-5))
X_o = torch.fft.rfft(x, norm="ortho")
energy_t = x.pow(2).sum()
energy_f = X_o[0].abs() ** 2 + 2 * X_o[1:-1].abs().pow(2).sum() + X_o[-1].abs() ** 2
print("parseval", round(energy_t.item(), 4), round(energy_f.item(), 4))

for n in (8, 16, 20, 33):
    Xn = torch.fft.rfft(x, n=n)
    print("rfft n", n, tuple(Xn.shape), round(Xn[0].real.item(), 4), round(Xn.abs()[-1].item(), 4))
print("irfft default n", torch.fft.irfft(torch.fft.rfft(x)).shape, torch.fft.irfft(torch.fft.rfft(x[:15])).shape)
print("irfft odd n=15 round trip", torch.allclose(torch.fft.irfft(torch.fft.rfft(x[:15]), n=15), x[:15], atol=1e-5))

print("fftfreq", torch.fft.fftfreq(8).tolist())
print("fftfreq d", torch.fft.fftfreq(5, d=1 / SR).tolist())
print("rfftfreq", torch.fft.rfftfreq(8, d=0.5).tolist(), torch.fft.rfftfreq(7).dtype)
print("rfftfreq float64", torch.fft.rfftfreq(4, dtype=torch.float64))
f = torch.fft.fftfreq(6)
print("fftshift", torch.fft.fftshift(f).tolist(), torch.fft.ifftshift(torch.fft.fftshift(f)).tolist())
grid = torch.arange(12.0).reshape(3, 4)
print("fftshift dims", torch.fft.fftshift(grid).tolist())
print("fftshift dim=1", torch.fft.fftshift(grid, dim=1).tolist(), torch.fft.fftshift(grid, dim=(0,)).tolist())

t = torch.arange(512) / SR
sig = torch.sin(2 * math.pi * 1000.3 * t) + 0.3 * torch.sin(2 * math.pi * 2437.0 * t)
win = torch.hann_window(512, periodic=True)
spec = torch.fft.rfft(sig * win)
freqs = torch.fft.rfftfreq(512, d=1 / SR)
psd = spec.abs().pow(2) / (SR * win.pow(2).sum())
psd[1:-1] *= 2
top = psd.topk(2)
print("psd peaks", [round(v, 2) for v in freqs[top.indices].tolist()], "total power", round(psd.sum().item() * SR / 512,
                                                                                           4))
spec_pad = torch.fft.rfft(sig * win, n=8192)
fine = torch.fft.rfftfreq(8192, d=1 / SR)
print("zero-padded peak", round(fine[spec_pad.abs().argmax()].item(), 3))
k = spec.abs().argmax()
a, b, c = spec.abs()[k - 1 : k + 2].log().tolist()
delta = 0.5 * (a - c) / (a - 2 * b + c)
print("parabolic peak", round(((k + delta) * SR / 512).item(), 2))

cep = torch.fft.irfft(torch.log(spec.abs() + 1e-2))
print("real cepstrum", tuple(cep.shape), [round(v, 4) for v in cep[:4].tolist()])

a_sig = torch.randn(1, 1, 50)
kern = torch.randn(1, 1, 7)
n_lin = 50 + 7 - 1
fft_conv = torch.fft.irfft(torch.fft.rfft(a_sig, n=n_lin) * torch.fft.rfft(kern, n=n_lin), n=n_lin)
direct = F.conv1d(F.pad(a_sig, (6, 6)), kern.flip(-1))
print("fft conv == conv1d(flipped)", tuple(fft_conv.shape), torch.allclose(fft_conv, direct, atol=1e-4))

t2 = torch.arange(1024) / 16000
voiced = sum(torch.sin(2 * math.pi * 180.0 * h * t2) / h for h in range(1, 5)) + 0.05 * torch.randn(1024)
Xv = torch.fft.rfft(voiced - voiced.mean(), n=2048)
ac = torch.fft.irfft(Xv.abs().pow(2), n=2048)[:1024]
ac = ac / ac[0]
lo, hi = 16000 // 400, 16000 // 60
lag = ac[lo:hi].argmax() + lo
print("autocorr pitch", round(16000 / lag.item(), 2), "lag", lag.item(), round(ac[lag].item(), 4))

xb = torch.randn(3, 2, 16, dtype=torch.float64)
Xb = torch.fft.rfft(xb, dim=1)
print("dim=1", tuple(Xb.shape), Xb.dtype)
X2 = torch.fft.rfft2(xb)
print("rfft2", tuple(X2.shape), torch.allclose(torch.fft.irfft2(X2, s=xb.shape[-2:]), xb))
Xh = torch.fft.fft(torch.randn(8, dtype=torch.float16).float())
print("fft of real", Xh.dtype, torch.fft.fft(torch.arange(4)).dtype, torch.fft.rfft(torch.arange(4.0).double()).dtype)
hf = torch.fft.hfft(torch.tensor([1.0, 2.0, 3.0]).to(torch.complex64), n=4)
print("hfft", hf.tolist(), torch.fft.ihfft(hf).tolist())


def show(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:160])


show(lambda: torch.fft.rfft(torch.randn(4, dtype=torch.complex64)))
show(lambda: torch.fft.rfft(x, norm="unit"))
show(lambda: torch.fft.rfft(x, n=0))
show(lambda: torch.fft.irfft(torch.ones(1, dtype=torch.complex64)))
show(lambda: torch.fft.fftfreq(-1))
