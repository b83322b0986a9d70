"""torch.fft docstring examples: fft/ifft/rfft/irfft with n, dim and norm, 2-D/N-D forms, shifts, frequencies."""

import numpy as np
import torch


def r(t):
    return torch.round(t.real, decimals=4) + 0.0, torch.round(t.imag, decimals=4) + 0.0


t = torch.arange(4)
print("fft", r(torch.fft.fft(t)), torch.fft.fft(t).dtype)
tc = torch.tensor([0.0 + 1.0j, 2.0 + 3.0j, 4.0 + 5.0j, 6.0 + 7.0j])
print("fft complex", r(torch.fft.fft(tc)))
print("fft n", r(torch.fft.fft(t.float(), n=6)), r(torch.fft.fft(t.float(), n=2)))
for norm in ["backward", "forward", "ortho"]:
    print(
        "fft norm",
        norm,
        r(torch.fft.fft(t.float(), norm=norm)),
        r(torch.fft.ifft(torch.fft.fft(t.float(), norm=norm), norm=norm)),
    )
print("ifft", r(torch.fft.ifft(torch.tensor([6.0 + 0.0j, -2.0 + 2.0j, -2.0 + 0.0j, -2.0 - 2.0j]))))
x2 = torch.arange(12.0).reshape(3, 4)
print("fft dim", r(torch.fft.fft(x2, dim=0)), torch.fft.fft(x2, dim=-1).shape)
print(
    "fft2",
    r(torch.fft.fft2(x2)),
    torch.fft.fft2(x2, s=(4, 4)).shape,
    torch.fft.fft2(torch.ones(2, 3, 4), dim=(0, 2)).shape,
)
print("ifft2", r(torch.fft.ifft2(torch.fft.fft2(x2))))
print(
    "fftn",
    r(torch.fft.fftn(torch.ones(2, 2, 2))),
    torch.fft.fftn(torch.ones(2, 3, 4), s=(5,)).shape,
    torch.fft.fftn(torch.ones(2, 3), dim=(0,)).shape,
)
print("rfft", r(torch.fft.rfft(t)), torch.fft.rfft(torch.arange(5.0)).shape, torch.fft.rfft(t.float(), n=8).shape)
print(
    "rfft dtype",
    torch.fft.rfft(torch.ones(4, dtype=torch.float64)).dtype,
    torch.fft.rfft(torch.tensor([True, False])).dtype,
)
tr = torch.arange(5.0)
T = torch.fft.rfft(tr)
print("irfft", torch.fft.irfft(T).round(decimals=4), torch.fft.irfft(T, tr.numel()).round(decimals=4))
print("irfft n", torch.fft.irfft(T, n=8).shape, torch.fft.irfft(torch.tensor([1.0, 0.0])).round(decimals=4))
print("rfft2 irfft2", torch.fft.rfft2(x2).shape, torch.fft.irfft2(torch.fft.rfft2(x2), s=x2.shape).round(decimals=4))
print(
    "rfftn irfftn",
    torch.fft.rfftn(torch.ones(2, 3, 4)).shape,
    torch.fft.irfftn(torch.fft.rfftn(torch.ones(2, 3, 4)), s=(2, 3, 4)).round(decimals=4).sum(),
)
ht = torch.linspace(0, 1, 5)
print(
    "hfft",
    torch.fft.hfft(torch.fft.ifft(ht)[:3], ht.numel()).round(decimals=4),
    torch.fft.hfft(torch.tensor([1.0, 2.0 + 1j])).round(decimals=4),
)
print("ihfft", r(torch.fft.ihfft(torch.arange(5.0))), torch.fft.ihfft(torch.arange(5.0)).shape)
f = torch.fft.fftfreq(5)
print("fftfreq", f, torch.fft.fftfreq(4), torch.fft.fftfreq(4, d=0.5), torch.fft.fftfreq(3, dtype=torch.float64).dtype)
print("rfftfreq", torch.fft.rfftfreq(5), torch.fft.rfftfreq(4), torch.fft.rfftfreq(4, 0.1))
print(
    "fftshift",
    torch.fft.fftshift(f),
    torch.fft.ifftshift(torch.fft.fftshift(f)),
    torch.fft.fftshift(torch.fft.fftfreq(4)),
)
xs, ys = torch.meshgrid(torch.fft.fftfreq(4), torch.fft.fftfreq(2), indexing="ij")
print(
    "fftshift 2d",
    torch.fft.fftshift(xs),
    torch.fft.fftshift(ys, dim=1),
    torch.fft.fftshift(torch.arange(6).reshape(2, 3), dim=(0,)),
)
print("ifftshift", torch.fft.ifftshift(torch.arange(5)), torch.fft.ifftshift(torch.arange(6).reshape(2, 3)))
sig = torch.from_numpy(np.cos(2 * np.pi * 3 * np.arange(16) / 16))
spec = torch.fft.rfft(sig)
print("peak", spec.abs().argmax(), spec.abs().round(decimals=4), torch.fft.irfft(spec, 16).sub(sig).abs().max() < 1e-12)
print("parseval", torch.allclose((sig**2).sum(), (torch.fft.fft(sig).abs() ** 2).sum() / 16))
print("grad through fft", torch.fft.rfft(torch.ones(4, requires_grad=True)).abs().sum().grad_fn.name())
for bad in [
    lambda: torch.fft.fft(t.float(), n=0),
    lambda: torch.fft.fft(t.float(), norm="whatever"),
    lambda: torch.fft.fft(t.float(), dim=1),
    lambda: torch.fft.rfft(tc),
    lambda: torch.fft.irfft(T, n=0),
    lambda: torch.fft.fft2(t.float()),
    lambda: torch.fft.fftn(x2, s=(2, 2, 2, 2)),
    lambda: torch.fft.fftn(x2, s=(2, 2), dim=(0,)),
    lambda: torch.fft.fftn(x2, dim=(0, 0)),
    lambda: torch.fft.fftfreq(-1),
    lambda: torch.fft.ihfft(tc),
    lambda: torch.fft.fft(torch.tensor(1.0)),
    lambda: torch.fft.fft(torch.ones(4, dtype=torch.float16)),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
